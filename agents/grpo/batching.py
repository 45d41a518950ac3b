"""Turn trajectories into training samples (one per turn) and pack them into micro-batches.

A sample is the exact prompt ids the sampler saw followed by the ids it sampled; the loss mask
covers the sampled ids and nothing else. Its advantage is its trajectory's, except a cut turn's
under ``cut_turn=penalty`` (charged to that sample alone, see :func:`build_samples`). Turns that
sampled nothing (a prompt over the context) never become samples. :func:`trajectory_credit`
decides what a trajectory stopped by a cut turn (``max_new_tokens``) scores, and whether it
trains; a trajectory stopped by a context overflow never trains (it is unscored: the overflow
usually comes from long tool results, not from the policy).

Micro-batches are formed in order, greedily, so that ``rows x longest row <= token budget``
(a sample longer than the budget gets a micro-batch of its own). Rows are right-padded; the
padding-free loss (:func:`agents.grpo.loss.token_logprobs`) packs the same micro-batches into
fewer rows (:func:`packed_rows`).

Example:
    >>> s = [TrainSample((1, 2), (3, 4), 0.5, (-0.1, -0.2)), TrainSample((1,), (5,), -0.5, (-1.0,))]
    >>> pack_micro_batches(s, token_budget=4)
    [[0], [1]]
    >>> b = collate(s, pad_id=0)
    >>> b.input_ids.tolist(), b.loss_mask.int().tolist()
    ([[1, 2, 3, 4], [1, 5, 0, 0]], [[0, 1, 1], [1, 0, 0]])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from .config import CutTurnMode
from .rollout import Trajectory

__all__ = ["TrainSample", "trajectory_credit", "build_samples", "pack_micro_batches", "collate",
           "MicroBatch", "packed_rows", "padding_batch", "micro_schedule"]


@dataclass(frozen=True, slots=True)
class TrainSample:
    """One turn to train on: prompt ids + completion ids, its advantage, the sampler's
    log-probabilities of the completion ids, and which trajectory it belongs to."""

    prompt_ids: tuple[int, ...]
    completion_ids: tuple[int, ...]
    advantage: float
    sampler_logprobs: tuple[float, ...]
    trajectory: int | None = None
    """Key of its trajectory among the step's samples on this rank (``seq_mean_token_mean``
    weighs trajectories equally); None: the sample is a trajectory of its own."""

    @property
    def length(self) -> int:
        return len(self.prompt_ids) + len(self.completion_ids)


def trajectory_credit(trajectories: Sequence[Trajectory], cut_turn: CutTurnMode | str
                      ) -> tuple[list[float], list[bool]]:
    """Each trajectory's reward and whether it is scored, for the advantage computation.

    A trajectory stopped by a cut turn is unscored with ``mask`` (it leaves its group's
    statistics, gets no advantage, so none of its turns trains). With ``penalty`` it keeps its
    env reward (0.0) and is scored like any other: the penalty goes to the cut turn's own
    sample (:func:`build_samples`), never into the group's statistics, where it would lift the
    other members' advantages and push down the trajectory's earlier turns. A trajectory
    stopped by a context overflow is unscored in both modes: its 0.0 says the prompt outgrew
    the context (long tool results, mostly), not that the policy failed, so it must not push
    its turns down nor lift the other members of its group. Others keep the env's reward and
    validity.

    Example:
        >>> from agents.grpo.rollout import EpisodeSpec
        >>> cut = Trajectory(EpisodeSpec("w", 0, 0), "t", (), 0.0, True, False, False, "length")
        >>> done = Trajectory(EpisodeSpec("w", 0, 0), "t", (), 1.0, True, True, False, None)
        >>> full = Trajectory(EpisodeSpec("w", 0, 0), "t", (), 0.0, True, False, False, "context")
        >>> trajectory_credit([cut, done, full], "mask")
        ([0.0, 1.0, 0.0], [False, True, False])
        >>> trajectory_credit([cut, done, full], "penalty")
        ([0.0, 1.0, 0.0], [True, True, False])
    """
    mode = CutTurnMode.coerce(cut_turn)
    rewards, valid = [], []
    for traj in trajectories:
        rewards.append(traj.reward)
        if traj.is_context_overflow:
            valid.append(False)
        elif traj.is_cut:
            valid.append(mode is CutTurnMode.PENALTY)
        else:
            valid.append(traj.reward_valid)
    return rewards, valid


def build_samples(trajectories: Sequence[Trajectory], advantages: np.ndarray,
                  trainable: np.ndarray, cut_turn_penalty: float | None = None
                  ) -> list[TrainSample]:
    """One sample per turn of the trainable trajectories, carrying the trajectory's advantage.

    Args:
        trajectories: the step's episodes.
        advantages: one value per trajectory (0 where it does not train).
        trainable: which trajectories train (scored, in a group with non-zero variance).
        cut_turn_penalty: ``cut_turn=penalty``'s ``cut_turn_reward`` (None: ``mask``). The cut
            turn of a cut trajectory then becomes a sample of its own with advantage
            ``min(A, 0) + cut_turn_penalty``, also when its trajectory does not train (a group
            without variance: ``A = 0``); its earlier turns keep ``A``.

    Example:
        >>> from agents.grpo.rollout import EpisodeSpec, TurnSample
        >>> from agents.policies.sampling import Generation
        >>> def turn(reason):
        ...     return TurnSample(Generation((1,), (2,), (-0.1,), reason, "a"), "a", "", 0.0)
        >>> cut = Trajectory(EpisodeSpec("w", 0, 0), "t", (turn("stop"), turn("length")), 0.0,
        ...                  True, False, False, "length")
        >>> [s.advantage for s in build_samples([cut], np.array([-0.5]), np.array([True]), -1.0)]
        [-0.5, -1.5]
        >>> [s.advantage for s in build_samples([cut], np.array([0.0]), np.array([False]), -1.0)]
        [-1.0]
    """
    samples: list[TrainSample] = []
    for key, (traj, adv, ok) in enumerate(zip(trajectories, advantages, trainable,
                                              strict=True)):
        charged = cut_turn_penalty is not None and traj.is_cut
        if not ok and not charged:
            continue
        last = len(traj.turns) - 1
        for k, turn in enumerate(traj.turns):
            gen = turn.generation
            if not gen.completion_ids:
                continue
            if charged and k == last:
                value = min(float(adv), 0.0) + float(cut_turn_penalty)
            elif ok:
                value = float(adv)
            else:
                continue
            samples.append(TrainSample(gen.prompt_ids, gen.completion_ids, value, gen.logprobs,
                                       key))
    return samples


def pack_micro_batches(samples: Sequence[TrainSample], token_budget: int,
                       sort_by_length: bool = False) -> list[list[int]]:
    """Indices of ``samples`` grouped so each group's padded size fits ``token_budget``.

    With ``sort_by_length`` samples of similar length share a micro-batch (less padding); the
    loss's weights are fixed per mini-batch, not per micro-batch, so this changes speed, not
    the gradient.
    """
    order = sorted(range(len(samples)), key=lambda k: samples[k].length) if sort_by_length \
        else list(range(len(samples)))
    batches: list[list[int]] = []
    current: list[int] = []
    longest = 0
    for k in order:
        sample = samples[k]
        width = max(longest, sample.length)
        if current and (len(current) + 1) * width > token_budget:
            batches.append(current)
            current, width = [], sample.length
        current.append(k)
        longest = width
    if current:
        batches.append(current)
    return batches


@dataclass(frozen=True)
class MicroBatch:
    """The right-padded tensors of one micro-batch, as the loss reads them.

    ``B`` rows, ``T`` positions; the ``(B, T-1)`` tensors are aligned with ``targets`` (position
    ``t`` predicts token ``t+1``).

    Example:
        >>> b = collate([TrainSample((1, 2), (3,), 1.0, (-0.5,))], pad_id=0)
        >>> b.targets.tolist(), b.loss_mask.tolist(), b.to("cpu").advantages.tolist()
        ([[2, 3]], [[False, True]], [1.0])
    """

    input_ids: Any
    """(B, T) long: prompt ids then sampled ids, right-padded with the pad id."""
    attention_mask: Any
    """(B, T) long: 1 on real tokens, 0 on padding."""
    targets: Any
    """(B, T-1) long: the next token at each position (a view of ``input_ids[:, 1:]``)."""
    loss_mask: Any
    """(B, T-1) bool: True where the target is a sampled token."""
    sampler_logprobs: Any
    """(B, T-1) float32: the sampler's log-probability of each target (0 outside the mask)."""
    has_sampler_logprobs: Any
    """(B,) bool: False for rows whose sampler reported no log-probabilities."""
    advantages: Any
    """(B,) float32: each row's advantage."""

    def to(self, device: Any) -> MicroBatch:
        """The same micro-batch with every tensor on ``device``."""
        return MicroBatch(*(getattr(self, f.name).to(device) for f in fields(self)))


