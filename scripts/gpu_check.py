"""A readiness check for training on one GPU: trainer, sampler, LoRA, sync and process group.

``scripts/gpu_check.sh`` runs :func:`main` on a machine with one NVIDIA GPU and no network (the
dependencies the image lacks arrive as a wheelhouse, ``scripts/build_wheelhouse.sh``). In a few
minutes it checks, on CUDA and in bfloat16:

1. **the process group** with the backend :func:`agents.parallel.choose_backend` picks
   (``cpu:gloo,cuda:nccl``): a CPU float64 all-reduce (the step's counters) and a CUDA one (the
   gradients) in one group;
2. **the in-memory sync's tensors**: a LoRA model's merged weights
   (:func:`agents.policies.vllm_policy.trainer_state_for_vllm`, what vLLM receives), loaded into
   a second copy of the model, give the adapted model's logits; the streamed sync
   (:func:`~agents.policies.vllm_policy.iter_trainer_state_for_vllm`) yields the same tensors
   with at most one merged weight alive at a time;
3. **the data-parallel engines** (:mod:`agents.parallel`): one GRPO update through torch's DDP
   and through FSDP2 ``fully_shard`` in a process group of one rank (NCCL on the GPU) leaves
   the parameters the unwrapped update leaves (one GPU cannot hold two NCCL ranks; the
   two-rank arithmetic is tested on CPU with gloo);
4. **GRPO steps** through ``awm train``'s own code (:func:`agents.pipeline.run_training`: SFT
   warm start, HF sampler, trainer, LoRA for the larger shapes) on the main job's tiny model
   and on random-initialised models of SmolLM2-135M's shape and a ~0.5B (Qwen2.5-0.5B) shape,
   printing each step's time split into generate / train / env / sync and tokens per second;
5. **vLLM's sleep mode** (CUDA only; skipped, with the reason, on a dry run or without vLLM): a
   colocated engine samples, sleeps through a GRPO update of the LoRA model
   (:meth:`~agents.policies.vllm_policy.VLLMBackend.released`: the GPU memory it frees is
   reported), wakes, takes the streamed weight sync and samples again.

``--dry-run`` runs the same code on CPU in float32 with the shapes shrunk (CI runs it), so the
script cannot rot between sessions that have a GPU.

Example:
    >>> spec = SHAPES["smollm2-135m"]
    >>> spec.hidden_size, spec.num_layers, spec.vocab_size
    (576, 30, 49152)
    >>> shrink(spec).num_layers
    2
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import socket
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from awm_gym.boundary import Failure, capture

__all__ = ["ModelShape", "SHAPES", "shrink", "check_process_group", "check_engines",
           "check_merged_sync", "check_vllm_sleep",
           "run_grpo_steps", "main"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ModelShape:
    """A decoder's shape, built with random weights (``family`` none: the main job's tiny model)."""

    name: str
    family: str | None
    """``llama`` | ``qwen2`` | None (the tiny model, built by :mod:`agents.tiny_model`)."""
    hidden_size: int = 0
    num_layers: int = 0
    num_heads: int = 0
    num_kv_heads: int = 0
    intermediate_size: int = 0
    vocab_size: int = 0
    """The embedding's rows (the tiny tokenizer's ids are a prefix of them)."""
    lora_r: int = 0
    """LoRA rank for GRPO (0: full fine-tuning)."""


SHAPES: dict[str, ModelShape] = {
    "tiny": ModelShape("tiny", None),
    "smollm2-135m": ModelShape("smollm2-135m", "llama", 576, 30, 9, 3, 1536, 49152, lora_r=8),
    "qwen2.5-0.5b": ModelShape("qwen2.5-0.5b", "qwen2", 896, 24, 14, 2, 4864, 151936, lora_r=8),
}
"""The shapes the check trains: the main job's model, SmolLM2-135M's and Qwen2.5-0.5B's."""


