"""The main job: build (or load) a model, SFT on oracle rollouts, evaluate, GRPO, evaluate, report.

Everything lands in one run folder::

    config.json              the resolved TrainConfig
    model_init/              the tiny model as built (when no model path was given)
    datasets/oracle/         the oracle's recorded rollouts (World.record_dataset)
    model_sft/               after the warm start
    checkpoints/step_N/      GRPO checkpoints (weights, tokenizer, optimizer, trainer_state.json)
    model_final/             after GRPO (with LoRA: the adapter, on top of model_sft)
    metrics.jsonl            one line per SFT epoch, GRPO step and evaluation
    reward.png               reward and success over GRPO steps
    transcripts/             HTML transcripts of the final evaluation
    summary.json             success before and after, timings (written last)

Example:
    >>> summary = run_training(TrainConfig())    # doctest: +SKIP
    >>> summary["success_before"], summary["success_after"]   # doctest: +SKIP
"""

from __future__ import annotations

import json
import logging
import os
import sys
import time
from pathlib import Path
from typing import IO, Any

from awm_gym.atomic_io import write_text_atomic

from .config import TrainConfig, config_to_dict
from .evaluate import EvalResult, evaluate_policy
from .grpo.config import BackendKind
from .grpo.metrics import ConsoleSink, JSONLSink, MultiSink, make_report_sink, plot_metrics
from .policies.sampling import SamplingConfig

logger = logging.getLogger(__name__)

__all__ = ["run_training", "make_envs", "record_oracle", "prepare_start_model"]


def _write_json(path: Path, data: Any) -> None:
    write_text_atomic(path, json.dumps(data, indent=2))


def make_envs(cfg: TrainConfig, num_envs: int) -> Any:
    """The vector env of the training worlds with ``num_envs`` instances."""
    import gymnasium as gym

    import awm_gym  # noqa: F401 - registers the built-in worlds

    return gym.make_vec(cfg.rollout.env_id, num_envs=num_envs,
                        max_episode_steps=cfg.rollout.max_turns, **cfg.rollout.env_kwargs)


def record_oracle(cfg: TrainConfig, tasks: list[tuple[str, int]], out: Path) -> Path:
    """Record ``oracle_episodes_per_task`` oracle episodes of every task (World.record_dataset)."""
    from awm_gym import World

    from .policies.oracle import OraclePolicy

    k = cfg.sft.oracle_episodes_per_task
    worlds = [w for w, _ in tasks for _ in range(k)]
    task_idx = [t for _, t in tasks for _ in range(k)]
    world = World(cfg.rollout.env_id, num_envs=min(32, len(worlds)), seed=cfg.run.seed,
                  max_episode_steps=cfg.rollout.max_turns, verbose=0, **cfg.rollout.env_kwargs)
    try:
        world.set_policy(OraclePolicy())
        return world.record_dataset("oracle", episodes=len(worlds), seed=cfg.run.seed,
                                    cache_dir=out / "datasets",
                                    options={"world": worlds, "task_idx": task_idx},
                                    mode="overwrite")
    finally:
        world.close()


def _backend_kind(cfg: TrainConfig) -> BackendKind:
    from .policies.vllm_policy import vllm_available

    kind = cfg.rollout.backend
    if kind is BackendKind.AUTO:
        kind = BackendKind.VLLM if vllm_available() else BackendKind.HF
        if kind is BackendKind.HF:
            logger.warning("vLLM is not installed: sampling with transformers instead")
    return kind


def _load_trainer_model(path: str, cfg: TrainConfig) -> tuple[Any, Any]:
    from .policies.hf_policy import load_model_and_tokenizer

    return load_model_and_tokenizer(path, cfg.run.device)


