"""The stage files of a world set on disk: read rows by world, write a stage's output as it grows.

A stage's output (:class:`StageOutput`) is keyed by item (``world`` or ``world/task_idx``),
keeps the rows already on disk (that is how a rerun skips finished items) and is rewritten
atomically: at most every ``flush_every_s`` while the stage runs, and once at its end. Rows are
written in the order of the upstream file, so the output does not depend on which item finished
first.

Example:
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "gen_tasks.jsonl")
    >>> out = StageOutput(path, ["b", "a"])
    >>> out.put("a", {"scenario": "a", "tasks": ["x"]}); out.put("b", {"scenario": "b", "tasks": ["y"]})
    >>> out.flush(); [r["scenario"] for r in read_jsonl(path)], out.has("a")
    (['b', 'a'], True)
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from awm_gym.worlds import normalize_scenario_name

from .jsonl_io import read_jsonl, write_jsonl

__all__ = ["StageOutput", "rows_by_world", "task_key", "world_row_key", "read_jsonl"]


def world_row_key(row: Mapping[str, Any], field: str = "scenario") -> str | None:
    """The normalized world name of a row (None when the field is missing or not a string)."""
    value = row.get(field)
    return normalize_scenario_name(value) if isinstance(value, str) else None


def task_key(world: str, task_idx: int) -> str:
    """The item key of one task: ``world/task_idx``."""
    return f"{world}/{task_idx}"


def _row_key(row: Mapping[str, Any], field: str) -> str | None:
    world = world_row_key(row, field)
    if world is None:
        return None
    if "task_idx" in row:
        return task_key(world, row["task_idx"]) if isinstance(row["task_idx"], int) else None
    return world


def rows_by_world(path: str | os.PathLike[str], field: str = "scenario"
                  ) -> dict[str, dict[str, Any]]:
    """``{normalized world: first row}`` of a per-world file (AWM's first-match rule)."""
    out: dict[str, dict[str, Any]] = {}
    for row in read_jsonl(path):
        key = world_row_key(row, field)
        if key is not None:
            out.setdefault(key, row)
    return out


class StageOutput:
    """One stage's output file, kept in memory and rewritten atomically as it grows.

    Args:
        path: the JSONL file.
        order: item keys in upstream order (rows for other keys keep their place at the end).
        field: the row field naming the world (``scenario``; ``name`` for gen_scenario).
        flush_every_s: the shortest interval between two rewrites while the stage runs.
    """

    def __init__(self, path: str | os.PathLike[str], order: Iterable[str], *,
                 field: str = "scenario", flush_every_s: float = 2.0) -> None:
        self.path = str(path)
        self.order = list(order)
        self.flush_every_s = flush_every_s
        self.rows: dict[str, dict[str, Any]] = {}
        self.extra: list[dict[str, Any]] = []  # rows without a readable key: kept as they are
        for row in read_jsonl(self.path):
            key = _row_key(row, field)
            if key is None:
                self.extra.append(row)
            else:
                self.rows.setdefault(key, row)
        self._last_flush = time.monotonic()
        self._dirty = False

    def has(self, key: str) -> bool:
        return key in self.rows

    def get(self, key: str) -> dict[str, Any] | None:
        return self.rows.get(key)

    def put(self, key: str, row: dict[str, Any]) -> None:
        self.rows[key] = row
        self._dirty = True
        if time.monotonic() - self._last_flush >= self.flush_every_s:
            self.flush()

    def flush(self) -> None:
        """Rewrite the file now (no-op when nothing changed and the file exists)."""
        if not self._dirty and os.path.exists(self.path):
            return
        known = [k for k in self.order if k in self.rows]
        rest = [k for k in self.rows if k not in set(known)]
        write_jsonl(self.path, [*(self.rows[k] for k in known), *(self.rows[k] for k in rest),
                                *self.extra])
        self._dirty = False
        self._last_flush = time.monotonic()

    def keys_in_order(self, wanted: Callable[[str], bool] | None = None) -> list[str]:
        return [k for k in self.order if wanted is None or wanted(k)]