def shrink(shape: ModelShape) -> ModelShape:
    """The same family at toy size (the dry run's stand-in, same code path)."""
    if shape.family is None:
        return shape
    return dataclasses.replace(shape, hidden_size=64, num_layers=2, num_heads=2, num_kv_heads=1,
                               intermediate_size=128, vocab_size=4096)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def check_process_group(device: str) -> dict[str, Any]:
    """Join a one-rank process group with the backend chosen for ``device`` and all-reduce a
    CPU float64 tensor (and, on CUDA, a CUDA tensor) in it.

    One GPU cannot hold two NCCL ranks (NCCL refuses two ranks on one device), so this proves
    that the group registers both device types; the two-rank arithmetic is tested on CPU with
    gloo (tests/integration/agents/test_ddp.py).
    """
    import torch
    import torch.distributed as dist

    from agents.parallel import choose_backend

    backend = choose_backend(device)
    t = time.perf_counter()
    dist.init_process_group(backend=backend, init_method=f"tcp://127.0.0.1:{_free_port()}",
                            rank=0, world_size=1)
    try:
        counters = torch.tensor([1.0, 2.0], dtype=torch.float64)
        dist.all_reduce(counters)
        result: dict[str, Any] = {"backend": backend, "cpu_float64": counters.tolist()}
        if device.startswith("cuda"):
            grads = torch.ones(1024, device=device, dtype=torch.float32)
            dist.all_reduce(grads)
            torch.cuda.synchronize()
            result["cuda_float32_sum"] = float(grads.sum().item())
    finally:
        dist.destroy_process_group()
    result["seconds"] = round(time.perf_counter() - t, 3)
    return result


def _engine_samples(vocab: int, count: int = 8) -> list[Any]:
    """Fixed random turn samples (two per trajectory) for the engine check."""
    import torch

    from agents.grpo.batching import TrainSample

    g = torch.Generator().manual_seed(0)
    out = []
    for k in range(count):
        prompt = torch.randint(1, vocab, (8 + 3 * k,), generator=g).tolist()
        completion = torch.randint(1, vocab, (2 + k % 5,), generator=g).tolist()
        out.append(TrainSample(tuple(prompt), tuple(completion), (-1.0) ** k * 0.5,
                               (), k // 2))
    return out


def check_engines(model_dir: Path, device: str, dtype: str) -> dict[str, Any]:
    """One GRPO update (two optimizer steps) through DDP and through FSDP2 in a one-rank
    process group, each compared with the same update on the unwrapped model.

    Returns:
        per engine: the largest parameter difference and the update's seconds.
    """
    import torch
    import torch.distributed as dist

    from agents.grpo.config import GRPOConfig, OptimConfig
    from agents.grpo.update import grpo_update
    from agents.parallel import DistInfo, choose_backend, full_state_dict, wrap_for_training
    from agents.policies.hf_policy import load_model_and_tokenizer

    def update(strategy: str | None) -> tuple[dict[str, Any], float]:
        model, tok = load_model_and_tokenizer(str(model_dir), device)
        module = model if strategy is None else wrap_for_training(
            model, strategy, DistInfo(), device, always=True)
        opt = torch.optim.SGD([p for p in module.parameters() if p.requires_grad], lr=0.1)
        samples = _engine_samples(model.config.vocab_size)
        t = time.perf_counter()
        grpo_update(module, opt, samples, GRPOConfig(), OptimConfig(optimizer_steps_per_step=2),
                    1.0, tok.pad_token_id or 0, dtype=dtype, is_distributed=strategy is not None)
        seconds = time.perf_counter() - t
        return {k: v.detach().float().cpu() for k, v in full_state_dict(
            dict(model.named_parameters())).items()}, seconds

    dist.init_process_group(backend=choose_backend(device),
                            init_method=f"tcp://127.0.0.1:{_free_port()}", rank=0, world_size=1)
    try:
        reference, _ = update(None)
        result: dict[str, Any] = {}
        for strategy in ("ddp", "fsdp"):
            params, seconds = update(strategy)
            diff = max(float((params[k] - v).abs().max()) for k, v in reference.items())
            result[strategy] = {"max_abs_param_diff": diff, "seconds": round(seconds, 3)}
    finally:
        dist.destroy_process_group()
    return result


def _build_model_dir(shape: ModelShape, tiny_dir: Path, out: Path) -> Path:
    """A random-initialised model of ``shape`` with the tiny model's tokenizer, saved to ``out``."""
    import torch
    from transformers import (
        AutoTokenizer,
        GenerationConfig,
        LlamaConfig,
        LlamaForCausalLM,
        Qwen2Config,
        Qwen2ForCausalLM,
    )

    if (out / "config.json").exists():
        return out
    tokenizer = AutoTokenizer.from_pretrained(tiny_dir)
    eos = tokenizer.convert_tokens_to_ids("<|im_end|>")
    pad = tokenizer.convert_tokens_to_ids("<|endoftext|>")
    config_cls, model_cls = {"llama": (LlamaConfig, LlamaForCausalLM),
                             "qwen2": (Qwen2Config, Qwen2ForCausalLM)}[shape.family or ""]
    config = config_cls(vocab_size=max(shape.vocab_size, len(tokenizer)),
                        hidden_size=shape.hidden_size, intermediate_size=shape.intermediate_size,
                        num_hidden_layers=shape.num_layers, num_attention_heads=shape.num_heads,
                        num_key_value_heads=shape.num_kv_heads, max_position_embeddings=4096,
                        tie_word_embeddings=True, eos_token_id=eos, pad_token_id=pad,
                        bos_token_id=None, initializer_range=0.02)
    torch.manual_seed(0)
    model = model_cls(config)
    model.generation_config = GenerationConfig(eos_token_id=eos, pad_token_id=pad)
    model.save_pretrained(out, safe_serialization=True)
    tokenizer.save_pretrained(out)
    return out


def check_merged_sync(model_dir: Path, device: str, lora_r: int = 8) -> dict[str, Any]:
    """Merge a LoRA model's adapters into the tensors a sync sends, load them into a second copy
    and compare its logits with the adapted model's (max absolute difference, float32)."""
    import torch
    from transformers import AutoModelForCausalLM

    from agents.lora import LoRAConfig, apply_lora
    from agents.policies.vllm_policy import trainer_state_for_vllm

    base = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32).to(device)
    adapted = apply_lora(base, LoRAConfig(r=lora_r))
    torch.manual_seed(1)
    with torch.no_grad():  # B starts at zero; give it values so the merge has work to do
        for name, p in adapted.named_parameters():
            if "lora_B" in name:
                p.normal_(0.0, 0.02)
    ids = torch.randint(0, 256, (2, 64), device=device)
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    t = time.perf_counter()
    state = trainer_state_for_vllm(adapted)
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    merge_s = time.perf_counter() - t
    copy = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32).to(device)
    t = time.perf_counter()
    missing, unexpected = copy.load_state_dict(state, strict=False)
    load_s = time.perf_counter() - t
    with torch.no_grad():
        adapted.eval()
        want = adapted(input_ids=ids).logits
        got = copy(input_ids=ids).logits
    nbytes = sum(v.numel() * v.element_size() for v in state.values())
    stream = _stream_sync(adapted, state)
    return {"tensors": len(state), "mb": round(nbytes / 2**20, 1), "merge_s": round(merge_s, 4),
            "load_s": round(load_s, 4), "missing": list(missing), "unexpected": list(unexpected),
            "max_abs_logit_diff": float((want - got).abs().max().item()), "stream": stream}