def collate(samples: Sequence[TrainSample], pad_id: int) -> MicroBatch:
    """Right-padded tensors for a micro-batch (see :class:`MicroBatch` for their shapes)."""
    import torch

    width = max(s.length for s in samples)
    n = len(samples)
    input_ids = torch.full((n, width), pad_id, dtype=torch.long)
    attention = torch.zeros((n, width), dtype=torch.long)
    loss_mask = torch.zeros((n, width - 1), dtype=torch.bool)
    sampler = torch.zeros((n, width - 1), dtype=torch.float32)
    for row, s in enumerate(samples):
        ids = list(s.prompt_ids) + list(s.completion_ids)
        input_ids[row, :len(ids)] = torch.tensor(ids, dtype=torch.long)
        attention[row, :len(ids)] = 1
        start = len(s.prompt_ids) - 1  # position whose next token is the first sampled one
        loss_mask[row, start:start + len(s.completion_ids)] = True
        if s.sampler_logprobs:
            sampler[row, start:start + len(s.completion_ids)] = torch.tensor(s.sampler_logprobs)
    return MicroBatch(
        input_ids=input_ids, attention_mask=attention, targets=input_ids[:, 1:],
        loss_mask=loss_mask, sampler_logprobs=sampler,
        has_sampler_logprobs=torch.tensor([bool(s.sampler_logprobs) for s in samples]),
        advantages=torch.tensor([s.advantage for s in samples], dtype=torch.float32))


