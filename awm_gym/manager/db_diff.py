"""What an episode changed in its database: rows added, removed and changed, per table.

Rows are matched by their primary key (the ``rowid`` for tables without one). The diff is plain
data (:meth:`DatabaseDiff.to_json` / :meth:`DatabaseDiff.from_json`) so it can be stored with a
recorded episode and rendered later.

Example:
    >>> import sqlite3
    >>> a = sqlite3.connect(":memory:")
    >>> _ = a.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)")
    >>> _ = a.executemany("INSERT INTO t VALUES (?, ?)", [(1, "x"), (2, "y")])
    >>> before = a.serialize()
    >>> _ = a.execute("UPDATE t SET name = 'z' WHERE id = 2")
    >>> _ = a.execute("INSERT INTO t VALUES (3, 'w')")
    >>> diff = diff_databases(before, a.serialize())
    >>> [(c.kind, c.key, c.changed_columns) for c in diff.tables[0].changes]
    [('changed', [2], ['name']), ('added', [3], [])]
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from typing import Any

__all__ = ["RowChange", "TableDiff", "DatabaseDiff", "diff_databases"]


@dataclass(frozen=True)
class RowChange:
    """One row that differs. ``before`` is None for added rows, ``after`` for removed ones."""

    kind: str
    """``added`` | ``removed`` | ``changed``."""
    key: list[Any]
    before: dict[str, Any] | None
    after: dict[str, Any] | None

    @property
    def changed_columns(self) -> list[str]:
        if self.before is None or self.after is None:
            return []
        return [c for c in self.after if self.before.get(c) != self.after.get(c)]


@dataclass(frozen=True)
class TableDiff:
    """The changed rows of one table, in primary-key order."""

    table: str
    key_columns: list[str]
    changes: list[RowChange] = field(default_factory=list)


@dataclass(frozen=True)
class DatabaseDiff:
    """Every table with at least one changed row, in table-name order."""

    tables: list[TableDiff] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.tables

    def counts(self) -> dict[str, int]:
        """How many rows were ``added``, ``removed`` and ``changed`` in all tables."""
        out = {"added": 0, "removed": 0, "changed": 0}
        for table in self.tables:
            for change in table.changes:
                out[change.kind] += 1
        return out

    def to_json(self) -> str:
        """A compact JSON text (stable key order) that :meth:`from_json` reads back."""
        return json.dumps([{"table": t.table, "key_columns": t.key_columns,
                            "changes": [{"kind": c.kind, "key": c.key, "before": c.before,
                                         "after": c.after} for c in t.changes]}
                           for t in self.tables], ensure_ascii=False, separators=(",", ":"),
                          default=_jsonable)

    @classmethod
    def from_json(cls, text: str | None) -> DatabaseDiff:
        if not text:
            return cls()
        return cls([TableDiff(t["table"], t["key_columns"],
                              [RowChange(c["kind"], c["key"], c["before"], c["after"])
                               for c in t["changes"]]) for t in json.loads(text)])


def _jsonable(value: Any) -> Any:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return "0x" + bytes(value).hex()
    raise TypeError(f"cannot store {type(value).__name__} in a database diff")


def _open(image: bytes) -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.deserialize(image)
    return conn


def _tables(conn: sqlite3.Connection) -> list[str]:
    return [r[0] for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
        "ORDER BY name")]


def _key_columns(conn: sqlite3.Connection, table: str) -> tuple[list[str], list[str]]:
    """(all columns, primary-key columns or [] when the table has none)."""
    info = conn.execute(f'PRAGMA table_info("{table}")').fetchall()
    columns = [r[1] for r in info]
    keys = [r[1] for r in sorted((r for r in info if r[5]), key=lambda r: r[5])]
    return columns, keys


def _rows(conn: sqlite3.Connection, table: str, columns: list[str], keys: list[str]
          ) -> dict[tuple[Any, ...], tuple[Any, ...]]:
    quoted = ", ".join(f'"{c}"' for c in columns)
    if keys:
        idx = [columns.index(k) for k in keys]
        rows = conn.execute(f'SELECT {quoted} FROM "{table}"').fetchall()
        return {tuple(r[i] for i in idx): r for r in rows}
    rows = conn.execute(f'SELECT rowid, {quoted} FROM "{table}"').fetchall()
    return {(r[0],): r[1:] for r in rows}


def _sort_key(key: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple((0, v) if isinstance(v, (int, float)) else (1, str(v)) for v in key)


def diff_databases(initial: bytes, final: bytes) -> DatabaseDiff:
    """The rows that differ between two serialized SQLite databases (``Connection.serialize``).

    Tables created or dropped during the episode count all their rows as added or removed.
    """
    if initial == final:
        return DatabaseDiff()
    before_conn, after_conn = _open(initial), _open(final)
    try:
        out = []
        for table in sorted(set(_tables(before_conn)) | set(_tables(after_conn))):
            out_table = _diff_table(before_conn, after_conn, table)
            if out_table is not None:
                out.append(out_table)
        return DatabaseDiff(out)
    finally:
        before_conn.close()
        after_conn.close()


def _diff_table(before_conn: sqlite3.Connection, after_conn: sqlite3.Connection,
                table: str) -> TableDiff | None:
    present = [c for c in (before_conn, after_conn) if table in _tables(c)]
    columns, keys = _key_columns(present[-1], table)
    before = _rows(before_conn, table, columns, keys) if before_conn in present else {}
    after = _rows(after_conn, table, columns, keys) if after_conn in present else {}
    if before == after:
        return None
    changes = []
    for key in sorted(before.keys() | after.keys(), key=_sort_key):
        old, new = before.get(key), after.get(key)
        if old == new:
            continue
        kind = "added" if old is None else "removed" if new is None else "changed"
        changes.append(RowChange(kind, list(key), None if old is None else dict(zip(columns, old)),
                                 None if new is None else dict(zip(columns, new))))
    return TableDiff(table, keys or ["rowid"], changes)
