"""Peak memory per rank of the data-parallel paths issue 41 rows 3, 4 and 7 changed (CPU, gloo).

Usage (two ranks; the "before" column: the same command with ``PYTHONPATH`` set to a checkout
of the older commit, e.g. ``git archive 89e3d0b | tar -x -C /tmp/base``)::

    MALLOC_MMAP_THRESHOLD_=1048576 OMP_NUM_THREADS=1 torchrun --standalone \\
        --nproc_per_node 2 scripts/parallel_memory.py --out out/parallel_memory

A random Llama (``--hidden``, ``--layers``, ``--vocab``; tied embeddings) is saved with the tiny
model's tokenizer, then each phase runs on both ranks through the trainer's own functions.
Before a phase each rank resets its resident-set high-water mark (``/proc/self/clear_refs``)
and after it reports the peak above the phase's start (MB; the fixed malloc mmap threshold
makes freed tensors leave the resident set, so the peak follows live tensors); rank 0 prints
one JSON line per phase with the larger of the two ranks' numbers:

* ``fsdp_accumulation``: FSDP2 full fine-tune, 4 micro-batches through
  :func:`agents.parallel.gradient_sync` (the last one enabled), as the trainer accumulates;
* ``sync_fsdp`` / ``sync_lora``: :meth:`VLLMBackend.load_weights` of the FSDP2 model, and of a
  LoRA (r=16) model, into a stand-in for vLLM's worker that keeps weak references only: the
  peak, and the most bytes handed over that were alive at once beyond the model;
* ``load_lora_bf16``: ``awm train``'s GRPO model (LoRA r=16, ``--model.dtype bfloat16``,
  KL on: :func:`load_start_model`, :func:`prepare_for_training`, :func:`make_trainer` with its
  reference model) under DDP: the peak (the safetensors file's mapped pages count while it is
  read), the resident MB still held after it, and the bytes of the model's and reference's
  tensors;
* ``fsdp_bf16_step``: one FSDP2 forward and backward of the full fine-tune in a bfloat16 run
  (autocast, and FSDP2's mixed precision where ``wrap_for_training`` takes the run's dtype).
"""

from __future__ import annotations

import argparse
import inspect
import json
import re
import sys
import time
import types
import weakref
from pathlib import Path
from typing import Any


def _resident_mb(field: str) -> float:
    text = Path("/proc/self/status").read_text()
    return int(re.search(rf"{field}:\s+(\d+)", text).group(1)) / 1024  # type: ignore[union-attr]


class _Phase:
    """The peak resident MB above the start of a ``with`` block (this process)."""

    def __enter__(self) -> _Phase:
        import gc

        gc.collect()
        Path("/proc/self/clear_refs").write_text("5")  # VmHWM := VmRSS
        self.start = _resident_mb("VmRSS")
        self.t = time.perf_counter()
        return self

    def __exit__(self, *exc: Any) -> None:
        import gc

        gc.collect()
        self.peak_mb = _resident_mb("VmHWM") - self.start
        self.held_mb = _resident_mb("VmRSS") - self.start
        self.seconds = time.perf_counter() - self.t


