"""Stage ``sample``: the initial rows of each world, validated by inserting them.

Reads tasks and schema; writes ``gen_sample.jsonl`` rows ``{"scenario", "tables_count",
"inserts_count", "sample_data": {"tables": [{"table_name", "reasoning",
"insert_statements"}]}}``. Each answer is executed with the runtime's builder, exactly as the
world's database will later be built (DDL, then every INSERT alone with foreign keys on). Failing
statements go back to the LLM with SQLite's errors. Once corrections run out, the best attempt is
kept if its share of failing INSERTs is at most ``max_failed_insert_ratio`` (default 0: every row
must insert; AWM tolerates 10%). Its error feedback stays a list of statements and errors (AWM's
history turns into single characters, awm.md 8 item 18).

Example:
    >>> schema = {"tables": [{"name": "t", "ddl": "CREATE TABLE t (id INTEGER PRIMARY KEY)"}]}
    >>> validate_samples('{"tables": [{"table_name": "t", "insert_statements": ["INSERT INTO t (id) VALUES (1);"]}]}', schema, 0.0)["tables"][0]["reasoning"]
    ''
"""

from __future__ import annotations

from typing import Any

from awm_gym.worlds import FrozenClock, build_template_db

from .context import RunContext
from .errors import GenerationError
from .parsing import parse_json_answer, require_keys
from .repair import Imperfect, RepairOutcome
from .stage import Rows, WorldStage
from .world_text import samples_from_data, tables_from_schema, tasks_and_schema

__all__ = ["run_stage", "validate_samples", "STAGE", "SPEC"]

STAGE = "sample"
_MAX_LISTED = 25

_SYSTEM = "You write realistic seed data for web application databases, as SQLite INSERTs."

_PROMPT = """\
Application: {name}

Tasks users will ask an assistant to do (the data must make each of them possible):
{tasks}

Database schema:
{schema}

Write the application's initial data.

Rules:
- INSERT statements with explicit column lists, exactly one statement per string, tables in
  foreign-key order (referenced rows first). Only tables and columns of the schema.
- User 1 is the signed-in user: insert it first, and give user 1 most of the data; other users
  own some rows that must not be confused with user 1's.
- For every task, the records it names exist with exactly the names and values the task uses;
  add look-alike records that must not match, 5 to 10 rows where the task lists things, and rows
  that can safely be deleted where the task deletes.
- Realistic values. Timestamps as 'YYYY-MM-DD HH:MM:SS' or datetime('now', '-N days').
- SQL string quoting: double an apostrophe inside a string ('O''Brien'); never use backslashes.

Reply with a JSON object only:
{{"tables": [{{"table_name": "users", "reasoning": "<at most 100 words on what the rows are for>", "insert_statements": ["INSERT INTO users (id, ...) VALUES (1, ...);"]}}]}}"""


def validate_samples(answer: str, schema: dict[str, Any], max_failed_ratio: float
                     ) -> dict[str, Any]:
    """The ``sample_data`` of an answer, once its INSERTs run on the schema.

    Raises:
        Imperfect: some INSERTs fail but no more than ``max_failed_ratio`` of them (kept if no
            correction does better).
        GenerationError: bad JSON or shape, no INSERTs, or too many failing statements.
    """
    value = parse_json_answer(answer, dict)
    require_keys(value, {"tables": list}, "The sample data")
    tables = []
    for i, table in enumerate(value["tables"]):
        if not isinstance(table, dict):
            raise GenerationError(f"tables[{i}] is not an object with table_name and "
                                  "insert_statements.")
        require_keys(table, {"table_name": str, "insert_statements": list}, f"tables[{i}]")
        statements = table["insert_statements"]
        if not all(isinstance(s, str) for s in statements):
            raise GenerationError(f"tables[{i}].insert_statements must be a list of strings.")
        reasoning = table.get("reasoning")
        tables.append({"table_name": table["table_name"],
                       "reasoning": reasoning if isinstance(reasoning, str) else "",
                       "insert_statements": statements})
    data = {"tables": tables}
    samples = samples_from_data(data)
    total = sum(len(s.insert_statements) for s in samples)
    if not total:
        raise GenerationError("No INSERT statements were given; the world needs initial data.")
    known = {t["name"] for t in schema["tables"]}
    unknown = sorted({s.table_name for s in samples} - known)
    conn, report = build_template_db(tables_from_schema(schema), samples, FrozenClock())
    conn.close()
    if not report.inserts_failed and not unknown:
        return data
    lines = [f"table {table!r} statement {index + 1}: "
             f"{_statement(samples, table, index)[:200]} -> {error}"
             for table, index, error in report.failures[:_MAX_LISTED]]
    if len(report.failures) > _MAX_LISTED:
        lines.append(f"... and {len(report.failures) - _MAX_LISTED} more failures")
    if unknown:
        lines.append(f"table_name(s) {unknown} are not tables of the schema ({sorted(known)})")
    ratio = report.inserts_failed / total
    message = (f"{report.inserts_failed} of {total} INSERT statements failed when run with "
               "foreign keys on:\n- " + "\n- ".join(lines))
    if not unknown and ratio <= max_failed_ratio:
        raise Imperfect(message, fallback=data, badness=ratio)
    raise GenerationError(message)


def _statement(samples: Any, table: str, index: int) -> str:
    for s in samples:
        if s.table_name == table and 0 <= index < len(s.insert_statements):
            return s.insert_statements[index]
    return ""


def _prompt(run: RunContext, rows: Rows) -> tuple[tuple[dict[str, str], ...], tuple[str, Any]]:
    schema = rows["gen_db.jsonl"]
    return ({"role": "system", "content": _SYSTEM},
            {"role": "user", "content": _PROMPT.format(**tasks_and_schema(rows))}), \
        (schema["scenario"], schema["db_schema"])


def _row(outcome: RepairOutcome) -> dict[str, Any]:
    data = outcome.value
    return {"scenario": outcome.context[0], "tables_count": len(data["tables"]),
            "inserts_count": sum(len(t["insert_statements"]) for t in data["tables"]),
            "sample_data": data}


SPEC = WorldStage(
    STAGE, ("gen_tasks.jsonl", "gen_db.jsonl"), "gen_sample.jsonl", _prompt,
    validate=lambda run, job, text: validate_samples(text, job.context[1],
                                                     run.config.max_failed_insert_ratio),
    row=_row)
"""Generate initial rows for every world with a schema and no rows yet."""
run_stage = SPEC.run
