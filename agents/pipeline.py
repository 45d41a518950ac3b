"""The main job: build (or load) a model, SFT on oracle rollouts, evaluate, GRPO, evaluate, report.

Everything lands in one run folder::

    config.json              the resolved TrainConfig
    split.json               the split trained on (train) and held out (val_tasks, val_worlds)
    model_init/              the tiny model as built (when no model path was given)
    datasets/oracle/         the oracle's recorded rollouts (World.record_dataset)
    model_sft/               after the warm start
    checkpoints/step_N/      GRPO checkpoints (weights, tokenizer, optimizer, trainer_state.json)
    model_final/             after GRPO (with LoRA: the adapter, on top of model_sft)
    metrics.jsonl            one line per SFT epoch, GRPO step and evaluation
    reward.png               reward and success over GRPO steps, evaluations of each subset
    transcripts/             HTML transcripts of the final evaluation
    summary.json             success before and after (training and held-out tasks), timings
                             (written last)

With a split (``cfg.split``, on in the main job) the oracle is recorded, SFT and GRPO run, on the
``train`` subset only, and every evaluation also runs the held-out ``val_tasks`` (new tasks of
the training worlds) and ``val_worlds`` (worlds never seen), reported beside the training tasks.

Example:
    >>> summary = run_training(TrainConfig())    # doctest: +SKIP
    >>> summary["success_before"], summary["success_after"]   # doctest: +SKIP
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from awm_gym.atomic_io import write_text_atomic
from awm_gym.boundary import closing_on_error
from awm_gym.envs import get_world_set
from awm_gym.worlds import Split, Subset, load_split, split_worlds

from .chat_format import ChatFormatConfig
from .config import ModelConfig, SplitConfig, TrainConfig, config_to_dict
from .evaluate import EvalConfig, EvalResult, evaluate_policy
from .grpo.config import BackendKind, RolloutConfig
from .grpo.metrics import (
    EVAL_AREAS,
    ConsoleSink,
    JSONLSink,
    MultiSink,
    make_report_sink,
    plot_metrics,
)
from .parallel import (
    DistInfo,
    all_gather_objects,
    barrier,
    check_parallel,
    init_distributed,
    shard_evenly,
)
from .parallel.engine import saving_state
from .policies.sampling import SamplingConfig
from .policies.vllm_policy import VLLMEngineConfig

logger = logging.getLogger(__name__)

__all__ = ["run_training", "make_envs", "make_eval_envs", "make_split", "record_oracle",
           "prepare_start_model"]


def _write_json(path: Path, data: Any) -> None:
    write_text_atomic(path, json.dumps(data, indent=2))


def make_envs(rollout: RolloutConfig, num_envs: int, split: Split | None = None,
              subset: Subset | None = None, worlds: Sequence[str] | None = None) -> Any:
    """A vector env with ``num_envs`` instances: of the rollout's worlds, or of ``subset`` of
    ``split`` (``worlds`` replaces ``rollout.worlds`` when given).

    Example:
        >>> envs = make_envs(TrainConfig().rollout, 2)   # doctest: +SKIP
    """
    import gymnasium as gym

    import awm_gym  # noqa: F401 - registers the built-in worlds

    kwargs: dict[str, Any] = {"max_episode_steps": rollout.max_turns, **rollout.env_kwargs}
    if worlds is not None:
        kwargs["worlds"] = list(worlds)
    if split is not None:
        kwargs.update(split=split, subset=subset)
    return gym.make_vec(rollout.env_id, num_envs=num_envs, **kwargs)


def make_split(split: SplitConfig, rollout: RolloutConfig) -> Split | None:
    """The run's split (``split``: its file, or one made from its fractions and seed),
    checked against the rollout's world set; None when the run has no split.

    Example:
        >>> cfg = TrainConfig()
        >>> make_split(cfg.split, cfg.rollout).sizes   # doctest: +SKIP

    Raises:
        SplitError: the file is malformed or was made for a world set with other content.
    """
    if not split.is_enabled:
        return None
    world_set = get_world_set(_world_set_path(rollout))
    if split.path is not None:
        return load_split(split.path, world_set)
    return split_worlds(world_set, split.val_worlds, split.val_tasks, split.seed,
                        exclude=rollout.exclude)


def _world_set_path(rollout: RolloutConfig) -> str | None:
    """The rollout's world set directory: ``rollout.world_set``, else the env id's own (None:
    the built-in worlds)."""
    import gymnasium as gym

    path = rollout.world_set
    if path is None:
        path = gym.spec(rollout.env_id).kwargs.get("world_set")
    return None if path is None else str(path)


def make_eval_envs(rollout: RolloutConfig, evaluation: EvalConfig, train_envs: Any,
                   split: Split | None, ranks: int = 1) -> dict[str, Any]:
    """One evaluation env per evaluated subset: ``train`` (every training task), and with a
    split ``val_tasks`` (held-out tasks of the training worlds) and ``val_worlds`` (every
    task of the held-out worlds); a subset with no task here is left out. Each is sized for
    one rank's share of the episodes (``ranks``: the number of processes)."""
    from .grpo.rollout import list_tasks

    tasks = len(list_tasks(train_envs))
    out = {"train": make_envs(rollout, _eval_width(evaluation.episodes_per_task * tasks, ranks),
                              split, Subset.TRAIN if split is not None else None)}
    if split is None:
        return out
    per_task = evaluation.val_episodes_per_task or evaluation.episodes_per_task
    held = {Subset.VAL_TASKS: [w for w in train_envs.runtime.worlds if w in split.val_tasks],
            Subset.VAL_WORLDS: list(split.val_worlds)}
    def close_all() -> None:
        for envs in out.values():
            envs.close()

    with closing_on_error(close_all):
        for subset, worlds in held.items():
            if worlds:
                n = sum(len(split.tasks(subset)[w]) for w in worlds)
                out[subset.value] = make_envs(rollout, _eval_width(per_task * n, ranks), split,
                                              subset, worlds)
    return out


