"""Render world parts for prompts (numbered tasks, schema, database dump) and read them back into
the runtime's records (``TableDef``, ``SampleTable``).

Example:
    >>> numbered(["Find my note", "Delete it"])
    '1. Find my note\\n2. Delete it'
    >>> tables = tables_from_schema({"tables": [{"name": "t", "ddl": "CREATE TABLE t (x)", "indexes": []}]})
    >>> schema_text(tables)
    '-- table t\\nCREATE TABLE t (x)'
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any

from awm_gym.worlds import SampleTable, TableDef

__all__ = ["numbered", "tables_from_schema", "samples_from_data", "schema_text", "dump_database",
           "tasks_and_schema"]


def numbered(tasks: Sequence[str]) -> str:
    return "\n".join(f"{i}. {t}" for i, t in enumerate(tasks, start=1))


def tables_from_schema(schema: Mapping[str, Any]) -> tuple[TableDef, ...]:
    """``db_schema`` (``{"tables": [{"name", "ddl", "indexes"}]}``) as ``TableDef`` records."""
    return tuple(TableDef(t["name"], t["ddl"], tuple(t.get("indexes") or ()),
                          tuple(t.get("examples") or ()))
                 for t in schema.get("tables", ()))


def samples_from_data(data: Mapping[str, Any]) -> tuple[SampleTable, ...]:
    """``sample_data`` (``{"tables": [{"table_name", "insert_statements"}]}``) as records."""
    return tuple(SampleTable(t["table_name"], tuple(t.get("insert_statements") or ()))
                 for t in data.get("tables", ()))


def schema_text(tables: Sequence[TableDef]) -> str:
    """The DDL and index statements, table by table."""
    parts = []
    for t in tables:
        parts.append("\n".join([f"-- table {t.name}", t.ddl, *t.indexes]))
    return "\n\n".join(parts)


def tasks_and_schema(rows: Mapping[str, Mapping[str, Any]]) -> dict[str, str]:
    """The ``name``, ``tasks`` and ``schema`` fields of a prompt about a world, from its rows of
    ``gen_tasks.jsonl`` and ``gen_db.jsonl`` (``{file: row}``)."""
    tasks = rows["gen_tasks.jsonl"]
    return {"name": tasks["scenario"], "tasks": numbered(tasks["tasks"]),
            "schema": schema_text(tables_from_schema(rows["gen_db.jsonl"]["db_schema"]))}


def dump_database(data: bytes, max_chars: int) -> str:
    """An SQL dump of a serialized database (schema and rows), cut at ``max_chars``."""
    conn = sqlite3.connect(":memory:")
    try:
        conn.deserialize(data)
        lines = []
        size = 0
        for line in conn.iterdump():
            if line in ("BEGIN TRANSACTION;", "COMMIT;"):
                continue
            size += len(line) + 1
            if size > max_chars:
                lines.append(f"-- ... dump cut at {max_chars} characters")
                break
            lines.append(line)
        return "\n".join(lines)
    finally:
        conn.close()
