"""``num_workers="auto"``: a large trusted env is sharded over this machine's cores and gives
exactly what the same env gives in one process; a small one stays in this process."""

from __future__ import annotations

import json

import gymnasium as gym
import numpy as np

import awm_gym  # noqa: F401 - registers the built-in worlds
from awm_gym.envs.runtime import WorldRuntime
from awm_gym.envs.shards import ShardedRuntime
from awm_gym.envs.vector_env import trusted_workers


def _call(name: str, arguments: dict) -> str:
    return "<tool_call>" + json.dumps({"name": name, "arguments": arguments}) + "</tool_call>"


def _episode(**options: object) -> tuple[str, list]:
    """128 spotify instances: reset, a read, a write, a final answer (scored by the verifier)."""
    n = 128
    envs = gym.make_vec("AWM/spotify-v0", num_envs=n, **options)
    try:
        runtime = repr(envs.runtime)
        assert isinstance(envs.runtime, ShardedRuntime if "num_workers=" in runtime
                          else WorldRuntime)
        outputs = [envs.reset(seed=list(range(n)))]
        for actions in ([_call("get_track", {"track_id": k % 5 + 1}) for k in range(n)],
                        [_call("create_playlist", {"name": f"p{k}", "description": "x",
                                                   "is_public": k % 2 == 0}) for k in range(n)],
                        ["Done." if k % 3 else "I could not do it." for k in range(n)]):
            outputs.append(envs.step(actions))
        return runtime, outputs
    finally:
        envs.close()


def _same(a: object, b: object) -> None:
    if isinstance(a, dict):
        keys = {k for k in a if k not in ("elapsed_s", "_elapsed_s")}
        assert keys == {k for k in b if k not in ("elapsed_s", "_elapsed_s")}
        for k in keys:
            _same(a[k], b[k])
    elif isinstance(a, (tuple, list)) and not isinstance(a, str):
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            _same(x, y)
    elif isinstance(a, np.ndarray):
        assert a.tolist() == b.tolist()
    else:
        assert a == b


def test_the_default_shards_a_large_env_and_changes_nothing_it_returns() -> None:
    default_runtime, default = _episode()
    in_process_runtime, in_process = _episode(num_workers=0)
    workers = trusted_workers(128)
    assert (f"num_workers={workers}" in default_runtime) if workers else \
        default_runtime.startswith("WorldRuntime")
    assert in_process_runtime.startswith("WorldRuntime")
    _same(default, in_process)
    rewards = default[-1][1]
    assert default[-1][2].all() and len(set(rewards.tolist())) >= 1


def test_a_small_env_stays_in_this_process() -> None:
    envs = gym.make_vec("AWM/spotify-v0", num_envs=64)
    try:
        assert isinstance(envs.runtime, WorldRuntime)
    finally:
        envs.close()