def record_oracle(rollout: RolloutConfig, tasks: list[tuple[str, int]], out: Path, *,
                  episodes_per_task: int, seed: int, name: str = "oracle") -> Path:
    """Record ``episodes_per_task`` oracle episodes of every task (World.record_dataset) into
    ``out/datasets/<name>``; returns the dataset's folder.

    Example:
        >>> cfg = TrainConfig()
        >>> record_oracle(cfg.rollout, [("w", 0)], Path("out"),            # doctest: +SKIP
        ...               episodes_per_task=cfg.sft.oracle_episodes_per_task, seed=cfg.run.seed)
    """
    from awm_gym import World

    from .policies.oracle import OraclePolicy

    worlds = [w for w, _ in tasks for _ in range(episodes_per_task)]
    task_idx = [t for _, t in tasks for _ in range(episodes_per_task)]
    world = World(rollout.env_id, num_envs=min(32, len(worlds)), seed=seed,
                  max_episode_steps=rollout.max_turns, verbose=0, **rollout.env_kwargs)
    try:
        world.set_policy(OraclePolicy())
        return world.record_dataset(name, episodes=len(worlds), seed=seed,
                                    cache_dir=out / "datasets",
                                    options={"world": worlds, "task_idx": task_idx},
                                    mode="overwrite")
    finally:
        world.close()


def _backend_kind(rollout: RolloutConfig, world: DistInfo | None = None) -> BackendKind:
    """The sampler the run uses: ``auto`` is vLLM when it is installed, except for several
    ranks on a CPU host (transformers then; an explicit ``vllm`` is refused there by
    :func:`agents.parallel.check_parallel`)."""
    from .policies.hf_policy import resolve_device
    from .policies.vllm_policy import vllm_available

    kind = rollout.backend
    if kind is BackendKind.AUTO:
        several_on_cpu = (world is not None and world.is_distributed
                          and resolve_device("auto") == "cpu")
        kind = BackendKind.VLLM if vllm_available() and not several_on_cpu else BackendKind.HF
        if kind is BackendKind.HF:
            logger.warning("%s: sampling with transformers instead",
                           "several ranks on CPU" if several_on_cpu else "vLLM is not installed")
    return kind


