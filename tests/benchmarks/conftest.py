"""Fixtures of the runtime benchmarks (helpers live in ``bench_support.py``)."""

from __future__ import annotations

import os
import sys
from typing import Any

import gymnasium as gym
import pytest

from awm_gym.envs.config import EnvConfig
from awm_gym.tools.db_routing import DatabaseSlot
from awm_gym.worlds.clock import FrozenClock
from awm_gym.worlds.template_db import open_database

# The benchmark modules import their helpers as `bench_support`; pytest's importlib import mode
# (pyproject's addopts) puts no test folder on sys.path, so this folder goes there once.
_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

from bench_support import (
    NO_TRUNCATION,
    SHARDS,
    BenchWorld,
    McpPath,
    N,
    Workload,
    capture_sql,
    choose_calls,  # noqa: E402
    pick_world,
)


@pytest.fixture(scope="session")
def bench_world() -> BenchWorld:
    return pick_world()


@pytest.fixture(scope="session")
def workload(bench_world: BenchWorld) -> Workload:
    envs = gym.make_vec(bench_world.env_id, num_envs=1)  # loads the world's code once per process
    try:
        prepared = envs.runtime.prepared(bench_world.name)
    finally:
        envs.close()
    clock = FrozenClock(EnvConfig().clock)
    slot = DatabaseSlot(open_database(prepared.template, clock))
    read, write = choose_calls(bench_world, prepared.host, slot, prepared.template)
    read_sql = capture_sql(prepared.host, slot, *read, prepared.template)
    write_sql = capture_sql(prepared.host, slot, *write, prepared.template)
    slot.conn.close()
    return Workload(bench_world, prepared.template, prepared.host, clock, read, write,
                    tuple(read_sql), tuple(write_sql))


@pytest.fixture(scope="session")
def slots(workload: Workload) -> list[DatabaseSlot]:
    """N instance databases outside any env, for the floors."""
    made = [workload.new_slot() for _ in range(N)]
    yield made
    for slot in made:
        slot.conn.close()


@pytest.fixture(scope="session")
def mcp_path(workload: Workload) -> McpPath:
    path = McpPath(workload.host.app)
    yield path
    path.close()


@pytest.fixture(scope="module")
def stepping_env(bench_world: BenchWorld) -> Any:
    """A reset N-instance vector env whose episodes never truncate, in this process."""
    envs = gym.make_vec(bench_world.env_id, num_envs=N, max_episode_steps=NO_TRUNCATION,
                        num_workers=0)
    envs.reset(seed=list(range(N)))
    yield envs
    envs.close()



@pytest.fixture(scope="module")
def sharded_env(bench_world: BenchWorld) -> Any:
    """The same env with its instances sharded over ``num_workers=2`` worker processes."""
    if "num_workers" not in EnvConfig.__dataclass_fields__:
        pytest.skip("AWMVectorEnv has no num_workers option yet")
    envs = gym.make_vec(bench_world.env_id, num_envs=N, max_episode_steps=NO_TRUNCATION,
                        num_workers=SHARDS)
    envs.reset(seed=list(range(N)))
    yield envs
    envs.close()
