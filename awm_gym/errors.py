"""Errors raised by awm_gym, one class per boundary a failure can cross.

::

    AWMGymError
     +-- WorldSetFormatError   a world-set file is malformed (names file, line and key)
     +-- UnknownWorldError     a world or env id that is not registered / not in the set
     +-- WorldLoadError        a world's generated code or template database cannot be built
     +-- ToolHostError         the tool layer was misused by the caller (not by generated code)
     +-- VerifierError         the verifier pool itself failed (not a verifier crash: that is data)
     +-- EnvUsageError         a programmer mistake at the env API edge (wrong action count, mask...)
     +-- ProviderError         an LLM endpoint failed for good (a 4xx, or transient faults past retries)
     +-- CommandLineError      an ``awm`` option or argument that cannot work (names it and the fix)
     +-- SplitError            a train/validation split that is malformed or made for another set
     +-- ExclusionsError       an exclusion file that is malformed or stale (names the world)

:class:`WorldSkippedWarning` (a ``UserWarning``) says a multi-world env left out a world that
cannot be prepared; ``EnvConfig(strict=True)`` raises its :class:`WorldLoadError` instead.
:class:`SplitMismatchWarning` says a split is used on a world set it was not made for (only
when asked to warn rather than raise).

A bad rollout is data, not a crash: nothing the model or the generated code does raises out of
``step``. These errors are for programmer mistakes and broken inputs.
"""

from __future__ import annotations

__all__ = [
    "AWMGymError",
    "WorldSetFormatError",
    "UnknownWorldError",
    "WorldLoadError",
    "ToolHostError",
    "VerifierError",
    "EnvUsageError",
    "ProviderError",
    "CommandLineError",
    "SplitError",
    "ExclusionsError",
    "SplitMismatchWarning",
    "WorldSkippedWarning",
]


class AWMGymError(Exception):
    """Base class of every error awm_gym raises on purpose."""


class WorldSetFormatError(AWMGymError, ValueError):
    """A world-set file is malformed; the message names the file, the line and the key."""


class UnknownWorldError(AWMGymError, KeyError):
    """A world name or Gymnasium id that does not exist; the message suggests close names."""

    def __str__(self) -> str:  # KeyError quotes its argument; keep the message readable
        return str(self.args[0]) if self.args else ""


class WorldLoadError(AWMGymError, RuntimeError):
    """A world's generated code or template database could not be built."""


class ToolHostError(AWMGymError, RuntimeError):
    """The tool layer was used wrongly by the caller (never raised for generated-code faults)."""


class VerifierError(AWMGymError, RuntimeError):
    """The verifier worker pool itself failed or was misused (a crashing verifier is data)."""


class EnvUsageError(AWMGymError, ValueError):
    """A programmer mistake at the env API edge: wrong number of actions, bad reset_mask, ..."""


class ProviderError(AWMGymError, RuntimeError):
    """An LLM endpoint request failed for good: a 4xx, or transient faults past the retries.

    Attributes:
        status_code: the HTTP status when there was one.
        transient: whether the last fault was a transient one (the retries were used up).
        attempts: how many times the request was sent.
    """

    def __init__(self, message: str, *, status_code: int | None = None, transient: bool = False,
                 attempts: int = 1) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.transient = transient
        self.attempts = attempts


class CommandLineError(AWMGymError, ValueError):
    """An ``awm`` option or argument that cannot work; the message names it and the fix."""


class SplitError(AWMGymError, ValueError):
    """A train/validation split that cannot be used: a malformed field of its JSON (named, with
    the fix), a subset that is not one of the three, or a split made for a world set whose
    content differs (both hashes named)."""


class ExclusionsError(AWMGymError, ValueError):
    """An exclusion file (``awm check --write-exclusions``) that cannot be used: a malformed
    field (named, with the fix), or stale: a world it checked changed or is gone (named)."""


class WorldSkippedWarning(UserWarning):
    """A multi-world env (``AWM/mix-v0``, ``worlds=[...]``) left out a world that cannot be
    prepared; the message names the world and the cause."""


class SplitMismatchWarning(UserWarning):
    """A split was used with a world set whose content hash differs from the one it was made
    for (only with ``split_mismatch="warn"``; the default raises :class:`SplitError`)."""
