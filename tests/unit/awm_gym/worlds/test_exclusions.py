"""Tests for awm_gym/worlds/exclusions.py: the file's JSON, its checks, and staleness (a copy of
the tiny world set edited on disk)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from awm_gym.errors import ExclusionsError
from awm_gym.worlds.exclusions import (EXCLUSIONS_FORMAT, Exclusions, load_exclusions,
                                       remaining, world_digest)
from awm_gym.worlds.splits import world_set_hash
from awm_gym.worlds.world_set import load_world_set

WHY = {"severity": "defect", "kind": "no_verifier", "message": "task 1 has no verifier"}


def made_for(path: Path | str, excluded: dict[tuple[str, int], tuple] | None = None
             ) -> Exclusions:
    ws = load_world_set(path)
    return Exclusions(world_set_hash(ws), {w: world_digest(ws, w) for w in ws.names()},
                      excluded or {("notes_app", 1): (WHY,)}, world_set_name="tiny")


def test_the_file_round_trips_one_task_per_line(tiny_path: str, tmp_path: Path) -> None:
    ex = made_for(tiny_path, {("notes_app", 1): (WHY,), ("judge_only", 0): (WHY, WHY)})
    path = ex.save(tmp_path / "ex.json")
    data = json.loads(path.read_text())
    assert data["format"] == EXCLUSIONS_FORMAT and data["count"] == 2
    assert [(e["world"], e["task_idx"]) for e in data["excluded"]] == [("judge_only", 0),
                                                                       ("notes_app", 1)]
    assert sum(line.startswith('    {"world"') for line in path.read_text().splitlines()) == 2
    assert load_exclusions(path, tiny_path) == ex
    assert ("notes_app", 1) in ex and ("notes_app", 0) not in ex and ex.tasks_of("notes_app") == (1,)


@pytest.mark.parametrize(("edit", "field"), [
    (lambda d: d.update(format="awm-gym/split/v1"), "field 'format'"),
    (lambda d: d.update(world_set_hash="md5:x"), "field 'world_set_hash'"),
    (lambda d: d.update(worlds=["notes_app"]), "field 'worlds'"),
    (lambda d: d["excluded"][0].update(task_idx=-1), "excluded[0]"),
    (lambda d: d["excluded"][0].update(world="elsewhere"), "names world 'elsewhere'"),
])
def test_a_malformed_field_is_named(tiny_path: str, tmp_path: Path, edit, field: str) -> None:
    data = made_for(tiny_path).to_dict()
    edit(data)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ExclusionsError, match=re.escape(field)):
        load_exclusions(path)


def test_an_unreadable_or_non_json_file_says_how_to_write_one(tmp_path: Path) -> None:
    with pytest.raises(ExclusionsError, match="--write-exclusions"):
        load_exclusions(tmp_path / "missing.json")
    (tmp_path / "x.json").write_text("{")
    with pytest.raises(ExclusionsError, match="not valid JSON"):
        load_exclusions(tmp_path / "x.json")


def test_a_changed_world_makes_the_file_stale_naming_it(tiny_path: str, tmp_path: Path,
                                                       copy_world_set) -> None:
    src = copy_world_set(tiny_path, tmp_path / "a")
    path = made_for(src).save(tmp_path / "ex.json")

    def edit(name: str, row: dict) -> None:
        if name == "gen_tasks.jsonl" and row["scenario"] == "Notes App":
            row["tasks"][0] += " Quickly."

    changed = copy_world_set(tiny_path, tmp_path / "b", edit)
    with pytest.raises(ExclusionsError, match=re.escape("changed: 'notes_app'")) as e:
        load_exclusions(path, changed)
    assert "awm check" in str(e.value) and "judge_only" not in str(e.value)


def test_an_unchecked_world_is_not_stale_and_a_gone_one_is(tiny_path: str, tmp_path: Path,
                                          copy_world_set) -> None:
    full = copy_world_set(tiny_path, tmp_path / "full")
    ws = load_world_set(full)
    ex = Exclusions("sha256:" + "0" * 64, {"notes_app": world_digest(ws, "notes_app")},
                    {("notes_app", 1): (WHY,)})
    ex.check(ws)  # other hash, but the checked world is unchanged: the exclusions hold
    gone = Exclusions("sha256:" + "0" * 64, {"lost_world": "sha256:1"}, {})
    with pytest.raises(ExclusionsError, match=re.escape("gone: 'lost_world'")):
        gone.check(ws)


def test_remaining_counts_what_it_left_out() -> None:
    ex = Exclusions("sha256:x", {"a": "sha256:y"}, {("a", 0): (), ("a", 2): ()})
    assert remaining({"a": (0, 1, 2), "b": (0, 1)}, ex) == ({"a": (1,), "b": (0, 1)}, 2)
