"""The records of a rescoring: each episode's replay and outcome, and the whole run's result.

:func:`awm_gym.manager.rescore.rescore_dataset` returns a :class:`RescoreResult`;
:mod:`awm_gym.manager.rescore_write` writes it beside the source's rows.

Example:
    >>> show(1.0), show(None), show("complete")
    ('+1', '-', 'complete')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from awm_gym.manager.rescore_source import RecordedEpisode

__all__ = ["Status", "STATUSES", "Replay", "EpisodeRescore", "RescoreResult", "show"]

Status = Literal["same", "changed", "diverged", "unreplayable"]
STATUSES: tuple[Status, ...] = ("same", "changed", "diverged", "unreplayable")


@dataclass
class Replay:
    """What one episode's replay produced, step by step, until it ended or diverged."""

    observations: list[str] = field(default_factory=list)
    rewards: list[float] = field(default_factory=list)
    labels: list[str | None] = field(default_factory=list)
    success: bool | None = None
    ended: bool = False
    diverged: str | None = None
    """Why the replay is not the recording (None: it is)."""


@dataclass(frozen=True)
class EpisodeRescore:
    """One episode's outcome before and after rescoring."""

    episode: RecordedEpisode
    status: Status
    detail: str
    """Why: the labels before and after, where the replay diverged, or why it could not run."""
    new_reward: float | None = None
    new_verifier_label: str | None = None
    new_success: bool | None = None
    replay: Replay | None = None

    @property
    def old_reward(self) -> float | None:
        return self.episode.reward

    @property
    def old_verifier_label(self) -> str | None:
        return self.episode.verifier_label


@dataclass(frozen=True)
class RescoreResult:
    """What :func:`rescore_dataset` did: one :class:`EpisodeRescore` per episode, and where the
    rescored dataset went."""

    source: Path
    out: Path | None
    world_set: str | None
    """The world set replayed on (None: the built-in worlds)."""
    episodes: tuple[EpisodeRescore, ...]

    @property
    def counts(self) -> dict[str, int]:
        counts = dict.fromkeys(STATUSES, 0)
        for e in self.episodes:
            counts[e.status] += 1
        return counts

    def with_status(self, *statuses: Status) -> list[EpisodeRescore]:
        return [e for e in self.episodes if e.status in statuses]

    def table(self) -> str:
        """The episodes whose outcome changed or that could not be rescored, one line each,
        then the counts."""
        lines = []
        shown = self.with_status("changed", "diverged", "unreplayable")
        if shown:
            header = ("episode", "world", "task", "seed", "status", "reward", "label", "why")
            body = [(e.episode.name, e.episode.world, str(e.episode.task_idx),
                     str(e.episode.seed), e.status, _arrow(e.old_reward, e.new_reward, e.status),
                     _arrow(e.old_verifier_label, e.new_verifier_label, e.status), e.detail)
                    for e in shown]
            widths = [max(len(r[k]) for r in (header, *body)) for k in range(len(header) - 1)]
            for r in (header, *body):
                lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + r[-1])
        c = self.counts
        where = self.world_set or "the built-in worlds"
        lines.append(f"{len(self.episodes)} episodes replayed on {where}: {c['same']} same, "
                     f"{c['changed']} changed, {c['diverged']} diverged (not rescored), "
                     f"{c['unreplayable']} unreplayable"
                     + (f"; wrote {self.out}" if self.out is not None else ""))
        return "\n".join(lines)


def _arrow(old: Any, new: Any, status: Status) -> str:
    if status in ("diverged", "unreplayable"):
        return f"{show(old)} -> ?"
    return f"{show(old)} -> {show(new)}"


def show(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:+g}"
    return str(value)
