"""`awm gen ...` through the real `awm` entry point: a stage against the scripted server, reset_db."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from awm_gym.cli import main
from synth.jsonl_io import read_jsonl

TINY = Path(__file__).resolve().parents[2] / "fixtures" / "worlds" / "tiny"


def test_gen_task_runs_one_stage_with_awm_option_names(server, tmp_path: Path, capsys) -> None:
    out = tmp_path / "outputs"
    out.mkdir()
    (out / "gen_scenario.jsonl").write_text(json.dumps(
        {"name": "Help Desk", "description": "Tickets."}) + "\n")
    server.script("task", "help_desk", json.dumps({"tasks": ["Close ticket 2.",
                                                            "How many tickets are open?"]}))
    code = main(["gen", "task", "--output_dir", str(out), "--model", "scripted", "--api_url",
                 server.base_url, "--num_tasks", "2", "--no-progress", "--max_retry", "0"])
    assert code == 0
    assert read_jsonl(out / "gen_tasks.jsonl") == [
        {"scenario": "Help Desk", "tasks": ["Close ticket 2.", "How many tickets are open?"]}]
    assert "task: ok 1 (repaired 0) | failed 0" in capsys.readouterr().out
    saved = json.loads((out / "synth_config.json").read_text())
    assert saved["llm"]["base_url"] == server.base_url and saved["num_tasks"] == 2


def test_reset_db_builds_each_world_file_as_awm_does(tmp_path: Path, capsys) -> None:
    assert main(["gen", "reset_db", "--output_dir", str(TINY), "--database_dir",
                 str(tmp_path)]) == 0
    printed = capsys.readouterr().out
    assert "notes_app" in printed and "failed 1" in printed  # the deliberate orphan row
    conn = sqlite3.connect(tmp_path / "notes_app.db")
    assert conn.execute("SELECT COUNT(*) FROM notes").fetchone()[0] == 7
    conn.close()
    assert sorted(p.name for p in tmp_path.glob("*.db")) == [
        "defect_lab.db", "judge_only.db", "notes_app.db"]
