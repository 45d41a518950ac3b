"""What each stage's validator accepts, and the error it feeds back for what it does not."""

from __future__ import annotations

import json

import pytest

from synth.db import validate_schema
from synth.errors import GenerationError
from synth.parsing import extract_code, parse_json_answer
from synth.repair import Imperfect
from synth.sample import validate_samples
from synth.scenario import parse_candidates, parse_classification
from synth.solution import MAX_CALLS, parse_solution
from synth.spec import validate_spec
from synth.tasks import validate_tasks
from synth.verifier import parse_verifier_answer

SCHEMA = {"tables": [
    {"name": "users", "ddl": "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)",
     "indexes": []},
    {"name": "notes", "ddl": "CREATE TABLE notes (id INTEGER PRIMARY KEY, user_id INTEGER NOT "
     "NULL REFERENCES users(id), title TEXT)", "indexes": ["CREATE INDEX i ON notes(title)"]}]}


def test_json_is_found_in_fences_thinking_and_prose() -> None:
    assert parse_json_answer('Sure!\n```json\n{"a": 1}\n```', dict) == {"a": 1}
    assert parse_json_answer("<think>{no}</think> [1, 2]", list) == [1, 2]
    assert parse_json_answer("{'a': 1,}", dict) == {"a": 1}  # repaired
    with pytest.raises(GenerationError, match="not a JSON object"):
        parse_json_answer("no json here", dict)
    assert extract_code('{"full_code": "x = 1"}') == "x = 1"


def test_tasks_must_be_enough_distinct_strings() -> None:
    assert validate_tasks('["a", "b", " b ", "c"]', 3) == ["a", "b", "c"]
    with pytest.raises(GenerationError, match="Only 2 distinct task strings"):
        validate_tasks('{"tasks": ["a", "a", "b", 3]}', 3)
    with pytest.raises(GenerationError, match='no "tasks" array'):
        validate_tasks('{"items": ["a"]}', 1)


def test_schema_errors_name_the_table_and_sqlite_error() -> None:
    assert validate_schema(json.dumps(SCHEMA)) == SCHEMA
    bad = json.loads(json.dumps(SCHEMA))
    bad["tables"][1]["indexes"] = ["CREATE INDEX i ON notes(titel)"]
    with pytest.raises(GenerationError, match="table 'notes'.*no such column: titel"):
        validate_schema(json.dumps(bad))
    bad["tables"][1] = {**SCHEMA["tables"][0]}
    with pytest.raises(GenerationError, match=r"\['users'\] appear more than once"):
        validate_schema(json.dumps(bad))
    misnamed = {"tables": [{"name": "people", "ddl": "CREATE TABLE users (id INTEGER)"}]}
    with pytest.raises(GenerationError, match="does not create a table named 'people'"):
        validate_schema(json.dumps(misnamed))


def test_samples_are_inserted_with_foreign_keys_on() -> None:
    good = {"tables": [{"table_name": "users", "insert_statements": [
        "INSERT INTO users (id, name) VALUES (1, 'me')"]},
        {"table_name": "notes", "insert_statements": [
            "INSERT INTO notes (id, user_id, title) VALUES (1, 1, 'a')"]}]}
    assert validate_samples(json.dumps(good), SCHEMA, 0.0)["tables"][1]["table_name"] == "notes"
    bad = json.loads(json.dumps(good))
    bad["tables"][1]["insert_statements"].append(
        "INSERT INTO notes (id, user_id, title) VALUES (2, 9, 'orphan')")
    with pytest.raises(GenerationError, match="(?s)1 of 3 INSERT .*FOREIGN KEY constraint failed"):
        validate_samples(json.dumps(bad), SCHEMA, 0.0)
    with pytest.raises(Imperfect) as caught:
        validate_samples(json.dumps(bad), SCHEMA, 0.5)
    assert caught.value.badness == pytest.approx(1 / 3)
    unknown = {"tables": [{"table_name": "tags", "insert_statements": ["INSERT INTO tags VALUES (1)"]}]}
    with pytest.raises(GenerationError, match=r"\['tags'\] are not tables of the schema"):
        validate_samples(json.dumps(unknown), SCHEMA, 1.0)


def _endpoint(**over):
    ep = {"path": "/api/notes/{note_id}", "method": "GET", "operation_id": "get_note",
          "summary": "Get a note", "request_params": {"note_id": {"type": "integer",
                                                                  "param_type": "path"}},
          "required_tables": ["notes"], "required_fields": {"notes": ["id", "title"]}}
    return {**ep, **over}


def test_spec_is_checked_against_itself_and_the_schema() -> None:
    spec = {"api_groups": [{"group_name": "Notes", "endpoints": [_endpoint()]}]}
    assert validate_spec(json.dumps(spec), SCHEMA) == spec
    bad = {"api_groups": [{"group_name": "Notes", "endpoints": [
        _endpoint(method="FETCH", required_tables=["tags"]),
        _endpoint(operation_id="get_note", required_fields={"notes": ["body"]}),
        _endpoint(operation_id="Get-Note")]}]}
    with pytest.raises(GenerationError) as caught:
        validate_spec(json.dumps(bad), SCHEMA)
    message = str(caught.value)
    assert "'FETCH' is not one of" in message and "'tags', which is not a table" in message
    assert "operation_id 'get_note' is used by" in message
    assert "required_fields notes.['body'] are not columns" in message
    assert "'Get-Note' must be snake_case" in message


def test_verifier_entry_point_follows_awms_first_def_rule() -> None:
    helper_first = ("def verify_helper():\n    return 1\n\n"
                    "def verify_task_completion(a, b, c=None):\n    return {'result': 'others'}\n")
    with pytest.raises(GenerationError, match="defines 'verify_helper'"):
        parse_verifier_answer(json.dumps({"python_code": helper_first}), "code")
    with pytest.raises(GenerationError, match="does not compile"):
        parse_verifier_answer(json.dumps({"python_code": "def verify_task(:"}), "sql")
    code, name, raw = parse_verifier_answer(
        json.dumps({"python_code": "def verify_task(a, b):\n    return {}\n",
                    "function_name": "check", "success_criteria": "s"}), "sql")
    assert name == "verify_task" and json.loads(raw)["function_name"] == "verify_task"


def test_solutions_use_known_tools_within_the_step_budget() -> None:
    tools = {"get_note"}
    with pytest.raises(GenerationError, match="'get_notes', which does not exist"):
        parse_solution('{"calls": [{"tool": "get_notes", "arguments": {}}]}', tools)
    many = json.dumps({"calls": [{"tool": "get_note", "arguments": {}}] * (MAX_CALLS + 1)})
    with pytest.raises(GenerationError, match=f"use at most {MAX_CALLS}"):
        parse_solution(many, tools)
    with pytest.raises(GenerationError, match="plain text"):
        parse_solution('{"calls": [], "final_answer": "<tool_call>{}</tool_call>"}', tools)


def test_scenario_answers() -> None:
    assert parse_classification(json.dumps({
        "categories": ["finance"], "suitability_score": 7, "suitability_level": "medium"
    }))["categories"] == ["finance"]
    with pytest.raises(GenerationError, match="categories must be 1 to 3 of"):
        parse_classification('{"categories": ["banking"]}')
    with pytest.raises(GenerationError, match="No usable scenario.*categories must come"):
        parse_candidates('[{"name": "X", "description": "d", "categories": ["banking"]}]')
