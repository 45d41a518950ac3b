"""``awm split`` writes a split file (the same bytes every time), and ``awm eval --split``
runs a subset and reports it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from awm_gym.cli import main
from awm_gym.worlds.splits import load_split, split_worlds

TINY = Path(__file__).resolve().parents[2] / "fixtures" / "worlds" / "tiny"


def test_awm_split_writes_the_same_split_as_the_library(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    out = tmp_path / "split.json"
    assert main(["split", "--val-worlds", "0.2", "--val-tasks", "0.2", "--seed", "0", "--out",
                 str(out)]) == 0
    line = capsys.readouterr().out
    assert line.startswith(f"{out}: train 6 worlds / 48 tasks | val_tasks 12 tasks | "
                           "val_worlds 2 worlds / 20 tasks")
    first = out.read_bytes()
    assert load_split(out) == split_worlds(None, 0.2, 0.2, 0)
    assert main(["split", "--seed", "0", "--out", str(out)]) == 0  # the defaults are 0.2, 0.2
    assert out.read_bytes() == first


def test_awm_split_defaults_to_a_file_beside_the_world_set(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]
                                                           ) -> None:
    tiny = shutil.copytree(TINY, tmp_path / "tiny")
    assert main(["split", str(tiny), "--val-worlds", "0.34", "--val-tasks", "0", "--seed",
                 "2"]) == 0
    split = load_split(tiny / "split.json", tiny)  # the file beside the set leaves its hash
    assert split.sizes["val_worlds"] == 1 and split.val_tasks == {}
    assert json.loads((tiny / "split.json").read_text())["world_set"] == "tiny"
    capsys.readouterr()


def test_awm_eval_on_a_subset_reports_it(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    path = split_worlds(None, 0.2, 0.2, 0).save(tmp_path / "split.json")
    result = tmp_path / "result.json"
    assert main(["eval", "AWM/mix-v0", "--split", str(path), "--subset", "val_worlds",
                 "--episodes", "4", "--num-envs", "2", "--quiet", "--json", str(result)]) == 0
    out = capsys.readouterr().out
    assert "  subset val_worlds: 4 episodes | success 1.000" in out
    data = json.loads(result.read_text())
    assert data["subsets"] == ["val_worlds"] * 4