def _load_trainer_model(path: str, device: str) -> tuple[Any, Any]:
    from .policies.hf_policy import load_model_and_tokenizer

    return load_model_and_tokenizer(path, device)


def prepare_start_model(cfg: TrainConfig, out: str | os.PathLike[str], envs: Any,
                        sink: Any = None, timings: dict[str, float] | None = None,
                        world: DistInfo | None = None) -> str:
    """Build (or take) the starting model and warm-start it with SFT; returns its folder.

    ``out/model_init`` holds the built tiny model (when ``cfg.model.path`` is None),
    ``out/model_sft`` the warm-started one. A folder already holding a warm start made with the
    same model, chat, SFT and world settings is reused as is.

    Under data parallel (``world``) every rank records the oracle on its share of the tasks
    (``datasets/oracle-rank<r>``), the examples are gathered, SFT runs on every rank
    (:func:`agents.sft.run_sft`) and rank 0 writes the model; every rank returns the folder.

    Args:
        cfg: the run config (model, chat, sft, rollout worlds, seed).
        out: the run folder.
        envs: a vector env over the training worlds (tool catalogues, task list).
        sink: receives one ``sft/*`` metrics dict per epoch (the epoch as step).
        timings: receives ``build_model_s``, ``record_oracle_s`` and ``sft_s``.
        world: this rank's place (None: one process).
    """
    from .chat_format import pad_token_id
    from .grpo.rollout import list_tasks
    from .sft import run_sft
    from .tiny_model import build_tiny_model

    world = world or DistInfo()
    out = Path(out)
    timings = timings if timings is not None else {}
    t = time.perf_counter()
    init = cfg.model.path
    if init is None:  # the tokenizer learns from the tasks this run trains on only
        init = str(out / "model_init")
        if world.is_main:
            build_tiny_model(Path(init), cfg.model.tiny, train_tasks=list_tasks(envs),
                             world_set=_world_set_path(cfg.rollout))
        barrier(world)
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
    model, tokenizer = _load_trainer_model(init, cfg.run.device)
    examples = _sft_examples(cfg, out, envs, tokenizer, world, timings)
    t = time.perf_counter()
    run_sft(model, examples, cfg.sft, pad_token_id(tokenizer), seed=cfg.run.seed,
            on_epoch=None if sink is None else
            (lambda e, m: sink.log(m, e + 1)), dtype=cfg.model.dtype, world=world,
            parallel=cfg.parallel)
    _save_model(model, tokenizer, path, world)
    if world.is_main:
        _write_json(manifest, recipe)  # last: its presence means the warm start is whole
    barrier(world)
    timings["sft_s"] = time.perf_counter() - t
    return str(path)


def _sft_examples(cfg: TrainConfig, out: Path, envs: Any, tokenizer: Any, world: DistInfo,
                  timings: dict[str, float]) -> list[Any]:
    """The warm start's examples: from ``cfg.sft.dataset`` (every rank reads it whole), or
    from the oracle recorded on the training tasks, each rank its share, gathered."""
    from .chat_format import ChatRenderer
    from .errors import DatasetFormatError
    from .grpo.rollout import list_tasks
    from .sft import sft_examples

    renderer = ChatRenderer(tokenizer)
    if cfg.sft.dataset:
        examples = sft_examples(cfg.sft.dataset, envs, cfg.chat, renderer,
                                cfg.sft.only_successful)
        logger.info("SFT on %d examples from %s", len(examples), cfg.sft.dataset)
        return examples
    t = time.perf_counter()
    tasks = shard_evenly(list_tasks(envs), world.rank, world.world_size)
    name = "oracle" if not world.is_distributed else f"oracle-rank{world.rank}"
    mine: list[Any] = []
    if tasks:
        dataset = record_oracle(cfg.rollout, tasks, out, name=name, seed=cfg.run.seed,
                                episodes_per_task=cfg.sft.oracle_episodes_per_task)
        try:
            mine = sft_examples(str(dataset), envs, cfg.chat, renderer, cfg.sft.only_successful)
        except DatasetFormatError:
            if not world.is_distributed:
                raise
            # this rank's share may hold no successful episode; the others' count
    timings["record_oracle_s"] = time.perf_counter() - t
    examples = all_gather_objects(mine)
    if not examples:
        raise DatasetFormatError("the oracle's recordings gave no SFT example (no successful "
                                 "episode on any rank).")
    logger.info("SFT on %d examples from the oracle's rollouts", len(examples))
    return examples


