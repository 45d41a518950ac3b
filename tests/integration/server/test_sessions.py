"""The session server (``/ws``) and its Gymnasium client against a real ``awm env start`` process.

One server (the built-in ``spotify`` world, a random free port on 127.0.0.1) serves the whole
module. Remote episodes are compared with the same episodes run in this process: observations,
rewards, flags and infos must be identical, which also proves there is no cross-talk between
64 concurrent sessions (each instance's database is its own, or the texts would differ).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import gymnasium as gym
import httpx
import numpy as np
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

import awm_gym
from awm_gym import EnvUsageError
from awm_gym.remote import SessionClient
from awm_gym.server import ServerConfig
from awm_gym.server.process import ServerProcess

N_SESSIONS = 64
MAX_MESSAGE_BYTES = 64 * 1024


def tool_call(name: str, arguments: dict[str, Any] | None = None) -> str:
    return "<tool_call>" + json.dumps({"name": name, "arguments": arguments or {}}) + "</tool_call>"


def oracle_plan(task_idx: int) -> list[str]:
    """The task's reference solution as actions, then its final answer."""
    solution = awm_gym.get_world_set()["spotify"].solutions[task_idx]
    return [*(tool_call(c.tool, dict(c.arguments)) for c in solution.calls),
            solution.final_answer or "Done."]


@pytest.fixture(scope="module")
def server(spotify_id: str) -> Iterator[ServerProcess]:
    config = ServerConfig(world="spotify", port=0, max_sessions=N_SESSIONS + 16,
                          max_message_bytes=MAX_MESSAGE_BYTES)
    with ServerProcess(config) as process:
        yield process


def ws_url(server: ServerProcess) -> str:
    return server.url.replace("http://", "ws://") + "/ws"


def open_raw(server: ServerProcess) -> Any:
    """A raw WebSocket session: returns (socket, the server's session frame)."""
    ws = connect(ws_url(server), compression=None, open_timeout=10).__enter__()
    hello = json.loads(ws.recv(timeout=10))
    return ws, hello


def ask(ws: Any, message: Any) -> dict[str, Any]:
    ws.send(message if isinstance(message, (str, bytes)) else json.dumps(message))
    return json.loads(ws.recv(timeout=30))


def ws_sessions(server: ServerProcess) -> int:
    return httpx.get(server.url + "/health", timeout=10).json()["sessions"]["ws"]


