"""Rescoring: recorded episodes replayed on an edited copy of their world set.

The oracle records six notes_app episodes (tasks 0, 1, 2, twice each) on a copy of the tiny world
set. One edited copy changes task 2's verifier (its episodes' outcome flips and nothing else
moves); another changes what the ``create_note`` tool returns (task 1's replays see another
observation: they diverge and are reported, not rescored).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import datasets
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import awm_gym
from agents.policies import OraclePolicy
from awm_gym import World
from awm_gym.cli import main as awm_main
from awm_gym.errors import EnvUsageError
from awm_gym.manager.recording import META_FILE, load_episodes
from awm_gym.manager.rescore import rescore_dataset

TASKS = [0, 1, 2, 0, 1, 2]
_ALWAYS_OTHERS = ("def verify_task_completion(initial_db_path, final_db_path, "
                  "final_answer=None):\n    return {\"result\": \"others\"}\n")


def _verifier_of_task_2(name: str, row: dict[str, Any]) -> None:
    if name == "gen_verifier.pure_code.jsonl" and row["scenario"] == "notes_app" and \
            row["task_idx"] == 2:
        row["verification"]["code"] = _ALWAYS_OTHERS


def _create_note_tool(name: str, row: dict[str, Any]) -> None:
    if name == "gen_envs.jsonl" and row["scenario"] == "Notes App":
        assert 'body=payload.body, tags=""' in row["full_code"]
        row["full_code"] = row["full_code"].replace('body=payload.body, tags=""',
                                                    'body=payload.body, tags="moved"')


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory, tiny_path: str,
             copy_world_set: Callable[..., Path]) -> Path:
    """Six oracle episodes of notes_app, recorded on a copy of the tiny world set."""
    root = tmp_path_factory.mktemp("rescore")
    original = copy_world_set(tiny_path, root / "worlds")
    [gid] = [g for g in awm_gym.register_worlds(original, namespace="Rescore", isolation="none")
             if "notes_app" in g]
    with World(gid, num_envs=3, verbose=0, max_episode_steps=12) as world:
        world.set_policy(OraclePolicy())
        return world.record_dataset(root / "oracle", episodes=6, seed=5,
                                    options={"task_idx": TASKS})


@pytest.fixture(scope="module")
def verifier_changed(tmp_path_factory: pytest.TempPathFactory, tiny_path: str,
                     copy_world_set: Callable[..., Path]) -> Path:
    return copy_world_set(tiny_path, tmp_path_factory.mktemp("verifier") / "worlds",
                          _verifier_of_task_2)


def test_recording_stores_what_rescoring_needs(recorded: Path) -> None:
    meta = json.loads((recorded / META_FILE).read_text())
    [rec] = meta["recordings"]
    assert rec["world_set"] == str(recorded.parent / "worlds")
    assert rec["replay"]["max_episode_steps"] == 12
    rows = datasets.load_dataset(str(recorded), split="train")
    assert {"world", "task_idx", "seed", "verifier_label"} <= set(rows.column_names)


def test_rescore_reports_exactly_the_episodes_whose_verifier_changed(
        recorded: Path, verifier_changed: Path, tmp_path: Path) -> None:
    unchanged = rescore_dataset(recorded, out=tmp_path / "same", isolation="none")
    assert unchanged.counts == {"same": 6, "changed": 0, "diverged": 0, "unreplayable": 0}
    assert unchanged.world_set == str(recorded.parent / "worlds")  # the recording's own

    result = rescore_dataset(recorded, world_set=verifier_changed, out=tmp_path / "new",
                             isolation="none")
    changed = result.with_status("changed")
    assert [e.episode.name for e in changed] == ["episode_idx=2", "episode_idx=5"]
    assert result.counts == {"same": 4, "changed": 2, "diverged": 0, "unreplayable": 0}
    assert all(e.detail.startswith("verifier complete -> others") for e in changed)
    assert [(e.old_reward, e.new_reward, e.new_success) for e in changed] == \
        [(1.0, 0.0, False)] * 2
    lines = result.table().splitlines()
    assert lines[0].split()[:5] == ["episode", "world", "task", "seed", "status"]
    assert [line.split()[0] for line in lines[1:-1]] == ["episode_idx=2", "episode_idx=5"]
    assert "complete -> others" in lines[1] and lines[-1].startswith("6 episodes replayed on")

    # the new dataset: the recorded rows, new columns beside the old, and still an awm dataset
    rows = datasets.load_dataset(str(result.out), split="train").to_pandas()
    assert len(rows) == len(datasets.load_dataset(str(recorded), split="train"))
    finals = rows[rows["action_kind"] == "final_answer"].sort_values("episode_idx")
    assert finals["verifier_label"].tolist() == ["complete"] * 6
    assert finals["rescored_verifier_label"].tolist() == ["complete", "complete", "others"] * 2
    assert finals["rescored_reward"].tolist() == [1.0, 1.0, 0.0] * 2
    episodes = rows.groupby("episode_idx")
    assert episodes["rescored_episode_success"].first().tolist() == [True, True, False] * 2
    assert episodes["rescore_status"].first().tolist() == ["same", "same", "changed"] * 2
    summary = json.loads((result.out / META_FILE).read_text())["rescore"]
    assert summary["changed"] == ["episode_idx=2", "episode_idx=5"]
    assert summary["world_set"] == str(verifier_changed)
    assert [e.turns for e in load_episodes(result.out)] == \
        [e.turns for e in load_episodes(recorded)]


def test_rescore_reports_a_diverged_replay_and_does_not_rescore_it(
        recorded: Path, tiny_path: str, copy_world_set: Callable[..., Path],
        tmp_path: Path) -> None:
    tool_changed = copy_world_set(tiny_path, tmp_path / "worlds", _create_note_tool)
    result = rescore_dataset(recorded, world_set=tool_changed, out=tmp_path / "new",
                             isolation="none")
    diverged = result.with_status("diverged")
    assert [e.episode.name for e in diverged] == ["episode_idx=1", "episode_idx=4"]
    assert result.counts == {"same": 4, "changed": 0, "diverged": 2, "unreplayable": 0}
    for e in diverged:  # create_note is task 1's second call: step 1
        assert e.detail.startswith("step 1: the observation differs")
        assert "moved" in e.detail and e.new_reward is None
    assert "+1 -> ?" in result.table().splitlines()[1]
    rows = datasets.load_dataset(str(result.out), split="train").to_pandas()
    moved = rows[rows["episode_idx"].isin([1, 4])]
    assert moved["rescored_reward"].isna().all() and moved["rescored_episode_reward"].isna().all()
    assert set(moved["rescore_status"]) == {"diverged"}


def test_rescore_reads_a_table_of_rollouts(recorded: Path, verifier_changed: Path,
                                           tmp_path: Path) -> None:
    """A training run's layout: one row per episode, an ``actions`` list, no awm metadata."""
    episodes = load_episodes(recorded)
    table = pa.table({
        "step": [k // 3 for k in range(6)], "group": [k % 3 for k in range(6)],
        "world": [e.world for e in episodes], "task_idx": [e.task_idx for e in episodes],
        "seed": [e.seed for e in episodes],
        "actions": [[t.action for t in e.turns] for e in episodes],
        "observations": [[t.observation for t in e.turns] for e in episodes],
        "reward": [e.reward for e in episodes],
        "prompt_ids": [[[1, 2, 3]] * e.num_turns for e in episodes]})
    pq.write_table(table, tmp_path / "rollouts.parquet")
    result = rescore_dataset(tmp_path / "rollouts.parquet", world_set=verifier_changed,
                             isolation="none")
    assert result.out == tmp_path / "rollouts-rescored"
    assert [e.episode.name for e in result.with_status("changed")] == \
        ["step=0 group=2", "step=1 group=2"]
    assert result.with_status("changed")[0].detail == "verifier - -> others, reward +1 -> +0"
    rows = datasets.load_dataset(str(result.out), split="train")
    assert rows["rescored_reward"] == [1.0, 1.0, 0.0] * 2
    assert rows["prompt_ids"] == table.column("prompt_ids").to_pylist()

    with pytest.raises(EnvUsageError, match=r"lacks seed \(it has world, task_idx, actions\)"):
        pq.write_table(table.select(["world", "task_idx", "actions"]), tmp_path / "bad.parquet")
        rescore_dataset(tmp_path / "bad.parquet")


def test_rescore_unknown_world_is_unreplayable(recorded: Path, tmp_path: Path) -> None:
    result = rescore_dataset(recorded, write=False, isolation="none")
    # the recording's world set is used by default; the built-in set has no notes_app
    assert result.counts["same"] == 6
    builtin = rescore_dataset(recorded, world_set=awm_gym.BUILTIN_WORLDS_DIR, write=False)
    assert builtin.counts["unreplayable"] == 6
    assert "world 'notes_app' is not in the world set" in builtin.table()


def test_cli_rescore(recorded: Path, verifier_changed: Path, tmp_path: Path,
                     capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["rescore", str(recorded), "--world-set", str(verifier_changed), "--isolation",
            "none", "--out", str(tmp_path / "new")]
    assert awm_main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in out[1:-1]] == ["episode_idx=2", "episode_idx=5"]
    assert all("complete -> others" in line for line in out[1:-1])
    assert re.match(r"6 episodes replayed on .*: 4 same, 2 changed, 0 diverged", out[-1])
    assert out[-1].endswith(f"wrote {tmp_path / 'new'}")
    assert awm_main(argv) == 2  # it exists: one line, the fix named
    err = capsys.readouterr().err
    assert err.startswith("awm rescore: error: ") and "--mode overwrite" in err
    assert err.count("\n") == 1
    assert awm_main([*argv, "--mode", "overwrite"]) == 0