def _save_model(model: Any, tokenizer: Any, path: Path, world: DistInfo) -> None:
    """Rank 0 writes ``model`` to ``path`` (a sharded model's full tensors gathered first, on
    every rank)."""
    from .lora import causal_lm
    from .parallel import full_state_dict
    from .parallel.engine import is_sharded

    state = full_state_dict(model.state_dict()) if is_sharded(causal_lm(model)) else None
    if world.is_main:
        model.save_pretrained(path, safe_serialization=True, **({} if state is None
                                                                else {"state_dict": state}))
        tokenizer.save_pretrained(path)


def _prepare_for_training(model: Any, model_cfg: ModelConfig) -> Any:
    """Gradient checkpointing and LoRA adapters, as the model config asks."""
    from .lora import apply_lora, enable_gradient_checkpointing

    if model_cfg.gradient_checkpointing:
        enable_gradient_checkpointing(model)
    if model_cfg.lora.is_enabled:
        model = apply_lora(model, model_cfg.lora)
    return model


def _rollout_policy(kind: BackendKind, model: Any, tokenizer: Any, start_path: str,
                    model_cfg: ModelConfig, chat: ChatFormatConfig, sampling: SamplingConfig,
                    vllm: VLLMEngineConfig, hf_batch_size: int) -> Any:
    """The policy GRPO samples with: vLLM serving ``start_path``, or transformers on ``model``
    (``hf_batch_size`` prompts a batch), in ``model_cfg.dtype``."""
    if kind is BackendKind.VLLM:
        from .policies.vllm_policy import VLLMPolicy
        from .precision import check_sampler_dtype

        train = VLLMPolicy(start_path, chat, sampling, vllm, dtype=model_cfg.dtype)
        with closing_on_error(train.close):  # vLLM reports the precision it really runs in
            check_sampler_dtype(model_cfg.dtype, train.backend.dtype,
                                model_cfg.allow_dtype_mismatch, "the vLLM engine")
        return train
    from .policies.hf_policy import HFPolicy

    return HFPolicy(model, tokenizer, chat, sampling, batch_size=hf_batch_size,
                    dtype=model_cfg.dtype)


def _eval_policy(train: Any, tokenizer: Any, chat: ChatFormatConfig, sampling: SamplingConfig,
                 temperature: float) -> Any:
    """The evaluation policy: ``train``'s backend, sampled at the evaluation ``temperature``."""
    from .chat_format import ChatRenderer
    from .policies.chat_policy import ChatPolicy

    eval_sampling = SamplingConfig(temperature=temperature, top_p=sampling.top_p,
                                   max_new_tokens=sampling.max_new_tokens,
                                   max_prompt_tokens=sampling.max_prompt_tokens)
    return ChatPolicy(train.backend, chat, eval_sampling, ChatRenderer(tokenizer),
                      train.context_length, name=f"{train.name}-eval")


def _evaluate(policy: Any, evals: dict[str, Any], evaluation: EvalConfig, sink: Any, step: int,
              world: DistInfo | None = None) -> dict[str, EvalResult]:
    """Evaluate every subset of ``evals`` (see :func:`make_eval_envs`), each rank its share of
    the episodes; one metrics line for all."""
    start = time.perf_counter()
    held_out = dataclasses.replace(
        evaluation,
        episodes_per_task=evaluation.val_episodes_per_task or evaluation.episodes_per_task)
    results: dict[str, EvalResult] = {}
    metrics: dict[str, float] = {}
    for name, envs in evals.items():
        results[name] = evaluate_policy(policy, envs,
                                        evaluation if name == "train" else held_out, world)
        metrics.update(results[name].metrics(EVAL_AREAS[name]))
    metrics["time/eval_s"] = time.perf_counter() - start
    sink.log(metrics, step)
    return results