def _stream_sync(model: Any, state: dict[str, Any]) -> dict[str, Any]:
    """Consume the streamed sync as vLLM does (dropping each tensor), keeping weak references
    only: the most bytes of merged tensors alive at once, and whether every tensor equals the
    whole set's."""
    import weakref

    from agents.policies.vllm_policy import iter_trainer_state_for_vllm

    storages = {p.untyped_storage().data_ptr() for p in model.parameters()}
    alive: list[tuple[Any, int]] = []
    max_alive, equal, names = 0, True, set()
    for name, tensor in iter_trainer_state_for_vllm(model):
        if tensor.untyped_storage().data_ptr() not in storages:
            alive.append((weakref.ref(tensor), tensor.numel() * tensor.element_size()))
        max_alive = max(max_alive, sum(n for ref, n in alive if ref() is not None))
        equal = equal and bool((tensor == state[name]).all())
        names.add(name)
        del tensor
    largest = max(v.numel() * v.element_size() for v in state.values())
    return {"max_alive_mb": round(max_alive / 2**20, 2), "largest_mb": round(largest / 2**20, 2),
            "equal": equal and names == set(state)}


def check_vllm_sleep(model_dir: Path, device: str, dtype: str, lora_r: int) -> dict[str, Any]:
    """A colocated vLLM engine through one training step with sleep mode: sample, sleep, a
    GRPO update of the LoRA model, wake, the streamed weight sync, sample again.

    Returns:
        ``{"skipped": reason}`` off CUDA or without vLLM; else the GPU memory sleep freed, the
        sync's seconds and the tokens sampled before and after.
    """
    import torch

    from agents.policies.vllm_policy import vllm_available

    if not device.startswith("cuda"):
        return {"skipped": "vLLM has no sleep mode on CPU"}
    if not vllm_available():
        return {"skipped": "vLLM is not installed"}
    from agents.grpo.config import GRPOConfig, OptimConfig
    from agents.grpo.update import grpo_update
    from agents.lora import LoRAConfig, apply_lora
    from agents.policies.hf_policy import load_model_and_tokenizer
    from agents.policies.sampling import SamplingConfig
    from agents.policies.vllm_policy import VLLMBackend, VLLMEngineConfig

    backend = VLLMBackend(str(model_dir), SamplingConfig(temperature=1.0, max_new_tokens=16),
                          VLLMEngineConfig(gpu_memory_utilization=0.3, sleep_mode=True),
                          dtype=dtype)
    try:
        prompts = [list(range(1, 33))] * 4
        before = backend.generate([[]] * 4, prompts, seed=0)
        model, tok = load_model_and_tokenizer(str(model_dir), device, dtype)
        model = apply_lora(model, LoRAConfig(r=lora_r))
        opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-3)
        free_awake = torch.cuda.mem_get_info()[0]
        with backend.released():
            free_asleep = torch.cuda.mem_get_info()[0]
            grpo_update(model, opt, _engine_samples(model.config.vocab_size), GRPOConfig(),
                        OptimConfig(), 1.0, tok.pad_token_id or 0, dtype=dtype)
        sync_s = backend.load_weights(model)
        after = backend.generate([[]] * 4, prompts, seed=0)
    finally:
        backend.close()
    return {"freed_by_sleep_gb": round((free_asleep - free_awake) / 2**30, 2),
            "sync_s": round(sync_s, 3),
            "tokens_before": sum(len(g.completion_ids) for g in before),
            "tokens_after": sum(len(g.completion_ids) for g in after)}


