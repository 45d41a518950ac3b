"""The per-call cost of the served path, contained or not (docs/benchmarks/containment.md, "The server,
contained").

MCP ``tools/call`` and WebSocket steps on spotify copied to a directory (a world set from disk),
``--isolation none`` (the server process runs the world's code) against the default (a contained
worker), back to back in fresh ``awm env start`` processes.

Run: ``python tests/benchmarks/serve_containment_probe.py [ROUNDS]``
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
import time

import anyio
import gymnasium as gym
from mcp import ClientSession

import awm_gym  # noqa: F401 - registers AWM/remote-v0
from awm_gym import EnvConfig
from awm_gym.server import ServerConfig
from awm_gym.server.process import ServerProcess
from awm_gym.tools.mcp_compat import client_streams
from awm_gym.worlds.records import BUILTIN_WORLDS_DIR

N_MCP, N_WS, SESSIONS = 300, 40, 8
READ = '<tool_call>{"name": "get_track", "arguments": {"track_id": 1}}</tool_call>'


async def mcp_call_s(url: str) -> float:
    """Seconds per ``get_track`` call in one MCP session (after 20 warm-up calls)."""
    async with client_streams(url + "/mcp") as (read, write), \
            ClientSession(read, write) as session:
        await session.initialize()
        for _ in range(20):
            await session.call_tool("get_track", {"track_id": 1})
        start = time.perf_counter()
        for _ in range(N_MCP):
            await session.call_tool("get_track", {"track_id": 1})
        return (time.perf_counter() - start) / N_MCP


def ws_call_s(url: str) -> float:
    """Median seconds per call of a step of ``SESSIONS`` WebSocket sessions."""
    envs = gym.make_vec("AWM/remote-v0", num_envs=SESSIONS, url=url)
    try:
        envs.reset(seed=list(range(SESSIONS)))
        envs.step([READ] * SESSIONS)
        times = []
        for _ in range(N_WS):
            start = time.perf_counter()
            envs.step([READ] * SESSIONS)
            times.append(time.perf_counter() - start)
    finally:
        envs.close()
    return statistics.median(times) / SESSIONS


def main(rounds: int) -> None:
    root = tempfile.mkdtemp()
    shutil.copytree(BUILTIN_WORLDS_DIR, root, dirs_exist_ok=True)
    try:
        for k in range(rounds):
            for isolation in ("none", "auto"):
                config = ServerConfig(world="spotify", worlds_dir=root, port=0, max_sessions=16,
                                      env=EnvConfig(isolation=isolation,
                                                    max_episode_steps=10**6))
                with ServerProcess(config) as server:
                    mcp, ws = anyio.run(mcp_call_s, server.url), ws_call_s(server.url)
                print(f"round {k} isolation={isolation:5s} MCP {mcp * 1e3:.2f} ms/call  "
                      f"WS {ws * 1e3:.2f} ms/call ({SESSIONS} sessions)", flush=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