def prepare_start_model(cfg: TrainConfig, out: str | os.PathLike[str], envs: Any,
                        sink: Any = None, timings: dict[str, float] | None = None) -> str:
    """Build (or take) the starting model and warm-start it with SFT; returns its folder.

    ``out/model_init`` holds the built tiny model (when ``cfg.model.path`` is None),
    ``out/model_sft`` the warm-started one. A folder already holding a warm start made with the
    same model, chat, SFT and world settings is reused as is.

    Args:
        cfg: the run config (model, chat, sft, rollout worlds, seed).
        out: the run folder.
        envs: a vector env over the training worlds (tool catalogues, task list).
        sink: receives one ``sft/*`` metrics dict per epoch (the epoch as step).
        timings: receives ``build_model_s``, ``record_oracle_s`` and ``sft_s``.
    """
    from .chat_format import ChatRenderer
    from .grpo.rollout import list_tasks
    from .sft import run_sft, sft_examples
    from .tiny_model import build_tiny_model

    out = Path(out)
    timings = timings if timings is not None else {}
    t = time.perf_counter()
    init = cfg.model.path or str(build_tiny_model(out / "model_init", cfg.model.tiny))
    timings["build_model_s"] = time.perf_counter() - t
    if cfg.sft.epochs == 0:
        return init
    path = out / "model_sft"
    # what the warm start depends on (not LoRA or checkpointing: they apply to GRPO only)
    model_recipe = {"path": cfg.model.path, "tiny": config_to_dict(cfg.model.tiny),
                    "dtype": cfg.model.dtype.value}
    recipe = {"model": model_recipe, "chat": config_to_dict(cfg.chat),
              "sft": config_to_dict(cfg.sft), "worlds": [list(t) for t in list_tasks(envs)],
              "seed": cfg.run.seed}
    manifest = path / "warm_start.json"
    if manifest.exists() and json.loads(manifest.read_text()) == recipe:
        return str(path)
    t = time.perf_counter()
    dataset = cfg.sft.dataset or str(record_oracle(cfg, list_tasks(envs), out))
    timings["record_oracle_s"] = time.perf_counter() - t
    t = time.perf_counter()
    model, tokenizer = _load_trainer_model(init, cfg)
    examples = sft_examples(dataset, envs, cfg.chat, ChatRenderer(tokenizer),
                            cfg.sft.only_successful)
    logger.info("SFT on %d examples from %s", len(examples), dataset)
    run_sft(model, examples, cfg.sft, tokenizer.pad_token_id, seed=cfg.run.seed,
            on_epoch=None if sink is None else
            (lambda e, m: sink.log(m, e + 1)), dtype=cfg.model.dtype)
    model.save_pretrained(path, safe_serialization=True)
    tokenizer.save_pretrained(path)
    _write_json(manifest, recipe)  # last: its presence means the warm start is whole
    timings["sft_s"] = time.perf_counter() - t
    return str(path)


def _prepare_for_training(model: Any, cfg: TrainConfig) -> Any:
    """Gradient checkpointing and LoRA adapters, as the model config asks."""
    from .lora import apply_lora, enable_gradient_checkpointing

    if cfg.model.gradient_checkpointing:
        enable_gradient_checkpointing(model)
    if cfg.model.lora.is_enabled:
        model = apply_lora(model, cfg.model.lora)
    return model


def _policies(kind: BackendKind, cfg: TrainConfig, model: Any, tokenizer: Any, start_path: str
              ) -> tuple[Any, Any]:
    """(rollout policy, evaluation policy): one backend, two sampling settings."""
    from .chat_format import ChatRenderer
    from .policies.chat_policy import ChatPolicy

    eval_sampling = SamplingConfig(temperature=cfg.eval.temperature, top_p=cfg.sampling.top_p,
                                   max_new_tokens=cfg.sampling.max_new_tokens,
                                   max_prompt_tokens=cfg.sampling.max_prompt_tokens)
    if kind is BackendKind.VLLM:
        from .policies.vllm_policy import VLLMPolicy
        from .precision import check_sampler_dtype

        train = VLLMPolicy(start_path, cfg.chat, cfg.sampling, cfg.vllm, dtype=cfg.model.dtype)
        try:  # vLLM reports the precision it really runs in
            check_sampler_dtype(cfg.model.dtype, train.backend.dtype,
                                cfg.model.allow_dtype_mismatch, "the vLLM engine")
        except Exception:
            train.close()
            raise
    else:
        from .policies.hf_policy import HFPolicy

        train = HFPolicy(model, tokenizer, cfg.chat, cfg.sampling,
                         batch_size=cfg.rollout.hf_batch_size, dtype=cfg.model.dtype)
    evaluator = ChatPolicy(train.backend, cfg.chat, eval_sampling, ChatRenderer(tokenizer),
                           train.context_length, name=f"{train.name}-eval")
    return train, evaluator


