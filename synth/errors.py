"""Errors raised by synth, one class per boundary a failure can cross.

::

    awm_gym.errors.AWMGymError
     +-- SynthError
     |    +-- SynthConfigError   a bad option or a missing input file (names the field and the fix)
     |    +-- GenerationError    what the LLM returned failed validation (after its corrections)
     +-- ProviderError      the LLM or embeddings endpoint failed (after retries, or a 4xx); the
                            one class of :mod:`awm_gym.llm_endpoint`, re-exported here

Per-item failures are data: a stage records them in ``failures.jsonl`` and carries on. These
errors are raised only where nothing sensible can continue (a bad config, an input that is not
there, an endpoint that refuses every request).
"""

from __future__ import annotations

from awm_gym.errors import AWMGymError, ProviderError

__all__ = ["SynthError", "SynthConfigError", "ProviderError", "GenerationError"]


class SynthError(AWMGymError):
    """Base class of every error synth raises on purpose."""


class SynthConfigError(SynthError, ValueError):
    """A configuration value or an input file is wrong; the message names it and the fix."""


class GenerationError(SynthError, ValueError):
    """A generated item failed validation; the message is the error fed back to the LLM."""