def wait_for_sessions(server: ServerProcess, expected: int, timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while ws_sessions(server) != expected:
        assert time.monotonic() < deadline, f"still {ws_sessions(server)} sessions, not {expected}"
        time.sleep(0.05)


def assert_infos_equal(a: dict[str, Any], b: dict[str, Any]) -> None:
    assert sorted(a) == sorted(b)
    for key in a:
        assert a[key].dtype == b[key].dtype, key
        assert a[key].tolist() == b[key].tolist(), key


def test_64_concurrent_sessions_play_oracle_episodes_exactly_as_in_process(server) -> None:
    tasks = [i % 10 for i in range(N_SESSIONS)]
    plans = [oracle_plan(t) for t in tasks]
    remote = gym.make_vec("AWM/remote-v0", num_envs=N_SESSIONS, url=server.url)
    local = gym.make_vec("AWM/spotify-v0", num_envs=N_SESSIONS)
    try:
        assert wait_for_sessions(server, N_SESSIONS) is None
        assert remote.config == local.config  # the server's EnvConfig travels to the client
        seeds = list(range(100, 100 + N_SESSIONS))
        r_obs, r_info = remote.reset(seed=seeds, options={"task_idx": tasks})
        l_obs, l_info = local.reset(seed=seeds, options={"task_idx": tasks})
        assert r_obs == l_obs
        assert_infos_equal(r_info, l_info)
        done = np.zeros(N_SESSIONS, dtype=bool)
        successes = np.zeros(N_SESSIONS, dtype=bool)
        turn = 0
        while not done.all():
            actions = [None if done[i] else plans[i][turn] for i in range(N_SESSIONS)]
            r = remote.step(actions)
            here = local.step(actions)
            assert r[0] == here[0], f"observations differ at turn {turn}"
            for got, want in zip(r[1:4], here[1:4], strict=True):
                assert got.tolist() == want.tolist()
            assert_infos_equal(r[4], here[4])
            finished = (r[2] | r[3]) & ~done
            if "success" in r[4]:
                successes |= r[4]["success"] & r[4]["_success"]
            done |= finished
            turn += 1
        assert successes.all(), f"tasks not verified complete: {np.flatnonzero(~successes)}"
        assert remote.tools_text(0) == local.tools_text(0)
        assert remote.tools(0) == local.tools(0)
    finally:
        remote.close()
        local.close()
    wait_for_sessions(server, 0)  # closing the vector env ends its 64 sessions


def test_single_env_matches_in_process_on_tool_errors_and_malformed_actions(server) -> None:
    actions = [
        tool_call("list_tools"),
        tool_call("get_track", {"track_id": "x"}),           # schema: Input validation error
        tool_call("get_track", {"track_id": 999999}),        # the handler fails: an error text
        tool_call("like_track", {"track_id": 21}),           # a write
        tool_call("no_such_tool", {}),                       # unknown tool: AWM's reply
        '<tool_call>{"arguments": {}}</tool_call>',          # no name: malformed, -1
    ]
    remote = gym.make("AWM/remote-v0", url=server.url)
    local = gym.make("AWM/spotify-v0")
    try:
        assert remote.reset(seed=5, options={"task_idx": 2}) == \
            local.reset(seed=5, options={"task_idx": 2})
        for action in actions:
            got, want = remote.step(action), local.step(action)
            assert got == want, action
        assert got[1] == -1.0 and got[2] is True and got[4]["format_error"] is True
        with pytest.raises(EnvUsageError, match="after the episode ended"):
            remote.step("again")  # AWMEnv's own check, before any request
        with pytest.raises(EnvUsageError, match=r"task_idx'\]=99"):
            remote.reset(options={"task_idx": 99})
        assert remote.unwrapped.tools_text == local.unwrapped.tools_text
        assert "RemoteEnv(spotify at http://127.0.0.1:" in repr(remote.unwrapped)
    finally:
        remote.close()
        local.close()


def test_protocol_replies_echo_ids_and_bad_input_gets_typed_errors(server) -> None:
    ws, hello = open_raw(server)
    try:
        assert hello["type"] == "session" and hello["id"] is None
        assert hello["data"]["world"] == "spotify" and hello["data"]["protocol"] == 1
        assert hello["data"]["max_message_bytes"] == MAX_MESSAGE_BYTES

        def error(message: Any) -> tuple[Any, str, str]:
            reply = ask(ws, message)
            assert reply["type"] == "error", reply
            return reply["id"], reply["data"]["code"], reply["data"]["message"]

        assert error("{not json")[:2] == (None, "INVALID_JSON")
        assert error(b"\xff\xfe")[:2] == (None, "INVALID_JSON")
        assert error("[1, 2]")[:2] == (None, "INVALID_MESSAGE")
        assert error({"type": "step", "id": 1.5})[1] == "INVALID_MESSAGE"
        assert error({"type": "jump", "id": "a"})[:2] == ("a", "UNKNOWN_TYPE")
        assert error({"type": "step", "id": 2, "data": {"action": "hi"}})[:2] == \
            (2, "EPISODE_NOT_ACTIVE")
        _, code, message = error({"type": "reset", "id": 3, "data": {"seed": "zero"}})
        assert code == "VALIDATION_ERROR" and "reset.data.seed" in message
        _, code, message = error({"type": "reset", "id": 4, "data": {"task": 1}})
        assert code == "VALIDATION_ERROR" and "['task']" in message
        _, code, message = error({"type": "reset", "id": 5, "data": {"task_idx": 10}})
        assert code == "VALIDATION_ERROR" and "out of range" in message  # the runtime's check
        too_big = json.dumps({"type": "step", "id": 6, "data": {"action": "x" * MAX_MESSAGE_BYTES}})
        rid, code, message = error(too_big)
        assert (rid, code) == (None, "MESSAGE_TOO_LARGE") and str(MAX_MESSAGE_BYTES) in message

        # after all that, the same session still works, and every reply carries its id
        reply = ask(ws, {"type": "reset", "id": "r1", "data": {"seed": 1, "task_idx": 0}})
        assert (reply["type"], reply["id"], reply["data"]["info"]["task_idx"]) == ("reset", "r1", 0)
        reply = ask(ws, {"type": "step", "id": 7, "data": {"action": tool_call("get_track", {})}})
        assert reply["id"] == 7 and reply["data"]["reward"] == 0.0
        assert reply["data"]["observation"].startswith("Error: Input validation error")
        _, code, message = error({"type": "step", "id": 8, "data": {"action": 3}})
        assert code == "VALIDATION_ERROR" and "step.data.action must be a string" in message
        ws.send(json.dumps({"type": "state", "id": 9}).encode())  # a binary frame works too
        state = json.loads(ws.recv(timeout=10))
        assert state["id"] == 9 and state["data"]["step_count"] == 1
        assert state["data"]["episode_active"] is True and state["data"]["task_idx"] == 0
        tools = ask(ws, {"type": "tools", "id": 10})["data"]
        assert len(tools["tools"]) == 63 and tools["tools_text"].startswith("Available MCP Tools")
        assert ask(ws, {"type": "close", "id": 11})["type"] == "close"
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=10)
        assert closed.value.rcvd.code == 1000
    finally:
        ws.close()


