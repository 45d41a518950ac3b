"""One bad row costs one world: registration reports it once, ``AWM/mix-v0`` leaves it out.

Each test damages a copy of the tiny set (notes_app, defect_lab, judge_only) as real downloads
and pipelines do, then registers it and builds the mix through the default (contained, sharded)
runtime, where the damage used to raise :class:`UnknownWorldError` out of ``make_vec``.
"""

from __future__ import annotations

import logging
import shutil
import warnings
from pathlib import Path

import gymnasium as gym
import pytest

import awm_gym
from awm_gym import WorldSkippedWarning

TINY = Path(__file__).resolve().parents[2] / "fixtures" / "worlds" / "tiny"


def _copy(tmp_path: Path) -> Path:
    dest = tmp_path / "set"
    shutil.copytree(TINY, dest)
    return dest


def _mix(root: Path, **kwargs) -> tuple[tuple[str, ...], list[str]]:
    """The worlds a two-instance mix over ``root`` runs, and the WorldSkippedWarnings it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        envs = gym.make_vec("AWM/mix-v0", num_envs=2, world_set=str(root), **kwargs)
        try:
            _, info = envs.reset(seed=0)
            worlds = tuple(envs.unwrapped.runtime.worlds)
            assert set(info["world"].tolist()) <= set(worlds)
        finally:
            envs.close()
    return worlds, [str(w.message) for w in caught if w.category is WorldSkippedWarning]


def test_a_truncated_last_line_is_reported_once_and_costs_one_world(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    root = _copy(tmp_path)
    envs_file = root / "gen_envs.jsonl"  # judge_only's row is the last line: cut it short
    envs_file.write_bytes(envs_file.read_bytes()[:-200])
    with caplog.at_level(logging.WARNING, logger="awm_gym"):
        ids = awm_gym.register_worlds(root)
    assert ids == ["AWM/defect_lab-v0", "AWM/notes_app-v0"]
    said = [r.getMessage() for r in caplog.records if "gen_envs.jsonl:3" in r.getMessage()]
    assert len(said) == 1 and "not valid JSON" in said[0], caplog.text  # once, not twice
    worlds, skipped = _mix(root)  # contained workers: raised UnknownWorldError before
    assert worlds == ("defect_lab", "notes_app")
    assert len(skipped) == 1 and "'judge_only'" in skipped[0]
    assert f"{root}/gen_envs.jsonl:3" in skipped[0] and "fix the syntax" in skipped[0]


def test_a_byte_that_is_not_utf8_costs_one_world_in_process(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    envs_file = root / "gen_envs.jsonl"
    data = envs_file.read_bytes()
    at = data.index(b"import")  # notes_app: the first line
    envs_file.write_bytes(data[:at] + b"\xff" + data[at:])
    assert awm_gym.register_worlds(root, isolation="none") == ["AWM/defect_lab-v0",
                                                               "AWM/judge_only-v0"]
    worlds, skipped = _mix(root, isolation="none")
    assert worlds == ("defect_lab", "judge_only")
    assert len(skipped) == 1 and "gen_envs.jsonl:1: not valid UTF-8" in skipped[0]
    assert "Re-save the file as UTF-8" in skipped[0]


def test_a_row_found_bad_only_when_parsed_costs_one_world_in_the_workers(tmp_path: Path) -> None:
    # a whole JSON line with a wrong value: the index cannot tell, the worlds' parse does
    root = _copy(tmp_path)
    db_file = root / "gen_db.jsonl"
    lines = db_file.read_text(encoding="utf-8").splitlines()
    lines[2] = lines[2].replace('"db_schema"', '"db_schemx"', 1)  # judge_only
    db_file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert len(awm_gym.register_worlds(root)) == 3  # not parsed yet: lazily indexed
    worlds, skipped = _mix(root)
    assert worlds == ("defect_lab", "notes_app")
    assert skipped and all("'judge_only'" in m and "db_schema" in m for m in skipped)


def test_duplicate_scenario_rows_are_a_named_problem_warned_once(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    root = _copy(tmp_path)
    tasks = root / "gen_tasks.jsonl"
    first = tasks.read_bytes().split(b"\n", 1)[0]
    tasks.write_bytes(tasks.read_bytes() + first + b"\n")  # notes_app's tasks row again
    with caplog.at_level(logging.WARNING, logger="awm_gym"):
        ids = awm_gym.register_worlds(root, isolation="none")
    assert len(ids) == 3  # the first row is used, as AWM's readers do
    said = [r.getMessage() for r in caplog.records if "duplicate row" in r.getMessage()]
    assert said == [f"{root}/gen_tasks.jsonl:4: key 'scenario': duplicate row for 'notes_app' "
                    "(first at line 1). The first row is used and this one ignored; remove one "
                    "of them."]
    with caplog.at_level(logging.WARNING, logger="awm_gym"):
        awm_gym.register_worlds(root, isolation="none")  # the set is indexed once per process
    assert sum("duplicate row" in r.getMessage() for r in caplog.records) == 1
