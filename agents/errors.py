"""The errors ``agents`` raises: one base class and one subclass per boundary a failure crosses.

Example:
    >>> issubclass(AgentConfigError, AWMGymError)
    True
    >>> ProviderError.__module__    # the one endpoint error, shared with awm_gym and synth
    'awm_gym.errors'
"""

from __future__ import annotations

from awm_gym.errors import AWMGymError, ProviderError

__all__ = ["AgentsError", "AgentConfigError", "ModelLoadError", "ProviderError",
           "DatasetFormatError", "CheckpointError"]


class AgentsError(AWMGymError):
    """Base class of every error raised by :mod:`agents` (itself an ``AWMGymError``, so the ``awm``
    command reports it in one line)."""


class AgentConfigError(AgentsError, ValueError):
    """A config field has a bad value; the message names the field and the fix."""


class ModelLoadError(AgentsError):
    """A model, tokenizer or inference engine could not be loaded from the given path."""


class DatasetFormatError(AgentsError):
    """A recorded dataset lacks the columns or ordering that SFT needs."""


class CheckpointError(AgentsError):
    """A checkpoint is missing, incomplete or does not match the run's config."""