def test_a_frame_over_the_hard_limit_closes_only_that_connection(server) -> None:
    other, _ = open_raw(server)
    ws, _ = open_raw(server)
    try:
        ws.send("x" * (2 * MAX_MESSAGE_BYTES + 1))
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=10)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009  # message too big
        reply = ask(other, {"type": "reset", "id": 1, "data": {"seed": 0}})
        assert reply["type"] == "reset"
    finally:
        ws.close()
        other.close()


def test_clients_that_vanish_mid_episode_free_their_sessions(server) -> None:
    wait_for_sessions(server, 0)
    survivor, _ = open_raw(server)
    assert ask(survivor, {"type": "reset", "id": 1, "data": {"seed": 0, "task_idx": 1}})["type"] \
        == "reset"
    for in_flight in (False, True):
        ws, _ = open_raw(server)
        ask(ws, {"type": "reset", "id": 1, "data": {"seed": 0, "task_idx": 3}})
        ask(ws, {"type": "step", "id": 2, "data": {"action": tool_call("like_track",
                                                                       {"track_id": 21})}})
        if in_flight:  # the reply to this one has nowhere to go
            ws.send(json.dumps({"type": "step", "id": 3, "data": {"action": "Done."}}))
        ws.socket.close()  # no close frame: the TCP connection just drops
        wait_for_sessions(server, 1)
    reply = ask(survivor, {"type": "step", "id": 2,
                           "data": {"action": tool_call("list_tools")}})
    assert reply["type"] == "step" and reply["data"]["observation"].startswith("Available MCP")
    survivor.close()
    wait_for_sessions(server, 0)


def test_web_pages_of_other_sites_cannot_reach_a_loopback_server(server) -> None:
    from websockets.exceptions import InvalidStatus

    with pytest.raises(InvalidStatus) as refused:
        connect(ws_url(server), origin="http://evil.example", open_timeout=10).__enter__()
    assert refused.value.response.status_code == 403
    ws = connect(ws_url(server), origin="http://localhost:3000", open_timeout=10).__enter__()
    assert json.loads(ws.recv(timeout=10))["type"] == "session"
    ws.close()
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"}}}
    response = httpx.post(server.url + "/mcp", json=initialize, timeout=10, headers={
        "accept": "application/json, text/event-stream", "host": "evil.example"})
    assert response.status_code == 421  # DNS rebinding: the Host must name this machine


def test_health_and_metadata_describe_the_server(server) -> None:
    metadata = httpx.get(server.url + "/metadata", timeout=10).json()
    assert metadata["world"] == "spotify" and metadata["protocol"] == 1
    assert (metadata["num_tasks"], metadata["num_tools"]) == (10, 63)
    assert metadata["endpoints"] == {"mcp": "/mcp", "sessions": "/ws", "health": "/health"}
    assert metadata["max_sessions"] == N_SESSIONS + 16
    assert metadata["max_message_bytes"] == MAX_MESSAGE_BYTES
    assert metadata["env_config"]["max_episode_steps"] == awm_gym.EnvConfig().max_episode_steps
    before = httpx.get(server.url + "/health", timeout=10).json()
    client = SessionClient(server.url)
    client.request("reset", {"seed": 0})
    client.request("step", {"action": "Done."})
    state = httpx.get(server.url + "/health", timeout=10).json()
    assert state["status"] == "ok" and state["capacity"] == N_SESSIONS + 16
    assert state["sessions"]["ws"] == before["sessions"]["ws"] + 1
    assert state["steps"] == before["steps"] + 1 and state["batches"] >= before["batches"] + 2
    client.close()
