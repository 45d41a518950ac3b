"""The training run's split: made (or loaded) once, the train env holds only train tasks, and
one evaluation env per subset holds exactly that subset's tasks (no model needed)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agents.config import SplitConfig, TrainConfig
from agents.grpo.config import RolloutConfig
from agents.grpo.rollout import list_tasks
from agents.pipeline import make_eval_envs, make_envs, make_split
from awm_gym import EnvUsageError, SplitError
from awm_gym.worlds.splits import Subset, split_worlds


def test_the_default_run_trains_on_spotifys_train_tasks_and_evaluates_both_held_out_subsets(
        ) -> None:
    cfg = TrainConfig()
    split = make_split(cfg.split, cfg.rollout)
    assert split == split_worlds(None, 0.2, 0.2, 0)
    train = make_envs(cfg.rollout, 2, split, Subset.TRAIN)
    evals = make_eval_envs(cfg.rollout, cfg.eval, train, split)
    try:
        assert list_tasks(train) == [("spotify", t) for t in split.train["spotify"]]
        assert list(evals) == ["train", "val_tasks", "val_worlds"]
        assert list_tasks(evals["train"]) == list_tasks(train)
        assert list_tasks(evals["val_tasks"]) == [("spotify", t)
                                                  for t in split.val_tasks["spotify"]]
        assert list_tasks(evals["val_worlds"]) == split.pairs("val_worlds")
        assert evals["val_worlds"].num_envs == 54  # 8 x 20 = 160 episodes: 3 chunks of <= 64
    finally:
        for envs in (train, *evals.values()):
            envs.close()


def test_no_split_evaluates_every_task_of_the_training_worlds_only() -> None:
    cfg = TrainConfig(split=SplitConfig(val_worlds=0.0, val_tasks=0.0))
    assert make_split(cfg.split, cfg.rollout) is None
    train = make_envs(cfg.rollout, 2)
    evals = make_eval_envs(cfg.rollout, cfg.eval, train, None)
    try:
        assert list(evals) == ["train"] and len(list_tasks(evals["train"])) == 10
    finally:
        for envs in (train, *evals.values()):
            envs.close()


def test_a_split_file_is_used_as_is_and_checked(tmp_path: Path, tiny_path: str) -> None:
    path = split_worlds(None, 0.0, 0.5, seed=7).save(tmp_path / "split.json")
    cfg = TrainConfig(split=SplitConfig(path=str(path)))
    split = make_split(cfg.split, cfg.rollout)
    assert split.seed == 7 and split.val_worlds == {}
    train = make_envs(cfg.rollout, 1, split, Subset.TRAIN)
    evals = make_eval_envs(cfg.rollout, cfg.eval, train, split)
    try:
        assert list(evals) == ["train", "val_tasks"]  # no held-out world: nothing to evaluate
    finally:
        for envs in (train, *evals.values()):
            envs.close()
    other = TrainConfig(split=SplitConfig(path=str(path)),
                        rollout=RolloutConfig(world_set=tiny_path, worlds=("notes_app",)))
    with pytest.raises(SplitError, match="this split was made for world set sha256:"):
        make_split(other.split, other.rollout)


def test_training_on_a_held_out_world_is_refused() -> None:
    split = split_worlds(None, 0.2, 0.2, 0)
    held_out = next(iter(split.val_worlds))
    cfg = TrainConfig(rollout=RolloutConfig(worlds=(held_out,)))
    with pytest.raises(EnvUsageError, match=re.escape(
            f"World {held_out!r} has no task in subset 'train'")):
        make_envs(cfg.rollout, 1, make_split(cfg.split, cfg.rollout), Subset.TRAIN)
