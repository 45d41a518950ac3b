"""Which part of a step's work a rank runs: whole GRPO groups, or every N-th item.

Example:
    >>> from types import SimpleNamespace as Spec
    >>> specs = [Spec(group=g) for g in (0, 0, 1, 1, 2, 2, 3, 3)]
    >>> [s.group for s in shard_groups(specs, rank=1, world_size=2)]
    [1, 1, 3, 3]
    >>> shard_evenly(list("abcde"), rank=1, world_size=2)
    ['b', 'd']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from ..errors import AgentConfigError

__all__ = ["shard_groups", "shard_evenly"]

T = TypeVar("T")


def shard_groups(specs: Sequence[Any], rank: int, world_size: int) -> list[Any]:
    """The episodes of the groups this rank runs: groups ``rank, rank + N, rank + 2N, ...``.

    A group never spans ranks, so its advantages are computed where its rollouts are.

    Raises:
        AgentConfigError: the groups cannot be split evenly (every rank must run as many).
    """
    groups = list(dict.fromkeys(s.group for s in specs))
    if len(groups) % world_size:
        raise AgentConfigError(
            f"{len(groups)} groups per step cannot be split over {world_size} ranks; set "
            "RolloutConfig.groups_per_step (--rollout.groups-per-step) to a multiple of the "
            "number of processes.")
    mine = set(groups[rank::world_size])
    return [s for s in specs if s.group in mine]


def shard_evenly(items: Sequence[T], rank: int, world_size: int) -> list[T]:
    """Items ``rank, rank + N, ...``: evaluation episodes, oracle tasks, SFT examples."""
    return list(items[rank::world_size])
