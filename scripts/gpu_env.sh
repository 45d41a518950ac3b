# Sourced by the GPU scripts (gpu_check.sh, gpu_real_model.sh): on a GPU machine with no
# network, installs the carried wheelhouse (.whl/, built by scripts/build_wheelhouse.sh) into
# /tmp/awm-site when the modules named in $GPU_IMPORTS are not importable, puts the repository
# on PYTHONPATH and sets the offline, unbuffered environment. Sets $PYTHON.
PYTHON="${PYTHON:-$(command -v python3)}"
if [ -d .whl ] && ! "$PYTHON" -c "import ${GPU_IMPORTS:-gymnasium, fastapi, sqlalchemy, mcp}" 2>/dev/null; then
  "$PYTHON" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/awm-site .whl/*.whl
  export PYTHONPATH="/tmp/awm-site${PYTHONPATH:+:$PYTHONPATH}"
fi
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONUNBUFFERED=1 TOKENIZERS_PARALLELISM=false HF_HUB_DISABLE_PROGRESS_BARS=1 \
  HF_DATASETS_DISABLE_PROGRESS_BARS=1 HF_HUB_OFFLINE=1
