"""Probes ``awm check`` runs on a loaded world: seed rows that read the clock, and read tools that
fail on arguments drawn from the seed rows.

* :func:`find_clock_seeds` scans the seed INSERTs for ``datetime('now', ...)`` and the other
  SQLite functions given ``'now'``, and for ``CURRENT_TIMESTAMP``/``_DATE``/``_TIME``. Such rows
  depend on when the database is built: AWM's ``reset_db`` builds it at the wall clock, so the
  state a verifier was generated against is not the state an agent later sees (awm_gym freezes
  the clock, so it repeats, but at ``EnvConfig.clock``, not at generation time).
* :func:`probe_read_tools` calls every ``GET`` tool once, on a fresh copy of the initial
  database, with schema-valid arguments drawn from the seed rows (:func:`draw_arguments`): a
  tool whose handler raises (a bare 500) or hangs on a row that exists is broken for any agent.
  Only reads are probed: they change nothing, so calling them with any valid argument must
  work, while a write may rightly refuse a drawn value.

Example:
    >>> seeds = SeedValues({"notes": {"id": [3], "title": ["Budget"]}})
    >>> tool = ToolSpec("get_note", "", {"type": "object", "required": ["note_id"],
    ...     "properties": {"note_id": {"type": "integer"}, "q": {"type": "string"}}})
    >>> draw_arguments(tool, seeds)
    {'note_id': 3}
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from awm_gym.tools.catalogue import ToolSpec
from awm_gym.tools.db_routing import DatabaseSlot
from awm_gym.vocab import ToolOutcome
from awm_gym.worlds.clock import FrozenClock
from awm_gym.worlds.template_db import open_database

__all__ = ["ClockSeed", "find_clock_seeds", "SeedValues", "draw_arguments", "ProbeFailure",
           "probe_read_tools"]

_NOW_CALL = re.compile(r"\b(?:datetime|date|time|julianday|strftime|unixepoch)\s*\("
                       r"\s*(?:'[^']*'\s*,\s*)?'now'(?:\s*,\s*'[^']*')*\s*\)?",
                       re.IGNORECASE)
_NOW_KEYWORD = re.compile(r"\bCURRENT_(?:TIMESTAMP|DATE|TIME)\b", re.IGNORECASE)
_ROWS_PER_TABLE = 20  # seed rows read per table to draw values from


@dataclass(frozen=True, slots=True)
class ClockSeed:
    """A seed INSERT that reads the build clock: its table, its index there, the expression."""

    table: str
    index: int
    expression: str


def find_clock_seeds(samples: Sequence[Any]) -> list[ClockSeed]:
    """Every seed INSERT of ``samples`` (``SampleTable`` records) that reads "now"."""
    found = []
    for sample in samples:
        for i, statement in enumerate(sample.insert_statements):
            match = _NOW_CALL.search(statement) or _NOW_KEYWORD.search(statement)
            if match:
                found.append(ClockSeed(sample.table_name, i, match.group(0)))
    return found


@dataclass(frozen=True)
class SeedValues:
    """Values of the seed rows, by table and column (lower-case names), in row order."""

    tables: Mapping[str, Mapping[str, list[Any]]] = field(default_factory=dict)

    @classmethod
    def read(cls, conn: sqlite3.Connection) -> SeedValues:
        """The first rows of every table of ``conn`` (non-null values only)."""
        tables: dict[str, dict[str, list[Any]]] = {}
        names = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
            "ORDER BY name")]
        for name in names:
            quoted = '"' + name.replace('"', '""') + '"'
            try:
                cursor = conn.execute(f"SELECT * FROM {quoted} LIMIT {_ROWS_PER_TABLE}")
            except sqlite3.Error:  # a virtual table whose module is missing, ...
                continue
            columns = [d[0].lower() for d in cursor.description]
            values: dict[str, list[Any]] = {c: [] for c in columns}
            for row in cursor:
                for column, value in zip(columns, row, strict=True):
                    if value is not None:
                        values[column].append(value)
            tables[name.lower()] = values
        return cls(tables)

    def column(self, name: str) -> list[Any]:
        """Values of every column called ``name``, tables in name order."""
        return [v for table in self.tables.values() for v in table.get(name, [])]

    def ids_of(self, stem: str) -> list[Any]:
        """The ``id`` values of the table a parameter ``<stem>_id`` points at (``note`` ->
        ``notes``/``note``; ``category`` -> ``categories``)."""
        candidates = (stem + "s", stem, stem + "es",
                      stem[:-1] + "ies" if stem.endswith("y") else None)
        for table in candidates:
            if table in self.tables:
                return list(self.tables[table].get("id", []))
        return []


def _schema_type(prop: Mapping[str, Any]) -> str | None:
    kind = prop.get("type")
    if isinstance(kind, str):
        return kind
    for option in prop.get("anyOf") or prop.get("oneOf") or []:
        if isinstance(option, Mapping) and option.get("type") not in (None, "null"):
            return str(option["type"])
    return None


def _fits(value: Any, kind: str | None) -> Any:
    """``value`` as a JSON value of schema type ``kind``, or None when it does not fit."""
    if isinstance(value, bytes):
        return None
    if kind == "integer":
        return value if isinstance(value, int) and not isinstance(value, bool) else None
    if kind == "number":
        return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None
    if kind == "string":
        return value if isinstance(value, str) and value else None
    if kind == "boolean":
        return bool(value) if value in (0, 1) else None
    return None


def _draw(name: str, prop: Mapping[str, Any], seeds: SeedValues) -> Any:
    if prop.get("enum"):
        return prop["enum"][0]
    if prop.get("default") is not None:
        return prop["default"]
    kind = _schema_type(prop)
    key = name.lower()
    pools = [seeds.column(key)]
    if key.endswith("_id") and len(key) > 3:
        pools.insert(0, seeds.ids_of(key[:-3]))
    for pool in pools:
        for value in pool:
            fitted = _fits(value, kind)
            if fitted is not None:
                return fitted
    return None


def draw_arguments(tool: ToolSpec, seeds: SeedValues) -> dict[str, Any] | None:
    """Schema-valid arguments for ``tool`` drawn from ``seeds``, or None when some required
    parameter has no value to draw (its enum's first value, its default, a value of the column
    it names, or for ``<table>_id`` an id of that table). Optional parameters are left out."""
    schema = tool.input_schema or {}
    properties = schema.get("properties") or {}
    arguments: dict[str, Any] = {}
    for name in schema.get("required") or []:
        value = _draw(name, properties.get(name) or {}, seeds)
        if value is None:
            return None
        arguments[name] = value
    return arguments if tool.validation_error(arguments) is None else None


@dataclass(frozen=True, slots=True)
class ProbeFailure:
    """A read tool that failed on seed-drawn arguments: ``outcome`` is ``crash`` (a bare 500)
    or ``timeout``; ``detail`` is the exception inside the handler."""

    tool: str
    arguments: dict[str, Any]
    outcome: ToolOutcome
    detail: str


def probe_read_tools(host: Any, template: bytes, clock: FrozenClock, timeout_s: float
                     ) -> tuple[int, list[ProbeFailure]]:
    """Call every ``GET`` tool of ``host`` (a :class:`~awm_gym.tools.host.ToolHost`) once with
    :func:`draw_arguments`, each on a fresh connection holding ``template`` (what one
    handler leaves on its connection, TEMP schema included, reaches no other probe).

    Returns:
        ``(tools probed, failures)``.
    """
    slot = DatabaseSlot(open_database(template, clock))
    try:
        seeds = SeedValues.read(slot.conn)
        probed, failures = 0, []
        for tool in host.tools:
            if host.operations[tool.name].method != "GET":
                continue
            arguments = draw_arguments(tool, seeds)
            if arguments is None:
                continue
            # a fresh connection per probe, as an env's reset opens one: a TEMP trigger or a
            # PRAGMA an earlier handler left on the connection must not reach this probe
            old, slot.conn = slot.conn, open_database(template, clock)
            old.close()
            result = host.call(slot, tool.name, arguments, timeout_s=timeout_s)
            probed += 1
            if result.outcome in (ToolOutcome.CRASH, ToolOutcome.TIMEOUT):
                failures.append(ProbeFailure(tool.name, arguments, result.outcome,
                                             result.detail or result.text))
        return probed, failures
    finally:
        slot.conn.close()
