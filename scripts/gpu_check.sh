#!/usr/bin/env bash
# GPU readiness check (scripts/gpu_check.py): process group with the chosen backend, one GRPO
# update through DDP and FSDP2 (one rank, NCCL) against the unwrapped one, the merged
# LoRA sync tensors (whole and streamed), GRPO steps in bf16 on CUDA for the tiny model and
# random-initialised SmolLM2-135M- and ~0.5B-shaped models, with step times split into
# generate/train/env/sync, and a vLLM engine sleeping through an update (sleep mode; needs vLLM).
# Usage:
#   scripts/gpu_check.sh [--dry-run] [--steps N] [--shapes tiny,smollm2-135m,qwen2.5-0.5b]
# On a GPU machine with no network, first carry the wheelhouse built here by
# scripts/build_wheelhouse.sh (.whl/, <= 60 MB): this script installs it into /tmp/awm-site
# when .whl/ exists and awm_gym's dependencies are not importable. --dry-run runs the same code
# on CPU in float32 with the shapes shrunk (CI: tests/integration/agents/test_gpu_check.py).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu_env.sh
exec "$PYTHON" scripts/gpu_check.py "$@"
