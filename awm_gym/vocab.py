"""The words every part shares: verifier labels and modes, judge labels, tool outcomes, ``Turn``.

Each closed set of strings that crosses a module boundary is one :class:`enum.StrEnum` here, so
a reader finds every value in one place and a typo is an ``AttributeError``, not a silent
mismatch. The members *are* their strings: ``VerifierLabel.COMPLETE == "complete"``, they hash
alike (dict keys and sets mix both), ``json.dumps``, f-strings, ``str()`` and Arrow write the
bare value, and even ``repr`` is the string's (``'complete'``), so messages that quote one read
as before. Recorded datasets, transcripts, metrics and wire messages therefore read
exactly as before; what comes back from JSON is the plain string, which compares equal.

Closed choices in configs are coerced once with :func:`coerce_enum`, whose error names the field
and lists the allowed values.

Example:
    >>> VerifierLabel.COMPLETE == "complete", f"{ToolOutcome.HTTP_ERROR}"
    (True, 'http_error')
    >>> import json
    >>> json.dumps({"label": JudgeLabel.AGENT_ERROR, "mode": VerifierMode.SQL})
    '{"label": "agent_error", "mode": "sql"}'
    >>> coerce_enum(VerifierMode, "code", field="EnvConfig.verifier_mode") is VerifierMode.CODE
    True
    >>> coerce_enum(VerifierMode, "both", field="EnvConfig.verifier_mode",
    ...             allowed=SCORING_MODES)
    Traceback (most recent call last):
    ...
    ValueError: EnvConfig.verifier_mode='both': choose one of 'auto', 'code', 'sql'.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

__all__ = [
    "GENERATION_MODES", "JUDGE_LABELS", "JUDGE_REWARDS", "SCORING_MODES", "VERIFIER_KINDS",
    "JudgeLabel", "ToolOutcome", "Turn", "VerifierLabel", "VerifierMode", "coerce_enum",
]

E = TypeVar("E", bound=enum.Enum)


def coerce_enum(enum_type: type[E], value: Any, *, field: str,
                error: type[Exception] = ValueError, allowed: Iterable[E] | None = None,
                aliases: Mapping[str, str] | None = None) -> E:
    """``value`` as a member of ``enum_type``; ``error`` naming ``field`` and the choices otherwise.

    Args:
        enum_type: the enum to coerce to.
        value: a member, or its value (e.g. a string from a CLI flag or a config file).
        field: how the message names the setting (``"EnvConfig.verifier_mode"``).
        error: the exception class raised for a value outside the choices (a ``ValueError``
            subclass, e.g. the package's config error).
        allowed: the members this field accepts, in the order the message lists them (default:
            all of ``enum_type``).
        aliases: other spellings accepted on input, mapped to a member's value (``{"bf16":
            "bfloat16"}``); the message lists them after the choices.

    Example:
        >>> coerce_enum(ToolOutcome, "ok", field="outcome") is ToolOutcome.OK
        True
        >>> coerce_enum(ToolOutcome, "fine", field="outcome", allowed=[ToolOutcome.OK])
        Traceback (most recent call last):
        ...
        ValueError: outcome='fine': choose one of 'ok'.
    """
    choices = tuple(enum_type if allowed is None else allowed)
    key = value.value if isinstance(value, enum_type) else value
    if aliases and isinstance(key, str):
        key = aliases.get(key, key)
    try:
        member = enum_type(key)
    except (ValueError, TypeError):
        member = None
    if member is None or member not in choices:
        listed = ", ".join(repr(m.value) for m in choices)
        also = f" (or {', '.join(map(repr, aliases))})" if aliases else ""
        raise error(f"{field}={value!r}: choose one of {listed}{also}.") from None
    return member


class _Word(enum.StrEnum):
    """A word of the vocabulary: a ``str`` enum whose ``repr`` is its string's, so messages and
    reprs that quote one (``f"{label!r}"``) read exactly as they did with plain strings."""

    __repr__ = str.__repr__


class VerifierMode(_Word):
    """The kinds of verifier, and which of them a consumer wants.

    A stored verifier is ``CODE`` or ``SQL`` (:data:`VERIFIER_KINDS`). A run scores with one of
    :data:`SCORING_MODES` (``EnvConfig.verifier_mode``); synth generates one of
    :data:`GENERATION_MODES` (``SynthConfig.verifier_mode``).
    """

    AUTO = "auto"
    """Scoring: the code-mode verifier when the task has one, else the sql-mode verifier (AWM's
    RL setup)."""
    CODE = "code"
    """A code-mode verifier: ``verify_task_completion(...)`` returns ``{"result": "complete" |
    "others"}``."""
    SQL = "sql"
    """A sql-mode verifier: ``verify_task(initial_db_path, final_db_path)`` returns evidence for
    an LLM judge."""
    BOTH = "both"
    """Generation: write both kinds."""

    @classmethod
    def coerce(cls, value: str | VerifierMode, *, field: str = "EnvConfig.verifier_mode",
               allowed: Iterable[VerifierMode] | None = None) -> VerifierMode:
        """``value`` as a scoring mode (or one of ``allowed``); a ValueError naming ``field``."""
        return coerce_enum(cls, value, field=field,
                           allowed=SCORING_MODES if allowed is None else allowed)

    @property
    def kinds(self) -> tuple[VerifierMode, ...]:
        """The verifier kinds this choice covers: ``(CODE, SQL)`` for ``AUTO`` and ``BOTH``.

        Example:
            >>> VerifierMode.BOTH.kinds, VerifierMode.SQL.kinds
            (('code', 'sql'), ('sql',))
        """
        return (self,) if self in VERIFIER_KINDS else VERIFIER_KINDS


VERIFIER_KINDS: tuple[VerifierMode, ...] = (VerifierMode.CODE, VerifierMode.SQL)
"""The modes a stored verifier is written in."""
SCORING_MODES: tuple[VerifierMode, ...] = (VerifierMode.AUTO, VerifierMode.CODE, VerifierMode.SQL)
"""The choices of ``EnvConfig.verifier_mode``."""
GENERATION_MODES: tuple[VerifierMode, ...] = (VerifierMode.CODE, VerifierMode.SQL,
                                              VerifierMode.BOTH)
"""The choices of ``SynthConfig.verifier_mode``."""


class VerifierLabel(_Word):
    """What a verification says (``info["verifier_label"]``, ``VerifierResult.label``)."""

    COMPLETE = "complete"
    """A code-mode verifier says the task is done."""
    OTHERS = "others"
    """A code-mode verifier says anything but complete."""
    AWAITING_JUDGE = "awaiting_judge"
    """A sql-mode verifier ran; its evidence awaits the LLM judge."""
    VERIFIER_ERROR = "verifier_error"
    """No verdict: the verifier raised, timed out, crashed, or returned a bad shape."""
    NO_VERIFIER = "no_verifier"
    """The task has no usable verifier for the run's mode (only in ``info``, never a result)."""


