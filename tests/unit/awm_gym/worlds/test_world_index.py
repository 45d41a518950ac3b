"""Tests for awm_gym.worlds.world_index and lazily loaded world sets (load_world_set(lazy=True))."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from awm_gym.errors import UnknownWorldError, WorldSetFormatError
from awm_gym.worlds.world_index import index_world_set, read_lines
from awm_gym.worlds.world_set import load_world_set

TINY = Path(__file__).resolve().parents[3] / "fixtures" / "worlds" / "tiny"


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    dest = tmp_path / "tiny"
    shutil.copytree(TINY, dest)
    return dest


def _rewrite(path: Path, edit) -> None:
    lines = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join(edit(lines)) + "\n", encoding="utf-8")


def test_index_finds_every_row_of_every_world_and_reads_it_back(tiny: Path) -> None:
    index = index_world_set(str(tiny))
    eager = load_world_set(tiny)
    assert sorted(index.worlds) == eager.names() and index.loose == {}
    for files in index.worlds.values():
        for file, spans in files.items():
            for _, raw in read_lines(str(tiny), file, spans):
                assert json.loads(raw)["name" if file == "gen_scenario.jsonl" else "scenario"]


def test_a_row_whose_name_is_not_its_first_key_is_still_attributed(tiny: Path) -> None:
    def move_name_last(lines: list[str]) -> list[str]:
        row = json.loads(lines[0])
        name = row.pop("scenario")
        return [json.dumps({**row, "scenario": name}), *lines[1:]]

    _rewrite(tiny / "gen_envs.jsonl", move_name_last)
    assert load_world_set(tiny, lazy=True).names() == load_world_set(TINY).names()
    assert load_world_set(tiny).problems == ()


def test_lazy_set_matches_the_eager_one_world_by_world(tiny: Path) -> None:
    eager, lazy = load_world_set(tiny), load_world_set(tiny, lazy=True)
    assert lazy.names() == eager.names()
    for name in eager.names():
        assert lazy[name] == eager[name]
        assert lazy.entry(name).tasks == eager[name].tasks
        assert lazy.content_hash(name) == eager[name].content_hash


def _rename_db_schema(lines: list[str]) -> list[str]:
    """A whole, valid JSON line with the wrong key: only parsing the row finds it (a truncated
    line is a suspect the index finds, see below)."""
    return [lines[0].replace('"db_schema"', '"db_schemx"', 1), *lines[1:]]


def test_lazy_set_reports_a_world_s_row_problems_when_it_is_used(tiny: Path) -> None:
    _rewrite(tiny / "gen_db.jsonl", _rename_db_schema)
    eager = load_world_set(tiny)
    lazy = load_world_set(tiny, lazy=True)
    broken = eager.problems[0].world
    assert broken not in eager.names() and broken in lazy.names()
    assert lazy.problems == ()  # nothing parsed yet
    with pytest.raises(UnknownWorldError, match="was not loaded: 1 problem"):
        lazy[broken]
    assert lazy.problems == eager.problems and lazy.names() == eager.names()


def test_lazy_strict_raises_when_the_broken_world_is_used(tiny: Path) -> None:
    _rewrite(tiny / "gen_db.jsonl", _rename_db_schema)
    lazy = load_world_set(tiny, lazy=True, strict=True)
    broken = load_world_set(tiny).problems[0].world
    with pytest.raises(WorldSetFormatError, match="gen_db.jsonl:1"):
        lazy[broken]


def test_index_problems_are_reported_at_once(tiny: Path) -> None:
    with open(tiny / "gen_sample.jsonl", "a", encoding="utf-8") as f:
        f.write('{"scenario": "Atlantis", "sample_data": {"tables": []}}\n[1, 2]\n')
    eager = load_world_set(tiny)
    lazy = load_world_set(tiny, lazy=True)
    assert len(eager.problems) == 2 and lazy.problems == eager.problems


def test_cache_reuses_the_index_and_hashes_until_a_file_changes(tiny: Path,
                                                                 tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = load_world_set(tiny, lazy=True, cache_dir=cache)
    name = first.names()[0]
    expected = first.content_hash(name)  # parses the world, caches its hash
    assert len(list((cache / "world-index").iterdir())) == 1
    again = load_world_set(tiny, lazy=True, cache_dir=cache)
    assert again.content_hash(name) == expected and not again._loaded  # read, not parsed
    _rewrite(tiny / "gen_envs.jsonl", lambda lines: [*lines, ""])  # same rows, new identity
    os.utime(tiny / "gen_envs.jsonl", ns=(1, 1))
    changed = load_world_set(tiny, lazy=True, cache_dir=cache)
    assert changed.content_hash(name) == expected and changed._loaded  # parsed again
    assert len(list((cache / "world-index").iterdir())) == 2


def test_a_damaged_cached_index_is_rebuilt(tiny: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    load_world_set(tiny, lazy=True, cache_dir=cache)
    (entry,) = (cache / "world-index").iterdir()
    entry.write_text('{"worlds": {"x": {"gen_nope.jsonl": [1, 2, 3]}}, "loose": {}}')
    assert load_world_set(tiny, lazy=True, cache_dir=cache).names() == load_world_set(tiny).names()


def test_lru_bound_keeps_at_most_max_loaded_worlds(tiny: Path) -> None:
    lazy = load_world_set(tiny, lazy=True, max_loaded=1)
    for name in lazy.names():
        assert lazy[name].name == name
    assert len(lazy._loaded) == 1


def _damage(tiny: Path, how: str) -> None:
    """Damage judge_only's gen_envs.jsonl row (the last line) the ways real downloads do."""
    path = tiny / "gen_envs.jsonl"
    data = path.read_bytes()
    if how == "truncated":  # a write cut short: the last line loses its end
        path.write_bytes(data[:-200])
    elif how == "not_utf8":
        at = data.rindex(b"import")
        path.write_bytes(data[:at] + b"\xff" + data[at:])
    else:  # the world's tasks row twice
        tasks = tiny / "gen_tasks.jsonl"
        last = tasks.read_bytes().rstrip(b"\n").rsplit(b"\n", 1)[-1]
        tasks.write_bytes(tasks.read_bytes() + last + b"\n")


