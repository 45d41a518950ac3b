"""``import agents`` stays light: no torch, transformers, vLLM or openai until a model loads."""

from __future__ import annotations

import subprocess
import sys


def test_import_agents_is_light():
    code = ("import sys, agents, agents.policies, agents.grpo, agents.cli, agents.config; "
            "print(sorted(m for m in ('torch', 'transformers', 'vllm', 'openai') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
