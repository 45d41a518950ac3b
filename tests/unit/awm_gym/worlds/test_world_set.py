"""Tests for awm_gym.worlds.world_set: loading the tiny fixture set and reporting malformed input."""

from __future__ import annotations

import importlib.util
import json
import pickle
import re
import shutil
from pathlib import Path
from typing import Any, Callable

import pytest

from awm_gym.errors import UnknownWorldError, WorldSetFormatError
from awm_gym.worlds.world_set import (
    VerifierDef,
    WorldProblem,
    load_world_set,
    normalize_scenario_name,
)

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"
TINY = FIXTURES / "worlds" / "tiny"


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    """A private copy of the tiny world set that a test may break."""
    dest = tmp_path / "tiny"
    shutil.copytree(TINY, dest)
    return dest


def read_rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def write_rows(path: Path, rows: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def edit_row(path: Path, scenario: str, edit: Callable[[dict[str, Any]], None]) -> int:
    """Apply ``edit`` to the first row of ``scenario`` (normalized match); return its line."""
    rows = read_rows(path)
    for i, row in enumerate(rows):
        if normalize_scenario_name(row.get("scenario", row.get("name", ""))) == scenario:
            edit(row)
            write_rows(path, rows)
            return i + 1
    raise AssertionError(f"no row for {scenario} in {path}")


def append_line(path: Path, text: str) -> int:
    lines = path.read_text(encoding="utf-8").splitlines()
    lines.append(text)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(lines)


# -- the tiny fixture set -----------------------------------------------------------------------


def test_tiny_loads_with_zero_problems_and_three_worlds() -> None:
    ws = load_world_set(TINY)
    assert ws.problems == ()
    assert ws.names() == ["defect_lab", "judge_only", "notes_app"]
    assert len(ws) == 3
    assert [w.name for w in ws] == ws.names()
    assert ws.root == str(TINY)


def test_notes_app_parts_are_matched_to_the_world() -> None:
    w = load_world_set(TINY)["notes_app"]
    assert w.display_name == "Notes App"
    assert w.description.startswith("A personal note-taking app")
    assert len(w.tasks) == 3 and "budget" in w.tasks[0]
    assert [t.name for t in w.tables] == ["users", "notebooks", "notes"]
    assert w.tables[2].indexes[0].startswith("CREATE INDEX idx_notes_notebook_id")
    assert w.tables[0].examples == ()
    assert [s.table_name for s in w.samples] == ["users", "notebooks", "notes"]
    assert sum(len(s.insert_statements) for s in w.samples) == 13
    assert any("datetime('now', '-2 days')" in st for st in w.samples[2].insert_statements)
    assert [g["group_name"] for g in w.api_spec["api_groups"]] == ["Notebooks", "Notes"]
    assert 'operation_id="list_notebooks"' in w.full_code
    assert all(v is not None and v.mode == "code" for v in w.code_verifiers)
    assert [v.task_idx for v in w.code_verifiers] == [0, 1, 2]
    assert w.sql_verifiers[0] is not None and w.sql_verifiers[0].function_name == "verify_task"
    assert w.sql_verifiers[1:] == (None, None)
    assert [len(s.calls) for s in w.solutions] == [1, 2, 4]
    assert w.solutions[1].calls[1].tool == "create_note"
    assert w.solutions[1].calls[1].arguments == {
        "notebook_id": 2, "title": "Call the plumber", "body": "Tuesday at 9am"}
    assert w.source_dir == str(TINY)
    assert re.fullmatch(r"[0-9a-f]{64}", w.content_hash)


def test_other_tiny_worlds_have_the_parts_they_should() -> None:
    ws = load_world_set(TINY)
    judge = ws["judge_only"]
    assert judge.code_verifiers == (None, None)
    assert [v.function_name for v in judge.sql_verifiers] == ["verify_task", "verify_task"]
    defect = ws["defect_lab"]
    assert defect.solutions[0] is not None and defect.solutions[1:] == (None, None)
    assert all(v is not None for v in defect.code_verifiers)
    assert "os._exit(3)" in defect.full_code and "while True:" in defect.full_code


def test_fixture_files_match_their_generator() -> None:
    spec = importlib.util.spec_from_file_location("make_tiny_worlds", FIXTURES / "make_tiny_worlds.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rendered = module.render(module.build_rows())
    assert sorted(rendered) == sorted(p.name for p in TINY.glob("*.jsonl"))
    for name, text in rendered.items():
        assert (TINY / name).read_text(encoding="utf-8") == text, (
            f"{name} is stale: run python tests/fixtures/make_tiny_worlds.py")


def test_content_hash_is_stable_and_tracks_what_the_database_depends_on(tiny: Path) -> None:
    before = load_world_set(tiny)
    assert load_world_set(TINY)["notes_app"].content_hash == before["notes_app"].content_hash
    edit_row(tiny / "gen_tasks.jsonl", "notes_app", lambda r: r["tasks"].append("Extra task"))
    assert load_world_set(tiny)["notes_app"].content_hash == before["notes_app"].content_hash

    def change_seed(row: dict[str, Any]) -> None:
        row["sample_data"]["tables"][0]["insert_statements"].pop()

    edit_row(tiny / "gen_sample.jsonl", "notes_app", change_seed)
    after = load_world_set(tiny)
    assert after["notes_app"].content_hash != before["notes_app"].content_hash
    assert after["judge_only"].content_hash == before["judge_only"].content_hash


def test_world_set_lookup_normalizes_and_suggests() -> None:
    ws = load_world_set(TINY)
    assert ws["Notes App"] is ws["notes_app"] is ws["NOTES--app"]
    assert "Notes App" in ws and "nope" not in ws
    with pytest.raises(UnknownWorldError, match=re.escape("Did you mean 'notes_app'?")):
        ws["notes_ap"]
    with pytest.raises(UnknownWorldError, match=re.escape("names()")):
        ws["zzzzzz"]


def test_world_set_pickles_for_worker_processes() -> None:
    ws = load_world_set(TINY)
    clone = pickle.loads(pickle.dumps(ws))
    assert clone.names() == ws.names()
    assert clone["notes_app"] == ws["notes_app"]
    assert hash(clone["notes_app"]) == hash(ws["notes_app"])


# -- normalize and function_name ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Twitter/X", "twitter_x"),
        ("Microsoft 365 (Office)", "microsoft_365_office"),
        ("e_commerce_33", "e_commerce_33"),
        ("  __Café--Menu__ ", "caf_menu"),
        ("A___B", "a_b"),
    ],
)
def test_normalize_scenario_name(raw: str, expected: str) -> None:
    assert normalize_scenario_name(raw) == expected


