"""The cost of containment: one vector step of read and write tool calls, in-process
(``isolation="none"``) against contained workers (``isolation="process"``, 1 and 2 workers), on
the built-in spotify world (same code both ways). Group ``containment-<kind>``; the summary in
docs/benchmarks/containment.md reports calls/s and the contained/in-process ratio (goal <= 1.5x
per call).

Every round (the warm-up included) is checked after the timing: each call answered ``ok``.

Run: ``python -m pytest tests/benchmarks/test_containment_bench.py --benchmark-only -p no:randomly``
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import gymnasium as gym
import pytest

from bench_support import Recorded

import awm_gym  # noqa: F401

N_ENVS = 256
READ = '<tool_call>{"name": "get_track", "arguments": {"track_id": 1}}</tool_call>'
WRITE = ('<tool_call>{"name": "create_playlist", "arguments": {"name": "bench", '
         '"description": "x", "is_public": false}}</tool_call>')

SETUPS = {"in_process": {"isolation": "none"},
          "contained_1": {"isolation": "process", "num_workers": 1},
          "contained_2": {"isolation": "process", "num_workers": 2}}


@pytest.fixture(scope="module", params=list(SETUPS))
def envs(request: pytest.FixtureRequest) -> Iterator[gym.vector.VectorEnv]:
    envs = gym.make_vec("AWM/spotify-v0", num_envs=N_ENVS, max_episode_steps=10**6,
                        **SETUPS[request.param])
    envs.reset(seed=list(range(N_ENVS)))
    envs.setup_name = request.param
    yield envs
    envs.close()


@pytest.mark.parametrize("kind, action", [("read", READ), ("write", WRITE)])
def test_step(benchmark, envs, kind: str, action: str) -> None:  # noqa: ANN001
    benchmark.group = f"containment-{kind}"
    benchmark.extra_info.update(calls=N_ENVS, setup=envs.setup_name,
                                containment=json.dumps(getattr(envs.runtime, "containment", None)))
    step = Recorded(envs.step)
    benchmark.pedantic(step, args=([action] * N_ENVS,), rounds=10, iterations=1, warmup_rounds=1)
    assert step.results, "no round recorded"
    for _, _, terminated, truncated, info in step.results:
        assert (info["tool_outcome"] == "ok").all(), set(info["tool_outcome"])
        assert not terminated.any() and not truncated.any()