def _build(out: Path, args: argparse.Namespace) -> Path:
    import torch
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    from agents.tiny_model import TinyModelConfig, build_tiny_model

    model_dir = out / "model"
    if (model_dir / "config.json").exists():
        return model_dir
    tiny = build_tiny_model(out / "tiny", TinyModelConfig.small())
    tok = AutoTokenizer.from_pretrained(tiny)
    config = LlamaConfig(vocab_size=max(args.vocab, len(tok)), hidden_size=args.hidden,
                         intermediate_size=args.hidden * 8 // 3, num_hidden_layers=args.layers,
                         num_attention_heads=args.hidden // 64,
                         num_key_value_heads=max(args.hidden // 256, 1),
                         max_position_embeddings=1024, tie_word_embeddings=True,
                         eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id)
    torch.manual_seed(0)
    LlamaForCausalLM(config).save_pretrained(model_dir, safe_serialization=True)
    tok.save_pretrained(model_dir)
    return model_dir


def _load(model_dir: Path) -> Any:
    from agents.policies.hf_policy import load_model_and_tokenizer

    return load_model_and_tokenizer(str(model_dir), "cpu")[0]


def _micro_backward(module: Any, rank: int, k: int, tokens: int) -> None:
    import torch

    g = torch.Generator().manual_seed(1000 * rank + k)
    vocab = module.config.vocab_size
    ids = torch.randint(0, vocab, (2, tokens // 2), generator=g)
    out = module(input_ids=ids, labels=ids)
    out.loss.backward()


def phase_fsdp_accumulation(world: Any, model_dir: Path, args: argparse.Namespace) -> dict:
    from agents.parallel import gradient_sync, wrap_for_training

    module = wrap_for_training(_load(model_dir), "fsdp", world)
    with _Phase() as p:
        for k in range(4):
            with gradient_sync(module, enabled=k == 3):
                _micro_backward(module, world.rank, k, args.tokens)
    return {"peak_mb": p.peak_mb, "seconds": p.seconds}


class _Worker:
    def __init__(self, storages: set[int]) -> None:
        self.storages, self.alive, self.max_alive = storages, [], 0

    def reload_weights(self, weights_iterator: Any = None, weights_path: Any = None) -> None:
        for _, tensor in weights_iterator:
            if tensor.untyped_storage().data_ptr() not in self.storages:
                self.alive.append((weakref.ref(tensor), tensor.numel() * tensor.element_size()))
            self.max_alive = max(self.max_alive, sum(n for r, n in self.alive if r() is not None))
            del tensor


def _sync(model: Any, module: Any, model_dir: Path) -> dict:
    from agents.policies.sampling import SamplingConfig
    from agents.policies.vllm_policy import VLLMBackend

    storages = set()
    for p in module.parameters():
        local = p.to_local() if hasattr(p, "to_local") else p
        storages.add(local.untyped_storage().data_ptr())
    worker = _Worker(storages)

    class FakeLLM:
        def __init__(self, **kwargs: Any) -> None:
            self.llm_engine = types.SimpleNamespace(
                model_config=types.SimpleNamespace(dtype="torch.float32"))

        def collective_rpc(self, method: Any, timeout: Any = None, args: tuple = (),
                           kwargs: dict | None = None) -> list:
            return [method(worker, *args, **(kwargs or {}))]

        def reset_prefix_cache(self) -> None:
            pass

    sys.modules["vllm"] = types.SimpleNamespace(LLM=FakeLLM)  # type: ignore[assignment]
    try:
        backend = VLLMBackend(str(model_dir), SamplingConfig())
        with _Phase() as p:
            backend.load_weights(model)
    finally:
        del sys.modules["vllm"]
    return {"peak_mb": p.peak_mb, "max_alive_mb": worker.max_alive / 2**20,
            "seconds": p.seconds}


def phase_sync_fsdp(world: Any, model_dir: Path, args: argparse.Namespace) -> dict:
    from agents.parallel import wrap_for_training

    model = _load(model_dir)
    module = wrap_for_training(model, "fsdp", world)
    return _sync(model, module, model_dir)


def phase_sync_lora(world: Any, model_dir: Path, args: argparse.Namespace) -> dict:
    import torch

    from agents.lora import LoRAConfig, apply_lora
    from agents.parallel import wrap_for_training

    torch.manual_seed(0)
    model = apply_lora(_load(model_dir), LoRAConfig(r=16))
    module = wrap_for_training(model, "ddp", world)
    return _sync(model, module, model_dir)


def phase_load_lora_bf16(world: Any, model_dir: Path, args: argparse.Namespace) -> dict:
    import gymnasium as gym

    import awm_gym  # noqa: F401 - registers the built-in worlds
    from agents.config import ModelConfig, RunConfig, TrainConfig
    from agents.grpo.config import GRPOConfig, RolloutConfig
    from agents.lora import LoRAConfig
    from agents.policies.hf_policy import HFPolicy
    from agents.stages.training import make_trainer, prepare_for_training
    from agents.stages.warm_start import load_start_model

    cfg = TrainConfig(run=RunConfig(out_dir=str(args.out), device="cpu"),
                      model=ModelConfig(dtype="bfloat16", lora=LoRAConfig(r=16)),
                      rollout=RolloutConfig(env_id="AWM/spotify-v0", groups_per_step=2,
                                            group_size=2, max_turns=2),
                      grpo=GRPOConfig(kl_coef=0.05))
    envs = gym.make_vec("AWM/spotify-v0", num_envs=2, max_episode_steps=2)
    with _Phase() as p:
        model, tok, start = load_start_model(cfg, Path(args.out), None, None, {}, world,
                                             model_dir)
        model = prepare_for_training(model, cfg.model)
        policy = HFPolicy(model, tok, cfg.chat, cfg.sampling, dtype=cfg.model.dtype)
        trainer = make_trainer(cfg, world, None, model, tok, envs, policy, start)
    envs.close()

    def nbytes(m: Any) -> float:
        return sum(t.numel() * t.element_size() for t in m.parameters()) / 2**20

    return {"peak_mb": p.peak_mb, "held_mb": p.held_mb, "model_mb": nbytes(model),
            "reference_mb": nbytes(trainer.ref_model), "seconds": p.seconds}


def phase_fsdp_bf16_step(world: Any, model_dir: Path, args: argparse.Namespace) -> dict:
    import torch

    from agents.parallel import wrap_for_training

    takes_dtype = "dtype" in inspect.signature(wrap_for_training).parameters
    kwargs = {"dtype": "bfloat16"} if takes_dtype else {}
    module = wrap_for_training(_load(model_dir), "fsdp", world, **kwargs)
    with _Phase() as p, torch.autocast("cpu", dtype=torch.bfloat16):
        _micro_backward(module, world.rank, 0, args.tokens)
    return {"peak_mb": p.peak_mb, "seconds": p.seconds}


PHASES = {"fsdp_accumulation": phase_fsdp_accumulation, "sync_fsdp": phase_sync_fsdp,
          "sync_lora": phase_sync_lora, "load_lora_bf16": phase_load_lora_bf16,
          "fsdp_bf16_step": phase_fsdp_bf16_step}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="out/parallel_memory")
    parser.add_argument("--hidden", type=int, default=768)
    parser.add_argument("--layers", type=int, default=8)
    parser.add_argument("--vocab", type=int, default=32000)
    parser.add_argument("--tokens", type=int, default=512, help="tokens per micro-batch")
    parser.add_argument("--phases", default=",".join(PHASES))
    args = parser.parse_args()

    import torch
    import torch.distributed as dist

    from agents.parallel import all_reduce, barrier, init_distributed

    torch.set_num_threads(1)
    world = init_distributed("cpu", timeout_s=1800)
    out = Path(args.out)
    if world.is_main:
        out.mkdir(parents=True, exist_ok=True)
        _build(out, args)
    barrier(world)
    model_dir = out / "model"
    for name in args.phases.split(","):
        row = PHASES[name](world, model_dir, args)
        keys = sorted(row)
        maxima = all_reduce([row[k] for k in keys], "max")
        if world.is_main:
            print(json.dumps({"phase": name, **{k: round(v, 1) for k, v in
                                                zip(keys, maxima, strict=True)}}), flush=True)
        barrier(world)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
