"""Validate one JSONL row of a world set and turn it into records, naming the key and the fix.

Every check raises :class:`RowError` carrying the dotted key (``db_schema.tables[2].ddl``) and a
message that quotes the row shape the file expects; :mod:`awm_gym.worlds.world_set` turns those
into :class:`~awm_gym.worlds.records.WorldProblem` entries.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from awm_gym.vocab import VerifierMode
from awm_gym.worlds.records import (
    CODE_VERIFIER_FILE,
    DB_FILE,
    ENVS_FILE,
    SAMPLE_FILE,
    SCENARIO_FILE,
    SOLUTIONS_FILE,
    SPEC_FILE,
    SQL_VERIFIER_FILE,
    TASKS_FILE,
    SampleTable,
    Solution,
    SolutionCall,
    TableDef,
    VerifierDef,
    normalize_scenario_name,
)
from awm_gym.worlds.verifier_modes import detect_verifier_mode

# The shape of one row per file, quoted in error messages so the fix is visible at a glance.
ROW_SHAPES = {
    SCENARIO_FILE: '{"name": str, "description": str}',
    TASKS_FILE: '{"scenario": str, "tasks": [str, ...]}',
    DB_FILE: '{"scenario": str, "db_schema": {"tables": [{"name": str, "ddl": str, '
    '"indexes": [str, ...]}, ...]}}',
    SAMPLE_FILE: '{"scenario": str, "sample_data": {"tables": [{"table_name": str, '
    '"insert_statements": [str, ...]}, ...]}}',
    SPEC_FILE: '{"scenario": str, "api_spec": {"api_groups": [...]}}',
    ENVS_FILE: '{"scenario": str, "full_code": str}',
    SQL_VERIFIER_FILE: '{"scenario": str, "task_idx": int, "verification": '
    '{"code": str | null, "raw_response": str | null}}',
    CODE_VERIFIER_FILE: '{"scenario": str, "task_idx": int, "verification": '
    '{"code": str | null, "raw_response": str | null}}',
    SOLUTIONS_FILE: '{"scenario": str, "task_idx": int, "calls": [{"tool": str, '
    '"arguments": {...}}, ...], "final_answer": str | null}',
}


class RowError(Exception):
    """A row failed validation at ``key`` (dotted path); ``message`` says what and the fix."""

    def __init__(self, key: str | None, message: str) -> None:
        super().__init__(message)
        self.key = key
        self.message = message


_JSON_KIND = {
    str: "a string",
    int: "an integer",
    float: "a number",
    bool: "a boolean",
    list: "a list",
    dict: "an object",
    type(None): "null",
}


def show(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    if len(text) > 40:
        text = text[:37] + "..."
    return f"{_JSON_KIND.get(type(value), type(value).__name__)} ({text})"


def _is(value: object, kind: type) -> bool:
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, kind)


NAME_FIELD = {
    key: re.compile(rb'"' + key.encode() + rb'"\s*:\s*("(?:[^"\\]|\\.)*")')
    for key in ("scenario", "name")
}


def guess_world(raw: bytes, name_key: str) -> str | None:
    """Best effort: the normalized scenario named on an unparsable line, for attribution only."""
    match = NAME_FIELD[name_key].search(raw)
    if match is None:
        return None
    try:
        return normalize_scenario_name(json.loads(match.group(1))) or None
    except ValueError:  # also covers UnicodeDecodeError
        return None


class Row:
    """Typed access to one parsed row; every failure raises RowError with the fix."""

    __slots__ = ("obj", "shape")

    def __init__(self, obj: dict[str, Any], file: str) -> None:
        self.obj = obj
        self.shape = f"A {file} row has the shape {ROW_SHAPES[file]}"

    def get(
        self, container: Any, key: str, path: str, kind: type, *, optional: bool = False,
        nullable: bool = False,
    ) -> Any:
        if key not in container:
            if optional:
                return None
            raise RowError(path, f"is missing. {self.shape}; add the key.")
        value = container[key]
        if value is None and nullable:
            return None
        if not _is(value, kind):
            want = _JSON_KIND[kind] + (" or null" if nullable else "")
            raise RowError(
                path, f"must be {want}, got {show(value)}. {self.shape}; fix the value."
            )
        return value

    def strings(
        self, container: Any, key: str, path: str, *, optional: bool = False
    ) -> tuple[str, ...]:
        items = self.get(container, key, path, list, optional=optional)
        if items is None:
            return ()
        for i, item in enumerate(items):
            if not isinstance(item, str):
                raise RowError(
                    f"{path}[{i}]",
                    f"must be a string, got {show(item)}. {self.shape}; fix the value.",
                )
        return tuple(items)

    def objects(self, container: Any, key: str, path: str) -> list[tuple[str, dict[str, Any]]]:
        items = self.get(container, key, path, list)
        out = []
        for i, item in enumerate(items):
            if not isinstance(item, dict):
                raise RowError(
                    f"{path}[{i}]",
                    f"must be an object, got {show(item)}. {self.shape}; fix the value.",
                )
            out.append((f"{path}[{i}]", item))
        return out


def parse_tasks(row: Row) -> tuple[str, tuple[str, ...]]:
    tasks = row.strings(row.obj, "tasks", "tasks")
    if not tasks:
        raise RowError("tasks", "is empty; a world needs at least one task. Add its tasks.")
    return row.obj["scenario"], tasks


def parse_envs(row: Row) -> str:
    code = row.get(row.obj, "full_code", "full_code", str)
    if not code.strip():
        raise RowError("full_code", "is empty; it must hold the world's Python module.")
    return code


def parse_db(row: Row) -> tuple[TableDef, ...]:
    schema = row.get(row.obj, "db_schema", "db_schema", dict)
    return tuple(
        TableDef(
            name=row.get(t, "name", f"{path}.name", str),
            ddl=row.get(t, "ddl", f"{path}.ddl", str),
            indexes=row.strings(t, "indexes", f"{path}.indexes", optional=True),
            examples=row.strings(t, "examples", f"{path}.examples", optional=True),
        )
        for path, t in row.objects(schema, "tables", "db_schema.tables")
    )


def parse_scenario(row: Row) -> str:
    return row.get(row.obj, "description", "description", str, optional=True) or ""


def parse_sample(row: Row) -> tuple[SampleTable, ...]:
    data = row.get(row.obj, "sample_data", "sample_data", dict)
    return tuple(
        SampleTable(
            table_name=row.get(t, "table_name", f"{path}.table_name", str),
            insert_statements=row.strings(t, "insert_statements", f"{path}.insert_statements"),
        )
        for path, t in row.objects(data, "tables", "sample_data.tables")
    )


def parse_spec(row: Row) -> dict[str, Any]:
    spec = row.get(row.obj, "api_spec", "api_spec", dict)
    row.get(spec, "api_groups", "api_spec.api_groups", list, optional=True)
    return spec


def verifier_parser(file_mode: VerifierMode) -> Callable[[Row, int], VerifierDef]:
    """A parser for verifier rows. Each row's mode is told from its code
    (:func:`~awm_gym.worlds.verifier_modes.detect_verifier_mode`); ``file_mode``, the mode the
    file's name suggests, only labels rows without code (which never run)."""

    def parse(row: Row, idx: int) -> VerifierDef:
        ver = row.get(row.obj, "verification", "verification", dict)
        code = row.get(ver, "code", "verification.code", str, nullable=True)
        raw = row.get(ver, "raw_response", "verification.raw_response", str, optional=True,
                      nullable=True)
        if code is None:
            return VerifierDef.from_row(idx, file_mode, None, raw)
        mode = detect_verifier_mode(code, raw)
        if mode is None:
            raise RowError("verification.code", (
                "cannot tell whether this verifier is code mode or sql mode. Code mode defines "
                "verify_task_completion(initial_db_path, final_db_path, final_answer=None) "
                'returning {"result": "complete" | "others"}; sql mode defines '
                "verify_task(initial_db_path, final_db_path) returning evidence for a judge. "
                "Rename the entry function accordingly."))
        return VerifierDef.from_row(idx, mode, code, raw)

    return parse


def parse_solution(row: Row, idx: int) -> Solution:
    calls = tuple(
        SolutionCall(
            tool=row.get(c, "tool", f"{path}.tool", str),
            arguments=row.get(c, "arguments", f"{path}.arguments", dict),
        )
        for path, c in row.objects(row.obj, "calls", "calls")
    )
    answer = row.get(row.obj, "final_answer", "final_answer", str, optional=True, nullable=True)
    return Solution(idx, calls, answer)