def packed_rows(lengths: Sequence[int], width: int) -> list[list[int]]:
    """The rows of a padding-free micro-batch: sample indices, first fit by decreasing length
    into rows of ``width`` tokens (a longer sample gets a row of its own).

    A row as wide as the longest sample keeps sdpa's and eager attention (a dense mask over the
    row) within the padded rows' cost; flash attention takes one row of any width.

    Example:
        >>> packed_rows([5, 2, 3, 4], width=5)
        [[0], [3], [2, 1]]
    """
    rows: list[list[int]] = []
    free: list[int] = []
    for k in sorted(range(len(lengths)), key=lambda k: -lengths[k]):
        r = next((r for r, room in enumerate(free) if room >= lengths[k]), None)
        if r is None:
            rows.append([k])
            free.append(width - lengths[k])
        else:
            rows[r].append(k)
            free[r] -= lengths[k]
    return rows


def padding_batch(pad_id: int) -> MicroBatch:
    """A one-row micro-batch whose single loss position is padding: the zero-weight forward and
    backward that a data-parallel rank with fewer micro-batches runs (its gradient is zero,
    but it touches every parameter, as the engines' collectives expect).

    Example:
        >>> padding_batch(0).loss_mask.tolist()
        [[True]]
    """
    return collate([TrainSample((pad_id,), (pad_id,), 0.0, ())], pad_id)


def micro_schedule(samples: Sequence[TrainSample], token_budget: int, is_distributed: bool
                   ) -> list[list[int] | None]:
    """The micro-batches of one optimizer step (:func:`pack_micro_batches`, sorted by length),
    padded with ``None`` (a :func:`padding_batch` pass) up to the busiest rank's count under
    data parallel: every rank runs as many forward and backward passes (FSDP gathers
    parameters in each; DDP reduces in the last).

    Example:
        >>> s = [TrainSample((1,), (2,), 0.0, ()), TrainSample((1, 2, 3), (4,), 0.0, ())]
        >>> micro_schedule(s, token_budget=4, is_distributed=False)
        [[0], [1]]
    """
    micros: list[list[int] | None] = list(pack_micro_batches(samples, token_budget,
                                                             sort_by_length=True))
    if is_distributed:
        from ..parallel import all_reduce

        (most,) = all_reduce([len(micros)], "max")
        micros.extend([None] * (int(most) - len(micros)))
    return micros