@pytest.mark.parametrize(
    ("mode", "code", "expected"),
    [
        ("code", "def helper():\n    pass\ndef verify_task_completion(a, b):\n    pass",
         "verify_task_completion"),
        ("sql", "def verify_helper(x):\n    pass\ndef verify_task(a, b):\n    pass",
         "verify_helper"),  # AWM's quirk: the first `def verify_` line wins
        ("sql", "import sqlite3\n    def verify_indented (a, b):\n        pass", "verify_indented"),
        ("code", "def check(a, b):\n    pass", "verify_task_completion"),
        ("sql", "def check(a, b):\n    pass", "verify_task"),
        ("code", None, None),
    ],
)
def test_verifier_function_name_follows_awm(mode: str, code: str | None, expected: str | None) -> None:
    assert VerifierDef.from_row(0, mode, code, None).function_name == expected


def test_fixture_verifier_with_helper_first_gets_the_verify_function() -> None:
    v = load_world_set(TINY)["notes_app"].code_verifiers[2]
    assert v.code.startswith("def load_titles(")
    assert v.function_name == "verify_task_completion"


# -- duplicates and first match -----------------------------------------------------------------


def test_duplicate_verifier_rows_first_match_wins(tiny: Path) -> None:
    path = tiny / "gen_verifier.pure_code.jsonl"
    original = load_world_set(tiny)["notes_app"].code_verifiers[0].code
    dup = {"scenario": "Notes App", "task_idx": 0, "task": "x",
           "verification": {"code": "def verify_other(a, b, final_answer=None):\n    return {}",
                            "raw_response": None}}
    line = append_line(path, json.dumps(dup))
    ws = load_world_set(tiny)
    assert ws["notes_app"].code_verifiers[0].code == original
    (problem,) = ws.problems
    assert (problem.world, problem.file, problem.line) == ("notes_app", path.name, line)
    assert "duplicate row for 'notes_app' task 0 (first at line 1)" in problem.message