def _mean(rows: list[dict[str, float]], key: str) -> float:
    values = [r[key] for r in rows if key in r]
    return sum(values) / len(values) if values else 0.0


def run_grpo_steps(shape: ModelShape, model_dir: str | None, out: Path, device: str,
                   dtype: str, steps: int, sft_epochs: int | None = None, groups: int = 4,
                   max_turns: int = 4) -> dict[str, Any]:
    """SFT warm start + ``steps`` GRPO steps of ``awm train`` on ``shape`` (``groups`` groups
    of 8 episodes of at most ``max_turns`` turns of 96 tokens); returns the step times (first
    step apart: it includes CUDA's warm-up) and the throughput."""
    from agents.config import ModelConfig, RunConfig, SplitConfig, TrainConfig
    from agents.evaluate import EvalConfig
    from agents.grpo.config import CutTurnMode, GRPOConfig, RolloutConfig
    from agents.lora import LoRAConfig
    from agents.pipeline import run_training
    from agents.sft import SFTConfig

    cfg = TrainConfig(
        run=RunConfig(out_dir=str(out), seed=0, device=device, transcripts=0),
        model=ModelConfig(path=model_dir, dtype=dtype, lora=LoRAConfig(r=shape.lora_r)),
        rollout=RolloutConfig(worlds=("spotify",), backend="hf", groups_per_step=groups,
                              max_turns=max_turns),
        split=SplitConfig(val_worlds=0.0, val_tasks=0.0),
        grpo=GRPOConfig(steps=steps, cut_turn=CutTurnMode.PENALTY),
        sft=SFTConfig(epochs=sft_epochs if sft_epochs is not None else
                      (24 if shape.family is None else 6),
                      lr=3e-3 if shape.family is None else 3e-4),
        eval=EvalConfig(episodes_per_task=1, temperature=0.7))
    t = time.perf_counter()
    summary = run_training(cfg, console=sys.stdout)
    wall = time.perf_counter() - t
    rows = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    grpo = [r for r in rows if "time/step_s" in r]
    later = grpo[1:] or grpo
    keys = {"step_s": "time/step_s", "generate_s": "time/generate_s", "train_s": "time/train_s",
            "env_s": "time/env_s", "sync_s": "time/sync_s",
            "gen_tokens_per_s": "perf/gen_tokens_per_s",
            "train_tokens_per_s": "perf/train_tokens_per_s", "samples": "loss/num_samples"}
    result: dict[str, Any] = {"shape": shape.name, "lora_r": shape.lora_r, "dtype": dtype,
                              "device": device, "steps": len(grpo), "wall_s": round(wall, 1),
                              "first_step_s": round(grpo[0]["time/step_s"], 2) if grpo else None}
    result.update({k: round(_mean(later, v), 3) for k, v in keys.items()})
    result["success_before"] = summary.get("success_before")
    result["success_after"] = summary.get("success_after")
    result["timings"] = {k: round(v, 1) for k, v in summary.get("timings", {}).items()}
    return result


