"""Put a model on torch's data-parallel engines, and the glue the trainer needs around them.

* :func:`wrap_for_training`: one process: the model itself. ``ddp``: the causal LM inside the
  model (LoRA layers included) in ``DistributedDataParallel``; gradients of trainable
  parameters are all-reduced in buckets during backward. ``fsdp``: the causal LM sharded in
  place with FSDP2 ``fully_shard``, one group per decoder layer and a root group holding the
  embeddings, final norm and head together (tied weights cannot span groups); in a bfloat16
  run with FSDP2's ``MixedPrecisionPolicy(param_dtype=bf16, reduce_dtype=fp32)``: float32
  shards (the optimizer's master weights), bfloat16 gathers and compute, float32 reductions.
* :func:`gradient_sync`: DDP accumulates micro-batches without communication and all-reduces
  on the last one (``no_sync``); FSDP2 reduce-scatters every micro-batch's gradients into the
  sharded ones (as torchtitan and verl do), since FSDP2 without gradient sync would keep an
  unsharded float32 gradient of every parameter on every rank until the last micro-batch
  (+16 GB a GPU at 4B parameters).
* :func:`gradient_scale`: the engines average gradients over ranks; the trainer's losses are
  weighted by counts summed over all ranks already, so each rank's loss is multiplied by the
  world size and the reduced gradient is the one-process gradient of the whole batch.
* :func:`full_state_dict` / :func:`gathered`: full tensors for saving, and one at a time for
  the sampler's weight sync (a collective under FSDP: every rank calls it).

Every rank must run the same number of forward and backward passes per optimizer step (FSDP
gathers parameters in every forward; DDP reduces in the last backward): the trainer pads a
rank's micro-batches with zero-weight ones (:func:`agents.grpo.update.grpo_update`).

Example:
    >>> import torch
    >>> net = torch.nn.Linear(2, 2)
    >>> wrap_for_training(net, "ddp", DistInfo()) is net    # one process: nothing to wrap
    True
    >>> with gradient_sync(net, enabled=False):
    ...     pass
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Iterator
from typing import Any

from ..model_unwrap import causal_lm
from ..precision import DType
from .config import ParallelStrategy
from .process_group import DistInfo, local_rank

__all__ = ["wrap_for_training", "gradient_sync", "gradient_scale", "full_state_dict",
           "gathered", "is_sharded", "scalar", "saving_state", "restore_optimizer"]


def _ddp_class(lm: Any) -> type:
    """``DistributedDataParallel``, or a subclass whose ``forward`` names ``logits_to_keep``
    when the causal LM takes it (the loss checks the forward's signature before asking for
    logits of the completion positions only)."""
    from torch.nn.parallel import DistributedDataParallel

    if "logits_to_keep" not in inspect.signature(type(lm).forward).parameters:
        return DistributedDataParallel

    class CausalLMDataParallel(DistributedDataParallel):
        def forward(self, input_ids: Any = None, attention_mask: Any = None,
                    use_cache: bool | None = None, logits_to_keep: Any = 0,
                    **kwargs: Any) -> Any:
            return super().forward(input_ids=input_ids, attention_mask=attention_mask,
                                   use_cache=use_cache, logits_to_keep=logits_to_keep,
                                   **kwargs)

    return CausalLMDataParallel


def _decoder_layers(lm: Any) -> list[Any]:
    """The causal LM's repeated blocks (transformers names their class in
    ``_no_split_modules``)."""
    names = set(getattr(lm, "_no_split_modules", None) or ())
    return [m for m in lm.modules() if type(m).__name__ in names]


def _mixed_precision(dtype: DType | str) -> Any:
    """FSDP2's keyword arguments for the run's precision: none in float32; in bfloat16,
    bfloat16 gathers and compute over float32 shards, gradients reduced in float32."""
    if DType.coerce(dtype) is DType.FLOAT32:
        return {}
    import torch
    from torch.distributed.fsdp import MixedPrecisionPolicy

    return {"mp_policy": MixedPrecisionPolicy(param_dtype=torch.bfloat16,
                                              reduce_dtype=torch.float32)}


def wrap_for_training(model: Any, strategy: ParallelStrategy | str, world: DistInfo,
                      device: str = "cpu", always: bool = False,
                      dtype: DType | str = DType.FLOAT32) -> Any:
    """The module the trainer runs forward and backward through.

    Args:
        model: a transformers causal LM, or a peft model around one (its adapters are
            inside the causal LM's layers, so wrapping that wraps them).
        strategy: ``ddp`` or ``fsdp`` (:class:`~agents.parallel.ParallelStrategy`).
        world: this rank's place (one process: ``model`` is returned as it is).
        device: where the model lives (``cuda``: DDP's device is ``cuda:LOCAL_RANK``).
        always: wrap in a process group of one rank too (the GPU check runs the engines on
            its one GPU that way).
        dtype: the run's precision; bfloat16 gives FSDP2 a ``MixedPrecisionPolicy``
            (bfloat16 parameters in forward and backward, float32 gradient reductions; the
            shards and the optimizer stay float32). DDP ignores it (autocast does the work).

    Returns:
        ``model`` (one process), a DDP wrapper of its causal LM, or its causal LM sharded in
        place (FSDP2; ``model`` then holds DTensor parameters too).
    """
    if not (world.is_distributed or always):
        return model
    strategy = ParallelStrategy.coerce(strategy)
    lm = causal_lm(model)
    if strategy is ParallelStrategy.FSDP:
        from torch.distributed.fsdp import fully_shard

        precision = _mixed_precision(dtype)
        for layer in _decoder_layers(lm):
            fully_shard(layer, **precision)
        fully_shard(lm, **precision)
        return lm
    on_gpu = device.startswith("cuda")
    return _ddp_class(lm)(lm, device_ids=[local_rank()] if on_gpu else None,
                          broadcast_buffers=False)


def is_sharded(module: Any) -> bool:
    """True for an FSDP2-sharded module (its forward and backward are collectives)."""
    from torch.distributed.fsdp import FSDPModule

    return isinstance(module, FSDPModule)


@contextlib.contextmanager
def gradient_sync(module: Any, enabled: bool) -> Iterator[None]:
    """Run one micro-batch's backward pass; ``enabled`` on the last of an optimizer step.

    DDP: the last one all-reduces, the others only add to the local (replicated) gradients
    (``no_sync``), which cost no more memory than the one reduced. FSDP2: every micro-batch
    reduce-scatters into the sharded gradients, whatever ``enabled`` says: turning the sync
    off (``set_requires_gradient_sync(False)``) would keep each parameter's unsharded
    gradient (float32) on every rank until the last micro-batch, the memory sharding is for.
    Summing the reduced micro-batches is reducing their sum, so the update is the same.
    """
    from torch.nn.parallel import DistributedDataParallel

    if not enabled and isinstance(module, DistributedDataParallel):
        with module.no_sync():
            yield
    else:
        yield


def gradient_scale(module: Any) -> float:
    """What a rank multiplies its loss by so the engine's averaged gradient is the sum over
    ranks (1.0 in one process or for an unwrapped module)."""
    from torch.nn.parallel import DistributedDataParallel

    if isinstance(module, DistributedDataParallel) or is_sharded(module):
        import torch.distributed as dist

        return float(dist.get_world_size())
    return 1.0


def scalar(value: Any) -> float:
    """A Python float of a 0-d tensor, a DTensor's full value included (clip_grad_norm_ of
    sharded gradients returns one)."""
    full = getattr(value, "full_tensor", None)
    return float(full() if callable(full) else value)


def gathered(tensor: Any) -> Any:
    """The full tensor of a DTensor (an FSDP2 shard: a collective, every rank calls it),
    else ``tensor`` itself."""
    full = getattr(tensor, "full_tensor", None)
    return full() if callable(full) else tensor


def full_state_dict(state: dict[str, Any]) -> dict[str, Any]:
    """``state`` with every DTensor (an FSDP2 shard) gathered into its full tensor.

    Under FSDP this is a collective: every rank calls it, in the same order of names. It
    holds every full tensor at once (a whole unsharded model): for the sampler's weight sync,
    :func:`agents.lora.iter_checkpoint_state` gathers one at a time instead.
    """
    return {name: gathered(tensor) for name, tensor in state.items()}


def saving_state(module: Any, optimizer: Any = None
                 ) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """The full model and optimizer (when given) states of a sharded ``module``, gathered
    to the CPU with torch's ``distributed.checkpoint.state_dict`` (a collective: every rank
    calls it); ``(None, None)`` for anything else (the model and optimizer save their own).
    A checkpoint written this way loads in one process or under any number of ranks."""
    if not is_sharded(module):
        return None, None
    from torch.distributed.checkpoint.state_dict import (
        StateDictOptions,
        get_model_state_dict,
        get_optimizer_state_dict,
    )

    options = StateDictOptions(full_state_dict=True, cpu_offload=True)
    model_state = get_model_state_dict(module, options=options)
    if optimizer is None:
        return model_state, None
    return model_state, get_optimizer_state_dict(module, optimizer, options=options)


def restore_optimizer(module: Any, optimizer: Any, state: dict[str, Any]) -> None:
    """Load a checkpoint's optimizer ``state`` (as :func:`saving_state` or the optimizer wrote
    it) into ``optimizer``; under FSDP each rank keeps its shard of it."""
    if not is_sharded(module):
        optimizer.load_state_dict(state)
        return
    from torch.distributed.checkpoint.state_dict import (
        StateDictOptions,
        set_optimizer_state_dict,
    )

    set_optimizer_state_dict(module, optimizer, optim_state_dict=state,
                             options=StateDictOptions(full_state_dict=True))