def test_first_row_wins_even_when_its_code_is_null(tiny: Path) -> None:
    path = tiny / "gen_verifier.jsonl"
    rows = read_rows(path)
    null_row = {"scenario": "judge_only", "task_idx": 1, "task": "t",
                "verification": {"code": None, "raw_response": None}}
    write_rows(path, [null_row, *rows])
    ws = load_world_set(tiny)
    v = ws["judge_only"].sql_verifiers[1]
    assert v is not None and v.code is None and v.function_name is None
    assert [p.line for p in ws.problems] == [4]  # the original task-1 row, now a duplicate


# -- malformed input ----------------------------------------------------------------------------


def test_bad_json_line_names_file_line_and_column(tiny: Path) -> None:
    path = tiny / "gen_solutions.jsonl"
    line = append_line(path, '{"scenario": "notes_app", "task_idx": 0, "calls": [}')
    ws = load_world_set(tiny)
    (problem,) = ws.problems
    assert str(problem).startswith(f"gen_solutions.jsonl:{line}: not valid JSON")
    assert "column 52" in problem.message  # the "}" after "["
    assert problem.world == "notes_app"  # read off the raw text for attribution
    assert len(ws) == 3


def test_truncated_required_row_drops_that_world_only(tiny: Path) -> None:
    path = tiny / "gen_envs.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[1] = lines[1][:200]  # Defect Lab's code, cut off mid-string
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    ws = load_world_set(tiny)
    assert ws.names() == ["judge_only", "notes_app"]
    (problem,) = ws.problems  # no second "no row" problem for the same world
    assert (problem.world, problem.file, problem.line) == ("defect_lab", "gen_envs.jsonl", 2)
    with pytest.raises(UnknownWorldError, match=r"was not loaded.*gen_envs\.jsonl:2"):
        ws["Defect Lab"]


def test_non_object_line_is_a_problem(tiny: Path) -> None:
    append_line(tiny / "gen_spec.jsonl", "[1, 2]")
    (problem,) = load_world_set(tiny).problems
    assert problem.line == 4 and "not a JSON object" in problem.message


def test_missing_key_names_the_dotted_path(tiny: Path) -> None:
    line = edit_row(tiny / "gen_db.jsonl", "notes_app",
                    lambda r: r["db_schema"]["tables"][1].pop("ddl"))
    ws = load_world_set(tiny)
    (problem,) = ws.problems
    assert (problem.file, problem.line, problem.key) == ("gen_db.jsonl", line, "db_schema.tables[1].ddl")
    assert "is missing" in problem.message and "add the key" in problem.message
    assert str(problem).startswith(f"gen_db.jsonl:{line}: key 'db_schema.tables[1].ddl': ")
    assert ws.names() == ["defect_lab", "judge_only"]
    assert ws.problems_for("Notes App") == (problem,)


@pytest.mark.parametrize(
    ("value", "key", "wrong"),
    [("List my notes", "tasks", "must be a list, got a string"),
     (["ok", 3], "tasks[1]", "must be a string, got an integer (3)"),
     ([], "tasks", "is empty")],
)
def test_wrong_type_in_tasks_drops_the_world(tiny: Path, value: Any, key: str, wrong: str) -> None:
    edit_row(tiny / "gen_tasks.jsonl", "judge_only", lambda r: r.update(tasks=value))
    ws = load_world_set(tiny)
    (problem,) = ws.problems
    assert (problem.key, problem.world) == (key, "judge_only")
    assert wrong in problem.message
    assert "judge_only" not in ws and len(ws) == 2


