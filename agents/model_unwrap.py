"""See through a peft wrapper to the transformers causal LM inside it.

The trainer's model is a causal LM, or a peft ``PeftModel`` around one (:mod:`agents.lora`).
Whatever wraps, shards or reads the weights (the data-parallel engines, the sampler's weight
sync, the loss) works on the causal LM itself: peft injects its adapters into that model's
layers, so running it runs the adapters too. Both :mod:`agents.lora` and
:mod:`agents.parallel.engine` import this module; it imports neither.

Example:
    >>> net = object()                  # any model that is not a peft wrapper
    >>> is_peft_model(net), causal_lm(net) is net
    (False, True)
"""

from __future__ import annotations

from typing import Any

__all__ = ["causal_lm", "is_peft_model"]


def is_peft_model(model: Any) -> bool:
    """True for a peft wrapper (``PeftModel``)."""
    return callable(getattr(model, "get_base_model", None)) and hasattr(model, "peft_config")


def causal_lm(model: Any) -> Any:
    """The transformers causal LM inside ``model`` (itself when it is not a peft wrapper).

    A peft wrapper injects its adapters into the causal LM's layers, so running the returned
    model runs the adapters too.
    """
    return model.get_base_model() if is_peft_model(model) else model
