"""Stage 4, the evaluation: the policy evaluated on every subset (before, during, after GRPO),
each rank its share of the episodes, and the run's final model, summary, plot and transcripts.

Example:
    >>> evaluator, before = evaluate_start(cfg, out, policy, tok, evals, sink, split,
    ...                                    "out/main/model_sft", timings, world)  # doctest: +SKIP
"""

from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path
from typing import Any

from awm_gym.worlds import Split

from ..chat_format import ChatFormatConfig
from ..config import TrainConfig
from ..evaluate import EvalConfig, EvalResult, evaluate_policy
from ..grpo.config import BackendKind
from ..grpo.metrics import EVAL_AREAS, plot_metrics
from ..parallel import DistInfo
from ..parallel.engine import saving_state
from ..policies.sampling import SamplingConfig
from .run_folder import write_json

__all__ = ["eval_policy", "evaluate", "evaluate_start", "finish", "SUMMARY_BEFORE"]


def eval_policy(train: Any, tokenizer: Any, chat: ChatFormatConfig, sampling: SamplingConfig,
                 temperature: float) -> Any:
    """The evaluation policy: ``train``'s backend, sampled at the evaluation ``temperature``."""
    from ..chat_format import ChatRenderer
    from ..policies.chat_policy import ChatPolicy

    eval_sampling = SamplingConfig(temperature=temperature, top_p=sampling.top_p,
                                   max_new_tokens=sampling.max_new_tokens,
                                   max_prompt_tokens=sampling.max_prompt_tokens)
    return ChatPolicy(train.backend, chat, eval_sampling,
                      ChatRenderer(tokenizer, chat.chat_template_kwargs),
                      train.context_length, name=f"{train.name}-eval")


def evaluate(policy: Any, evals: dict[str, Any], evaluation: EvalConfig, sink: Any, step: int,
              world: DistInfo | None = None) -> dict[str, EvalResult]:
    """Evaluate every subset of ``evals`` (see :func:`make_eval_envs`), each rank its share of
    the episodes; one metrics line for all."""
    start = time.perf_counter()
    held_out_cfg = dataclasses.replace(
        evaluation,
        episodes_per_task=evaluation.val_episodes_per_task or evaluation.episodes_per_task)
    results: dict[str, EvalResult] = {}
    metrics: dict[str, float] = {}
    for name, envs in evals.items():
        results[name] = evaluate_policy(policy, envs,
                                        evaluation if name == "train" else held_out_cfg, world)
        metrics.update(results[name].metrics(EVAL_AREAS[name]))
    metrics["time/eval_s"] = time.perf_counter() - start
    sink.log(metrics, step)
    return results


def held_out(results: dict[str, EvalResult], when: str) -> dict[str, dict[str, Any]]:
    """``{subset: {"success_<when>": rate, "reward_<when>": mean, "episodes": n}}`` of the
    held-out subsets (empty without a split)."""
    return {name: {f"success_{when}": r.success_rate, f"reward_{when}": r.reward_mean,
                   "episodes": r.episodes, f"per_world_{when}": r.per_world}
            for name, r in results.items() if name != "train"}


def split_record(split: Split | None, out: Path) -> dict[str, Any] | None:
    """What summary.json says of the run's split (None without one)."""
    if split is None:
        return None
    return {"file": str(out / "split.json"), "world_set_hash": split.world_set_hash,
            "seed": split.seed, "sizes": split.sizes, "val_worlds": list(split.val_worlds)}


SUMMARY_BEFORE = "summary_before.json"
"""The run folder's record of the start model's evaluation (a resumed run reads it back)."""


def evaluate_before(cfg: TrainConfig, out: Path, evaluator: Any, eval_envs: dict[str, Any],
                     sink: Any, split: Split | None, start_path: str,
                     timings: dict[str, float], world: DistInfo) -> dict[str, Any]:
    """Evaluate the start model (step 0); rank 0 writes :data:`SUMMARY_BEFORE` (a resumed run
    reads it back). Returns what it holds."""
    t = time.perf_counter()
    before = evaluate(evaluator, eval_envs, cfg.eval, sink, 0, world)
    timings["eval_before_s"] = time.perf_counter() - t
    summary = {"success_before": before["train"].success_rate,
               "reward_before": before["train"].reward_mean,
               "per_world_before": before["train"].per_world,
               "held_out": held_out(before, "before"),
               "split": split_record(split, out),
               "sft_model": start_path}
    if world.is_main:
        write_json(out / SUMMARY_BEFORE, summary)
    return summary


def finish(cfg: TrainConfig, out: Path, trainer: Any, evaluator: Any,
            eval_envs: dict[str, Any], sink: Any, kind: BackendKind, policy_name: str,
            summary_before: dict[str, Any], timings: dict[str, float]) -> dict[str, Any]:
    """Save the final model, evaluate it (every rank its share), and on rank 0 plot and write
    transcripts; returns the summary."""
    from awm_gym.manager import write_transcripts

    from ..grpo.rollout import to_episode

    world = trainer.world
    model_state, _ = saving_state(trainer.train_module, None)  # every rank, when sharded
    if world.is_main:
        trainer.model.save_pretrained(out / "model_final", safe_serialization=True,
                                      **({} if model_state is None
                                         else {"state_dict": model_state}))
        trainer.tokenizer.save_pretrained(out / "model_final")
    t = time.perf_counter()
    results = evaluate(evaluator, eval_envs, cfg.eval, sink, cfg.grpo.steps, world)
    after = results["train"]
    timings["eval_after_s"] = time.perf_counter() - t
    held = summary_before.get("held_out") or {}
    for name, values in held_out(results, "after").items():
        held[name] = {**held.get(name, {}), **values}
    if world.is_main:
        worlds = ", ".join(cfg.rollout.worlds) if cfg.rollout.worlds else cfg.rollout.env_id
        plot_metrics(out / "metrics.jsonl", out / "reward.png",
                     title=f"GRPO on {worlds} ({kind.value} sampling)")
        episodes = [to_episode(tr, k, policy_name)
                    for k, tr in enumerate(after.trajectories[:cfg.run.transcripts])]
        write_transcripts(episodes, out / "transcripts", title="after GRPO (evaluation)")
    return {**summary_before, "success_after": after.success_rate,
            "reward_after": after.reward_mean, "per_world_after": after.per_world,
            "held_out": held,
            "backend": kind.value, "grpo_steps": cfg.grpo.steps,
            "eval_episodes": after.episodes, "run_dir": str(out)}


def evaluate_start(cfg: TrainConfig, out: Path, policy: Any, tokenizer: Any,
                   eval_envs: dict[str, Any], sink: Any, split: Split | None, start_path: str,
                   timings: dict[str, float], world: DistInfo, is_resumed: bool
                   ) -> tuple[Any, dict[str, Any]]:
    """The evaluation policy (``policy``'s backend at ``eval.temperature``) and the start
    model's evaluation: run now, or read back from the run folder when resuming."""
    evaluator = eval_policy(policy, tokenizer, cfg.chat, cfg.sampling, cfg.eval.temperature)
    if is_resumed:
        return evaluator, json.loads((out / SUMMARY_BEFORE).read_text())
    return evaluator, evaluate_before(cfg, out, evaluator, eval_envs, sink, split, start_path,
                                      timings, world)
