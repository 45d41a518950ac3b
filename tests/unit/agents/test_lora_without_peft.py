"""agents/lora.py without peft installed: both ways into LoRA (a fresh adapter, a saved one)
say which extra to install instead of failing on an import deep in a run."""

from __future__ import annotations

import sys

import pytest

pytest.importorskip("torch")

from agents.errors import ModelLoadError  # noqa: E402
from agents.lora import LoRAConfig, apply_lora, load_adapter  # noqa: E402


@pytest.mark.parametrize("call", [lambda: apply_lora(object(), LoRAConfig(r=4)),
                                  lambda: load_adapter(object(), "out/adapter")],
                         ids=["apply_lora", "load_adapter"])
def test_without_peft_lora_names_the_extra(monkeypatch, call):
    monkeypatch.setitem(sys.modules, "peft", None)  # `import peft` now raises ImportError
    with pytest.raises(ModelLoadError, match=r"awm-gym\[lora\]"):
        call()
