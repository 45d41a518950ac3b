"""``World`` with a split: ``evaluate`` reports each subset apart, and a subset's World stays in it."""

from __future__ import annotations

import pytest

from agents.policies import OraclePolicy
from awm_gym import World
from awm_gym.worlds.splits import Split, split_worlds


@pytest.fixture(scope="module")
def split() -> Split:
    return split_worlds(None, val_worlds=0.2, val_tasks=0.2, seed=0)


def test_evaluate_reports_per_subset(split: Split) -> None:
    with World("AWM/mix-v0", num_envs=4, verbose=0, split=split) as world:
        world.set_policy(OraclePolicy())
        result = world.evaluate(episodes=24, seed=0)
    subsets = result["subsets"]
    assert subsets == [split.subset_of(w, t).value
                       for w, t in zip(result["worlds"], result["task_idx"], strict=True)]
    per = result["per_subset"]
    assert list(per) == [s for s in ("train", "val_tasks", "val_worlds") if s in subsets]
    assert sum(v["episodes"] for v in per.values()) == 24
    for name, stats in per.items():
        assert stats["episodes"] == subsets.count(name)
        assert stats["success_rate"] == 1.0  # the oracle solves every task


def test_a_subset_world_evaluates_only_that_subset(split: Split) -> None:
    with World("AWM/mix-v0", num_envs=3, verbose=0, split=split, subset="val_tasks") as world:
        world.set_policy(OraclePolicy())
        result = world.evaluate(episodes=9, seed=4)
    assert list(result["per_subset"]) == ["val_tasks"]
    assert all(t in split.val_tasks[w] for w, t in zip(result["worlds"], result["task_idx"],
                                                       strict=True))


def test_without_a_split_there_is_no_subset_report() -> None:
    with World("AWM/spotify-v0", num_envs=2, verbose=0) as world:
        world.set_policy(OraclePolicy())
        result = world.evaluate(episodes=2, seed=0)
    assert "per_subset" not in result and "subsets" not in result
