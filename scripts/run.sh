#!/usr/bin/env bash
# The main job on the embedded default: install awm-gym, check the built-in worlds (every task
# proved by its reference solution and verifier), then replay the reference solutions on 64
# batched instances of AWM/spotify-v0. Later stages (tiny local model, SFT, GRPO) extend this.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${VENV:-.venv}"
python3 -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --upgrade pip
"$VENV/bin/python" -m pip install -q -e .
"$VENV/bin/awm" list
"$VENV/bin/awm" check
"$VENV/bin/awm" demo --world spotify --num-envs 64