def test_bad_optional_part_drops_only_that_part(tiny: Path) -> None:
    path = tiny / "gen_verifier.pure_code.jsonl"
    rows = read_rows(path)
    rows[1]["verification"]["code"] = 5  # notes_app task 1
    write_rows(path, rows)
    ws = load_world_set(tiny)
    (problem,) = ws.problems
    assert (problem.line, problem.key) == (2, "verification.code")
    assert "must be a string or null" in problem.message
    w = ws["notes_app"]
    assert w.code_verifiers[1] is None
    assert w.code_verifiers[0] is not None and w.code_verifiers[2] is not None


def test_unknown_scenario_in_samples_is_a_problem_with_a_suggestion(tiny: Path) -> None:
    row = {"scenario": "Notes Apps", "sample_data": {"tables": []}}
    line = append_line(tiny / "gen_sample.jsonl", json.dumps(row))
    ws = load_world_set(tiny)
    (problem,) = ws.problems
    assert (problem.file, problem.line, problem.key, problem.world) == (
        "gen_sample.jsonl", line, "scenario", "notes_apps")
    assert "has no row in gen_tasks.jsonl or gen_envs.jsonl" in problem.message
    assert "Did you mean 'notes_app'?" in problem.message
    assert len(ws) == 3


@pytest.mark.parametrize(("idx", "wrong"), [(3, "is 3 but world 'notes_app' has 3 task(s)"),
                                            (-1, "valid: 0..2"),
                                            (True, "must be an integer, got a boolean")])
def test_task_idx_out_of_range_or_wrong_type(tiny: Path, idx: Any, wrong: str) -> None:
    row = {"scenario": "notes_app", "task_idx": idx, "calls": [], "final_answer": None}
    line = append_line(tiny / "gen_solutions.jsonl", json.dumps(row))
    (problem,) = load_world_set(tiny).problems
    assert (problem.file, problem.line, problem.key) == ("gen_solutions.jsonl", line, "task_idx")
    assert wrong in problem.message


def test_solution_call_without_arguments_names_the_key(tiny: Path) -> None:
    path = tiny / "gen_solutions.jsonl"
    rows = read_rows(path)
    del rows[2]["calls"][1]["arguments"]
    write_rows(path, rows)
    ws = load_world_set(tiny)
    (problem,) = ws.problems
    assert (problem.line, problem.key) == (3, "calls[1].arguments")
    assert ws["notes_app"].solutions[2] is None and ws["notes_app"].solutions[1] is not None


def test_missing_row_in_a_required_file_drops_the_world(tiny: Path) -> None:
    path = tiny / "gen_db.jsonl"
    write_rows(path, [r for r in read_rows(path) if r["scenario"] != "Judge Only"])
    ws = load_world_set(tiny)
    (problem,) = ws.problems
    assert (problem.world, problem.file, problem.line, problem.key) == (
        "judge_only", "gen_db.jsonl", None, None)
    assert str(problem).startswith("gen_db.jsonl: no row for world 'judge_only'")
    assert ws.names() == ["defect_lab", "notes_app"]


def test_blank_lines_are_skipped_and_line_numbers_stay_physical(tiny: Path) -> None:
    path = tiny / "gen_tasks.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n" + "\n\n".join(lines) + "\n\n", encoding="utf-8")
    assert load_world_set(tiny).problems == ()
    lines[2] = lines[2].replace('"tasks"', '"task_list"')  # Judge Only, now physical line 6
    path.write_text("\n" + "\n\n".join(lines) + "\n\n", encoding="utf-8")
    (problem,) = load_world_set(tiny).problems
    assert (problem.line, problem.key) == (6, "tasks")


