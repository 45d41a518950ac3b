"""Tests for awm_gym.worlds.splits: deterministic splits, the set hash, the JSON file, its errors.

The world sets are real AWM-format directories written to ``tmp_path`` (a small synthetic set
whose bytes are fixed, so its hash and its split can be pinned) and the built-in set.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from awm_gym.errors import SplitError, SplitMismatchWarning
from awm_gym.worlds.records import BUILTIN_WORLDS_DIR
from awm_gym.worlds.splits import (
    SPLIT_FORMAT,
    Split,
    Subset,
    held_out_count,
    load_split,
    split_worlds,
    world_set_hash,
)
from awm_gym.worlds.world_set import load_world_set

WORLDS = {"alpha": 5, "bravo": 4, "charlie": 5, "delta": 1, "echo": 3}
"""World name -> number of tasks of the synthetic set (delta has one task: nothing to hold out)."""


def write_set(root: Path, worlds: dict[str, int] = WORLDS, code: str = "import os\n") -> Path:
    """A minimal AWM world set: tasks, a one-table schema and trivial code per world."""
    root.mkdir(parents=True, exist_ok=True)
    rows: dict[str, list[dict]] = {"gen_tasks.jsonl": [], "gen_db.jsonl": [],
                                   "gen_envs.jsonl": []}
    for name, n in worlds.items():
        rows["gen_tasks.jsonl"].append({"scenario": name,
                                        "tasks": [f"{name} task {i}" for i in range(n)]})
        rows["gen_db.jsonl"].append({"scenario": name, "db_schema": {"tables": [
            {"name": "t", "ddl": "CREATE TABLE t (id INTEGER PRIMARY KEY);"}]}})
        rows["gen_envs.jsonl"].append({"scenario": name, "full_code": code})
    for file, items in rows.items():
        (root / file).write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in items),
                                 encoding="utf-8")
    return root


@pytest.fixture
def small(tmp_path: Path) -> Path:
    return write_set(tmp_path / "small")


def test_a_small_split_is_pinned(small: Path) -> None:
    # Pinned: these exact bytes, seed and fractions give this split (and hash) on any machine;
    # the ranking is sha256-based, so no Python version or platform can change it.
    split = split_worlds(small, val_worlds=0.2, val_tasks=0.4, seed=0)
    assert split.world_set_hash == (
        "sha256:ffc0fbc0dc96ac10d133226ae81e4e510b11361fffab6def5731cb5886e27dfe")
    assert split.val_worlds == {"echo": (0, 1, 2)}
    assert split.val_tasks == {"alpha": (3, 4), "bravo": (2, 3), "charlie": (1, 3)}
    assert split.train == {"alpha": (0, 1, 2), "bravo": (0, 1), "charlie": (0, 2, 4),
                           "delta": (0,)}
    assert split.sizes == {"worlds": 5, "train_worlds": 4, "val_worlds": 1, "train_tasks": 9,
                           "val_tasks": 6, "val_world_tasks": 3}
    assert split_worlds(small, val_worlds=0.2, val_tasks=0.4, seed=1) != split


@pytest.mark.parametrize(("fraction", "n", "held"), [
    (0.2, 0, 0), (0.2, 1, 0), (0.2, 2, 1), (0.2, 5, 1), (0.2, 8, 2), (0.2, 10, 2),
    (0.25, 10, 3), (0.5, 3, 2), (0.0, 8, 0), (0.9, 8, 7), (0.99, 2, 1)])
def test_rounding_holds_out_half_up_at_least_one_and_never_all(
        fraction: float, n: int, held: int) -> None:
    assert held_out_count(fraction, n) == held


def test_the_builtin_set_holds_out_two_of_eight_worlds_and_two_tasks_of_each_other() -> None:
    split = split_worlds(None, val_worlds=0.2, val_tasks=0.2, seed=0)
    assert split.sizes == {"worlds": 8, "train_worlds": 6, "val_worlds": 2, "train_tasks": 48,
                           "val_tasks": 12, "val_world_tasks": 20}
    assert all(len(idx) == 2 for idx in split.val_tasks.values())
    assert split.world_set_name == "builtin"
    assert split == split_worlds(BUILTIN_WORLDS_DIR, 0.2, 0.2, 0)


def test_two_worlds_and_any_positive_fraction_hold_one_out(tmp_path: Path) -> None:
    split = split_worlds(write_set(tmp_path / "two", {"a": 2, "b": 2}), 0.01, 0.01, seed=5)
    assert len(split.val_worlds) == 1 and len(split.train) == 1
    one = split_worlds(write_set(tmp_path / "one", {"a": 3}), 0.5, 0.0, seed=5)
    assert one.val_worlds == {} and one.train == {"a": (0, 1, 2)} and one.val_tasks == {}


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**31), val_worlds=st.floats(0, 0.95), val_tasks=st.floats(0, 0.95))
def test_subsets_are_disjoint_and_cover_every_task(small: Path, seed: int, val_worlds: float,
                                                   val_tasks: float) -> None:
    split = split_worlds(small, val_worlds, val_tasks, seed)
    pairs = [p for s in Subset for p in split.pairs(s)]
    assert sorted(pairs) == sorted((w, t) for w, n in WORLDS.items() for t in range(n))
    assert len(set(pairs)) == len(pairs)
    assert split.sizes["val_worlds"] == held_out_count(val_worlds, len(WORLDS))
    for world, idx in split.val_tasks.items():
        assert len(idx) == held_out_count(val_tasks, WORLDS[world])
    assert split.train  # something always stays in train
    assert Split.from_dict(json.loads(split.to_json())) == split


def test_a_changed_world_changes_the_hash_and_the_loader_names_both(small: Path,
                                                                    tmp_path: Path) -> None:
    path = split_worlds(small, seed=0).save(small / "split.json")  # beside the set: not hashed
    before = world_set_hash(small)
    assert load_split(path, small).world_set_hash == before
    changed = tmp_path / "changed"
    shutil.copytree(small, changed)
    tasks = changed / "gen_tasks.jsonl"
    tasks.write_text(tasks.read_text().replace("echo task 2", "echo task 2, edited"))
    after = world_set_hash(changed)
    assert after != before
    with pytest.raises(SplitError, match=re.escape(before)) as caught:
        load_split(path, changed)
    assert after in str(caught.value) and "awm split" in str(caught.value)
    with pytest.warns(SplitMismatchWarning, match=re.escape(after)):
        assert load_split(path, changed, on_mismatch="warn").world_set_hash == before


def test_a_split_naming_a_missing_world_or_task_is_refused_even_when_warned(
        small: Path, tmp_path: Path) -> None:
    split = split_worlds(small, 0.2, 0.2, seed=0)
    fewer = write_set(tmp_path / "fewer", {k: v for k, v in WORLDS.items() if k != "echo"})
    with pytest.warns(SplitMismatchWarning), pytest.raises(SplitError, match="world 'echo'"):
        split.check(load_world_set(fewer), on_mismatch="warn")
    shorter = write_set(tmp_path / "shorter", {**WORLDS, "charlie": 3})
    with pytest.warns(SplitMismatchWarning), pytest.raises(SplitError,
                                                           match="task 4 of 'charlie'"):
        split.check(load_world_set(shorter), on_mismatch="warn")


def test_the_json_format(small: Path, tmp_path: Path) -> None:
    split = split_worlds(small, 0.2, 0.4, seed=0)
    text = split.save(tmp_path / "s.json").read_text()
    data = json.loads(text)
    assert list(data) == ["format", "world_set", "world_set_hash", "seed", "fractions", "sizes",
                          "subsets"]
    assert data["format"] == SPLIT_FORMAT and data["world_set"] == "small"
    assert data["fractions"] == {"val_worlds": 0.2, "val_tasks": 0.4}
    assert data["subsets"]["val_tasks"] == {"alpha": [3, 4], "bravo": [2, 3], "charlie": [1, 3]}
    assert '"alpha": [0, 1, 2],' in text  # one line per world
    assert load_split(tmp_path / "s.json") == split


def _good(small: Path) -> dict:
    return split_worlds(small, 0.2, 0.4, seed=0).to_dict()


@pytest.mark.parametrize(("edit", "message"), [
    (lambda d: d.update(format="v0"), "field 'format' is 'v0'"),
    (lambda d: d.pop("world_set_hash"), "field 'world_set_hash' is None"),
    (lambda d: d.update(seed="0"), "field 'seed' is '0'; expected an int"),
    (lambda d: d["fractions"].update(val_tasks=1.5), "field 'fractions.val_tasks' is 1.5"),
    (lambda d: d.pop("subsets"), "field 'subsets' is None"),
    (lambda d: d["subsets"].update(test={}), "unknown key(s) ['test']"),
    (lambda d: d["subsets"]["train"].update(alpha=[2, 0]), "must be sorted and unique"),
    (lambda d: d["subsets"]["train"].update(alpha=[0, -1]), "not a list of task indices"),
    (lambda d: d["subsets"]["train"].update(alpha=[0, 1, 2, 4]), "task(s) [4] of 'alpha'"),
    (lambda d: d["subsets"]["train"].update(echo=[0]), "world 'echo' is held out"),
    (lambda d: d["sizes"].update(train_tasks=99), "field 'sizes' is"),
])
def test_malformed_fields_are_named_with_the_fix(small: Path, tmp_path: Path, edit, message
                                                 ) -> None:
    data = _good(small)
    edit(data)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(SplitError, match=re.escape(message)) as caught:
        load_split(path)
    assert str(caught.value).startswith(str(path))


def test_unreadable_files_and_bad_arguments_are_split_errors(tmp_path: Path, small: Path
                                                             ) -> None:
    with pytest.raises(SplitError, match="cannot read it"):
        load_split(tmp_path / "missing.json")
    (tmp_path / "broken.json").write_text("{")
    with pytest.raises(SplitError, match="not valid JSON"):
        load_split(tmp_path / "broken.json")
    with pytest.raises(SplitError, match=re.escape("split_worlds(val_worlds=1.0)")):
        split_worlds(small, val_worlds=1.0)
    with pytest.raises(SplitError, match=re.escape("subset='test': choose one of 'train'")):
        split_worlds(small).tasks("test")
    with pytest.raises(SplitError, match="holds no gen_"):
        world_set_hash(tmp_path)


def test_a_file_beside_the_set_does_not_change_its_hash(small: Path) -> None:
    before = world_set_hash(small)
    (small / "README.md").write_text("notes")
    (small / "split.json").write_text("{}")
    assert world_set_hash(small) == before
