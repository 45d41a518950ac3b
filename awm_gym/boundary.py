"""The boundary helpers: where a failure stops, is cleaned up after, or changes its name.

A bad rollout is data, not a crash (:mod:`awm_gym.errors`). The places where a failure of code
we do not own (a world's generated code, a verifier, a model's text, an LLM endpoint, a socket)
meets ours come in four shapes, and each has one helper here:

=======================  ==================================================================
helper                   what it does with an ``Exception`` raised in its block
=======================  ==================================================================
:func:`capture`          returns it as a :class:`Failure` (``kind: detail`` text), as data
:func:`best_effort`      logs it once (with its traceback) and goes on: closing a broken
                         socket, a cache that cannot be warmed, a hostile ``__repr__``
:func:`reraise_as`       raises it again as one of our errors, the original as its cause
:func:`closing_on_error` runs the cleanups (any ``BaseException``, Ctrl-C included), re-raises
=======================  ==================================================================

``KeyboardInterrupt``, ``SystemExit`` and ``GeneratorExit`` are not ``Exception``: they pass
through :func:`capture` and :func:`best_effort` unless the caller asks for more with
``catch=BaseException`` (generated code that calls ``sys.exit()`` is the world's fault).
:func:`describe` writes an exception as ``Type: message`` even when its ``__str__`` is broken.

Example:
    >>> capture(int, "x").text
    "ValueError: invalid literal for int() with base 10: 'x'"
    >>> capture(int, "7")
    7
    >>> with best_effort("parsing %s", "x", log=None):
    ...     int("x")
    >>> with reraise_as(ValueError, lambda e: f"not a count ({describe(e)})"):
    ...     [][0]
    Traceback (most recent call last):
    ...
    ValueError: not a count (IndexError: list index out of range)
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import ParamSpec, TypeVar

__all__ = ["Failure", "best_effort", "capture", "closing_on_error", "describe", "reraise_as"]

_P = ParamSpec("_P")
_T = TypeVar("_T")


def describe(error: BaseException, limit: int | None = None) -> str:
    """``Type: message`` for ``error``; just ``Type`` when its ``__str__`` raises.

    Args:
        error: any exception, including one whose class was written by generated code.
        limit: cut the message (not the type name) at this many characters.

    Example:
        >>> describe(KeyError("k")), describe(ValueError("abcdef"), limit=3)
        ("KeyError: 'k'", 'ValueError: abc')
    """
    kind = type(error).__name__
    try:
        detail = str(error)
    except Exception:  # noqa: BLE001 - a hostile __str__ still leaves the type's name
        return kind
    return f"{kind}: {detail if limit is None else detail[:limit]}"


@dataclass(frozen=True)
class Failure:
    """An exception turned into data by :func:`capture`.

    Attributes:
        error: the exception itself (its ``__traceback__`` included).
    """

    error: Exception

    @property
    def kind(self) -> str:
        """The exception's class name, e.g. ``"ValueError"``."""
        return type(self.error).__name__

    @property
    def text(self) -> str:
        """``kind: detail``, see :func:`describe`."""
        return describe(self.error)


def capture(fn: Callable[_P, _T], /, *args: _P.args, **kwargs: _P.kwargs) -> _T | Failure:
    """``fn(*args, **kwargs)``, or the :class:`Failure` of the ``Exception`` it raised.

    ``KeyboardInterrupt``, ``SystemExit`` and ``GeneratorExit`` propagate.

    Example:
        >>> capture(dict, [1]).kind
        'TypeError'
    """
    try:
        return fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - the boundary: the caller turns it into data
        return Failure(e)


@contextlib.contextmanager
def best_effort(what: str, *args: object, log: logging.Logger | None,
                level: int = logging.DEBUG) -> Iterator[None]:
    """Run a step whose failure must not stop the caller; an ``Exception`` is swallowed.

    Args:
        what: the step, a ``%``-format logged (lazily) as ``"<what> failed"`` with the
            traceback; e.g. ``"closing idle session %s"``.
        args: the format's arguments.
        log: where to log; None for a failure that is expected (nothing more queued).
        level: the log level (``DEBUG`` by default: the failure is not the user's business).

    Example:
        >>> with best_effort("closing %s", "a socket", log=logging.getLogger("x")):
        ...     raise OSError("already closed")
    """
    try:
        yield
    except Exception:  # noqa: BLE001 - the boundary: this step is optional
        if log is not None:
            log.log(level, what + " failed", *args, exc_info=True)


@contextlib.contextmanager
def reraise_as(error_cls: type[Exception], message: Callable[[BaseException], str], *,
               catch: type[BaseException] = Exception) -> Iterator[None]:
    """Raise an exception of the block as ``error_cls(message(e))`` from ``e``.

    An ``error_cls`` raised in the block passes unchanged (it already names what failed).

    Args:
        error_cls: our error for this boundary, e.g. ``WorldLoadError``.
        message: the new message from the original exception (use :func:`describe`).
        catch: what is translated; ``BaseException`` where even ``SystemExit`` of generated
            code is its fault.

    Example:
        >>> with reraise_as(LookupError, lambda e: "no such world"):
        ...     raise LookupError("already ours")
        Traceback (most recent call last):
        ...
        LookupError: already ours
    """
    try:
        yield
    except error_cls:
        raise
    except catch as e:  # noqa: BLE001 - the boundary: the failure gets our name
        raise error_cls(message(e)) from e


@contextlib.contextmanager
def closing_on_error(*cleanups: Callable[[], object]) -> Iterator[None]:
    """Run ``cleanups`` in order when the block raises anything (Ctrl-C too), then re-raise.

    For a constructor that has opened something (a socket, worker processes, a lock) and must
    not leak it when a later step fails; on success nothing runs.

    Example:
        >>> opened = ["socket"]
        >>> try:
        ...     with closing_on_error(opened.clear):
        ...         raise KeyboardInterrupt
        ... except KeyboardInterrupt:
        ...     opened
        []
    """
    try:
        yield
    except BaseException:
        for cleanup in cleanups:
            cleanup()
        raise
