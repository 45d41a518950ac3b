"""The built-in world library as users get it: eight worlds at AWM's scale, all played by the oracle.

Checks the loaded world set (what `import awm_gym` registers), not the sources: the size floor per
world, and `AWM/mix-v0` over every built-in world at 1,024 instances with every task scored
complete by its reference solution.
"""

from __future__ import annotations

import gymnasium as gym
import pytest

import awm_gym
from agents.policies import OraclePolicy
from awm_gym import World

BUILTIN_WORLDS = ("spotify", "amazon", "gmail", "google_calendar", "expedia", "chase", "github",
                  "doordash")
MIN_TABLES, MIN_ROWS, MIN_TOOLS, TASKS, MIN_MEAN_CALLS = 15, 100, 30, 10, 3.0


def test_every_builtin_world_is_registered() -> None:
    names = awm_gym.get_world_set().names()
    assert sorted(names) == sorted(BUILTIN_WORLDS)
    for name in BUILTIN_WORLDS:
        assert f"AWM/{name}-v0" in gym.registry


@pytest.mark.parametrize("name", BUILTIN_WORLDS)
def test_builtin_world_meets_the_size_floor(name: str) -> None:
    world = awm_gym.get_world_set()[name]
    envs = gym.make_vec(f"AWM/{name}-v0", num_envs=1)
    try:
        tools = envs.runtime.tools(name)
    finally:
        envs.close()
    assert len(world.tables) >= MIN_TABLES
    assert sum(len(t.insert_statements) for t in world.samples) >= MIN_ROWS
    assert len(tools) >= MIN_TOOLS
    assert len(world.tasks) == TASKS
    assert all(s is not None for s in world.solutions)
    assert all(v is not None for v in world.code_verifiers)
    calls = [len(s.calls) for s in world.solutions]
    assert sum(calls) / len(calls) >= MIN_MEAN_CALLS, calls


def test_mix_of_all_builtin_worlds_at_1024_instances() -> None:
    world_set = awm_gym.get_world_set()
    pairs = [(w.name, t) for w in world_set for t in range(len(w.tasks))]
    episodes = 1024
    chosen = [pairs[k % len(pairs)] for k in range(episodes)]
    world = World("AWM/mix-v0", num_envs=1024, verbose=0)
    world.set_policy(OraclePolicy())
    try:
        result = world.evaluate(episodes=episodes, seed=0,
                                options={"world": [w for w, _ in chosen],
                                         "task_idx": [t for _, t in chosen]})
    finally:
        world.close()
    assert result["success_rate"] == 1.0, {w: s for w, s in result["per_world"].items()
                                           if s["success_rate"] < 1.0}
    assert set(result["per_world"]) == set(world_set.names())
