"""The execute-and-correct loop: generate, validate by executing, feed the error back, repeat.

:func:`run_with_repair` runs in *rounds*. Round 0 sends every item's prompt at once (concurrent
up to the endpoint's bound); each answer is then validated in this thread, by executing it
(building the database, importing the code, running the verifier, replaying the solution). Each
failure goes back to the LLM in the next round as a correction request: the original prompt, the
answer that failed, and the error it produced (plus the earlier errors, shortened). An item gets
up to ``max_retry`` corrections, then it is given up with its last error.

Validation runs between rounds, never while requests are in flight on this thread, so generated
code executes in the caller's thread (the main thread: tool timeouts use SIGALRM there) with no
event loop running. Errors go back verbatim (trimmed), not through an LLM summarizer as AWM
does: that costs nothing and cannot garble them (awm.md 8, item 18).

A request that fails at the provider is a failed attempt too, except a 4xx other than 408/409/
429: that answer would not change, so the item is given up at once.

Example:
    >>> from synth.llm import Completion
    >>> class Echo:  # any object with complete_many(requests) works as the client
    ...     def complete_many(self, requests):
    ...         return [Completion("42" if r.attempt else "forty-two") for r in requests]
    >>> def validate(job, text):
    ...     if not text.isdigit():
    ...         raise GenerationError(f"{text!r} is not a number")
    ...     return int(text)
    >>> [out] = run_with_repair(Echo(), "demo", [RepairJob("x", ({"role": "user", "content": "?"},))],
    ...                         validate, max_retry=5)
    >>> out.value, out.attempts, out.is_repaired
    (42, 2, True)
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .errors import GenerationError, ProviderError
from .llm import ChatRequest

logger = logging.getLogger(__name__)

__all__ = ["RepairJob", "RepairOutcome", "Imperfect", "run_with_repair", "StageCounter"]

_MAX_ERROR_CHARS = 6000
_MAX_HISTORY = 4


@dataclass
class RepairJob:
    """One item to generate: its key, its first prompt, and stage data for the validator."""

    key: str
    messages: tuple[Mapping[str, str], ...]
    context: Any = None


@dataclass(frozen=True)
class RepairOutcome:
    """How an item ended: its value (None if given up), attempts made and errors met."""

    key: str
    value: Any
    attempts: int
    errors: tuple[str, ...] = ()
    context: Any = None
    is_imperfect: bool = False
    """The value was kept as the best of imperfect attempts (e.g. a few failing INSERTs)."""

    @property
    def is_ok(self) -> bool:
        return self.value is not None

    @property
    def is_repaired(self) -> bool:
        """Kept after at least one correction."""
        return self.is_ok and self.attempts > 1

    @property
    def last_error(self) -> str:
        return self.errors[-1] if self.errors else ""


class Imperfect(GenerationError):
    """A validation failure whose value may still be kept if no correction does better.

    Attributes:
        fallback: the value to keep when corrections run out.
        badness: lower is better among imperfect attempts (e.g. the share of failed INSERTs).
    """

    def __init__(self, message: str, *, fallback: Any, badness: float) -> None:
        super().__init__(message)
        self.fallback = fallback
        self.badness = badness


@dataclass
class StageCounter:
    """ok / repaired / failed counts of a stage, shown on its progress bar."""

    ok: int = 0
    repaired: int = 0
    failed: int = 0
    bar: Any = None

    def count(self, outcome: RepairOutcome) -> None:
        if outcome.is_ok:
            self.ok += 1
            self.repaired += int(outcome.is_repaired)
        else:
            self.failed += 1
        if self.bar is not None:
            self.bar.update(1)
            self.bar.set_postfix(ok=self.ok, repaired=self.repaired, failed=self.failed)


@dataclass
class _State:
    job: RepairJob
    answer: str = ""
    errors: list[str] = field(default_factory=list)
    best: Imperfect | None = None


def _clip(text: str, limit: int = _MAX_ERROR_CHARS) -> str:
    return text if len(text) <= limit else text[:limit] + f"\n... [{len(text) - limit} more " \
                                                          "characters cut]"


def correction_messages(state: _State) -> tuple[Mapping[str, str], ...]:
    """The first prompt, the failed answer, and a request to fix what execution reported."""
    last = state.errors[-1]
    earlier = state.errors[-1 - _MAX_HISTORY:-1]
    parts = ["Your previous answer was checked by executing it and did not pass. The check "
             "reported:\n\n" + _clip(last)]
    if earlier:
        parts.append("Earlier attempts failed with:\n" + "\n".join(
            f"{k}. {_clip(e, 600)}" for k, e in enumerate(earlier, start=1)))
    parts.append("Fix every problem listed and reply with the complete corrected answer in the "
                 "same format as requested originally (not a diff, no commentary).")
    answer = state.answer if state.answer else "(empty answer)"
    return (*state.job.messages, {"role": "assistant", "content": answer},
            {"role": "user", "content": "\n\n".join(parts)})


def run_with_repair(llm: Any, stage: str, jobs: Sequence[RepairJob],
                    validate: Callable[[RepairJob, str], Any], *, max_retry: int,
                    counter: StageCounter | None = None,
                    on_outcome: Callable[[RepairOutcome], None] | None = None,
                    prepare: Callable[[list[tuple[RepairJob, str]]], None] | None = None,
                    ) -> list[RepairOutcome]:
    """Generate and validate every job, correcting failures up to ``max_retry`` times each.

    Args:
        llm: a :class:`~synth.llm.LLMClient` (anything with ``complete_many``).
        stage: the stage name (request tag, failure records).
        jobs: the items to generate.
        validate: ``validate(job, answer_text) -> value``; raises
            :class:`~synth.errors.GenerationError` (message = the feedback) when the answer
            fails, or :class:`Imperfect` when it may be kept if nothing better comes.
        max_retry: corrections per item.
        counter: updated as items finish (drives the progress bar).
        on_outcome: called with each outcome as soon as its item finishes (to save it).
        prepare: called once per round with every ``(job, answer)`` before they are validated
            one by one (e.g. to execute them all in parallel processes first).

    Returns:
        One :class:`RepairOutcome` per job, in job order.
    """
    states = [_State(job) for job in jobs]
    outcomes: dict[int, RepairOutcome] = {}

    def finish(index: int, outcome: RepairOutcome) -> None:
        outcomes[index] = outcome
        if counter is not None:
            counter.count(outcome)
        if on_outcome is not None:
            on_outcome(outcome)

    pending = list(range(len(states)))
    for attempt in range(max_retry + 1):
        if not pending:
            break
        requests = [ChatRequest(stage, states[i].job.key,
                                states[i].job.messages if attempt == 0 or not states[i].errors
                                else correction_messages(states[i]), attempt)
                    for i in pending]
        answers = llm.complete_many(requests)
        if prepare is not None:
            prepare([(states[i].job, a.text) for i, a in zip(pending, answers, strict=True)
                     if not isinstance(a, ProviderError)])
        still = []
        for i, answer in zip(pending, answers, strict=True):
            state = states[i]
            if isinstance(answer, ProviderError):
                state.errors.append(f"provider: {answer}")
                deterministic = (answer.status_code is not None and 400 <= answer.status_code < 500
                                 and not answer.transient)
                if deterministic:
                    finish(i, _given_up(state, attempt + 1))
                else:
                    still.append(i)
                continue
            state.answer = answer.text
            try:
                value = validate(state.job, answer.text)
            except Imperfect as e:
                state.errors.append(str(e))
                if state.best is None or e.badness < state.best.badness:
                    state.best = e
                still.append(i)
            except GenerationError as e:
                state.errors.append(str(e))
                still.append(i)
            else:
                finish(i, RepairOutcome(state.job.key, value, attempt + 1, tuple(state.errors),
                                        state.job.context))
        pending = still
    for i in pending:
        finish(i, _given_up(states[i], max_retry + 1))
    return [outcomes[i] for i in range(len(states))]


def _given_up(state: _State, attempts: int) -> RepairOutcome:
    if state.best is not None:
        return RepairOutcome(state.job.key, state.best.fallback, attempts, tuple(state.errors),
                             state.job.context, is_imperfect=True)
    logger.info("%s given up after %d attempt(s): %s", state.job.key, attempts,
                state.errors[-1][:200] if state.errors else "")
    return RepairOutcome(state.job.key, None, attempts, tuple(state.errors), state.job.context)
