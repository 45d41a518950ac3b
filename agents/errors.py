"""The errors ``agents`` raises: one base class and one subclass per boundary a failure crosses.

Example:
    >>> issubclass(ProviderError, AgentsError)
    True
"""

from __future__ import annotations

__all__ = ["AgentsError", "AgentConfigError", "ModelLoadError", "ProviderError",
           "DatasetFormatError", "CheckpointError"]


class AgentsError(Exception):
    """Base class of every error raised by :mod:`agents`."""


class AgentConfigError(AgentsError, ValueError):
    """A config field has a bad value; the message names the field and the fix."""


class ModelLoadError(AgentsError):
    """A model, tokenizer or inference engine could not be loaded from the given path."""


class ProviderError(AgentsError):
    """An OpenAI-compatible endpoint failed after retries, or gave a non-retryable error."""


class DatasetFormatError(AgentsError):
    """A recorded dataset lacks the columns or ordering that SFT needs."""


class CheckpointError(AgentsError):
    """A checkpoint is missing, incomplete or does not match the run's config."""