@pytest.mark.parametrize("how", ["truncated", "not_utf8", "duplicate"])
def test_a_suspect_world_is_parsed_and_reported_when_the_set_is_indexed(
        tiny: Path, how: str) -> None:
    # before: a lazy set reported nothing until an env reached for judge_only
    _damage(tiny, how)
    assert index_world_set(str(tiny)).suspects == ["judge_only"]
    ws = load_world_set(tiny, lazy=True)
    problems = ws.problems_for("judge_only")
    assert len(problems) == 1 and problems[0].line == (4 if how == "duplicate" else 3), problems
    expected = {"truncated": "not valid JSON", "not_utf8": "not valid UTF-8",
                "duplicate": "duplicate row for 'judge_only' (first at line"}[how]
    assert expected in problems[0].message
    if how == "duplicate":  # the first row is used: the world stays
        assert ws.names() == ["defect_lab", "judge_only", "notes_app"] and not ws.broken_names()
    else:
        assert ws.names() == ["defect_lab", "notes_app"] and ws.broken_names() == ["judge_only"]


def test_a_clean_set_has_no_suspects_and_many_bad_lines_cost_one_pass(tiny: Path) -> None:
    assert index_world_set(str(tiny)).suspects == []
    path = tiny / "gen_sample.jsonl"  # every line of a file in Latin-1: one bad byte each
    path.write_bytes(b"".join(line.replace(b'"sample_data"', b'"sample_\xe9data"', 1) + b"\n"
                              for line in path.read_bytes().splitlines()))
    assert index_world_set(str(tiny)).suspects == ["defect_lab", "judge_only", "notes_app"]
