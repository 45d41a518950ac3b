"""Stage ``db``: a SQLite schema per world, validated by building it.

Reads ``gen_scenario.jsonl`` and ``gen_tasks.jsonl``; writes ``gen_db.jsonl`` rows
``{"scenario", "db_schema": {"tables": [{"name", "ddl", "indexes"}]}, "db_path"}``. Each answer is
built with the runtime's own builder (:func:`awm_gym.worlds.template_db.build_template_db`, AWM's exact
two-pass build): every failing DDL or index, a table whose ``name`` differs from what its DDL
creates, and a duplicate table name goes back to the LLM with SQLite's error. Unlike AWM, a schema
is kept only when every table builds (AWM keeps up to 10% failed tables, and its ``.db`` file
may come from another attempt than the row it writes).

Example:
    >>> validate_schema('{"tables": [{"name": "users", "ddl": "CREATE TABLE users (id INTEGER PRIMARY KEY)", "indexes": []}]}')["tables"][0]["name"]
    'users'
"""

from __future__ import annotations

from typing import Any

from awm_gym.worlds import FrozenClock, build_template_db

from .context import RunContext
from .errors import GenerationError
from .parsing import parse_json_answer, require_keys
from .stage import SCENARIO_FILE, Rows, WorldStage
from .world_text import numbered, tables_from_schema

__all__ = ["run_stage", "validate_schema", "STAGE", "SPEC"]

STAGE = "db"

_SYSTEM = "You are a database designer who writes SQLite schemas for web applications."

_PROMPT = """\
Application: {name}
Description: {description}

Tasks users will ask an assistant to do in this application:
{tasks}

Design the application's SQLite database so that every task above can be carried out.

Rules:
- Every table the tasks need, with primary keys, foreign keys (REFERENCES), NOT NULL, UNIQUE and
  CHECK constraints where they make sense, and indexes on columns that are searched or joined.
- SQLite types only: INTEGER, REAL, TEXT, BOOLEAN (0/1), DATETIME stored as 'YYYY-MM-DD HH:MM:SS'.
- A users table: the signed-in user is the row with id 1, and tables that belong to someone
  refer to users(id). No password, token or session tables.
- No rows: sample data comes later.
- Each "ddl" is exactly one CREATE TABLE statement; each index is one CREATE INDEX statement.

Reply with a JSON object only:
{{"tables": [{{"name": "users", "ddl": "CREATE TABLE users (...);", "indexes": ["CREATE INDEX ...;"]}}]}}"""


def validate_schema(answer: str) -> dict[str, Any]:
    """The ``db_schema`` of an answer, once every table and index builds.

    Raises:
        GenerationError: bad JSON or shape, duplicate tables, or SQLite errors (all listed).
    """
    value = parse_json_answer(answer, dict)
    require_keys(value, {"tables": list}, "The schema")
    if not value["tables"]:
        raise GenerationError('"tables" is empty; the schema needs at least one table.')
    tables = []
    for i, table in enumerate(value["tables"]):
        if not isinstance(table, dict):
            raise GenerationError(f"tables[{i}] is not an object with name, ddl and indexes.")
        require_keys(table, {"name": str, "ddl": str}, f"tables[{i}]")
        indexes = table.get("indexes") or []
        if not isinstance(indexes, list) or not all(isinstance(s, str) for s in indexes):
            raise GenerationError(f"tables[{i}].indexes must be a list of CREATE INDEX strings.")
        tables.append({"name": table["name"], "ddl": table["ddl"], "indexes": indexes})
    names = [t["name"] for t in tables]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise GenerationError(f"Table name(s) {duplicates} appear more than once; give each "
                              "table one entry.")
    schema = {"tables": tables}
    conn, report = build_template_db(tables_from_schema(schema), (), FrozenClock())
    try:
        created = {r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
    finally:
        conn.close()
    problems = [f"table {t!r}: {error}" for t, _, error in report.failures]
    problems += [f"table {n!r}: its DDL does not create a table named {n!r}" for n in names
                 if n not in created and not any(f[0] == n for f in report.failures)]
    if problems:
        raise GenerationError("Building the schema in SQLite failed:\n- " + "\n- ".join(problems))
    return schema


def _prompt(run: RunContext, rows: Rows) -> tuple[tuple[dict[str, str], ...], str]:
    tasks = rows["gen_tasks.jsonl"]
    return ({"role": "system", "content": _SYSTEM},
            {"role": "user", "content": _PROMPT.format(
                name=tasks["scenario"], description=rows[SCENARIO_FILE].get("description", ""),
                tasks=numbered(tasks["tasks"]))}), tasks["scenario"]


SPEC = WorldStage(
    STAGE, ("gen_tasks.jsonl",), "gen_db.jsonl", _prompt,
    validate=lambda run, job, text: validate_schema(text),
    row=lambda outcome: {"scenario": outcome.context, "db_schema": outcome.value,
                         "db_path": f"./outputs/databases/{outcome.key}.db"},
    optional_inputs=(SCENARIO_FILE,))
"""Generate a schema for every world that has tasks and no schema yet."""
run_stage = SPEC.run
