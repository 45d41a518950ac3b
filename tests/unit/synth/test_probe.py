"""The env stage's gate: a candidate world started in a child process, every tool called once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from awm_gym.worlds.world_set import normalize_scenario_name
from synth.jsonl_io import read_jsonl, write_jsonl
from synth.probe import probe_problems, probe_world, smoke_arguments

TINY = Path(__file__).resolve().parents[2] / "fixtures" / "worlds" / "tiny"


def _world(tmp_path: Path, world: str, code: str | None = None) -> str:
    for name in ("gen_tasks.jsonl", "gen_db.jsonl", "gen_sample.jsonl", "gen_envs.jsonl"):
        rows = [r for r in read_jsonl(TINY / name)
                if normalize_scenario_name(r["scenario"]) == world]
        if code is not None and name == "gen_envs.jsonl":
            rows = [{**rows[0], "full_code": code}]
        write_jsonl(tmp_path / name, rows)
    return str(tmp_path)


def test_a_working_world_answers_on_every_tool(tmp_path: Path) -> None:
    report = probe_world(_world(tmp_path, "notes_app"), "notes_app", examples={
        "search_notes": {"q": "budget"}}, tool_timeout_s=5.0, timeout_s=120.0)
    assert report.load_error is None and not report.timed_out and not report.crashed
    assert len(report.tools) == 7 and [c["tool"] for c in report.calls] == list(report.tools)
    search = next(c for c in report.calls if c["tool"] == "search_notes")
    assert search["arguments"] == {"q": "budget"} and search["outcome"] == "ok"
    assert report.inserts_failed == 1  # the tiny world's deliberate orphan row
    assert probe_problems(report, ["search_notes"], 120.0) == []
    assert probe_problems(report, ["search_notes", "archive_note"], 120.0) == [
        "The spec's operation_id(s) ['archive_note'] are not routes of the app (each endpoint "
        "needs a route with exactly that operation_id)."]


def test_code_that_hangs_at_import_is_killed_and_reported(tmp_path: Path) -> None:
    report = probe_world(_world(tmp_path, "notes_app", "while True:\n    pass\n"), "notes_app",
                         examples={}, tool_timeout_s=1.0, timeout_s=4.0)
    assert report.timed_out
    [problem] = probe_problems(report, [], 4.0)
    assert "did not finish loading" in problem and "4 s" in problem


def test_missing_rows_are_data_but_code_errors_are_bugs(tmp_path: Path) -> None:
    [row] = [r for r in read_jsonl(TINY / "gen_envs.jsonl")
             if normalize_scenario_name(r["scenario"]) == "notes_app"]
    code = row["full_code"].replace("tags = [tag.strip()", "tags = [tga.strip()", 1)
    report = probe_world(_world(tmp_path, "notes_app", code), "notes_app",
                         examples={"get_note": {"note_id": 999}}, tool_timeout_s=1.0,
                         timeout_s=120.0)
    get_note = next(c for c in report.calls if c["tool"] == "get_note")
    assert get_note["status"] == 500 and "NoneType" in get_note["detail"]
    [problem] = probe_problems(report, [], 120.0)
    assert problem.startswith("Tool list_tags_for_note called with {\"note_id\": 1} raised "
                              "NameError: name 'tga' is not defined")


def test_a_tool_that_kills_the_process_is_reported(tmp_path: Path) -> None:
    report = probe_world(_world(tmp_path, "defect_lab"), "defect_lab", examples={},
                         tool_timeout_s=1.0, timeout_s=120.0)
    [problem] = probe_problems(report, [], 120.0)
    assert problem.startswith("The process running the module died: exit code 3")


@pytest.mark.parametrize(("schema", "examples", "expected"), [
    ({"properties": {"a": {"type": "integer"}}, "required": ["a"]}, {}, {"a": 1}),
    ({"properties": {"a": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None}}},
     {}, {"a": None}),
    ({"properties": {"s": {"type": "string", "enum": ["x", "y"]}}, "required": ["s"]}, {},
     {"s": "x"}),
    ({"properties": {"a": {"type": "integer"}}}, {"a": 5}, {"a": 5}),
])
def test_smoke_arguments(schema: dict, examples: dict, expected: dict) -> None:
    assert smoke_arguments(schema, examples) == expected
    json.dumps(expected)
