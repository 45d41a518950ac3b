"""Join the process group ``torchrun`` describes, with a timeout that fits the run.

The group has gloo for CPU tensors and, on GPUs, NCCL for CUDA tensors (:func:`choose_backend`):
gradients are reduced where they live (by DDP or FSDP2) and the few CPU scalars beside them
(token and trajectory counts, rewards, diagnostics) over gloo.

Example:
    >>> DistInfo().is_main, DistInfo(1, 2).is_distributed
    (True, True)
"""

from __future__ import annotations

import os
from dataclasses import dataclass

__all__ = ["DistInfo", "choose_backend", "init_distributed", "barrier", "local_rank",
           "local_world_size"]


@dataclass(frozen=True)
class DistInfo:
    """This process's place in the job."""

    rank: int = 0
    world_size: int = 1
    local_world_size: int = 1
    """Ranks on this rank's node (torchrun's ``LOCAL_WORLD_SIZE``): they share its cores, so
    each rank's envs start ``cores // local_world_size`` workers on "auto"."""

    @property
    def is_main(self) -> bool:
        """Rank 0: the one that logs and writes the run folder."""
        return self.rank == 0

    @property
    def is_distributed(self) -> bool:
        return self.world_size > 1


def local_rank() -> int:
    """This process's index on its node (torchrun's ``LOCAL_RANK``; 0 without torchrun)."""
    return int(os.environ.get("LOCAL_RANK", "0"))


def local_world_size() -> int:
    """The ranks on this node (torchrun's ``LOCAL_WORLD_SIZE``; 1 without torchrun).

    Read when the group is joined: vLLM's external launcher later overwrites the variable with
    its tensor-parallel size.
    """
    return max(1, int(os.environ.get("LOCAL_WORLD_SIZE", "1")))


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


def init_distributed(device: str = "cpu", timeout_s: float | None = None) -> DistInfo:
    """Join the process group torchrun describes (``WORLD_SIZE``, ``RANK``, ...); a single
    process without those variables gets ``DistInfo()``.

    Args:
        device: ``cpu`` (gloo) or ``cuda`` (this rank's GPU is ``cuda:LOCAL_RANK``; gloo and
            NCCL, see :func:`choose_backend`).
        timeout_s: how long a collective waits for the slowest rank before the job fails
            (:attr:`agents.parallel.ParallelConfig.timeout_s`; None: torch's default, 30 min
            for gloo and 10 min for NCCL).
    """
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if world <= 1:
        return DistInfo()
    import datetime

    import torch
    import torch.distributed as dist

    if not dist.is_initialized():
        if device.startswith("cuda"):
            torch.cuda.set_device(local_rank())
        kwargs = {} if timeout_s is None else {"timeout": datetime.timedelta(seconds=timeout_s)}
        dist.init_process_group(backend=choose_backend(device), **kwargs)
    return DistInfo(dist.get_rank(), dist.get_world_size(), local_world_size())


def barrier(world: DistInfo) -> None:
    """Wait for every rank (nothing in one process)."""
    if world.is_distributed:
        import torch.distributed as dist

        dist.barrier()
