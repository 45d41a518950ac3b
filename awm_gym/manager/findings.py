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

Each finding prints as one line (cut to the terminal width); its ``detail`` (full lists,
tracebacks) shows under ``--verbose`` and in ``--json``.

Example:
    >>> f = Finding(Severity.DEFECT, "duplicate_route", "GET /api/items/{item_id} twice")
    >>> format_finding(f)
    '  defect  duplicate_route: GET /api/items/{item_id} twice'
    >>> format_finding(f, width=30)
    '  defect  duplicate_route: GE…'
    >>> exit_code([Severity.INFO, Severity.DEFECT])
    1
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

__all__ = ["Severity", "Finding", "format_finding", "exit_code", "EXIT_CODES"]


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