def _parameters(model_dir: Path) -> int:
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(AutoConfig.from_pretrained(model_dir))
    return sum(p.numel() for p in model.parameters())


def _environment(device: str) -> dict[str, Any]:
    import torch
    import transformers

    info: dict[str, Any] = {"python": sys.version.split()[0], "torch": torch.__version__,
                            "transformers": transformers.__version__, "device": device}
    try:
        import peft

        info["peft"] = peft.__version__
    except ImportError:
        info["peft"] = None
    if device.startswith("cuda"):
        info["gpu"] = torch.cuda.get_device_name(0)
        info["gpu_memory_gb"] = round(torch.cuda.get_device_properties(0).total_memory / 2**30)
    return info


def _row(r: dict[str, Any]) -> str:
    return (f"| {r['shape']} ({r['parameters'] / 1e6:.1f}M, {'LoRA r=%d' % r['lora_r'] if r['lora_r'] else 'full'}) "
            f"| {r['dtype']} | {r['first_step_s']} | {r['step_s']:.2f} | {r['generate_s']:.2f} | "
            f"{r['train_s']:.2f} | {r['env_s']:.2f} | {r['sync_s']:.3f} | "
            f"{r['gen_tokens_per_s']:.0f} | {r['train_tokens_per_s']:.0f} | {r['peak_gb']} |")


def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="gpu_check", description=__doc__.split("\n\n")[0])
    parser.add_argument("--dry-run", action="store_true",
                        help="CPU, float32, shapes shrunk: the same code path, for CI")
    parser.add_argument("--out", default="out/gpu_check", help="work folder (models, runs)")
    parser.add_argument("--steps", type=int, default=None,
                        help="GRPO steps per shape (default 3; 1 with --dry-run)")
    parser.add_argument("--groups", type=int, default=4,
                        help="groups of 8 episodes per GRPO step (the main job runs 8)")
    parser.add_argument("--max-turns", type=int, default=4,
                        help="turns per episode (the main job allows 10)")
    parser.add_argument("--shapes", default=",".join(SHAPES), help="comma-separated shape names")
    parser.add_argument("--json", default=None, help="also write the results to this file")
    return parser.parse_args(argv)


class _Report:
    """The results so far: each part is printed as one JSON line and saved to ``--json`` as it
    finishes, so a run cut short by a time limit keeps what it did."""

    def __init__(self, json_path: str | None) -> None:
        self.json_path = json_path
        self.results: dict[str, Any] = {}
        self.failures: list[str] = []

    def save(self) -> None:
        if self.json_path:
            Path(self.json_path).write_text(json.dumps(self.results, indent=2))

    def add(self, part: str, value: Any) -> None:
        self.results[part] = value
        print(json.dumps({part: value}), flush=True)
        self.save()


