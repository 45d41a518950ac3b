"""Errors raised by synth, one class per boundary a failure can cross.

::

    SynthError
     +-- SynthConfigError   a bad option or a missing input file (names the field and the fix)
     +-- ProviderError      the LLM or embeddings endpoint failed (after retries, or a 4xx)
     +-- GenerationError    what the LLM returned failed validation (after its corrections)

Per-item failures are data: a stage records them in ``failures.jsonl`` and carries on. These
errors are raised only where nothing sensible can continue (a bad config, an input that is not
there, an endpoint that refuses every request).
"""

from __future__ import annotations

__all__ = ["SynthError", "SynthConfigError", "ProviderError", "GenerationError"]


class SynthError(Exception):
    """Base class of every error synth raises on purpose."""


class SynthConfigError(SynthError, ValueError):
    """A configuration value or an input file is wrong; the message names it and the fix."""


class ProviderError(SynthError, RuntimeError):
    """An LLM or embeddings request failed for good (a 4xx, or transient faults past the retries).

    Attributes:
        status_code: the HTTP status when there was one.
        transient: whether the last fault was a transient one (retries used up).
    """

    def __init__(self, message: str, *, status_code: int | None = None,
                 transient: bool = False) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.transient = transient


class GenerationError(SynthError, ValueError):
    """A generated item failed validation; the message is the error fed back to the LLM."""
