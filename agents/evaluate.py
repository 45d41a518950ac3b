"""Evaluate a chat policy on every task a vector env offers, with fixed seeds.

The env decides the tasks: the training worlds, or one subset of a split (the training tasks,
or the held-out ``val_tasks`` / ``val_worlds``; :mod:`awm_gym.envs.selection`).

Every (world, task) pair runs ``episodes_per_task`` episodes (seeds ``seed, seed+1, ...``), in
chunks of at most the vector env's size, with the same rollout code GRPO uses. Success means the
verifier labelled the final answer ``complete``.

Example:
    >>> result = evaluate_policy(policy, envs, EvalConfig(episodes_per_task=2))   # doctest: +SKIP
    >>> result.success_rate                                                       # doctest: +SKIP
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import numpy as np

from .errors import AgentConfigError
from .grpo.rollout import EpisodeSpec, Trajectory, collect_episodes, list_tasks

__all__ = ["EvalConfig", "EvalResult", "evaluate_policy", "eval_specs"]


@dataclass(frozen=True)
class EvalConfig:
    """How the policy is evaluated before and after training."""

    episodes_per_task: int = 8
    """Episodes per (world, task) pair."""
    temperature: float = 1.0
    """Sampling temperature during evaluation (0: greedy, then one episode per task suffices)."""
    seed: int = 10_000
    """Seed of the first evaluation episode (kept apart from training seeds)."""
    every: int = 0
    """Also evaluate every this many GRPO steps (0: only before and after training); with a
    split, the held-out subsets are evaluated at the same steps."""
    val_episodes_per_task: int | None = None
    """Episodes per held-out task (a split's val_tasks and val_worlds; None: as
    episodes_per_task). Lower it for a large world set, whose held-out worlds hold many tasks."""

    def __post_init__(self) -> None:
        if self.episodes_per_task < 1:
            raise AgentConfigError(f"EvalConfig.episodes_per_task={self.episodes_per_task}: "
                                   "use >= 1.")
        if self.val_episodes_per_task is not None and self.val_episodes_per_task < 1:
            raise AgentConfigError(f"EvalConfig.val_episodes_per_task="
                                   f"{self.val_episodes_per_task}: use >= 1, or None for "
                                   "episodes_per_task.")
        if self.temperature < 0:
            raise AgentConfigError(f"EvalConfig.temperature={self.temperature}: use >= 0.")


@dataclass(frozen=True)
class EvalResult:
    """Outcome of an evaluation."""

    success_rate: float
    reward_mean: float
    format_error_rate: float
    per_world: dict[str, float]
    """Success rate per world."""
    trajectories: list[Trajectory]

    def metrics(self, area: str = "eval") -> dict[str, float]:
        """The ``<area>/*`` metrics: ``eval/*`` for the training tasks, ``eval_val_tasks/*`` and
        ``eval_val_worlds/*`` for a split's held-out subsets."""
        out = {f"{area}/success_rate": self.success_rate, f"{area}/reward_mean": self.reward_mean,
               f"{area}/format_error_rate": self.format_error_rate,
               f"{area}/episodes": float(len(self.trajectories))}
        out.update({f"{area}/success_{w}": v for w, v in self.per_world.items()})
        return out


def eval_specs(tasks: list[tuple[str, int]], cfg: EvalConfig) -> list[EpisodeSpec]:
    """One spec per evaluation episode: each task ``episodes_per_task`` times, fixed seeds.

    Example:
        >>> [(s.task_idx, s.seed) for s in eval_specs([("w", 0), ("w", 1)],
        ...                                           EvalConfig(episodes_per_task=2, seed=5))]
        [(0, 5), (0, 6), (1, 7), (1, 8)]
    """
    specs, k = [], 0
    for group, (world, task) in enumerate(tasks):
        for _ in range(cfg.episodes_per_task):
            specs.append(EpisodeSpec(world, task, cfg.seed + k, group))
            k += 1
    return specs


def evaluate_policy(policy: Any, envs: Any, cfg: EvalConfig) -> EvalResult:
    """Run the evaluation episodes on ``envs`` (chunked to its size) with ``policy``.

    The policy's sampling settings are used as they are (give it ``cfg.temperature``); its
    seed is set from ``cfg.seed`` so the evaluation repeats exactly.
    """
    specs = eval_specs(list_tasks(envs), cfg)
    n = envs.num_envs
    trajs: list[Trajectory] = []
    for start in range(0, len(specs), n):
        chunk = specs[start:start + n]
        policy.set_seed(cfg.seed + start)
        padded = chunk + [chunk[-1]] * (n - len(chunk))  # the env steps every instance
        trajs.extend(collect_episodes(envs, policy, padded)[:len(chunk)])
    by_world: dict[str, list[bool]] = defaultdict(list)
    for t in trajs:
        by_world[t.spec.world].append(t.success)
    return EvalResult(
        success_rate=float(np.mean([t.success for t in trajs])),
        reward_mean=float(np.mean([t.reward for t in trajs])),
        format_error_rate=float(np.mean([t.format_error for t in trajs])),
        per_world={w: float(np.mean(v)) for w, v in sorted(by_world.items())},
        trajectories=trajs)
