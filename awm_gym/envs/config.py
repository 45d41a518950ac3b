"""Configuration of an environment: episode limits, timeouts, verifiers, rewards and the clock.

Built once at the edge (``gym.make`` / ``gym.make_vec`` keyword arguments, or the CLI) and passed
down; nothing below reads environment variables.

Example:
    >>> EnvConfig(max_episode_steps=10).rewards.format_error
    -1.0
    >>> EnvConfig(verifier_mode="both")
    Traceback (most recent call last):
    ...
    ValueError: EnvConfig.verifier_mode='both': choose one of 'auto', 'code', 'sql'.
    >>> EnvConfig(judge={"base_url": "http://127.0.0.1:8000/v1", "model": "judge"}).judge.model
    'judge'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from awm_gym.scoring.judge import JudgeConfig
from awm_gym.scoring.rubrics import Rubric
from awm_gym.worlds.clock import parse_instant

__all__ = ["EnvConfig", "RewardConfig"]

_VERIFIER_MODES = ("auto", "code", "sql")


@dataclass(frozen=True)
class RewardConfig:
    """Reward per outcome (OpenEnv's AWM preset; awm.md 4.4)."""

    complete: float = 1.0
    """A verifier (or, later, the judge) says the task is complete."""
    incomplete: float = 0.1
    """The LLM judge's partial credit (sql mode only; code verifiers have no partial label)."""
    others: float = 0.0
    """A code verifier says anything but complete."""
    agent_error: float = 0.0
    """The LLM judge says the agent went wrong and did not recover."""
    server_error: float = 0.0
    """The LLM judge says the world's tools failed the agent."""
    format_error: float = -1.0
    """A malformed action; the episode terminates."""
    truncated: float = 0.0
    """The step limit was reached before a final answer."""
    unscored: float = 0.0
    """Reward given while a result cannot be scored (verifier error, no verifier, awaiting
    judgement). ``info["reward_valid"]`` is False then: leave such episodes out of statistics."""

    @property
    def judge_table(self) -> dict[str, float]:
        """The judge label -> reward table (complete / incomplete / agent_error / server_error)."""
        return {"complete": self.complete, "incomplete": self.incomplete,
                "agent_error": self.agent_error, "server_error": self.server_error}


@dataclass(frozen=True)
class EnvConfig:
    """How instances of a world behave."""

    max_episode_steps: int = 30
    """Turns before truncation (AWM's agent default: 30)."""
    tool_timeout_s: float = 10.0
    """Wall-clock limit of one tool call (fastapi_mcp's own HTTP timeout is 10 s)."""
    verifier_timeout_s: float = 10.0
    """Wall-clock limit of one verifier run."""
    verifier_workers: int = 2
    """Worker processes that run verifiers (started on first use)."""
    num_workers: int = 0
    """Worker processes to shard instances over (vector env only). 0 runs everything in the
    caller's process, the fastest for well-behaved worlds; k >= 1 isolates crashes and lets
    instances use k cores (see docs/benchmarks.md)."""
    verifier_mode: str = "auto"
    """'code' (pure-code verifiers), 'sql' (evidence for an LLM judge), or 'auto' (code if the
    task has one, else sql)."""
    clock: str | None = None
    """Every world's base time, 'YYYY-MM-DD HH:MM:SS' (UTC): seed rows see it and each episode's
    clock starts at it on reset. None: per world, the latest timestamp in its seed rows'
    "when it happened" columns rounded up to the hour, never before 2026-01-01 12:00:00
    (docs/worlds.md, "The clock")."""
    clock_step_s: float = 1.0
    """Seconds the clock advances before each tool call (0: it stays at the base time for the
    whole episode). Same seed and actions give the same times on any machine and day."""
    cache_dir: str | None = None
    """Template database cache; None means $AWM_GYM_CACHE or ~/.cache/awm_gym."""
    max_text_length: int = 100_000
    """Longest observation or action the spaces accept, in characters."""
    record_timings: bool = False
    """Add ``tool_time_s`` / ``verify_time_s`` to ``info`` (off by default: timings differ
    between runs, and Gymnasium's checker requires deterministic infos)."""
    rewards: RewardConfig = field(default_factory=RewardConfig)
    """Reward per outcome."""
    judge: JudgeConfig | None = None
    """The LLM judge for sql-mode verifiers (a ``JudgeConfig`` or a dict of its fields). None:
    sql-mode episodes end ``awaiting_judge``, unscored. Set: they are judged in one batch per
    step and rewarded by ``rewards.judge_table``."""
    strict: bool = False
    """A multi-world env (``AWM/mix-v0``, ``worlds=[...]``) leaves out a world that cannot be
    prepared, with a ``WorldSkippedWarning`` naming it and the cause; ``strict=True`` raises its
    ``WorldLoadError`` instead. A single-world env always raises."""
    rubric: Rubric | None = None
    """A reward composition (``awm_gym.scoring.rubrics``) replacing the default label -> reward mapping
    for final answers; it may combine the code verifier, the judge and format checks."""

    def __post_init__(self) -> None:
        if self.verifier_mode not in _VERIFIER_MODES:
            raise ValueError(f"EnvConfig.verifier_mode={self.verifier_mode!r}: choose one of "
                             f"{', '.join(map(repr, _VERIFIER_MODES))}.")
        if self.num_workers < 0:
            raise ValueError(f"EnvConfig.num_workers={self.num_workers}: must be >= 0 "
                             "(0 = run in the caller's process).")
        for name in ("max_episode_steps", "verifier_workers", "max_text_length"):
            if getattr(self, name) < 1:
                raise ValueError(f"EnvConfig.{name}={getattr(self, name)}: must be >= 1.")
        if self.clock is not None:
            parse_instant(self.clock, "EnvConfig.clock")
        if not self.clock_step_s >= 0:
            raise ValueError(f"EnvConfig.clock_step_s={self.clock_step_s}: must be >= 0 seconds "
                             "(0 keeps the clock at the base time for the whole episode).")
        for name in ("tool_timeout_s", "verifier_timeout_s"):
            if not getattr(self, name) > 0:
                raise ValueError(f"EnvConfig.{name}={getattr(self, name)}: must be > 0 seconds.")
        if isinstance(self.judge, Mapping):
            object.__setattr__(self, "judge", JudgeConfig(**_judge_fields(self.judge)))
        if self.judge is not None and not isinstance(self.judge, JudgeConfig):
            raise ValueError(f"EnvConfig.judge: expected a JudgeConfig or a dict of its fields, "
                             f"got {type(self.judge).__name__}.")
        if self.rubric is not None:
            if not isinstance(self.rubric, Rubric):
                raise ValueError(f"EnvConfig.rubric: expected an awm_gym.scoring.rubrics.Rubric, got "
                                 f"{type(self.rubric).__name__}.")
            if "judge" in self.rubric.requires and self.judge is None:
                raise ValueError("EnvConfig.rubric uses the LLM judge but EnvConfig.judge is None;"
                                 " pass judge=JudgeConfig(base_url=..., model=...).")

    @property
    def keeps_trajectory(self) -> bool:
        """Whether instances record their turns (only the LLM judge reads them)."""
        return self.judge is not None


def _judge_fields(fields: Mapping[str, Any]) -> dict[str, Any]:
    known = JudgeConfig.__dataclass_fields__
    unknown = sorted(set(fields) - set(known))
    if unknown:
        raise ValueError(f"EnvConfig.judge: unknown field(s) {unknown}; JudgeConfig has "
                         f"{', '.join(known)}.")
    return dict(fields)
