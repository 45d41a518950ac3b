#!/usr/bin/env bash
# Build .whl/: the wheels awm_gym needs that a GPU machine's image lacks (Python 3.12, x86-64,
# no network there). The image already holds PyTorch, transformers, peft, numpy, pyarrow, pandas,
# huggingface_hub and the rest of DEVICE_HAS below; everything else our core dependencies pull in
# is downloaded here at the versions this checkout's .venv runs (so the GPU check runs the stack
# CI tests), then installed there with `pip install --no-index --no-deps --target`.
# Usage: scripts/build_wheelhouse.sh [OUT_DIR]   (default .whl; PYTHON=... picks the venv)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${1:-.whl}"
PYTHON="${PYTHON:-.venv/bin/python}"
PY_VERSION="${PY_VERSION:-3.12}"
MAX_MB="${MAX_MB:-60}"
# packages of the GPU image (/work/.library/device/KINDS.md, "Python packages already there"),
# normalized names; their wheels are left out
DEVICE_HAS="accelerate aiohttp aiosignal aiohappyeyeballs anyio attrs certifi charset-normalizer
click cloudpickle colorama filelock frozenlist fsspec h11 hf-xet httpcore httpx huggingface-hub idna
jinja2 markupsafe markdown-it-py mdurl msgpack multidict numpy packaging pandas peft pillow
propcache protobuf psutil pyarrow pygments python-dateutil pyyaml regex requests rich safetensors
setuptools shellingham six sympy mpmath tokenizers torch tqdm transformers triton typer
typing-extensions tzdata urllib3 wheel xxhash yarl networkx"
rm -rf "$OUT" && mkdir -p "$OUT"
constraints="$(mktemp)"
"$PYTHON" -m pip freeze --exclude-editable | grep -v -E '^(torch|awm-gym)==' > "$constraints"
"$PYTHON" -m pip download -q --only-binary=:all: --python-version "$PY_VERSION" --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 \
  --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 --platform any \
  -c "$constraints" -d "$OUT" \
  "gymnasium>=1.2,<2" "fastapi>=0.115.12,<0.200" "starlette>=0.46.2,<2" "pydantic>=2.12.5,<3" \
  "sqlalchemy>=2.0.41,<2.2" "fastapi-mcp>=0.4.0,<0.5" "mcp>=1.26.0,<3" "jsonschema>=4.20" \
  "json-repair>=0.30" "datasets>=3.0" "uvicorn>=0.35" "websockets>=13" "openai>=1.40" \
  "gguf>=0.10" "trl>=1.16,<2"   # gpu_real_model.sh: SmolLM2's GGUF, TRL's GRPOTrainer beside ours
rm -f "$constraints"
for name in $DEVICE_HAS; do
  pattern="$(echo "$name" | tr '-' '_')"
  rm -f "$OUT"/"$pattern"-[0-9]*.whl "$OUT"/"$name"-[0-9]*.whl
done
size_mb=$(du -sm "$OUT" | cut -f1)
echo "wheelhouse $OUT: $(ls "$OUT" | wc -l) wheels, ${size_mb} MB"
if [ "$size_mb" -gt "$MAX_MB" ]; then
  echo "error: the wheelhouse is ${size_mb} MB, above the ${MAX_MB} MB a device call carries; add the" \
       "largest wheels the image already has to DEVICE_HAS" >&2
  exit 1
fi