def _evaluate(policy: Any, envs: Any, cfg: TrainConfig, sink: Any, step: int) -> EvalResult:
    start = time.perf_counter()
    result = evaluate_policy(policy, envs, cfg.eval)
    metrics = result.metrics()
    metrics["time/eval_s"] = time.perf_counter() - start
    sink.log(metrics, step)
    return result


def _phase_line(timings: dict[str, float]) -> str:
    """One line with the seconds of every phase that ran, in order.

    Example:
        >>> _phase_line({"sft_s": 40.0, "grpo_s": 108.25, "total_s": 160.0})
        'phases: sft 40.0 s | grpo 108.2 s | total 160.0 s'
    """
    return "phases: " + " | ".join(f"{k.removesuffix('_s').replace('_', ' ')} {v:.1f} s"
                                   for k, v in timings.items())


def _barrier(world: Any) -> None:
    if world.is_distributed:
        import torch.distributed as dist

        dist.barrier()


def run_training(cfg: TrainConfig, console: IO[str] | None = None) -> dict[str, Any]:
    """Run the whole job (see the module docstring); returns the summary it writes.

    Under ``torchrun`` (data parallel, :mod:`agents.grpo.distributed`) every process trains on
    its share of each step's groups; rank 0 alone warm-starts, evaluates, logs and writes the
    run folder, the others wait for it where they need its output.
    """
    import torch

    from .grpo.checkpoint import latest_checkpoint, read_trainer_state
    from .grpo.distributed import init_distributed
    from .grpo.train import GRPOSetup, GRPOTrainer
    from .policies.hf_policy import resolve_device

    t_start = time.perf_counter()
    console = console or sys.stderr
    world = init_distributed(resolve_device(cfg.run.device))
    main = world.is_main
    out = Path(cfg.run.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if cfg.run.torch_threads is not None:
        torch.set_num_threads(cfg.run.torch_threads)
    torch.manual_seed(cfg.run.seed)
    checkpoint = latest_checkpoint(out) if cfg.run.resume else None
    sinks: list[Any] = []
    if main:
        _write_json(out / "config.json", config_to_dict(cfg))
        sinks = [JSONLSink(out / "metrics.jsonl", append=checkpoint is not None),
                 ConsoleSink(console, cfg.grpo.steps)]
        report = make_report_sink(cfg.run.report_to, out, config_to_dict(cfg),
                                  project=cfg.run.wandb_project)
        if report is not None:
            sinks.append(report)
    sink = MultiSink(sinks)
    train_envs = make_envs(cfg, cfg.rollout.episodes_per_step // world.world_size)
    eval_envs = make_envs(cfg, _eval_width(cfg.eval.episodes_per_task * _num_tasks(train_envs)))
    timings: dict[str, float] = {}
    try:
        partial = out / "summary_before.json"
        if checkpoint is None:
            if main:
                prepare_start_model(cfg, out, train_envs, sink, timings)
            _barrier(world)  # the others reuse rank 0's warm start
            start_path = prepare_start_model(cfg, out, train_envs)
        else:
            start_path = str(checkpoint)
        model, tokenizer = _load_trainer_model(start_path, cfg)
        model = _prepare_for_training(model, cfg)
        kind = _backend_kind(cfg)
        policy, evaluator = _policies(kind, cfg, model, tokenizer, start_path)
        if checkpoint is None and main:
            t = time.perf_counter()
            before = _evaluate(evaluator, eval_envs, cfg, sink, 0)
            timings["eval_before_s"] = time.perf_counter() - t
            _write_json(partial, {"success_before": before.success_rate,
                                  "reward_before": before.reward_mean,
                                  "per_world_before": before.per_world,
                                  "sft_model": start_path})
        _barrier(world)
        summary_before = json.loads(partial.read_text())
        ref_model = None
        if cfg.grpo.kl_coef > 0:
            ref_model, _ = _load_trainer_model(summary_before["sft_model"], cfg)
            ref_model.requires_grad_(False)
        setup = GRPOSetup(cfg.rollout, cfg.grpo, cfg.optim, cfg.sampling.temperature,
                          cfg.run.seed, cfg.run.checkpoint_every, cfg.model.dtype)
        trainer = GRPOTrainer(model, tokenizer, train_envs, policy, setup, ref_model,
                              config_to_dict(cfg), world=world)
        if checkpoint is not None:
            trainer.load_state(str(checkpoint), read_trainer_state(checkpoint).step)

        def maybe_eval(step: int, _: dict[str, float]) -> None:
            if cfg.eval.every and step % cfg.eval.every == 0 and step < cfg.grpo.steps:
                if main:
                    _evaluate(evaluator, eval_envs, cfg, sink, step)
                _barrier(world)

        t = time.perf_counter()
        trainer.train(cfg.grpo.steps, sink, str(out), on_step=maybe_eval)
        timings["grpo_s"] = time.perf_counter() - t
        summary: dict[str, Any] = {}
        if main:
            summary = _finish(cfg, out, model, tokenizer, evaluator, eval_envs, sink, kind,
                              policy.name, summary_before, timings)
        _barrier(world)
        policy.close()
    finally:
        sink.close()
        train_envs.close()
        eval_envs.close()
    if main:
        timings["total_s"] = time.perf_counter() - t_start
        summary["timings"] = timings
        _write_json(out / "summary.json", summary)
        console.write(_phase_line(timings) + "\n")
    return summary


def _finish(cfg: TrainConfig, out: Path, model: Any, tokenizer: Any, evaluator: Any,
            eval_envs: Any, sink: Any, kind: BackendKind, policy_name: str,
            summary_before: dict[str, Any], timings: dict[str, float]) -> dict[str, Any]:
    """Save the final model, evaluate it, plot, write transcripts; returns the summary."""
    from awm_gym.manager.transcripts import write_transcripts

    from .grpo.rollout import to_episode

    model.save_pretrained(out / "model_final", safe_serialization=True)
    tokenizer.save_pretrained(out / "model_final")
    t = time.perf_counter()
    after = _evaluate(evaluator, eval_envs, cfg, sink, cfg.grpo.steps)
    timings["eval_after_s"] = time.perf_counter() - t
    worlds = ", ".join(cfg.rollout.worlds) if cfg.rollout.worlds else cfg.rollout.env_id
    plot_metrics(out / "metrics.jsonl", out / "reward.png",
                 title=f"GRPO on {worlds} ({kind.value} sampling)")
    episodes = [to_episode(tr, k, policy_name)
                for k, tr in enumerate(after.trajectories[:cfg.run.transcripts])]
    write_transcripts(episodes, out / "transcripts", title="after GRPO (evaluation)")
    return {**summary_before, "success_after": after.success_rate,
            "reward_after": after.reward_mean, "per_world_after": after.per_world,
            "backend": kind.value, "grpo_steps": cfg.grpo.steps,
            "eval_episodes": len(after.trajectories), "run_dir": str(out)}


def _eval_width(episodes: int, most: int = 64) -> int:
    """Instances for ``episodes`` evaluation episodes: at most ``most``, chunks of equal size.

    Example:
        >>> _eval_width(80), _eval_width(40), _eval_width(130)
        (40, 40, 44)
    """
    chunks = -(-episodes // most)
    return -(-episodes // chunks)


def _num_tasks(envs: Any) -> int:
    from .grpo.rollout import list_tasks

    return len(list_tasks(envs))
