"""A GRPO step's rollouts, in rounds: dynamic sampling keeps drawing until the step has
``groups_per_step`` groups that carry signal.

A group whose rewards are all equal has zero advantages: it costs its rollouts and teaches
nothing. Without dynamic sampling a step runs one round of ``groups_per_step`` groups and trains
on whichever of them differ (possibly one, possibly none, while the loss's normalisation still
gives the few a full-size update). With ``RolloutConfig.dynamic_sampling`` (DAPO's dynamic
sampling, verl's ``filter_groups``) the step runs up to ``max_sampling_rounds`` rounds, each a
fresh draw of ``groups_per_step`` groups on the same vector env, and keeps the groups with
signal, in the order they were drawn, until it holds ``groups_per_step`` of them; extra ones
of the last round are discarded. When the bound is hit first, the step trains on what it has
and ``rollout/groups_short`` says how many it lacked.

A group *carries signal* when its advantages are not all zero (two scored rollouts with
different rewards, :func:`agents.grpo.advantages.compute_advantages`) or, under
``cut_turn=penalty``, when one of its rollouts was cut (its cut turn is charged whatever the
group's spread).

Several ranks: each round's groups are drawn for the whole step and split over the ranks as
always (whole groups per rank); after each round the ranks exchange one small record per group
(its id, signal, task and outcome: no tokens), so every rank keeps the same groups, decides the
same way whether to draw again, and takes part in the same number of rounds.

Example:
    >>> out = collect_step_rollouts(envs, policy, draw, grpo, needed=8, max_rounds=4,
    ...                             is_dynamic=True)                       # doctest: +SKIP
    >>> out.rounds, out.groups_kept                                       # doctest: +SKIP
    (2, 8)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..parallel import DistInfo, all_gather_objects, shard_groups
from .advantages import compute_advantages
from .batching import trajectory_credit
from .config import CutTurnMode, GRPOConfig
from .curriculum import GroupOutcome
from .rollout import EpisodeSpec, RolloutTimings, Trajectory, collect_episodes

__all__ = ["StepRollouts", "GroupRecord", "group_records", "collect_step_rollouts"]


@dataclass(frozen=True, slots=True)
class GroupRecord:
    """What ranks exchange about one group: its id, whether it carries signal, its outcome."""

    group: int
    has_signal: bool
    outcome: GroupOutcome


@dataclass
class StepRollouts:
    """Every episode a step sampled on this rank, which of them train, and the step's counts
    (counts are over all ranks)."""

    trajectories: list[Trajectory] = field(default_factory=list)
    """Every episode this rank sampled, round after round."""
    kept: list[bool] = field(default_factory=list)
    """Per trajectory: its group is one the step trains on."""
    rounds: int = 0
    groups_sampled: int = 0
    groups_kept: int = 0
    groups_with_signal: int = 0
    """Groups with signal sampled (kept, or discarded because the step was already full)."""
    zero_std_groups: int = 0
    """Groups whose scored rewards were all equal (compute_advantages' count)."""
    rollout_s: float = 0.0
    """This rank's seconds in the rounds' rollouts."""
    discarded_s: float = 0.0
    """Of ``rollout_s``, the share of each round's seconds its discarded groups took."""
    outcomes: list[GroupOutcome] = field(default_factory=list)
    """Every sampled group's outcome (all ranks), for the pass-rate tracker."""

    @property
    def kept_trajectories(self) -> list[Trajectory]:
        return [t for t, k in zip(self.trajectories, self.kept, strict=True) if k]

    @property
    def groups_discarded(self) -> int:
        return self.groups_sampled - self.groups_kept


def group_records(trajs: Sequence[Trajectory], grpo: GRPOConfig) -> tuple[list[GroupRecord], int]:
    """One record per group of ``trajs`` (first-seen order) and how many groups have zero
    variance.

    Example:
        >>> from agents.grpo.rollout import EpisodeSpec
        >>> def t(r, g):
        ...     return Trajectory(EpisodeSpec("w", g, 0, g), "t", (), r, True, r > 0, False, None)
        >>> recs, zero = group_records([t(1.0, 0), t(0.0, 0), t(1.0, 1), t(1.0, 1)], GRPOConfig())
        >>> [(r.group, r.has_signal, r.outcome.successes) for r in recs], zero
        ([(0, True, 1), (1, False, 2)], 1)
    """
    rewards, scored = trajectory_credit(trajs, grpo.cut_turn)
    groups = [t.spec.group for t in trajs]
    adv = compute_advantages(rewards, groups, scored, grpo.advantage, grpo.adv_eps)
    penalty = grpo.cut_turn is CutTurnMode.PENALTY
    members: dict[int, list[int]] = {}
    for k, g in enumerate(groups):
        members.setdefault(g, []).append(k)
    records = []
    for g, idx in members.items():
        spec = trajs[idx[0]].spec
        signal = any(adv.trainable[k] for k in idx) or (penalty and any(trajs[k].is_cut
                                                                        for k in idx))
        scored_idx = [k for k in idx if scored[k]]
        outcome = GroupOutcome(spec.world, spec.task_idx,
                               sum(bool(trajs[k].success) for k in scored_idx), len(scored_idx))
        records.append(GroupRecord(g, bool(signal), outcome))
    return records, adv.zero_std_groups


def collect_step_rollouts(envs: Any, policy: Any, draw: Callable[[int], list[EpisodeSpec]],
                          grpo: GRPOConfig, needed: int, max_rounds: int, is_dynamic: bool,
                          world: DistInfo | None = None,
                          seed_round: Callable[[int], None] | None = None,
                          on_round: Callable[[list[GroupRecord]], None] | None = None,
                          timings: RolloutTimings | None = None) -> StepRollouts:
    """Run a step's rounds of rollouts and choose the groups it trains on.

    Args:
        envs: the rollout vector env (this rank's instances).
        policy: the sampling policy.
        draw: ``draw(round)`` gives the whole step's episodes of that round (every rank's;
            group ids unique across rounds).
        grpo: the objective (what counts as signal: advantage mode, cut-turn mode).
        needed: ``groups_per_step``.
        max_rounds: at most this many rounds (the first included) when ``is_dynamic``.
        is_dynamic: False: one round, every group kept (today's step).
        world: this rank and the number of ranks.
        seed_round: called with the round before its rollouts (sets the sampling seed).
        on_round: called with every rank's group records after each round, before the next
            is drawn (the pass-rate tracker follows them, so the next draw sees them).
        timings: accumulates sampling and env seconds.
    """
    w = world or DistInfo()
    timings = timings if timings is not None else RolloutTimings()
    out = StepRollouts()
    rounds = max_rounds if is_dynamic else 1
    for r in range(rounds):
        specs = draw(r)
        if w.is_distributed:
            specs = shard_groups(specs, w.rank, w.world_size)
        if seed_round is not None:
            seed_round(r)
        start = time.perf_counter()
        trajs = collect_episodes(envs, policy, specs, timings)
        seconds = time.perf_counter() - start
        local, zero = group_records(trajs, grpo)
        every = sorted(all_gather_objects([(rec, zero if k == 0 else 0)
                                           for k, rec in enumerate(local)]),
                       key=lambda pair: pair[0].group)
        records = [rec for rec, _ in every]
        if on_round is not None:
            on_round(records)
        keep: set[int] = set()
        for rec in records:
            if not is_dynamic:
                keep.add(rec.group)
            elif rec.has_signal and out.groups_kept + len(keep) < needed:
                keep.add(rec.group)
        out.rounds += 1
        out.groups_sampled += len(records)
        out.groups_kept += len(keep)
        out.groups_with_signal += sum(rec.has_signal for rec in records)
        out.zero_std_groups += sum(z for _, z in every)
        out.outcomes.extend(rec.outcome for rec in records)
        out.rollout_s += seconds
        if records:
            out.discarded_s += seconds * (len(records) - len(keep)) / len(records)
        out.trajectories.extend(trajs)
        out.kept.extend(t.spec.group in keep for t in trajs)
        if out.groups_kept >= needed:
            break
    return out
