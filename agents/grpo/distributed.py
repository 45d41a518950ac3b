"""Data-parallel GRPO with ``torch.distributed``: whole groups per rank, one summed gradient.

Launched by ``torchrun --nproc_per_node N``. The process group has gloo for CPU tensors and, on
GPUs, NCCL for CUDA tensors (:func:`choose_backend`): gradients are reduced where they live and
the few CPU scalars (token and trajectory counts, diagnostics) over gloo. Every rank holds a
full replica of the model and its optimizer, and per GRPO step:

1. draws the same step's groups (same seed) and keeps every ``N``-th group
   (:func:`shard_groups`): a group never spans ranks, so its advantages are computed where its
   rollouts are, over the whole group;
2. rolls out and builds its samples locally;
3. per mini-batch, adds its samples' weighted token losses to its gradient, the weights coming
   from counts summed over **all** ranks (the mini-batch's sampled tokens, or its trajectories:
   ``GRPOConfig.loss_norm``), then the gradients are summed across ranks
   (:func:`all_reduce_grads`). The result is the gradient of the whole step's batch, exactly
   what one process computes on it (tested with two processes, for every normalisation);
4. clips and steps the optimizer identically everywhere, so replicas stay equal. A rank whose
   share had no samples still steps (zero gradient plus the others'), so it syncs its sampler
   too.

This is DistributedDataParallel's arithmetic (gradient all-reduce after backward) done
explicitly: the loss runs the model body and head separately and accumulates micro-batches by
token budget, which DDP's forward-hook bookkeeping does not follow. With more than one
optimizer step per GRPO step, each rank splits its own samples into that many mini-batches.

Example:
    >>> specs = [EpisodeSpec("w", 0, 1, g) for g in (0, 0, 1, 1, 2, 2, 3, 3)]
    >>> [s.group for s in shard_groups(specs, rank=1, world_size=2)]
    [1, 1, 3, 3]
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .rollout import EpisodeSpec

__all__ = ["DistInfo", "choose_backend", "init_distributed", "shard_groups", "all_reduce_grads",
           "all_reduce", "all_gather_objects"]


@dataclass(frozen=True)
class DistInfo:
    """This process's place in the job."""

    rank: int = 0
    world_size: int = 1

    @property
    def is_main(self) -> bool:
        """Rank 0: the one that logs, evaluates and writes checkpoints."""
        return self.rank == 0

    @property
    def is_distributed(self) -> bool:
        return self.world_size > 1


def choose_backend(device: str) -> str:
    """The ``torch.distributed`` backend string for a trainer on ``device``.

    On CPU everything goes over gloo. On GPUs the gradients are CUDA tensors (NCCL) but the
    counts and diagnostics reduced beside them are CPU tensors, which NCCL cannot reduce: the
    group gets both, one per device type.

    Raises:
        ValueError: ``device`` is neither ``cpu`` nor ``cuda[:k]``.

    Example:
        >>> choose_backend("cpu"), choose_backend("cuda:1")
        ('gloo', 'cpu:gloo,cuda:nccl')
    """
    kind = device.split(":", 1)[0]
    if kind == "cpu":
        return "gloo"
    if kind == "cuda":
        return "cpu:gloo,cuda:nccl"
    raise ValueError(f"data parallel on device {device!r}: use 'cpu' (gloo) or 'cuda' "
                     "(NCCL for CUDA tensors, gloo for CPU ones).")


def init_distributed(device: str = "cpu") -> DistInfo:
    """Join the process group torchrun describes (``WORLD_SIZE``, ``RANK``, ...); a single
    process without those variables gets ``DistInfo()``.

    Args:
        device: ``cpu`` (gloo) or ``cuda`` (one GPU per local rank; gloo and NCCL, see
            :func:`choose_backend`).
    """
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if world <= 1:
        return DistInfo()
    import torch
    import torch.distributed as dist

    if not dist.is_initialized():
        on_gpu = device.startswith("cuda")
        if on_gpu:
            torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))
        dist.init_process_group(backend=choose_backend(device))
    return DistInfo(dist.get_rank(), dist.get_world_size())


def shard_groups(specs: Sequence[EpisodeSpec], rank: int, world_size: int) -> list[EpisodeSpec]:
    """The episodes of the groups this rank runs: groups ``rank, rank + N, rank + 2N, ...``.

    Raises:
        ValueError: the groups cannot be split evenly (every rank must run as many).
    """
    groups = list(dict.fromkeys(s.group for s in specs))
    if len(groups) % world_size:
        raise ValueError(f"{len(groups)} groups per step cannot be split over {world_size} "
                         "ranks; set RolloutConfig.groups_per_step to a multiple of the number "
                         "of processes.")
    mine = set(groups[rank::world_size])
    return [s for s in specs if s.group in mine]


def all_reduce(values: Sequence[float], op: str = "sum") -> list[float]:
    """Sum (or ``max`` / ``min``) a few floats over ranks (identity in one process)."""
    import torch
    import torch.distributed as dist

    if not (dist.is_available() and dist.is_initialized()) or dist.get_world_size() == 1:
        return list(values)
    t = torch.tensor(list(values), dtype=torch.float64)
    reduce_op = {"sum": dist.ReduceOp.SUM, "max": dist.ReduceOp.MAX,
                 "min": dist.ReduceOp.MIN}[op]
    dist.all_reduce(t, op=reduce_op)
    return t.tolist()


def all_reduce_grads(params: Iterable[Any]) -> None:
    """Sum every parameter's gradient over ranks, in one flat buffer (a missing gradient counts
    as zeros, so a rank without samples still takes part)."""
    import torch
    import torch.distributed as dist

    if not (dist.is_available() and dist.is_initialized()) or dist.get_world_size() == 1:
        return
    params = list(params)
    for p in params:
        if p.grad is None:
            p.grad = torch.zeros_like(p)
    flat = torch.cat([p.grad.reshape(-1) for p in params])
    dist.all_reduce(flat, op=dist.ReduceOp.SUM)
    offset = 0
    for p in params:
        n = p.grad.numel()
        p.grad.copy_(flat[offset:offset + n].view_as(p.grad))
        offset += n


def all_gather_objects(items: list[Any]) -> list[Any]:
    """Every rank's ``items`` concatenated in rank order (``items`` itself in one process)."""
    import torch.distributed as dist

    if not (dist.is_available() and dist.is_initialized()) or dist.get_world_size() == 1:
        return items
    gathered: list[Any] = [None] * dist.get_world_size()
    dist.all_gather_object(gathered, items)
    return [x for part in gathered for x in part]