def _held_out(results: dict[str, EvalResult], when: str) -> dict[str, dict[str, Any]]:
    """``{subset: {"success_<when>": rate, "reward_<when>": mean, "episodes": n}}`` of the
    held-out subsets (empty without a split)."""
    return {name: {f"success_{when}": r.success_rate, f"reward_{when}": r.reward_mean,
                   "episodes": len(r.trajectories), f"per_world_{when}": r.per_world}
            for name, r in results.items() if name != "train"}


def _split_record(split: Split | None, out: Path) -> dict[str, Any] | None:
    if split is None:
        return None
    return {"file": str(out / "split.json"), "world_set_hash": split.world_set_hash,
            "seed": split.seed, "sizes": split.sizes, "val_worlds": list(split.val_worlds)}


def _phase_line(timings: dict[str, float]) -> str:
    """One line with the seconds of every phase that ran, in order.

    Example:
        >>> _phase_line({"sft_s": 40.0, "grpo_s": 108.25, "total_s": 160.0})
        'phases: sft 40.0 s | grpo 108.2 s | total 160.0 s'
    """
    return "phases: " + " | ".join(f"{k.removesuffix('_s').replace('_', ' ')} {v:.1f} s"
                                   for k, v in timings.items())


def run_training(cfg: TrainConfig, console: IO[str] | None = None) -> dict[str, Any]:
    """Run the whole job (see the module docstring); returns the summary it writes (rank 0;
    the other ranks of a data-parallel run return ``{}``).

    Under ``torchrun`` (data parallel, :mod:`agents.parallel`) every rank works in every phase:
    it records the oracle on its share of the tasks, trains SFT and GRPO through the engine
    (DDP or FSDP2) on its share of each batch, and runs its share of every evaluation's
    episodes; rank 0 alone logs and writes the run folder.
    """
    import torch

    from .grpo.checkpoint import latest_checkpoint
    from .policies.hf_policy import resolve_device

    t_start = time.perf_counter()
    console = console or sys.stderr
    device = resolve_device(cfg.run.device)
    world = init_distributed(device, cfg.parallel.timeout_s)
    kind = _backend_kind(cfg.rollout, world)
    check_parallel(cfg.parallel, world_size=world.world_size,
                   groups_per_step=cfg.rollout.groups_per_step, device=device,
                   sampler=kind.value, lora=cfg.model.lora.is_enabled,
                   warm_start=cfg.sft.epochs > 0 and not cfg.run.resume)
    out = Path(cfg.run.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if cfg.run.torch_threads is not None:
        torch.set_num_threads(cfg.run.torch_threads)
    torch.manual_seed(cfg.run.seed)
    checkpoint = latest_checkpoint(out) if cfg.run.resume else None
    sink = _open_sink(cfg, out, world.is_main, console, is_resumed=checkpoint is not None)
    split = make_split(cfg.split, cfg.rollout)  # deterministic: every rank makes the same one
    if world.is_main and split is not None:
        split.save(out / "split.json")
    train_envs = make_envs(cfg.rollout, cfg.rollout.episodes_per_step // world.world_size,
                           split, Subset.TRAIN if split is not None else None)
    with closing_on_error(train_envs.close):
        eval_envs = make_eval_envs(cfg.rollout, cfg.eval, train_envs, split, world.world_size)
    timings: dict[str, float] = {}
    try:
        summary = _train(cfg, out, world, kind, checkpoint, split, train_envs, eval_envs, sink,
                         timings)
    finally:
        sink.close()
        train_envs.close()
        for envs in eval_envs.values():
            envs.close()
    if world.is_main:
        timings["total_s"] = time.perf_counter() - t_start
        summary["timings"] = timings
        _write_json(out / "summary.json", summary)
        console.write(_phase_line(timings) + "\n")
    if world.is_distributed:  # after the vLLM engines are gone (their finalisers need it)
        torch.distributed.destroy_process_group()
    return summary if world.is_main else {}


def _open_sink(cfg: TrainConfig, out: Path, is_main: bool, console: IO[str],
               is_resumed: bool) -> Any:
    """The run's metrics sink: on rank 0 ``metrics.jsonl`` (appended to when resumed), the
    console and the ``run.report_to`` service (``config.json`` is written first); elsewhere
    one that drops everything."""
    sinks: list[Any] = []
    if is_main:
        _write_json(out / "config.json", config_to_dict(cfg))
        sinks = [JSONLSink(out / "metrics.jsonl", append=is_resumed),
                 ConsoleSink(console, cfg.grpo.steps)]
        report = make_report_sink(cfg.run.report_to, out, config_to_dict(cfg),
                                  project=cfg.run.wandb_project)
        if report is not None:
            sinks.append(report)
    return MultiSink(sinks)


def _train(cfg: TrainConfig, out: Path, world: DistInfo, kind: BackendKind,
           checkpoint: Path | None, split: Split | None, train_envs: Any,
           eval_envs: dict[str, Any], sink: Any, timings: dict[str, float]) -> dict[str, Any]:
    """Warm start (or resume), evaluate, GRPO with evaluations every ``eval.every`` steps,
    then finish the run (:func:`_finish`); every rank takes part in each, and returns the
    summary."""
    if checkpoint is None:
        start_path = prepare_start_model(cfg, out, train_envs, sink, timings, world)
    else:
        start_path = str(checkpoint)
    model, tokenizer = _load_trainer_model(start_path, cfg.run.device)
    model = _prepare_for_training(model, cfg.model)
    policy = _rollout_policy(kind, model, tokenizer, start_path, cfg.model, cfg.chat,
                             cfg.sampling, cfg.vllm, cfg.rollout.hf_batch_size)
    evaluator = _eval_policy(policy, tokenizer, cfg.chat, cfg.sampling, cfg.eval.temperature)
    if checkpoint is None:
        summary_before = _evaluate_before(cfg, out, evaluator, eval_envs, sink, split,
                                          start_path, timings, world)
    else:
        summary_before = json.loads((out / _SUMMARY_BEFORE).read_text())
    trainer = _make_trainer(cfg, world, checkpoint, model, tokenizer, train_envs, policy,
                            summary_before["sft_model"])

    def maybe_eval(step: int, _: dict[str, float]) -> None:
        if cfg.eval.every and step % cfg.eval.every == 0 and step < cfg.grpo.steps:
            _evaluate(evaluator, eval_envs, cfg.eval, sink, step, world)

    t = time.perf_counter()
    trainer.train(cfg.grpo.steps, sink, str(out), on_step=maybe_eval)
    timings["grpo_s"] = time.perf_counter() - t
    summary = _finish(cfg, out, trainer, evaluator, eval_envs, sink, kind, policy.name,
                      summary_before, timings)
    barrier(world)
    policy.close()
    return summary


_SUMMARY_BEFORE = "summary_before.json"
"""The run folder's record of the start model's evaluation (every rank reads it back)."""


def _evaluate_before(cfg: TrainConfig, out: Path, evaluator: Any, eval_envs: dict[str, Any],
                     sink: Any, split: Split | None, start_path: str,
                     timings: dict[str, float], world: DistInfo) -> dict[str, Any]:
    """Evaluate the start model (step 0); rank 0 writes :data:`_SUMMARY_BEFORE` (a resumed run
    reads it back). Returns what it holds."""
    t = time.perf_counter()
    before = _evaluate(evaluator, eval_envs, cfg.eval, sink, 0, world)
    timings["eval_before_s"] = time.perf_counter() - t
    summary = {"success_before": before["train"].success_rate,
               "reward_before": before["train"].reward_mean,
               "per_world_before": before["train"].per_world,
               "held_out": _held_out(before, "before"),
               "split": _split_record(split, out),
               "sft_model": start_path}
    if world.is_main:
        _write_json(out / _SUMMARY_BEFORE, summary)
    return summary


def _make_trainer(cfg: TrainConfig, world: Any, checkpoint: Path | None, model: Any,
                  tokenizer: Any, train_envs: Any, policy: Any, sft_model: str) -> Any:
    """The GRPO trainer (with the frozen ``sft_model`` as reference when ``grpo.kl_coef > 0``),
    its state restored from ``checkpoint`` when resuming."""
    from .grpo.checkpoint import read_trainer_state
    from .grpo.train import GRPOSetup, GRPOTrainer

    ref_model = None
    if cfg.grpo.kl_coef > 0:
        ref_model, _ = _load_trainer_model(sft_model, cfg.run.device)
        ref_model.requires_grad_(False)
    setup = GRPOSetup(cfg.rollout, cfg.grpo, cfg.optim, cfg.sampling.temperature,
                      cfg.run.seed, cfg.run.checkpoint_every, cfg.model.dtype)
    trainer = GRPOTrainer(model, tokenizer, train_envs, policy, setup, ref_model,
                          config_to_dict(cfg), world=world, parallel=cfg.parallel)
    if checkpoint is not None:
        trainer.load_state(str(checkpoint), read_trainer_state(checkpoint).step)
    return trainer


def _finish(cfg: TrainConfig, out: Path, trainer: Any, evaluator: Any,
            eval_envs: dict[str, Any], sink: Any, kind: BackendKind, policy_name: str,
            summary_before: dict[str, Any], timings: dict[str, float]) -> dict[str, Any]:
    """Save the final model, evaluate it (every rank its share), and on rank 0 plot and write
    transcripts; returns the summary."""
    from awm_gym.manager import write_transcripts

    from .grpo.rollout import to_episode

    world = trainer.world
    model_state, _ = saving_state(trainer.train_module, None)  # every rank, when sharded
    if world.is_main:
        trainer.model.save_pretrained(out / "model_final", safe_serialization=True,
                                      **({} if model_state is None
                                         else {"state_dict": model_state}))
        trainer.tokenizer.save_pretrained(out / "model_final")
    t = time.perf_counter()
    results = _evaluate(evaluator, eval_envs, cfg.eval, sink, cfg.grpo.steps, world)
    after = results["train"]
    timings["eval_after_s"] = time.perf_counter() - t
    held_out = summary_before.get("held_out") or {}
    for name, values in _held_out(results, "after").items():
        held_out[name] = {**held_out.get(name, {}), **values}
    if world.is_main:
        worlds = ", ".join(cfg.rollout.worlds) if cfg.rollout.worlds else cfg.rollout.env_id
        plot_metrics(out / "metrics.jsonl", out / "reward.png",
                     title=f"GRPO on {worlds} ({kind.value} sampling)")
        episodes = [to_episode(tr, k, policy_name)
                    for k, tr in enumerate(after.trajectories[:cfg.run.transcripts])]
        write_transcripts(episodes, out / "transcripts", title="after GRPO (evaluation)")
    return {**summary_before, "success_after": after.success_rate,
            "reward_after": after.reward_mean, "per_world_after": after.per_world,
            "held_out": held_out,
            "backend": kind.value, "grpo_steps": cfg.grpo.steps,
            "eval_episodes": len(after.trajectories), "run_dir": str(out)}


def _eval_width(episodes: int, ranks: int = 1, most: int = 64) -> int:
    """Instances for one rank's share of ``episodes`` evaluation episodes: at most ``most``,
    chunks of equal size.

    Example:
        >>> _eval_width(80), _eval_width(40), _eval_width(130), _eval_width(130, ranks=2)
        (40, 40, 44, 33)
    """
    episodes = -(-episodes // ranks)
    chunks = -(-episodes // most)
    return -(-episodes // chunks)
