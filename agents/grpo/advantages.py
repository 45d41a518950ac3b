"""Group-relative advantages: one number per trajectory, from its reward and its group's rewards.

Statistics are taken over trajectories (one reward each), never over turns, so an episode with
many turns does not weigh more in its group's mean (in the loss it does, by its tokens, unless
``GRPOConfig.loss_norm`` is ``seq_mean_token_mean``). Modes:

* ``group`` (GRPO): ``A = (r - mean_g) / (std_g + eps)``;
* ``mean`` (Dr. GRPO's advantage): ``A = r - mean_g``. Dr. GRPO also divides the summed token
  losses by a constant, not by the batch's token count: ``GRPOConfig.loss_norm`` defaults to
  ``constant`` with this mode, so ``advantage="mean"`` alone is Dr. GRPO (with ``token_mean``
  the gradient is Dr. GRPO's times ``constant / tokens``);
* ``batch`` (Lite-PPO): ``A = (r - mean_g) / (std_batch + eps)``.

``std`` is the population standard deviation. A group whose valid rewards are all equal
(zero variance) carries no signal: its trajectories get ``A = 0`` and are flagged so the trainer
drops them from the loss and its token count. Trajectories whose reward is not valid (a verifier
error) are left out of every statistic and get ``A = 0``.

Example:
    >>> adv = compute_advantages([1.0, 0.0, 1.0, 1.0], [0, 0, 1, 1], [True] * 4, "mean")
    >>> adv.values.tolist(), adv.zero_std_groups
    ([0.5, -0.5, 0.0, 0.0], 1)
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from awm_gym.vocab import coerce_enum

from ..errors import AgentConfigError

__all__ = ["AdvantageMode", "Advantages", "compute_advantages"]


class AdvantageMode(str, enum.Enum):
    """How rewards are normalized within a group (see the module docstring)."""

    GROUP = "group"
    MEAN = "mean"
    BATCH = "batch"

    @classmethod
    def coerce(cls, value: str | AdvantageMode) -> AdvantageMode:
        return coerce_enum(cls, value, field="GRPOConfig.advantage", error=AgentConfigError)


@dataclass(frozen=True)
class Advantages:
    """Per-trajectory advantages and which trajectories train."""

    values: np.ndarray  # (N,) float64
    trainable: np.ndarray  # (N,) bool: valid reward and a group with non-zero variance
    zero_std_groups: int
    groups: int

    @property
    def frac_zero_std_groups(self) -> float:
        return self.zero_std_groups / self.groups if self.groups else 0.0


def compute_advantages(rewards: Sequence[float], groups: Sequence[int], valid: Sequence[bool],
                       mode: AdvantageMode | str = AdvantageMode.GROUP, eps: float = 1e-4,
                       batch_rewards: Sequence[float] | None = None) -> Advantages:
    """Normalize trajectory rewards within their groups.

    Args:
        rewards: one reward per trajectory.
        groups: the group id of each trajectory (same task and seed).
        valid: False for trajectories whose reward could not be scored.
        mode: ``group``, ``mean`` or ``batch``.
        eps: added to the standard deviation before dividing.
        batch_rewards: the valid rewards of the whole step's batch, whose standard deviation
            ``batch`` divides by (None: the valid ``rewards`` given). Under data parallel the
            trainer gathers them from every rank, so the update is the one-process update.

    Example:
        >>> local = compute_advantages([1.0, 0.0], [0, 0], [True, True], "batch")
        >>> whole = compute_advantages([1.0, 0.0], [0, 0], [True, True], "batch",
        ...                            batch_rewards=[1.0, 0.0, 1.0, 1.0, 1.0, 1.0])
        >>> round(float(local.values[0]), 3), round(float(whole.values[0]), 3)
        (1.0, 1.341)
    """
    mode = AdvantageMode.coerce(mode)
    r = np.asarray(rewards, dtype=np.float64)
    g = np.asarray(groups)
    ok = np.asarray(valid, dtype=bool)
    if not r.shape == g.shape == ok.shape:
        raise ValueError(f"rewards, groups and valid differ in length: {r.shape}, {g.shape}, "
                         f"{ok.shape}.")
    values = np.zeros_like(r)
    trainable = np.zeros(r.shape, dtype=bool)
    zero = 0
    ids = list(dict.fromkeys(g.tolist()))  # first-seen order: deterministic
    for gid in ids:
        members = np.flatnonzero((g == gid) & ok)
        if len(members) < 2 or np.all(r[members] == r[members[0]]):
            zero += 1
            continue
        values[members] = r[members] - r[members].mean()
        trainable[members] = True
        if mode is AdvantageMode.GROUP:
            values[members] /= r[members].std() + eps
    if mode is AdvantageMode.BATCH and ok.any():
        spread = r[ok] if batch_rewards is None else np.asarray(batch_rewards, dtype=np.float64)
        values[trainable] /= spread.std() + eps
    return Advantages(values, trainable, zero, len(ids))
