"""One numeric precision for the trainer and the sampler, and the check that they agree.

GRPO's ratio compares the trainer's log-probabilities with the sampler's. When the two run in
different precisions (vLLM's ``dtype="auto"`` loads a float32 checkpoint as bfloat16 on a GPU
while the trainer stays in float32) the samples are silently off-policy. So the run names one
:class:`DType`:

* ``float32``: weights and compute in float32 everywhere (the CPU default);
* ``bfloat16``: the trainer keeps float32 master weights and optimizer state and computes its
  forward passes under ``torch.autocast(bfloat16)``; the HF sampler generates under the same
  autocast; vLLM holds bfloat16 weights (cast when synced).

A sampler whose precision differs from the trainer's is an error at start unless the run
allows it explicitly (``ModelConfig.allow_dtype_mismatch``); either way the sampler-trainer
log-probability gap is logged every step, and truncated importance sampling
(``GRPOConfig.tis_cap``, on by default at 2) corrects for it.

Example:
    >>> DType.coerce("bf16").value
    'bfloat16'
    >>> check_sampler_dtype("float32", "torch.float32", allow_mismatch=False, sampler="vLLM")
    >>> check_sampler_dtype("float32", "bfloat16", allow_mismatch=True, sampler="vLLM")
"""

from __future__ import annotations

import contextlib
import enum
import logging
from typing import Any

from awm_gym.vocab import coerce_enum

from .errors import AgentConfigError

logger = logging.getLogger(__name__)

__all__ = ["DType", "DTypeMismatchError", "autocast", "check_sampler_dtype"]

_ALIASES = {"fp32": "float32", "float": "float32", "bf16": "bfloat16", "torch.float32": "float32",
            "torch.bfloat16": "bfloat16"}


class DType(str, enum.Enum):
    """The run's numeric precision (see the module docstring)."""

    FLOAT32 = "float32"
    BFLOAT16 = "bfloat16"

    @classmethod
    def coerce(cls, value: str | DType | Any) -> DType:
        """Accept ``float32``/``fp32``/``torch.float32``, ``bfloat16``/``bf16``/``torch.bfloat16``."""
        text = value.value if isinstance(value, DType) else str(value)
        return coerce_enum(cls, text, field="dtype", error=AgentConfigError, aliases=_ALIASES)

    @property
    def torch_dtype(self) -> Any:
        """The torch dtype of the compute."""
        import torch

        return torch.float32 if self is DType.FLOAT32 else torch.bfloat16


class DTypeMismatchError(AgentConfigError):
    """The sampler computes in another precision than the trainer."""


def autocast(dtype: DType | str, device: Any) -> contextlib.AbstractContextManager[Any]:
    """The context a forward pass runs in: nothing for float32, bf16 autocast otherwise.

    Args:
        dtype: the run's precision.
        device: a torch device or device string (its type picks the autocast backend).
    """
    if DType.coerce(dtype) is DType.FLOAT32:
        return contextlib.nullcontext()
    import torch

    device_type = getattr(device, "type", str(device).split(":")[0])
    return torch.autocast(device_type=device_type, dtype=torch.bfloat16)


def check_sampler_dtype(trainer: DType | str, sampler_dtype: Any, allow_mismatch: bool,
                        sampler: str = "the sampler") -> None:
    """Raise unless the sampler computes in the trainer's precision (or a mismatch is allowed).

    Args:
        trainer: the run's precision.
        sampler_dtype: the precision the sampler reports (``torch.bfloat16``, ``"float16"``, ...).
        allow_mismatch: only log a warning.
        sampler: the sampler's name, for the message.

    Raises:
        DTypeMismatchError: the two differ and ``allow_mismatch`` is False.
    """
    want = DType.coerce(trainer).value
    got = _ALIASES.get(str(sampler_dtype), str(sampler_dtype).removeprefix("torch."))
    if got == want:
        return
    message = (f"{sampler} computes in {got} but the trainer in {want}: the samples would be "
               "off-policy by numerics alone. Set ModelConfig.dtype (--model.dtype) to the "
               "precision both should use, leave VLLMEngineConfig.dtype unset so the engine "
               "follows it, or set --model.allow-dtype-mismatch (--grpo.tis-cap, 2 by default, "
               "then corrects for the gap).")
    if not allow_mismatch:
        raise DTypeMismatchError(message)
    logger.warning("%s (allowed)", message)
