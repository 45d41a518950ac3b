"""What ``awm check`` found in a world, by severity, and how it is printed (text or JSON lines).

A :class:`Finding` is one thing worth knowing about a world, with a :class:`Severity`:

* ``error``: the world cannot be used at all (its code does not load, its tools cannot be
  listed, or checking it raised);
* ``defect``: the world runs, but something in it is wrong and a model or a reward will feel it
  (duplicate routes, a task already complete on the initial state, a read tool that answers a
  bare 500 to arguments drawn from the seed rows, seed rows that read the build clock, failed
  seed INSERTs, a verifier that crashes, a reference solution that fails);
* ``info``: worth knowing, nothing to fix for training (no reference solutions, ``async def``
  handlers that never await).

Each kind of finding prints as one line per world (cut to the terminal width): several findings
of one kind are aggregated (:func:`aggregate`: "10 of 10 tasks have no verifier ..."); the
single messages and each ``detail`` (full lists, tracebacks) show under ``--verbose`` and in
``--json``.

Example:
    >>> f = Finding(Severity.DEFECT, "duplicate_route", "GET /api/items/{item_id} twice")
    >>> format_finding(f)
    '  defect  duplicate_route: GET /api/items/{item_id} twice'
    >>> format_finding(f, width=30)
    '  defect  duplicate_route: GE…'
    >>> exit_code([Severity.INFO, Severity.DEFECT])
    1
    >>> [a] = aggregate([Finding(Severity.DEFECT, "no_verifier", f"task {t} has no verifier",
    ...                          task_idx=t) for t in range(10)], tasks_total=10)
    >>> a.message
    '10 of 10 tasks have no verifier: they cannot be scored (tasks 0, 1, 2, 3, 4, ... (10 in all))'
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Severity", "Finding", "format_finding", "exit_code", "EXIT_CODES", "aggregate",
           "list_some"]


class Severity(enum.IntEnum):
    """How bad a finding is; the order is the order of badness."""

    INFO = 0
    DEFECT = 1
    ERROR = 2

    def __str__(self) -> str:
        return self.name.lower()


EXIT_CODES = {None: 0, Severity.INFO: 0, Severity.DEFECT: 1, Severity.ERROR: 2}
"""``awm check``'s exit status by the worst severity found (None: nothing found)."""


@dataclass(frozen=True, slots=True)
class Finding:
    """One finding about a world.

    Attributes:
        severity: error, defect or info.
        kind: a stable snake_case name (``load_error``, ``duplicate_route``,
            ``complete_on_initial_state``, ``tool_fails_on_seed_arguments``, ``seed_reads_clock``,
            ``no_reference_solution``, ...; docs/worlds.md lists them).
        message: one line saying what and where.
        detail: the long form (full lists, the exception), shown on request.
        task_idx: the task concerned, if one is.
        tool: the tool concerned, if one is.
    """

    severity: Severity
    kind: str
    message: str
    detail: str = ""
    task_idx: int | None = None
    tool: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON: ``severity`` (``"defect"``), ``kind``, ``message``, ``detail``,
        ``task_idx``, ``tool``."""
        return {"severity": str(self.severity), "kind": self.kind, "message": self.message,
                "detail": self.detail, "task_idx": self.task_idx, "tool": self.tool}


def format_finding(finding: Finding, width: int | None = None) -> str:
    """``  <severity>  <kind>: <message>`` on one line, cut to ``width`` characters with ``…``."""
    message = " ".join(finding.message.split())  # one line, whatever the message held
    line = f"  {str(finding.severity):<6}  {finding.kind}: {message}"
    if width is not None and len(line) > width:
        line = line[:max(0, width - 1)] + "…"
    return line


def exit_code(severities: Iterable[Severity | None]) -> int:
    """0 when nothing worse than info was found, 1 for a defect, 2 for an error."""
    worst = max((s for s in severities if s is not None), default=None)
    return EXIT_CODES[worst]


_TASKS_WHO = {
    "no_verifier": "have no verifier: they cannot be scored",
    "verifier_does_not_compile": "have a verifier that does not compile",
    "verifier_unknown_schema": "have a verifier that reads a table or column the schema lacks",
    "verifier_error": "have a verifier that fails on the initial state",
    "complete_on_initial_state": "are complete on the untouched initial state",
    "create_key_exists": "ask to create a row whose unique key the seed rows already hold",
    "solution_failed": "have a reference solution whose calls fail",
    "solution_not_verified": "have a reference solution the verifier does not accept",
}
"""How an aggregated line says what its tasks share, per kind (others: "have <kind>")."""
_SHOWN = 5  # items named in a one-line message before "..."


def list_some(items: Sequence[object]) -> str:
    """The first few ``items`` for a one-line message: ``0, 1, 2, 3, 4, ... (10 in all)``."""
    shown = ", ".join(map(str, items[:_SHOWN]))
    return shown + (f", ... ({len(items)} in all)" if len(items) > _SHOWN else "")


def aggregate(findings: Iterable[Finding], tasks_total: int) -> list[Finding]:
    """One finding per kind, in order of first appearance: a kind found once stays as it is;
    several findings of one kind become one, at their worst severity, whose message counts
    them ("3 of 10 tasks are complete on ... (tasks 0, 4, 7)", or "2 findings: <first>; ...")
    and whose detail holds every single message.
    """
    by_kind: dict[str, list[Finding]] = {}
    for f in findings:
        by_kind.setdefault(f.kind, []).append(f)
    out = []
    for kind, group in by_kind.items():
        if len(group) == 1:
            out.append(group[0])
            continue
        worst = max(f.severity for f in group)
        detail = "\n".join(" ".join(f.message.split()) for f in group)
        tasks = sorted({f.task_idx for f in group if f.task_idx is not None})
        if len(tasks) == len(group):
            who = _TASKS_WHO.get(kind, f"have {kind.replace('_', ' ')}")
            message = f"{len(tasks)} of {tasks_total} tasks {who} (tasks {list_some(tasks)})"
        else:
            message = (f"{len(group)} findings: "
                       + "; ".join(" ".join(f.message.split()) for f in group[:2])
                       + ("; ..." if len(group) > 2 else ""))
        out.append(Finding(worst, kind, message, detail=detail))
    return out