def test_missing_required_file_raises_naming_it(tiny: Path) -> None:
    (tiny / "gen_envs.jsonl").unlink()
    with pytest.raises(WorldSetFormatError, match=r"lacks gen_envs\.jsonl\. A world set directory "
                                                  r"must contain gen_tasks\.jsonl"):
        load_world_set(tiny)
    (tiny / "gen_db.jsonl").unlink()
    with pytest.raises(WorldSetFormatError, match=r"lacks gen_db\.jsonl, gen_envs\.jsonl"):
        load_world_set(tiny)


def test_optional_files_may_be_absent(tiny: Path) -> None:
    for name in ("gen_scenario.jsonl", "gen_sample.jsonl", "gen_spec.jsonl", "gen_verifier.jsonl",
                 "gen_verifier.pure_code.jsonl", "gen_solutions.jsonl"):
        (tiny / name).unlink()
    ws = load_world_set(tiny)
    assert ws.problems == () and len(ws) == 3
    w = ws["notes_app"]
    assert (w.description, w.samples, w.api_spec) == ("", (), None)
    assert w.code_verifiers == w.sql_verifiers == w.solutions == (None, None, None)


def test_nonexistent_or_non_directory_path_raises(tmp_path: Path) -> None:
    with pytest.raises(WorldSetFormatError, match="does not exist"):
        load_world_set(tmp_path / "missing")
    (tmp_path / "file.jsonl").write_text("{}\n")
    with pytest.raises(WorldSetFormatError, match="is not a directory"):
        load_world_set(tmp_path / "file.jsonl")


def test_strict_raises_at_the_first_problem_with_file_and_line(tiny: Path) -> None:
    assert load_world_set(TINY, strict=True).problems == ()
    line = edit_row(tiny / "gen_tasks.jsonl", "defect_lab", lambda r: r.update(tasks="x"))
    edit_row(tiny / "gen_db.jsonl", "notes_app", lambda r: r.pop("db_schema"))
    with pytest.raises(WorldSetFormatError) as info:
        load_world_set(tiny, strict=True)
    message = str(info.value)
    assert f"gen_tasks.jsonl:{line}: key 'tasks': must be a list" in message
    assert str(tiny) in message and "strict=False" in message
    assert "gen_db.jsonl" not in message


# -- worlds= ------------------------------------------------------------------------------------


def test_worlds_filter_loads_only_those_and_ignores_other_worlds_problems(tiny: Path) -> None:
    edit_row(tiny / "gen_envs.jsonl", "defect_lab", lambda r: r.update(full_code=42))
    lines = (tiny / "gen_sample.jsonl").read_text(encoding="utf-8").splitlines()
    lines[2] = lines[2][:80]  # Judge Only's samples, truncated
    (tiny / "gen_sample.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert len(load_world_set(tiny).problems) == 2
    ws = load_world_set(tiny, worlds=["Notes App"], strict=True)
    assert ws.names() == ["notes_app"] and ws.problems == ()


def test_worlds_filter_unknown_name_suggests(tiny: Path) -> None:
    with pytest.raises(UnknownWorldError, match=re.escape("Did you mean 'judge_only'?")):
        load_world_set(tiny, worlds=["notes_app", "judge_onyl"])
    with pytest.raises(UnknownWorldError, match=re.escape("call .names()")):
        load_world_set(tiny, worlds=["qqqqqqqq"])
    with pytest.raises(TypeError, match=re.escape("worlds=['notes_app']")):
        load_world_set(tiny, worlds="notes_app")


def test_world_problem_str_forms() -> None:
    assert str(WorldProblem(None, "gen_tasks.jsonl", 3, "tasks", "bad")) == (
        "gen_tasks.jsonl:3: key 'tasks': bad")
    assert str(WorldProblem(None, "gen_tasks.jsonl", 3, None, "bad")) == "gen_tasks.jsonl:3: bad"
