"""Load on a world server over loopback: 1, 8 and 64 concurrent sessions (see docs/benchmarks/server.md).

A real ``awm env start`` process serves the built-in ``spotify`` world on 127.0.0.1 (random
port). Each level opens N sessions at once from one asyncio client (``websockets``), resets them,
then every session sends steps back to back, each the read call of the runtime benchmarks
(``search_artists {"q": "Luna Vale"}``), waiting for each reply before sending the next. The
client records every step's round-trip latency; a level reports sessions, steps/s over its wall
time, p50/p95 step latency and the session set-up time (connect + ``session`` frame + reset).
``remote_vector_64`` is the trainer's view: ``gym.make_vec("AWM/remote-v0", num_envs=64)`` in
lockstep, one vector step = 64 steps. ``baseline_in_process[1|64]`` runs the same steps through an
in-process ``AWMVectorEnv`` in the same session, the floor the server is compared with.

Bounded in count and time: at most ``STEPS_PER_LEVEL`` steps and ``LEVEL_TIME_S`` seconds per
level, loopback only. Client and server share the machine's cores, as they would on one host.

    /work/venv/bin/python -m pytest tests/benchmarks/test_server_bench.py -q --benchmark-only
"""

from __future__ import annotations

import asyncio
import json
import statistics
import time
from collections.abc import Iterator
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from awm_gym.envs.config import EnvConfig
from awm_gym.server import ServerConfig
from awm_gym.server.process import ServerProcess

LEVELS = (1, 8, 64)
STEPS_PER_LEVEL = 2560
"""Steps per level after warm-up (split evenly over its sessions)."""
WARMUP_STEPS = 3
"""Steps per session before timing (connections and code paths warm)."""
LEVEL_TIME_S = 60.0
"""A level stops sending after this long, whatever is left."""
VECTOR_STEPS = 20
READ = ("<tool_call>" + json.dumps({"name": "search_artists", "arguments": {"q": "Luna Vale"}})
        + "</tool_call>")


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProcess]:
    if "AWM/spotify-v0" not in gym.registry:
        pytest.skip("the built-in spotify world is not registered")
    config = ServerConfig(world="spotify", port=0, max_sessions=max(LEVELS) + 8,
                          env=EnvConfig(max_episode_steps=10**9))
    with ServerProcess(config) as process:
        yield process


async def _session(url: str, steps: int, deadline: float, latencies: list[float],
                   started: asyncio.Event, ready: list[float]) -> int:
    from websockets.asyncio.client import connect

    t0 = time.perf_counter()
    async with connect(url, compression=None, max_size=None) as ws:
        json.loads(await ws.recv())  # the session frame
        await ws.send(json.dumps({"type": "reset", "id": 0, "data": {"seed": 0}}))
        json.loads(await ws.recv())
        ready.append(time.perf_counter() - t0)
        for k in range(WARMUP_STEPS):
            await ws.send(json.dumps({"type": "step", "id": -1 - k, "data": {"action": READ}}))
            assert json.loads(await ws.recv())["type"] == "step"
        await started.wait()
        done = 0
        for k in range(steps):
            if time.perf_counter() > deadline:
                break
            start = time.perf_counter()
            await ws.send(json.dumps({"type": "step", "id": k, "data": {"action": READ}}))
            reply = json.loads(await ws.recv())
            latencies.append(time.perf_counter() - start)
            assert reply["id"] == k and reply["data"]["info"]["tool_outcome"] == "ok", reply
            done += 1
        return done


async def _level(url: str, sessions: int) -> dict[str, Any]:
    latencies: list[float] = []
    ready: list[float] = []
    started = asyncio.Event()
    per_session = STEPS_PER_LEVEL // sessions
    deadline = time.perf_counter() + LEVEL_TIME_S
    t0 = time.perf_counter()
    tasks = [asyncio.create_task(_session(url, per_session, deadline, latencies, started, ready))
             for _ in range(sessions)]
    while len(ready) < sessions and not any(t.done() for t in tasks):
        await asyncio.sleep(0.001)
    setup_s = time.perf_counter() - t0
    await asyncio.sleep(0.05)  # let every session finish its warm-up steps
    start = time.perf_counter()
    started.set()
    steps = sum(await asyncio.gather(*tasks))
    wall = time.perf_counter() - start
    ms = sorted(x * 1e3 for x in latencies)
    return {"sessions": sessions, "calls": steps, "steps_per_s": round(steps / wall, 1),
            "p50_ms": round(statistics.median(ms), 3),
            "p95_ms": round(ms[min(len(ms) - 1, int(0.95 * len(ms)))], 3),
            "setup_all_sessions_ms": round(setup_s * 1e3, 1),
            "setup_per_session_p50_ms": round(statistics.median(ready) * 1e3, 2),
            "wall_s": round(wall, 3)}


@pytest.mark.parametrize("sessions", LEVELS)
def test_server_sessions(benchmark, server, sessions: int) -> None:
    benchmark.group = "server"
    url = server.url.replace("http://", "ws://") + "/ws"
    result: dict[str, Any] = {}

    def run() -> None:
        result.update(asyncio.run(_level(url, sessions)))

    benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info.update(result)
    assert result["calls"] > 0


def test_server_remote_vector_64(benchmark, server) -> None:
    benchmark.group = "server"
    envs = gym.make_vec("AWM/remote-v0", num_envs=64, url=server.url)
    try:
        envs.reset(seed=0)
        actions = [READ] * 64
        envs.step(actions)  # warm-up
        latencies: list[float] = []

        def run() -> None:
            for _ in range(VECTOR_STEPS):
                start = time.perf_counter()
                _, _, terminated, truncated, info = envs.step(actions)
                latencies.append(time.perf_counter() - start)
                assert not (terminated | truncated).any()
                assert (info["tool_outcome"] == "ok").all()

        benchmark.pedantic(run, rounds=1, iterations=1)
    finally:
        envs.close()
    ms = np.array(latencies) * 1e3
    benchmark.extra_info.update({
        "sessions": 64, "calls": 64 * VECTOR_STEPS,
        "vector_step_p50_ms": round(float(np.median(ms)), 2),
        "vector_step_p95_ms": round(float(np.percentile(ms, 95)), 2),
        "steps_per_s": round(64 * VECTOR_STEPS / (ms.sum() / 1e3), 1)})


@pytest.mark.parametrize("sessions", (1, 64))
def test_server_baseline_in_process(benchmark, server, sessions: int) -> None:
    """The same read steps without the network: ``AWMVectorEnv`` in this process (floor)."""
    from awm_gym.envs.vector_env import AWMVectorEnv

    benchmark.group = "server"
    envs = AWMVectorEnv(num_envs=sessions, worlds=["spotify"], max_episode_steps=10**9)
    rounds = STEPS_PER_LEVEL // sessions
    try:
        envs.reset(seed=0)
        actions = [READ] * sessions
        envs.step(actions)  # warm-up
        latencies: list[float] = []

        def run() -> None:
            for _ in range(rounds):
                start = time.perf_counter()
                _, _, _, _, info = envs.step(actions)
                latencies.append(time.perf_counter() - start)
                assert (info["tool_outcome"] == "ok").all()

        benchmark.pedantic(run, rounds=1, iterations=1)
    finally:
        envs.close()
    ms = np.array(latencies) * 1e3
    benchmark.extra_info.update({
        "sessions": sessions, "calls": sessions * rounds,
        "vector_step_p50_ms": round(float(np.median(ms)), 3),
        "vector_step_p95_ms": round(float(np.percentile(ms, 95)), 3),
        "steps_per_s": round(sessions * rounds / (ms.sum() / 1e3), 1)})
