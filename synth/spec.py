"""Stage ``spec``: the API spec of each world, checked against its schema.

Reads tasks and schema; writes ``gen_spec.jsonl`` rows ``{"scenario", "api_spec": {"api_groups":
[...]}}`` in AWM's endpoint shape. Beyond AWM (which only re-asks on unparsable output), an answer
must be consistent before it is kept: methods are HTTP verbs, ``operation_id`` s are unique
snake_case names, path parameters and ``{placeholders}`` agree, ``param_type`` is ``path`` /
``query`` / ``body``, and ``required_tables`` / ``required_fields`` name real tables and columns
(awm.md 8, item 22). Every problem found is listed in the correction request.

Example:
    >>> schema = {"tables": [{"name": "notes", "ddl": "CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT)"}]}
    >>> ep = {"path": "/api/notes/{note_id}", "method": "GET", "operation_id": "get_note",
    ...       "summary": "Get a note", "request_params": {"id": {"type": "integer", "param_type": "path"}}}
    >>> validate_spec(json.dumps({"api_groups": [{"group_name": "Notes", "endpoints": [ep]}]}), schema)
    Traceback (most recent call last):
    ...
    synth.errors.GenerationError: The API spec is inconsistent:
    - get_note: path parameter(s) ['note_id'] in '/api/notes/{note_id}' are not in request_params with param_type "path"
    - get_note: request_params 'id' has param_type "path" but '/api/notes/{note_id}' has no {id}
"""

from __future__ import annotations

import json  # noqa: F401 - used by the module doctest
import re
from typing import Any

from awm_gym.worlds import FrozenClock, build_template_db

from .context import RunContext
from .errors import GenerationError
from .parsing import parse_json_answer, require_keys
from .stage import Rows, WorldStage
from .world_text import tables_from_schema, tasks_and_schema

__all__ = ["run_stage", "validate_spec", "operation_ids", "STAGE", "SPEC"]

STAGE = "spec"
_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
_SNAKE = re.compile(r"^[a-z][a-z0-9_]*$")
_PLACEHOLDER = re.compile(r"\{([^}/]+)\}")

_SYSTEM = "You design REST APIs for web applications, to be implemented with FastAPI."

_PROMPT = """\
Application: {name}

Tasks users will ask an AI assistant to do through the API:
{tasks}

Database schema:
{schema}

Design the application's API.

Rules:
- Small, reusable endpoints (list and search with filters, get by id, create, update, delete,
  and the domain's own actions) that together let an agent complete every task above. No
  endpoint that solves one task wholesale.
- Use the schema's exact table and column names. No authentication endpoints: every request
  acts as the signed-in user 1.
- operation_id: a unique snake_case verb phrase (list_notes, create_note); it is the name of the
  tool the agent calls.
- Path parameters appear in the path as {{name}}; every request parameter says where it goes:
  "path", "query" or "body".
- summary at most 80 characters; description one sentence.

Reply with a JSON object only:
{{"api_groups": [{{"group_name": "...", "endpoints": [{{"path": "/api/...", "method": "GET", "summary": "...", "description": "...", "operation_id": "...", "tags": ["..."], "request_params": {{"name": {{"type": "integer", "param_type": "path", "required": true, "description": "...", "example": 1}}}}, "response": {{"field": {{"type": "...", "description": "...", "example": 1}}}}, "required_tables": ["..."], "required_fields": {{"table": ["column"]}}}}]}}]}}"""


def _columns(schema: dict[str, Any]) -> dict[str, set[str]]:
    conn, _ = build_template_db(tables_from_schema(schema), (), FrozenClock())
    try:
        tables = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
        return {t: {c[1] for c in conn.execute(f'PRAGMA table_info("{t}")')} for t in tables}
    finally:
        conn.close()


