"""One rank of test_parallel_memory.py (launched by torchrun, two gloo ranks on CPU).

``OUT``: each check builds the same random tiny Llama on both ranks, shards it with the
trainer's :func:`agents.parallel.wrap_for_training` (FSDP2) and writes what it saw to
``OUT/<check><rank>.pt``; a check that raises writes ``{"error": ...}`` instead, so each test
fails with its own reason.

* ``fsdp_accumulation``: one micro-batch's backward under the trainer's accumulation context
  (:func:`agents.parallel.gradient_sync` with ``enabled=False``): where the gradients are.
* ``stream_sync``: :meth:`VLLMBackend.load_weights` of the sharded model into a recording
  stand-in for vLLM's engine: the bytes of tensors alive beyond the model, at most, and the
  tensors it received.
* ``frozen_bf16``: the sharded model in a bfloat16 run: the dtype its layers compute with,
  and the dtypes of its shards and gradients.
"""

from __future__ import annotations

import sys
import traceback
import types
import weakref
from typing import Any


def _model(dtype: Any = None) -> Any:
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)  # the same weights on every rank
    config = LlamaConfig(vocab_size=256, hidden_size=64, intermediate_size=128,
                         num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                         max_position_embeddings=128, tie_word_embeddings=True)
    return LlamaForCausalLM(config).to(dtype or torch.float32)


def _backward(module: Any, rank: int) -> None:
    import torch

    g = torch.Generator().manual_seed(rank)
    ids = torch.randint(0, 256, (2, 16), generator=g)
    module(input_ids=ids).logits.float().square().mean().backward()


def check_fsdp_accumulation(world: Any) -> dict[str, Any]:
    from torch.distributed.tensor import DTensor

    from agents.parallel import gradient_sync, wrap_for_training

    module = wrap_for_training(_model(), "fsdp", world)
    with gradient_sync(module, enabled=False):  # a micro-batch before the step's last one
        _backward(module, world.rank)
    grads = {}
    for name, p in module.named_parameters():
        g = p.grad
        grads[name] = {"numel": p.numel(), "shard_numel": p.to_local().numel(),
                       "is_dtensor": isinstance(g, DTensor),
                       "grad_local_numel": None if g is None else
                       (g.to_local() if isinstance(g, DTensor) else g).numel()}
    return {"grads": grads}


class _Recorder:
    """The stand-in for vLLM's worker: takes the weights as ``reload_weights`` would, keeping
    only weak references, and notes the bytes of received tensors still alive that are not
    the model's own storage (the most at any one time)."""

    def __init__(self, model_storages: set[int]) -> None:
        self.model_storages = model_storages
        self.alive: list[tuple[weakref.ref, int]] = []
        self.max_alive_bytes = 0
        self.received: dict[str, Any] = {}

    def reload_weights(self, weights_iterator: Any = None, weights_path: Any = None) -> None:
        for name, tensor in weights_iterator:
            if tensor.untyped_storage().data_ptr() not in self.model_storages:
                self.alive.append((weakref.ref(tensor), tensor.numel() * tensor.element_size()))
            now = sum(n for ref, n in self.alive if ref() is not None)
            self.max_alive_bytes = max(self.max_alive_bytes, now)
            self.received[name] = tensor.detach().clone()
            del tensor


def _fake_vllm(recorder: _Recorder) -> Any:
    class FakeLLM:
        def __init__(self, **kwargs: Any) -> None:
            self.llm_engine = types.SimpleNamespace(
                model_config=types.SimpleNamespace(dtype="torch.float32"))

        def collective_rpc(self, method: Any, timeout: Any = None, args: tuple = (),
                           kwargs: dict | None = None) -> list[Any]:
            return [method(recorder, *args, **(kwargs or {}))]

        def reset_prefix_cache(self) -> None:
            pass

    return types.SimpleNamespace(LLM=FakeLLM)


def check_stream_sync(world: Any) -> dict[str, Any]:
    from agents.parallel import wrap_for_training
    from agents.policies.sampling import SamplingConfig
    from agents.policies.vllm_policy import VLLMBackend

    model = _model()
    reference = {k: v.detach().clone() for k, v in model.state_dict().items()}
    module = wrap_for_training(model, "fsdp", world)
    storages = {p.to_local().untyped_storage().data_ptr() for p in module.parameters()}
    recorder = _Recorder(storages)
    sys.modules["vllm"] = _fake_vllm(recorder)
    try:
        backend = VLLMBackend("unused", SamplingConfig())
        backend.load_weights(model)
    finally:
        del sys.modules["vllm"]
    sizes = {k: v.numel() * v.element_size() for k, v in reference.items()}
    return {"max_alive_bytes": recorder.max_alive_bytes, "largest_bytes": max(sizes.values()),
            "model_bytes": sum(sizes.values()), "received": recorder.received,
            "reference": reference}


def check_frozen_bf16(world: Any) -> dict[str, Any]:
    import torch

    from agents.parallel import gradient_sync, wrap_for_training

    model = _model()
    seen: list[Any] = []
    q_proj = model.model.layers[0].self_attn.q_proj
    q_proj.register_forward_hook(lambda m, i, o: seen.append(m.weight.dtype))
    module = wrap_for_training(model, "fsdp", world, dtype="bfloat16")
    with gradient_sync(module, enabled=True), torch.autocast("cpu", dtype=torch.bfloat16):
        _backward(module, world.rank)
    return {"compute_dtype": str(seen[0]),
            "shard_dtypes": sorted({str(p.dtype) for p in module.parameters()}),
            "grad_dtypes": sorted({str(p.grad.dtype) for p in module.parameters()
                                   if p.grad is not None})}


CHECKS = {"fsdp_accumulation": check_fsdp_accumulation, "stream_sync": check_stream_sync,
          "frozen_bf16": check_frozen_bf16}


if __name__ == "__main__":
    import torch

    from agents.parallel import init_distributed

    torch.set_num_threads(1)
    out_dir = sys.argv[1]
    dist_info = init_distributed("cpu", timeout_s=300)
    for check_name, check in CHECKS.items():
        try:
            result = check(dist_info)
        except Exception:  # noqa: BLE001 - reported to the test that reads this check
            result = {"error": traceback.format_exc()}
        torch.save(result, f"{out_dir}/{check_name}{dist_info.rank}.pt")
        torch.distributed.barrier()
    torch.distributed.destroy_process_group()
