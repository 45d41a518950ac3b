"""LoRA adapters (peft) and gradient checkpointing for the trainer's model, and merged weights.

With ``LoRAConfig.r > 0`` the trainer wraps its causal LM in a peft ``PeftModel``: only the
adapter matrices train (the optimizer sees nothing else), and the frozen base weights stay as
loaded: in a bfloat16 run they are loaded in bfloat16 (no float32 copy of a weight that never
changes), while the adapters are float32 whatever the base (:func:`apply_lora`).
The sampler never sees an adapter: :func:`iter_checkpoint_state` yields the model's tensors
by checkpoint name, one at a time, with each adapter merged into its base weight
(``W + scale * B @ A``) as that weight is reached, which is what vLLM loads on each sync:
at most one merged weight (or one gathered FSDP2 parameter) exists beyond the model.
The trainer's model itself is never merged in place (merging and unmerging would add rounding
to the base weights at every step).

Gradient checkpointing recomputes each decoder layer's activations in the backward pass
(non-reentrant checkpoints, so it works with frozen inputs and adapters): less memory, about a
third more compute.

Example:
    >>> LoRAConfig(r=8).is_enabled, LoRAConfig().is_enabled
    (True, False)
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from collections.abc import Iterator
from typing import Any

from .errors import AgentConfigError, ModelLoadError
from .model_unwrap import causal_lm, is_peft_model  # public here too, where callers import them
from .parallel.engine import gathered

logger = logging.getLogger(__name__)

__all__ = ["LoRAConfig", "apply_lora", "enable_gradient_checkpointing", "causal_lm",
           "load_adapter",
           "checkpoint_state", "iter_checkpoint_state", "is_peft_model"]

_ALL_LINEAR = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


@dataclass(frozen=True)
class LoRAConfig:
    """Low-rank adapters (peft) instead of full fine-tuning."""

    r: int = 0
    """Adapter rank (0: full fine-tuning, no adapter)."""
    alpha: float = 16.0
    """Scale numerator: the adapter's update is (alpha / r) * B @ A."""
    dropout: float = 0.0
    """Dropout on the adapter's input (0 keeps the sampler and trainer distributions equal)."""
    target_modules: tuple[str, ...] = _ALL_LINEAR
    """Linear layers that get an adapter (names of Qwen/Llama-style projections)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "target_modules", tuple(self.target_modules))
        if self.r < 0:
            raise AgentConfigError(f"LoRAConfig.r={self.r}: use 0 (off) or a rank >= 1.")
        if self.is_enabled and not self.target_modules:
            raise AgentConfigError("LoRAConfig.target_modules is empty: name the linear layers "
                                   f"that get adapters, e.g. {list(_ALL_LINEAR)}.")
        if not 0 <= self.dropout < 1:
            raise AgentConfigError(f"LoRAConfig.dropout={self.dropout}: use a value in [0, 1).")

    @property
    def is_enabled(self) -> bool:
        """True when adapters replace full fine-tuning."""
        return self.r > 0


def apply_lora(model: Any, cfg: LoRAConfig) -> Any:
    """Wrap ``model`` in a peft LoRA model (its base weights frozen); returns the wrapper.

    The adapters are float32 whatever the base's dtype (a bfloat16 base stays bfloat16: the
    optimizer's master weights are the adapters alone).

    Raises:
        ModelLoadError: peft is not installed.
    """
    peft = _peft()
    import torch

    peft_cfg = peft.LoraConfig(r=cfg.r, lora_alpha=cfg.alpha, lora_dropout=cfg.dropout,
                              target_modules=list(cfg.target_modules), bias="none",
                              task_type="CAUSAL_LM")
    wrapped = peft.get_peft_model(model, peft_cfg, autocast_adapter_dtype=True)
    for param in wrapped.parameters():
        if param.requires_grad and param.dtype != torch.float32:
            param.data = param.data.float()
    trainable = sum(p.numel() for p in wrapped.parameters() if p.requires_grad)
    total = sum(p.numel() for p in wrapped.parameters())
    logger.info("LoRA r=%d on %s: %d of %d parameters train", cfg.r, list(cfg.target_modules),
                trainable, total)
    return wrapped


def load_adapter(model: Any, folder: str | os.PathLike[str]) -> Any:
    """``model`` wrapped with the saved LoRA adapter in ``folder`` (peft's format), trainable:
    how a run resumes, and how every GRPO variant starts from one saved SFT checkpoint.

    Raises:
        ModelLoadError: peft is not installed.

    Example:
        >>> model = load_adapter(base, "out/grpo_gain/adapter_sft")     # doctest: +SKIP
    """
    return _peft().PeftModel.from_pretrained(model, str(folder), is_trainable=True)


def _peft() -> Any:
    """The ``peft`` module, or :class:`ModelLoadError` naming the extra that installs it."""
    try:
        import peft
    except ImportError as e:
        raise ModelLoadError("LoRA needs peft: pip install 'awm-gym[lora]' (or pip install peft)."
                             ) from e
    return peft


def enable_gradient_checkpointing(model: Any) -> None:
    """Recompute decoder-layer activations in the backward pass (non-reentrant checkpoints)."""
    causal_lm(model).gradient_checkpointing_enable(
        gradient_checkpointing_kwargs={"use_reentrant": False})


def checkpoint_state(model: Any) -> dict[str, Any]:
    """Every tensor of :func:`iter_checkpoint_state`, in one dict (all held at once: for a
    file or a comparison; the sampler's sync streams instead)."""
    return dict(iter_checkpoint_state(model))


def iter_checkpoint_state(model: Any) -> Iterator[tuple[str, Any]]:
    """The model's tensors by checkpoint name, adapters merged into their base weights, one
    at a time.

    For a plain model these are its ``state_dict()`` tensors (detached), an FSDP2 shard
    gathered into its full tensor as it is reached (:func:`~agents.parallel.engine.gathered`:
    every rank must consume the iterator, in the same order). For a peft model, the
    ``base_layer`` names lose that part, ``lora_*`` tensors are dropped, and each adapted
    weight becomes ``W + scale * B @ A``, computed in float32 for that one module when its
    weight is reached and rounded once to ``W``'s dtype (the trainer's model is not
    modified). The iterator keeps no reference to a tensor it has yielded, so a consumer that
    drops each one holds at most one merged weight or gathered parameter beyond the model.

    Example:
        >>> import torch
        >>> names = [n for n, _ in iter_checkpoint_state(torch.nn.Linear(2, 2))]
        >>> names
        ['weight', 'bias']
    """
    lm = causal_lm(model)
    is_peft = is_peft_model(model)
    adapted = _lora_layers(lm) if is_peft else {}
    for key, tensor in lm.state_dict().items():
        if is_peft and ".lora_" in key:
            continue
        name = key.replace(".base_layer.", ".") if is_peft else key
        owner, _, leaf = name.rpartition(".")
        tensor = gathered(tensor).detach()
        module = adapted.get(owner) if leaf == "weight" else None
        if module is not None:
            tensor = _merged(tensor, module)
        yield name, tensor
        del tensor  # hold nothing the consumer has dropped


def _lora_layers(lm: Any) -> dict[str, Any]:
    """The causal LM's modules with an active LoRA adapter, by module name."""
    from peft.tuners.lora import LoraLayer

    return {name: module for name, module in lm.named_modules()
            if isinstance(module, LoraLayer)
            and any(a in module.lora_A for a in module.active_adapters)}


def _merged(weight: Any, module: Any) -> Any:
    """``weight + scale * B @ A`` of ``module``'s active adapters, summed in float32 and
    rounded once to ``weight``'s dtype (float32: exactly peft's own merge)."""
    import torch

    with torch.no_grad():  # not across a yield: grad mode is per thread, not per generator
        delta = sum(module.get_delta_weight(a) for a in module.active_adapters
                    if a in module.lora_A)
        if weight.dtype == torch.float32:
            return weight + delta.to(weight.dtype)
        return (weight.float() + delta.float()).to(weight.dtype)
