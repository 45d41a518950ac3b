"""Envs made with a split draw only tasks of their subset: ``gym.make_vec(..., split=, subset=)``.

Real vector envs over the built-in worlds (in-process and in a worker process), a real split
file, and a copy of the tiny world set edited on disk for the hash check.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import awm_gym
from awm_gym import EnvUsageError, SplitError, SplitMismatchWarning
from awm_gym.worlds.splits import Split, Subset, split_worlds, world_set_hash

SUBSETS = [s.value for s in Subset]
WIDTHS = (1, 2, 3, 5, 8)


@pytest.fixture(scope="module")
def split() -> Split:
    return split_worlds(None, val_worlds=0.2, val_tasks=0.2, seed=0)


@pytest.fixture(scope="module")
def envs_for(split: Split) -> Iterator[Callable[[str, int], gym.vector.VectorEnv]]:
    """One AWM/mix-v0 vector env per (subset, num_envs), made once for the module."""
    made: dict[tuple[str, int], gym.vector.VectorEnv] = {}

    def get(subset: str, num_envs: int) -> gym.vector.VectorEnv:
        if (subset, num_envs) not in made:
            made[subset, num_envs] = gym.make_vec("AWM/mix-v0", num_envs=num_envs, split=split,
                                                  subset=subset)
        return made[subset, num_envs]

    yield get
    for envs in made.values():
        envs.close()


def _drawn(info: dict, mask: np.ndarray) -> list[tuple[str, int]]:
    return [(str(w), int(t)) for w, t, m in zip(info["world"], info["task_idx"], mask,
                                                strict=True) if m]


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(subset=st.sampled_from(SUBSETS), num_envs=st.sampled_from(WIDTHS), data=st.data())
def test_resets_never_leave_the_subset(split: Split, envs_for, subset: str, num_envs: int,
                                       data: st.DataObject) -> None:
    envs = envs_for(subset, num_envs)
    allowed = set(split.pairs(subset))
    others = {p for s in SUBSETS if s != subset for p in split.pairs(s)}
    assert envs.unwrapped.runtime.tasks == tuple(split.pairs(subset))
    for _ in range(data.draw(st.integers(1, 3), label="resets")):
        seed = data.draw(st.one_of(st.none(), st.integers(0, 2**31 - num_envs),
                                   st.lists(st.integers(0, 2**31), min_size=num_envs,
                                            max_size=num_envs)), label="seed")
        mask = np.array(data.draw(st.lists(st.booleans(), min_size=num_envs, max_size=num_envs)
                                  .filter(any), label="mask"), dtype=np.bool_)
        _, info = envs.reset(seed=seed, options={"reset_mask": mask})
        drawn = _drawn(info, mask)
        assert set(drawn) <= allowed and not set(drawn) & others, (subset, drawn)


def test_train_resets_cover_the_train_tasks_and_nothing_held_out(split: Split, envs_for) -> None:
    envs = envs_for("train", 8)
    seen: set[tuple[str, int]] = set()
    for seed in range(0, 8 * 60, 8):
        _, info = envs.reset(seed=seed)
        seen.update(_drawn(info, np.ones(8, dtype=np.bool_)))
    assert seen == set(split.pairs("train"))  # 60 resets of 8 reach all 48 train tasks


def test_a_worker_process_env_honours_the_subset(split: Split) -> None:
    envs = gym.make_vec("AWM/mix-v0", num_envs=3, split=split, subset="val_worlds",
                        num_workers=1)
    try:
        for seed in range(0, 30, 3):
            _, info = envs.reset(seed=seed)
            assert set(_drawn(info, np.ones(3, dtype=np.bool_))) <= set(split.pairs("val_worlds"))
        assert envs.unwrapped.runtime.tasks == tuple(split.pairs("val_worlds"))
    finally:
        envs.close()


def test_single_world_ids_and_gym_make_honour_the_split(split: Split, tmp_path: Path) -> None:
    path = split.save(tmp_path / "split.json")
    env = gym.make("AWM/spotify-v0", split=str(path), subset="val_tasks")
    try:
        assert {env.reset(seed=s)[1]["task_idx"] for s in range(20)} == set(
            split.val_tasks["spotify"])
        assert env.unwrapped.subset is Subset.VAL_TASKS and env.unwrapped.split == split
        train_task = split.train["spotify"][0]
        with pytest.raises(EnvUsageError, match=re.escape(
                f"options['task_idx']={train_task}: not one of this env's tasks")):
            env.reset(seed=0, options={"task_idx": train_task})
    finally:
        env.close()
    envs = gym.make_vec("AWM/spotify-v0", num_envs=4, split=split, subset="train")
    try:
        _, info = envs.reset(seed=0, options={"task_idx": split.train["spotify"][-1]})
        assert set(info["task_idx"].tolist()) == {split.train["spotify"][-1]}
        assert repr(envs.unwrapped) == "AWMVectorEnv(spotify, num_envs=4, subset='train')"
    finally:
        envs.close()


def test_a_world_outside_the_subset_and_a_subset_without_split_are_refused(split: Split
                                                                          ) -> None:
    held_out = next(iter(split.val_worlds))
    with pytest.raises(EnvUsageError, match=re.escape(
            f"World {held_out!r} has no task in subset 'train' of this split (it is in "
            "val_worlds)")):
        gym.make_vec("AWM/mix-v0", num_envs=1, worlds=[held_out], split=split, subset="train")
    with pytest.raises(EnvUsageError, match=re.escape("subset='train' needs split=...")):
        gym.make_vec("AWM/mix-v0", num_envs=1, subset="train")
    with pytest.raises(SplitError, match=re.escape("subset='test': choose one of")):
        gym.make_vec("AWM/mix-v0", num_envs=1, split=split, subset="test")


def test_no_subset_runs_every_task_of_the_split(split: Split) -> None:
    envs = gym.make_vec("AWM/mix-v0", num_envs=2, split=split)
    try:
        assert envs.unwrapped.runtime.tasks == tuple(split.pairs())
        assert envs.unwrapped.subset is None
    finally:
        envs.close()


def test_a_split_of_another_set_content_is_refused_naming_both_hashes(
        tiny_path: str, copy_world_set, tmp_path: Path) -> None:
    split = split_worlds(tiny_path, val_worlds=0.0, val_tasks=0.5, seed=0)

    def edit(file: str, row: dict) -> None:
        if file == "gen_tasks.jsonl" and row["scenario"] == "Notes App":
            row["tasks"][0] += " (edited)"

    changed = str(copy_world_set(tiny_path, tmp_path / "changed", edit=edit))
    with pytest.raises(SplitError) as caught:
        gym.make_vec("AWM/mix-v0", num_envs=1, world_set=changed, split=split, subset="train",
                     isolation="none")
    assert split.world_set_hash in str(caught.value)
    assert world_set_hash(changed) in str(caught.value)
    with pytest.warns(SplitMismatchWarning):
        envs = gym.make_vec("AWM/mix-v0", num_envs=1, world_set=changed, split=split,
                            subset="val_tasks", split_mismatch="warn", isolation="none")
    try:
        _, info = envs.reset(seed=0)
        assert split.subset_of(info["world"][0], int(info["task_idx"][0])) is Subset.VAL_TASKS
    finally:
        envs.close()


def test_the_public_names(split: Split) -> None:
    assert awm_gym.split_worlds is split_worlds
    assert isinstance(awm_gym.load_split, Callable)
