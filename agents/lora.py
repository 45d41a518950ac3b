"""LoRA adapters (peft) and gradient checkpointing for the trainer's model, and merged weights.

With ``LoRAConfig.r > 0`` the trainer wraps its causal LM in a peft ``PeftModel``: only the
adapter matrices train (the optimizer sees nothing else), and the frozen base weights stay as
loaded. The sampler never sees an adapter: :func:`checkpoint_state` returns the model's tensors
by checkpoint name with every adapter merged into its base weight (``W + scale * B @ A``),
which is what vLLM loads on each sync. The trainer's model itself is never merged in place
(merging and unmerging would add rounding to the base weights at every step).

Gradient checkpointing recomputes each decoder layer's activations in the backward pass
(non-reentrant checkpoints, so it works with frozen inputs and adapters): less memory, about a
third more compute.

Example:
    >>> LoRAConfig(r=8).is_enabled, LoRAConfig().is_enabled
    (True, False)
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from .errors import AgentConfigError, ModelLoadError
from .model_unwrap import causal_lm, is_peft_model  # public here too, where callers import them
from .parallel.engine import full_state_dict

logger = logging.getLogger(__name__)

__all__ = ["LoRAConfig", "apply_lora", "enable_gradient_checkpointing", "causal_lm",
           "checkpoint_state", "is_peft_model"]

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

    Raises:
        ModelLoadError: peft is not installed.
    """
    try:
        from peft import LoraConfig as PeftLoraConfig
        from peft import get_peft_model
    except ImportError as e:
        raise ModelLoadError("LoRA needs peft: pip install 'awm-gym[lora]' (or pip install peft)."
                             ) from e
    peft_cfg = PeftLoraConfig(r=cfg.r, lora_alpha=cfg.alpha, lora_dropout=cfg.dropout,
                              target_modules=list(cfg.target_modules), bias="none",
                              task_type="CAUSAL_LM")
    wrapped = get_peft_model(model, peft_cfg)
    trainable = sum(p.numel() for p in wrapped.parameters() if p.requires_grad)
    total = sum(p.numel() for p in wrapped.parameters())
    logger.info("LoRA r=%d on %s: %d of %d parameters train", cfg.r, list(cfg.target_modules),
                trainable, total)
    return wrapped


def enable_gradient_checkpointing(model: Any) -> None:
    """Recompute decoder-layer activations in the backward pass (non-reentrant checkpoints)."""
    causal_lm(model).gradient_checkpointing_enable(
        gradient_checkpointing_kwargs={"use_reentrant": False})


def checkpoint_state(model: Any) -> dict[str, Any]:
    """The model's tensors by checkpoint name, adapters merged into their base weights.

    For a plain model this is its ``state_dict()`` (detached). For a peft model, the
    ``base_layer`` names lose that part, ``lora_*`` tensors are dropped, and each adapted weight
    becomes ``W + scale * B @ A`` (computed apart: the trainer's model is not modified).
    """
    import torch

    lm = causal_lm(model)
    if not is_peft_model(model):  # an FSDP2-sharded model's shards gathered (every rank calls)
        return {k: v.detach() for k, v in full_state_dict(lm.state_dict()).items()}
    from peft.tuners.lora import LoraLayer

    deltas: dict[str, Any] = {}
    with torch.no_grad():
        for name, module in lm.named_modules():
            if isinstance(module, LoraLayer):
                adapters = [a for a in module.active_adapters if a in module.lora_A]
                if adapters:
                    deltas[name] = sum(module.get_delta_weight(a) for a in adapters)
        state: dict[str, Any] = {}
        for key, tensor in lm.state_dict().items():
            if ".lora_" in key:
                continue
            clean = key.replace(".base_layer.", ".")
            owner, _, leaf = clean.rpartition(".")
            tensor = tensor.detach()
            if leaf == "weight" and owner in deltas:
                tensor = tensor + deltas[owner].to(tensor.dtype)
            state[clean] = tensor
    return state
