"""The few values ranks exchange besides gradients: scalars, small objects.

Each is the identity in one process, so the same code runs with and without ``torchrun``.

Example:
    >>> all_reduce([1.0, 2.0]), all_gather_objects(["a"])
    ([1.0, 2.0], ['a'])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["all_reduce", "all_gather_objects", "gather_objects", "is_group_active"]


def is_group_active() -> bool:
    """True inside a process group of more than one rank."""
    import torch.distributed as dist

    return dist.is_available() and dist.is_initialized() and dist.get_world_size() > 1


def all_reduce(values: Sequence[float], op: str = "sum") -> list[float]:
    """Sum (or ``max`` / ``min``) a few floats over ranks, in float64 over gloo."""
    if not is_group_active():
        return list(values)
    import torch
    import torch.distributed as dist

    t = torch.tensor(list(values), dtype=torch.float64)
    reduce_op = {"sum": dist.ReduceOp.SUM, "max": dist.ReduceOp.MAX,
                 "min": dist.ReduceOp.MIN}[op]
    dist.all_reduce(t, op=reduce_op)
    return t.tolist()


def all_gather_objects(items: list[Any]) -> list[Any]:
    """Every rank's ``items`` concatenated in rank order."""
    if not is_group_active():
        return items
    import torch.distributed as dist

    gathered: list[Any] = [None] * dist.get_world_size()
    dist.all_gather_object(gathered, items)
    return [x for part in gathered for x in part]


def gather_objects(items: list[Any], dst: int = 0) -> list[Any]:
    """Every rank's ``items`` concatenated in rank order on rank ``dst`` (``[]`` on the others):
    what only the writing rank needs (trajectories for transcripts) travels to it alone."""
    if not is_group_active():
        return items
    import torch.distributed as dist

    is_dst = dist.get_rank() == dst
    gathered: list[Any] | None = [None] * dist.get_world_size() if is_dst else None
    dist.gather_object(items, gathered, dst=dst)
    return [x for part in gathered for x in part] if gathered is not None else []
