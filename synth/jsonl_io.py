"""Read and atomically write the AWM JSONL files, the failures file and the run's JSON reports.

Every write goes to a temporary file in the same directory and is renamed over the target
(``os.replace``), so a crash leaves either the old file or the new one, never half of one.
Rows are written as AWM writes them: ``json.dumps(row, ensure_ascii=False)``, one per line.

Example:
    >>> import tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> write_jsonl(os.path.join(d, "gen_tasks.jsonl"), [{"scenario": "Notes", "tasks": ["a"]}])
    >>> read_jsonl(os.path.join(d, "gen_tasks.jsonl"))
    [{'scenario': 'Notes', 'tasks': ['a']}]
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from awm_gym.atomic_io import write_text_atomic

from .errors import SynthConfigError

__all__ = ["read_jsonl", "write_jsonl", "write_json", "FailureRecord", "FailureLog",
           "FAILURES_FILE", "CONFIG_FILE", "USAGE_FILE"]

FAILURES_FILE = "failures.jsonl"
"""Per-item failure records of the latest attempt at each (stage, item)."""
CONFIG_FILE = "synth_config.json"
"""The resolved configuration of the last run."""
USAGE_FILE = "usage.json"
"""Requests, tokens and cost per stage of the last run."""


def read_jsonl(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The JSON objects of a JSONL file, blank lines skipped ([] when the file is absent).

    Raises:
        SynthConfigError: a line is not a JSON object (the message names file and line).
    """
    if not os.path.exists(path):
        return []
    rows = []
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except ValueError as e:
                raise SynthConfigError(f"{path}:{lineno}: not valid JSON ({e}); fix or remove "
                                       "the line.") from e
            if not isinstance(row, dict):
                raise SynthConfigError(f"{path}:{lineno}: expected a JSON object, got "
                                       f"{type(row).__name__}.")
            rows.append(row)
    return rows




def write_jsonl(path: str | os.PathLike[str], rows: Iterable[Mapping[str, Any]]) -> None:
    """Write ``rows`` to ``path`` atomically, one JSON object per line."""
    write_text_atomic(path, "".join(json.dumps(dict(r), ensure_ascii=False) + "\n"
                                     for r in rows))


def write_json(path: str | os.PathLike[str], value: Any) -> None:
    """Write ``value`` to ``path`` atomically as indented JSON."""
    write_text_atomic(path, json.dumps(value, ensure_ascii=False, indent=2, default=str) + "\n")


@dataclass(frozen=True, slots=True)
class FailureRecord:
    """Why an item was given up: stage, item, the last error and the attempts made."""

    stage: str
    item: str
    error: str
    attempts: int
    time: float


class FailureLog:
    """``failures.jsonl``: one record per (stage, item) that failed in its latest attempt.

    A success removes the item's record; a new failure replaces it. Rewritten atomically on each
    change (the file stays small: only failures).

    Example:
        >>> import tempfile, os
        >>> log = FailureLog(os.path.join(tempfile.mkdtemp(), "failures.jsonl"))
        >>> log.record("db", "notes_app", "near CREAT: syntax error", attempts=6)
        >>> [r.item for r in log.records()], log.succeeded("db", "notes_app")
        (['notes_app'], None)
        >>> log.records()
        []
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = str(path)
        self._lock = threading.Lock()
        self._rows: dict[tuple[str, str], FailureRecord] = {}
        for row in read_jsonl(self.path):
            try:
                rec = FailureRecord(row["stage"], row["item"], row["error"], row["attempts"],
                                    row.get("time", 0.0))
            except KeyError:
                continue
            self._rows[(rec.stage, rec.item)] = rec

    def record(self, stage: str, item: str, error: str, *, attempts: int) -> None:
        with self._lock:
            self._rows[(stage, item)] = FailureRecord(stage, item, error, attempts, time.time())
            self._flush()

    def succeeded(self, stage: str, item: str) -> None:
        with self._lock:
            if self._rows.pop((stage, item), None) is not None:
                self._flush()

    def records(self, stage: str | None = None) -> list[FailureRecord]:
        with self._lock:
            return [r for r in self._rows.values() if stage is None or r.stage == stage]

    def _flush(self) -> None:
        write_jsonl(self.path, (asdict(r) for r in self._rows.values()))