class JudgeLabel(_Word):
    """What the LLM judge says (``info["judge_label"]``, ``JudgeVerdict.label``).

    The first four are AWM's exact strings (:data:`JUDGE_LABELS`); when several fit, AWM's
    prompt ranks them complete > server_error > agent_error > incomplete.
    """

    COMPLETE = "complete"
    """Every part of the task was carried out, and the evidence shows it."""
    INCOMPLETE = "incomplete"
    """Some progress, but part of the task is missing."""
    AGENT_ERROR = "agent_error"
    """The agent went wrong and did not recover."""
    SERVER_ERROR = "server_error"
    """The world's tools failed the agent."""
    JUDGE_ERROR = "judge_error"
    """No valid answer came from the judge (timeout, provider error, malformed answer)."""


JUDGE_LABELS: tuple[JudgeLabel, ...] = (JudgeLabel.COMPLETE, JudgeLabel.INCOMPLETE,
                                        JudgeLabel.AGENT_ERROR, JudgeLabel.SERVER_ERROR)
"""The four labels a judge may answer."""

JUDGE_REWARDS: Mapping[JudgeLabel, float] = {
    JudgeLabel.COMPLETE: 1.0, JudgeLabel.INCOMPLETE: 0.1, JudgeLabel.AGENT_ERROR: 0.0,
    JudgeLabel.SERVER_ERROR: 0.0}
"""The default judge label -> reward table (OpenEnv's AWM preset; awm.md 4.4)."""


class ToolOutcome(_Word):
    """How one tool call ended (``ToolResult.outcome``, ``info["tool_outcome"]``)."""

    OK = "ok"
    """The app answered with a status below 400."""
    HTTP_ERROR = "http_error"
    """The app answered with a status of 400 or more."""
    INPUT_INVALID = "input_invalid"
    """The arguments failed the tool's schema; the app was not called."""
    TIMEOUT = "timeout"
    """The handler ran past the tool timeout."""
    CRASH = "crash"
    """The handler raised: a bare 500."""
    UNKNOWN_TOOL = "unknown_tool"
    """The model named a tool the world does not have."""
    WORKER_DIED = "worker_died"
    """The call ended the contained worker process; the world was restored by replay."""
    WORKER_TIMED_OUT = "worker_timed_out"
    """The call ignored its timeout and its worker was killed; the world was restored by
    replay."""
    SCRATCH_QUOTA = "scratch_quota"
    """After the call the contained worker's scratch directory held more than its quota
    (``EnvConfig.scratch_quota_mb``); the world's scratch files were removed."""


@dataclasses.dataclass(frozen=True, slots=True)
class Turn:
    """One step of an episode: the agent's raw action and what it produced.

    The one record of a step that every part shares: the World files an episode's turns
    (:class:`~awm_gym.manager.episode.Episode`), the LLM judge reads them
    (:class:`~awm_gym.scoring.judge.JudgeRequest`), and chat formatting renders them as the
    sliding window (``agents.chat_format.build_messages``). A reader that only needs the text
    uses ``action`` and ``observation``; the reward, end flags and info values default to
    "nothing happened yet", so ``Turn(action, observation)`` is a complete turn for the judge and
    the prompt.

    Example:
        >>> t = Turn("<tool_call>{...}</tool_call>", '{"ok": true}')
        >>> t.reward, t.terminated, t.info
        (0.0, False, {})
        >>> done = Turn("Done.", "", 1.0, True, False, {"verifier_label": VerifierLabel.COMPLETE})
        >>> done.info["verifier_label"] == "complete"
        True
    """

    action: str
    """The model's raw text for this step (a tool call, a final answer, or malformed text)."""
    observation: str
    """The observation returned after the action (the tool's response; empty after a final
    answer)."""
    reward: float = 0.0
    terminated: bool = False
    truncated: bool = False
    info: dict[str, Any] = dataclasses.field(default_factory=dict)
    """The step's info values for the keys the run keeps (always the verifier label and
    ``success`` when the episode ended with a verified answer)."""