def main(argv: list[str] | None = None) -> int:
    """Run the check; prints one JSON line per part and a markdown table; exit 0 when all pass."""
    args = _parse_args(argv)
    logging.basicConfig(level=logging.WARNING)

    import torch

    if args.dry_run:
        device, dtype = "cpu", "float32"
        torch.set_num_threads(1)
    else:
        if not torch.cuda.is_available():
            print("gpu_check: no CUDA device (use --dry-run on CPU)", file=sys.stderr)
            return 2
        device, dtype = "cuda", "bfloat16"
    steps = args.steps if args.steps is not None else (1 if args.dry_run else 3)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    report = _Report(args.json)
    report.results["environment"] = _environment(device)
    print(json.dumps(report.results["environment"]), flush=True)
    report.add("process_group", check_process_group(device))

    shapes = [SHAPES[n.strip()] for n in args.shapes.split(",") if n.strip()]
    if args.dry_run:
        shapes = [shrink(s) for s in shapes]
    model_dirs = _build_model_dirs(shapes, out, args.dry_run)
    engines = check_engines(model_dirs["tiny"], device, dtype)
    report.add("engines", engines)
    for name, row in engines.items():
        if row["max_abs_param_diff"] > 1e-4:
            report.failures.append(f"the {name} update differs from the unwrapped one: {row}")
    _check_sync(report, shapes, model_dirs, device)
    rows = _run_shapes(report, shapes, model_dirs, out, device, dtype, steps, args)
    _check_vllm_sleep(report, shapes, model_dirs, device, dtype)
    report.results["failures"] = report.failures

    print("\n| model | dtype | first step s | step s | generate s | train s | env s | sync s | "
          "gen tok/s | train tok/s | peak GiB |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(_row(r))
    report.save()
    for f in report.failures:
        print(f"FAILED {f}", file=sys.stderr)
    print("gpu_check: " + ("ok" if not report.failures else f"{len(report.failures)} failure(s)"),
          flush=True)
    return 0 if not report.failures else 1


def _build_model_dirs(shapes: list[ModelShape], out: Path, is_dry_run: bool) -> dict[str, Path]:
    """The tiny model (small on a dry run) and one model folder per shape with a family."""
    from agents.tiny_model import TinyModelConfig, build_tiny_model

    tiny_cfg = TinyModelConfig.small() if is_dry_run else TinyModelConfig()
    tiny_dir = build_tiny_model(out / "tiny_init", tiny_cfg)
    model_dirs: dict[str, Path] = {"tiny": tiny_dir}
    for shape in shapes:
        if shape.family is not None:
            model_dirs[shape.name] = _build_model_dir(shape, tiny_dir, out / f"{shape.name}_init")
    return model_dirs


def _check_sync(report: _Report, shapes: list[ModelShape], model_dirs: dict[str, Path],
                device: str) -> None:
    """The merged-LoRA weight sync check, on the first shape with LoRA (if any)."""
    lora_shape = next((s for s in shapes if s.lora_r), None)
    if lora_shape is None:
        return
    sync = check_merged_sync(model_dirs[lora_shape.name], device, lora_shape.lora_r)
    sync["shape"] = lora_shape.name
    report.add("merged_sync", sync)
    if sync["max_abs_logit_diff"] > 1e-3 or sync["unexpected"]:
        report.failures.append(f"merged sync differs: {sync}")
    stream = sync["stream"]
    if not stream["equal"] or stream["max_alive_mb"] > stream["largest_mb"]:
        report.failures.append(f"the streamed sync differs or holds more than one tensor: "
                               f"{stream}")


def _check_vllm_sleep(report: _Report, shapes: list[ModelShape], model_dirs: dict[str, Path],
                      device: str, dtype: str) -> None:
    """vLLM's sleep mode through a training step, on the first shape with LoRA (if any); last,
    since the engine sets up a distributed state of its own in this process."""
    lora_shape = next((s for s in shapes if s.lora_r), None)
    if lora_shape is None:
        return
    row = capture(check_vllm_sleep, model_dirs[lora_shape.name], device, dtype,
                  lora_shape.lora_r)
    if isinstance(row, Failure):
        logger.error("vLLM sleep check failed", exc_info=row.error)
        report.failures.append(f"vllm sleep: {row.text}")
        return
    row["shape"] = lora_shape.name
    report.add("vllm_sleep", row)
    if "skipped" not in row and (row["freed_by_sleep_gb"] <= 0 or not row["tokens_after"]):
        report.failures.append(f"vLLM sleep mode freed nothing or sampled nothing: {row}")


def _run_shapes(report: _Report, shapes: list[ModelShape], model_dirs: dict[str, Path], out: Path,
                device: str, dtype: str, steps: int, args: argparse.Namespace
                ) -> list[dict[str, Any]]:
    """``steps`` GRPO steps of every shape; a shape that fails is reported, the others run."""
    import torch

    rows: list[dict[str, Any]] = []
    report.results["grpo"] = rows
    for shape in shapes:
        if device.startswith("cuda"):
            torch.cuda.reset_peak_memory_stats()
        run_dir = out / f"run_{shape.name}"
        row = capture(run_grpo_steps, shape, str(model_dirs[shape.name]), run_dir, device,
                      dtype, steps, sft_epochs=2 if args.dry_run else None,
                      groups=args.groups, max_turns=args.max_turns)
        if isinstance(row, Failure):  # report every shape, then fail
            logger.error("GRPO on %s failed", shape.name, exc_info=row.error)
            report.failures.append(f"{shape.name}: {row.text}")
            continue
        row["parameters"] = _parameters(model_dirs[shape.name])
        row["peak_gb"] = (round(torch.cuda.max_memory_allocated() / 2**30, 1)
                          if device.startswith("cuda") else None)
        rows.append(row)
        print(json.dumps({"grpo": row}), flush=True)
        report.save()
        if row["steps"] != steps:
            report.failures.append(f"{shape.name}: {row['steps']} of {steps} GRPO steps logged")
    return rows

if __name__ == "__main__":
    raise SystemExit(main())
