"""Limits of a real ``awm env start`` process: tool timeouts, capacity, idle reaping, shutdown.

The server runs the fixture world ``defect_lab`` (a tool that loops forever, ``hang``) with room
for two sessions, a one-second idle timeout and a two-second tool timeout; the last test starts
its own server with worker processes (`--num-workers 2`) to show crash isolation.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import anyio
import gymnasium as gym
import httpx
import numpy as np
import pytest
from mcp import ClientSession
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from awm_gym import EnvConfig
from awm_gym.remote import RemoteError, list_mcp_tools
from awm_gym.server import ServerConfig
from awm_gym.server.process import ServerProcess
from awm_gym.tools.mcp_compat import client_streams, result_is_error

IDLE_TIMEOUT_S = 1.0
TOOL_TIMEOUT_S = 2.0


def tool_call(name: str, arguments: dict[str, Any] | None = None) -> str:
    return "<tool_call>" + json.dumps({"name": name, "arguments": arguments or {}}) + "</tool_call>"


@pytest.fixture(scope="module")
def server(tiny_path: str) -> Iterator[ServerProcess]:
    config = ServerConfig(world="defect_lab", worlds_dir=tiny_path, port=0, max_sessions=2,
                          idle_timeout_s=IDLE_TIMEOUT_S,
                          env=EnvConfig(tool_timeout_s=TOOL_TIMEOUT_S))
    process = ServerProcess(config)
    yield process
    # stopping with a session mid-episode: the client is told (1012: service restart), exit 0
    ws, _ = open_raw(process)
    ask(ws, {"type": "reset", "id": 1, "data": {"seed": 0}})
    assert process.close() == 0
    with pytest.raises(ConnectionClosed) as closed:
        ws.recv(timeout=10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code in (1001, 1012)


def health(server: ServerProcess) -> dict[str, Any]:
    return httpx.get(server.url + "/health", timeout=10).json()


def wait_for(server: ServerProcess, check: Any, timeout_s: float = 10.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while True:
        state = health(server)
        if check(state):
            return state
        assert time.monotonic() < deadline, f"server state never matched: {state}"
        time.sleep(0.05)


def no_sessions(state: dict[str, Any]) -> bool:
    return state["sessions"] == {"ws": 0, "mcp": 0}


def open_raw(server: ServerProcess) -> tuple[Any, dict[str, Any]]:
    ws = connect(server.url.replace("http://", "ws://") + "/ws", compression=None,
                 open_timeout=10).__enter__()
    return ws, json.loads(ws.recv(timeout=10))


def ask(ws: Any, message: dict[str, Any]) -> dict[str, Any]:
    ws.send(json.dumps(message))
    return json.loads(ws.recv(timeout=30))


def test_a_tool_that_loops_forever_is_stopped_while_the_server_keeps_serving(server) -> None:
    wait_for(server, no_sessions)
    ws, _ = open_raw(server)
    try:
        ask(ws, {"type": "reset", "id": 1, "data": {"seed": 0, "task_idx": 0}})
        ws.send(json.dumps({"type": "step", "id": 2, "data": {"action": tool_call("hang")}}))
        time.sleep(0.2)  # the runtime thread is now inside `while True: pass`
        assert health(server)["sessions"]["ws"] == 1  # the network side still answers
        with pytest.raises(TimeoutError):
            ws.recv(timeout=0)  # ... before the hanging call has come back
        reply = json.loads(ws.recv(timeout=30))
        assert reply["id"] == 2 and reply["type"] == "step"
        assert reply["data"]["observation"] == (f"Error: Tool call timed out after "
                                               f"{TOOL_TIMEOUT_S:g} s (the handler did not "
                                               "return).")
        assert reply["data"]["info"]["tool_outcome"] == "timeout"
        assert reply["data"]["truncated"] is False and reply["data"]["terminated"] is False
        reply = ask(ws, {"type": "step", "id": 3, "data": {"action": tool_call("count_things")}})
        assert reply["data"]["info"]["tool_outcome"] in ("ok", "http_error")  # it ran normally
    finally:
        ws.close()


def test_capacity_refuses_new_sessions_and_reaping_frees_them(server) -> None:
    before = wait_for(server, no_sessions)
    a, _ = open_raw(server)
    b, _ = open_raw(server)
    try:
        c, refusal = open_raw(server)
        assert refusal["type"] == "error" and refusal["data"]["code"] == "CAPACITY_REACHED"
        assert "--max-sessions" in refusal["data"]["message"]
        with pytest.raises(ConnectionClosed) as closed:
            c.recv(timeout=10)
        assert closed.value.rcvd.code == 1013
        for ws in (a, b):  # a request restarts their idle clocks: still full for the MCP checks
            assert ask(ws, {"type": "state", "id": 1})["type"] == "state"
        initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"}}}
        response = httpx.post(server.url + "/mcp", json=initialize, timeout=10, headers={
            "accept": "application/json, text/event-stream"})
        assert response.status_code == 503 and "CAPACITY_REACHED" in response.text
        with pytest.raises(RemoteError):
            list_mcp_tools(server.url + "/mcp", timeout_s=5)

        # both sessions stay idle: the reaper ends them with a frame and a close code
        for ws in (a, b):
            expired = json.loads(ws.recv(timeout=10 * IDLE_TIMEOUT_S))
            assert (expired["type"], expired["id"]) == ("error", None)
            assert expired["data"]["code"] == "SESSION_EXPIRED"
            with pytest.raises(ConnectionClosed) as closed:
                ws.recv(timeout=10)
            assert closed.value.rcvd.code == 4408
        state = wait_for(server, no_sessions)
        assert state["reaped"] >= before["reaped"] + 2
        assert state["refused"] >= before["refused"] + 3  # ws, raw MCP POST, list_mcp_tools
        d, hello = open_raw(server)  # capacity is back
        assert hello["type"] == "session"
        d.close()
    finally:
        a.close()
        b.close()


def test_a_remote_env_whose_session_was_reaped_truncates_then_resets_on_a_new_one(server) -> None:
    wait_for(server, no_sessions)
    env = gym.make("AWM/remote-v0", url=server.url)
    try:
        env.reset(seed=0, options={"task_idx": 0})
        first = env.unwrapped.runtime._clients[0].info.session_id
        wait_for(server, lambda s: s["sessions"]["ws"] == 0, timeout_s=10 * IDLE_TIMEOUT_S)
        obs, reward, terminated, truncated, info = env.step(tool_call("count_things"))
        assert truncated and not terminated and reward == 0.0
        assert info["reward_valid"] is False and "SESSION_EXPIRED" not in obs
        assert "worker_error" in info and "idle" in info["worker_error"]
        obs, info = env.reset(seed=1, options={"task_idx": 1})
        assert info["task_idx"] == 1
        assert env.unwrapped.runtime._clients[0].info.session_id != first
        assert env.step(tool_call("count_things"))[4]["tool"] == "count_things"
    finally:
        env.close()


def test_an_idle_mcp_session_is_reaped_and_its_database_freed(server) -> None:
    before = wait_for(server, no_sessions)

    async def scenario() -> tuple[bool, dict[str, Any], str]:
        async with client_streams(server.url + "/mcp") as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            created = await session.call_tool("create_item", {"name": "Widget", "price": 9.99})
            assert health(server)["sessions"]["mcp"] == 1
            await anyio.sleep(0)
            state = await anyio.to_thread.run_sync(
                lambda: wait_for(server, lambda s: s["sessions"]["mcp"] == 0,
                                 timeout_s=10 * IDLE_TIMEOUT_S))
            with anyio.fail_after(10):
                try:
                    await session.call_tool("count_things", {})
                    late = "answered"
                except Exception as e:  # noqa: BLE001 - what the SDK raises is its business
                    late = f"{type(e).__name__}: {e}"
            return result_is_error(created), state, late

    is_error, state, late = anyio.run(scenario)
    assert is_error is False
    assert state["reaped"] == before["reaped"] + 1
    # the reaped session is gone for good (MCP: 404); mcp 1.26's client says "Session
    # terminated", mcp 2's "Session not found"
    assert "terminated" in late or "Session not found" in late, late


def test_with_worker_processes_a_tool_that_kills_its_process_affects_only_its_session(
        tiny_path: str) -> None:
    config = ServerConfig(world="defect_lab", worlds_dir=tiny_path, port=0, max_sessions=2,
                          env=EnvConfig(num_workers=2))  # one shard per session
    with ServerProcess(config) as process:
        envs = gym.make_vec("AWM/remote-v0", num_envs=2, url=process.url)
        try:
            envs.reset(seed=0, options={"task_idx": 0})
            obs, _, terminated, truncated, info = envs.step(
                [tool_call("crash_process"), tool_call("create_item", {"name": "W", "price": 1})])
            # the shard restarts and replays; the culprit's episode goes on from before the call
            assert truncated.tolist() == [False, False] and not terminated.any()
            assert info["worker_error"][0] == "died" and not info["_worker_error"][1]
            assert "ended the process running it" in obs[0]
            assert '"name": "W"' in obs[1]  # the other session's shard was untouched
            envs.reset(seed=1, options={"task_idx": 0, "reset_mask": np.array([True, False])})
            obs, *_ = envs.step([tool_call("count_things"), tool_call("count_things")])
            assert obs[0] == obs[1]  # both shards serve again
        finally:
            envs.close()
        assert health(process)["status"] == "ok"  # the server itself never went down