def _endpoint_problems(ep: dict[str, Any], where: str, columns: dict[str, set[str]]) -> list[str]:
    op = ep.get("operation_id") if isinstance(ep.get("operation_id"), str) else where
    problems = []
    path, method = ep.get("path"), ep.get("method")
    if not isinstance(path, str) or not path.startswith("/"):
        problems.append(f"{op}: path {path!r} must be a string starting with '/'")
        path = ""
    if not isinstance(method, str) or method.upper() not in _METHODS:
        problems.append(f"{op}: method {method!r} is not one of {', '.join(_METHODS)}")
    if not isinstance(ep.get("operation_id"), str) or not _SNAKE.match(ep["operation_id"]):
        problems.append(f"{where}: operation_id {ep.get('operation_id')!r} must be snake_case")
    if not isinstance(ep.get("summary"), str) or not ep["summary"].strip():
        problems.append(f"{op}: summary is missing")
    params = ep.get("request_params") or {}
    if not isinstance(params, dict):
        return [*problems, f"{op}: request_params must be an object of name -> parameter"]
    path_params = []
    for name, param in params.items():
        kind = param.get("param_type") if isinstance(param, dict) else None
        if kind not in ("path", "query", "body"):
            problems.append(f"{op}: request_params {name!r} needs param_type \"path\", "
                            "\"query\" or \"body\"")
        elif kind == "path":
            path_params.append(name)
    placeholders = _PLACEHOLDER.findall(path)
    missing = [p for p in placeholders if p not in path_params]
    if missing:
        problems.append(f"{op}: path parameter(s) {missing} in {path!r} are not in "
                        "request_params with param_type \"path\"")
    for name in path_params:
        if name not in placeholders:
            problems.append(f"{op}: request_params {name!r} has param_type \"path\" but "
                            f"{path!r} has no {{{name}}}")
    for table in ep.get("required_tables") or []:
        if table not in columns:
            problems.append(f"{op}: required_tables names {table!r}, which is not a table of "
                            f"the schema ({', '.join(sorted(columns))})")
    fields = ep.get("required_fields") or {}
    if isinstance(fields, dict):
        for table, cols in fields.items():
            if table in columns and isinstance(cols, list):
                bad = [c for c in cols if c not in columns[table]]
                if bad:
                    problems.append(f"{op}: required_fields {table}.{bad} are not columns of "
                                    f"{table}")
    return problems


def validate_spec(answer: str, schema: dict[str, Any]) -> dict[str, Any]:
    """The ``api_spec`` of an answer, once it is consistent with itself and the schema.

    Raises:
        GenerationError: bad JSON or shape, or every inconsistency found.
    """
    value = parse_json_answer(answer, dict)
    require_keys(value, {"api_groups": list}, "The API spec")
    columns = _columns(schema)
    problems, seen = [], {}
    count = 0
    for g, group in enumerate(value["api_groups"]):
        if not isinstance(group, dict) or not isinstance(group.get("endpoints"), list):
            problems.append(f"api_groups[{g}] needs group_name and an endpoints list")
            continue
        for e, ep in enumerate(group["endpoints"]):
            where = f"api_groups[{g}].endpoints[{e}]"
            if not isinstance(ep, dict):
                problems.append(f"{where} is not an object")
                continue
            count += 1
            problems += _endpoint_problems(ep, where, columns)
            op = ep.get("operation_id")
            if isinstance(op, str):
                if op in seen:
                    problems.append(f"operation_id {op!r} is used by {seen[op]} and {where}; "
                                    "make each unique")
                seen.setdefault(op, where)
    if not count:
        problems.append("there are no endpoints")
    if problems:
        raise GenerationError("The API spec is inconsistent:\n- " + "\n- ".join(problems))
    return value


def operation_ids(api_spec: dict[str, Any]) -> list[str]:
    """Every ``operation_id`` of a spec, in order."""
    return [ep["operation_id"] for group in api_spec.get("api_groups", ())
            for ep in group.get("endpoints", ()) if isinstance(ep.get("operation_id"), str)]


def _prompt(run: RunContext, rows: Rows) -> tuple[tuple[dict[str, str], ...], tuple[str, Any]]:
    schema = rows["gen_db.jsonl"]
    return ({"role": "system", "content": _SYSTEM},
            {"role": "user", "content": _PROMPT.format(**tasks_and_schema(rows))}), \
        (schema["scenario"], schema["db_schema"])


SPEC = WorldStage(
    STAGE, ("gen_tasks.jsonl", "gen_db.jsonl"), "gen_spec.jsonl", _prompt,
    validate=lambda run, job, text: validate_spec(text, job.context[1]),
    row=lambda outcome: {"scenario": outcome.context[0], "api_spec": outcome.value})
"""Generate an API spec for every world with tasks and a schema and no spec yet."""
run_stage = SPEC.run
