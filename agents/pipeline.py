"""The main job: build (or load) a model, SFT on oracle rollouts, evaluate, GRPO, evaluate, report.

The job reads as its stages (:mod:`agents.stages`): the data (split, envs, the oracle's
rollouts: :mod:`~agents.stages.data`), the warm start (:mod:`~agents.stages.warm_start`),
GRPO (:mod:`~agents.stages.training`) and the evaluations (:mod:`~agents.stages.evaluation`);
:func:`run_training` calls them in that order and holds nothing else.

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
    pass_rates.csv, .png     each training task's pass rate over GRPO steps (the curriculum's)
    summary.json             success before and after (training and held-out tasks), timings,
                             the host's numerics (CPU, kernel instruction set: the line's
                             last bits depend on them; written last)

With a split (``cfg.split``, on in the main job) the oracle is recorded, SFT and GRPO run, on the
``train`` subset only, and every evaluation also runs the held-out ``val_tasks`` (new tasks of
the training worlds) and ``val_worlds`` (worlds never seen), reported beside the training tasks.

Example:
    >>> summary = run_training(TrainConfig())    # doctest: +SKIP
    >>> summary["success_before"], summary["success_after"]   # doctest: +SKIP
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import IO, Any

from awm_gym.boundary import closing_on_error
from awm_gym.worlds import Split, Subset

from .config import TrainConfig
from .grpo.config import BackendKind
from .host_numerics import host_numerics
from .parallel import DistInfo, barrier, check_parallel, init_distributed
from .stages.data import make_envs, make_eval_envs, make_split, record_oracle
from .stages.evaluation import evaluate, evaluate_start, finish
from .stages.run_folder import open_sink, phase_line, write_json
from .stages.training import backend_kind, run_grpo, sampling_policy
from .stages.warm_start import load_start_model, prepare_start_model

__all__ = ["run_training", "make_envs", "make_eval_envs", "make_split", "record_oracle",
           "prepare_start_model"]


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
    kind = backend_kind(cfg.rollout, world)
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
    sink = open_sink(cfg, out, world.is_main, console, is_resumed=checkpoint is not None)
    split = make_split(cfg.split, cfg.rollout)  # deterministic: every rank makes the same one
    if world.is_main and split is not None:
        split.save(out / "split.json")
    train_envs = make_envs(cfg.rollout, cfg.rollout.episodes_per_step // world.world_size,
                           split, Subset.TRAIN if split is not None else None,
                           local_ranks=world.local_world_size)
    with closing_on_error(train_envs.close):
        eval_envs = make_eval_envs(cfg.rollout, cfg.eval, train_envs, split, world.world_size,
                                   world.local_world_size)
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
        summary["host"] = host_numerics()  # what the line's last bits depend on
        write_json(out / "summary.json", summary)
        console.write(phase_line(timings) + "\n")
    if world.is_distributed:  # after the vLLM engines are gone (their finalisers need it)
        torch.distributed.destroy_process_group()
    return summary if world.is_main else {}


def _train(cfg: TrainConfig, out: Path, world: DistInfo, kind: BackendKind,
           checkpoint: Path | None, split: Split | None, train_envs: Any,
           eval_envs: dict[str, Any], sink: Any, timings: dict[str, float]) -> dict[str, Any]:
    """The stages after the data: warm start (or resume), the start model's evaluation, GRPO
    with evaluations every ``eval.every`` steps, the final evaluation and report. Every rank
    takes part in each; returns the summary."""
    model, tokenizer, start_path = load_start_model(cfg, out, train_envs, sink, timings, world,
                                                    checkpoint)
    model, policy = sampling_policy(cfg, model, tokenizer, start_path, kind)
    evaluator, before = evaluate_start(cfg, out, policy, tokenizer, eval_envs, sink, split,
                                       start_path, timings, world, checkpoint is not None)
    trainer = run_grpo(cfg, out, world, checkpoint, model, tokenizer, train_envs, policy,
                       before["sft_model"], sink,
                       lambda step: evaluate(evaluator, eval_envs, cfg.eval, sink, step, world),
                       timings)
    summary = finish(cfg, out, trainer, evaluator, eval_envs, sink, kind, policy.name, before,
                     timings)
    barrier(world)
    policy.close()
    return summary
