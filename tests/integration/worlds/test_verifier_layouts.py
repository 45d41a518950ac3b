"""Verifier modes are told from the code, so both AWM layouts score: the published split
(gen_verifier.jsonl = sql, gen_verifier.pure_code.jsonl = code) and AWM's own `awm gen all`
output (whichever mode it ran, in gen_verifier.jsonl)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from awm_gym.envs.registration import BUILTIN_WORLDS_DIR
from awm_gym.manager.demo import run_oracle_demo
from awm_gym.worlds.world_set import load_world_set

CODE_FILE, SQL_FILE = "gen_verifier.pure_code.jsonl", "gen_verifier.jsonl"


def _spotify_set(tmp_path: Path) -> Path:
    """The built-in spotify world alone, in a fresh directory."""
    root = tmp_path / "set"
    root.mkdir()
    for src in Path(BUILTIN_WORLDS_DIR).glob("*.jsonl"):
        rows = [line for line in src.read_text().splitlines()
                if json.loads(line).get("scenario", json.loads(line).get("name")) == "spotify"]
        (root / src.name).write_text("".join(r + "\n" for r in rows))
    return root


def test_pipeline_layout_code_verifiers_in_gen_verifier_jsonl_score_complete(tmp_path: Path) -> None:
    root = _spotify_set(tmp_path)
    (root / CODE_FILE).rename(root / SQL_FILE)  # what AWM's `awm gen all --mode code` writes
    world = load_world_set(str(root))["spotify"]
    assert all(v is not None and v.mode == "code" for v in world.code_verifiers)
    assert all(v is None for v in world.sql_verifiers)
    result = run_oracle_demo(str(root), "spotify", num_envs=10)
    assert (result.success_rate, result.mean_reward) == (1.0, 1.0)


def test_sql_mode_rows_in_the_pure_code_file_are_sql(tmp_path: Path) -> None:
    root = _spotify_set(tmp_path)
    row = {"scenario": "spotify", "task_idx": 0, "verification": {
        "code": "def verify_task(initial_db_path, final_db_path):\n    return {'n': 1}\n",
        "raw_response": None}}
    lines = (root / CODE_FILE).read_text().splitlines()
    (root / CODE_FILE).write_text(json.dumps(row) + "\n" + "\n".join(lines[1:]) + "\n")
    world = load_world_set(str(root))["spotify"]
    assert world.sql_verifiers[0] is not None and world.sql_verifiers[0].mode == "sql"
    assert world.code_verifiers[0] is None  # task 0's only code row was replaced
    assert world.code_verifiers[1] is not None


def test_both_modes_for_one_task_code_scores_and_sql_is_kept(tmp_path: Path) -> None:
    root = _spotify_set(tmp_path)
    sql_row = {"scenario": "spotify", "task_idx": 3, "verification": {
        "code": "def verify_task(initial_db_path, final_db_path):\n    return {}\n",
        "raw_response": json.dumps({"success_criteria": "s", "failure_criteria": "f"})}}
    (root / SQL_FILE).write_text(json.dumps(sql_row) + "\n")
    world = load_world_set(str(root))["spotify"]
    assert world.code_verifiers[3].mode == "code" and world.sql_verifiers[3].mode == "sql"
    assert run_oracle_demo(str(root), "spotify", num_envs=10).success_rate == 1.0


def test_a_row_whose_mode_cannot_be_told_is_a_named_problem(tmp_path: Path) -> None:
    root = _spotify_set(tmp_path)
    shutil.move(root / CODE_FILE, root / SQL_FILE)
    lines = (root / SQL_FILE).read_text().splitlines()
    odd = json.loads(lines[2])
    odd["verification"] = {"code": "def check(a, b):\n    return True\n", "raw_response": None}
    lines[2] = json.dumps(odd)
    (root / SQL_FILE).write_text("\n".join(lines) + "\n")
    ws = load_world_set(str(root))
    [problem] = [p for p in ws.problems if p.file == SQL_FILE]
    assert (problem.world, problem.line, problem.key) == ("spotify", 3, "verification.code")
    assert "cannot tell whether this verifier is code mode or sql mode" in problem.message
    assert ws["spotify"].code_verifiers[odd["task_idx"]] is None
    with pytest.raises(Exception, match="cannot tell"):
        load_world_set(str(root), strict=True)
