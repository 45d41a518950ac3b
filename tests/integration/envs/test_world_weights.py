"""AWM/mix-v0 with EnvConfig.world_weights: a seed picks a world by weight, then a task in it."""

from __future__ import annotations

import collections
import random

import gymnasium as gym
import pytest

import awm_gym  # noqa: F401 - registers the built-in worlds
from awm_gym import EnvConfig
from awm_gym.errors import UnknownWorldError


def _worlds(envs, seed: int) -> list[str]:
    _, info = envs.reset(seed=seed)
    return list(info["world"])


def test_weights_pick_only_weighted_worlds_in_proportion_and_deterministically() -> None:
    envs = gym.make_vec("AWM/mix-v0", num_envs=400, world_weights={"spotify": 3, "Amazon": 1,
                                                                     "gmail": 0})
    try:
        first, again = _worlds(envs, 0), _worlds(envs, 0)
        counts = collections.Counter(first)
        assert first == again and set(counts) == {"spotify", "amazon"}
        assert 2.0 < counts["spotify"] / counts["amazon"] < 4.5
    finally:
        envs.close()


def test_without_weights_the_draw_is_uniform_over_tasks_as_before() -> None:
    envs = gym.make_vec("AWM/mix-v0", num_envs=64)
    try:
        runtime = envs.runtime
        expected = [runtime.tasks[random.Random(s).randrange(len(runtime.tasks))]
                    for s in range(64)]
        _, info = envs.reset(seed=0)
        assert list(zip(info["world"], info["task_idx"], strict=True)) == expected
    finally:
        envs.close()


def test_bad_weights_name_the_field() -> None:
    with pytest.raises(ValueError, match="world_weights"):
        EnvConfig(world_weights={"spotify": -1})
    with pytest.raises(ValueError, match="world_weights"):
        EnvConfig(world_weights={"spotify": 0})
    with pytest.raises(UnknownWorldError, match="nowhere"):
        gym.make_vec("AWM/mix-v0", num_envs=2, world_weights={"nowhere": 1})
