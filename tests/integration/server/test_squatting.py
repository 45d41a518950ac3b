"""Nobody can squat a real ``awm env start`` (issue 17, item 3): junk MCP requests hold nothing,
concurrent ``initialize`` requests never exceed capacity and every session they open is counted
and reaped, bodies over the limit are refused unread, and a healthy client still gets a session
and steps through all of it. A real server process on 127.0.0.1 serving the fixture world
``notes_app``."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from awm_gym.remote import list_mcp_tools
from awm_gym.server import ServerConfig
from awm_gym.server.app import WorldServer
from awm_gym.server.process import ServerProcess
from awm_gym.server.sessions import SessionTable

CAPACITY = 4
IDLE_TIMEOUT_S = 10.0  # longer than the burst of initializes takes on a loaded machine
MAX_REQUEST_BYTES = 64 * 1024
MCP_HEADERS = {"accept": "application/json, text/event-stream",
               "content-type": "application/json"}
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "test", "version": "0"}}}


@pytest.fixture(scope="module")
def server(tiny_path: str) -> Iterator[ServerProcess]:
    process = ServerProcess(ServerConfig(
        world="notes_app", worlds_dir=tiny_path, port=0, max_sessions=CAPACITY,
        idle_timeout_s=IDLE_TIMEOUT_S, max_request_bytes=MAX_REQUEST_BYTES))
    yield process
    process.close()


def health(server: ServerProcess) -> dict[str, Any]:
    return httpx.get(server.url + "/health", timeout=30).json()


def wait_for_no_sessions(server: ServerProcess, timeout_s: float = 60.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while (state := health(server))["sessions"] != {"ws": 0, "mcp": 0}:
        assert time.monotonic() < deadline, f"sessions were never all reaped: {state}"
        time.sleep(0.1)
    return state


def healthy_client_steps(server: ServerProcess) -> None:
    """An MCP client lists tools, and a WebSocket client resets and steps."""
    assert "create_note" in {t["name"] for t in list_mcp_tools(server.url + "/mcp",
                                                                 timeout_s=30)}
    with connect(server.url.replace("http://", "ws://") + "/ws", open_timeout=30) as ws:
        assert json.loads(ws.recv(timeout=30))["type"] == "session"
        ws.send(json.dumps({"type": "reset", "id": 1, "data": {"seed": 0}}))
        assert json.loads(ws.recv(timeout=60))["type"] == "reset"
        ws.send(json.dumps({"type": "step", "id": 2, "data": {"action": "Done."}}))
        assert json.loads(ws.recv(timeout=60))["data"]["terminated"] is True


JUNK = [
    {"content": b"{not json"},
    {"json": {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}},
    {"json": {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}},
    {"json": [INITIALIZE, INITIALIZE]},
    {"content": b""},
]


@pytest.mark.timeout(240)
def test_junk_requests_hold_no_session(server: ServerProcess) -> None:
    wait_for_no_sessions(server)
    with httpx.Client(timeout=30) as client:
        for n in range(8 * CAPACITY):  # several times the capacity of junk
            response = client.post(server.url + "/mcp", headers=MCP_HEADERS, **JUNK[n % len(JUNK)])
            assert response.status_code == 400, response.text
            assert "must be an MCP `initialize` request" in response.text
        # a valid initialize that asks for the wrong media types holds nothing either
        response = client.post(server.url + "/mcp", json=INITIALIZE,
                               headers={"accept": "text/html"})
        assert response.status_code == 400
    assert health(server)["sessions"] == {"ws": 0, "mcp": 0}
    healthy_client_steps(server)


@pytest.mark.timeout(240)
def test_concurrent_initializes_never_exceed_capacity(server: ServerProcess) -> None:
    wait_for_no_sessions(server)
    statuses: list[int] = []
    barrier = threading.Barrier(15 * CAPACITY)

    def initialize() -> None:
        barrier.wait()
        response = httpx.post(server.url + "/mcp", json=INITIALIZE, headers=MCP_HEADERS,
                              timeout=60)
        statuses.append(response.status_code)

    threads = [threading.Thread(target=initialize) for _ in range(15 * CAPACITY)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(set(statuses)) == [200, 503] and statuses.count(200) == CAPACITY, statuses
    assert health(server)["sessions"] == {"ws": 0, "mcp": CAPACITY}  # /health matches reality
    wait_for_no_sessions(server)  # every one is reaped: none is invisible to the table
    healthy_client_steps(server)


@pytest.mark.timeout(240)
def test_a_body_over_the_limit_is_refused_unread(server: ServerProcess) -> None:
    big = b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", "pad": "' + \
        b"x" * (2 * MAX_REQUEST_BYTES) + b'"}'
    response = httpx.post(server.url + "/mcp", content=big, headers=MCP_HEADERS, timeout=30)
    assert response.status_code == 413 and f"larger than {MAX_REQUEST_BYTES} bytes" in \
        response.text

    def chunks() -> Iterator[bytes]:  # no Content-Length: refused while reading
        for _ in range(4):
            yield b"x" * MAX_REQUEST_BYTES
    response = httpx.post(server.url + "/mcp", content=chunks(), headers=MCP_HEADERS, timeout=30)
    assert response.status_code == 413
    assert health(server)["sessions"]["mcp"] == 0


def test_the_per_client_limit_counts_each_address() -> None:
    table = SessionTable(capacity=4, idle_timeout_s=0, max_per_client=2)
    a1, a2 = table.open("ws", client="10.0.0.1"), table.open("mcp", client="10.0.0.1")
    assert a1 is not None and a2 is not None
    assert table.open("ws", client="10.0.0.1") is None and table.client_is_full("10.0.0.1")
    assert table.open("ws", client="10.0.0.2") is not None  # another address still gets one
    table.release(a1)
    assert table.open("ws", client="10.0.0.1") is not None
    assert table.refused == 1


@pytest.mark.timeout(240)
def test_a_huge_degenerate_action_does_not_stall_the_server(server: ServerProcess) -> None:
    """Before the linear parser, 2.5 KB of this shape froze /health for 11 s; 2 MB would have
    held the GIL for days."""
    wait_for_no_sessions(server)
    action = "<tool_call>" + "\n" * 2_000_000
    with connect(server.url.replace("http://", "ws://") + "/ws", open_timeout=30,
                 max_size=None) as ws:
        json.loads(ws.recv(timeout=30))
        ws.send(json.dumps({"type": "reset", "id": 1, "data": {"seed": 0}}))
        json.loads(ws.recv(timeout=60))
        ws.send(json.dumps({"type": "step", "id": 2, "data": {"action": action}}))
        assert health(server)["status"] == "ok"  # answered while the step is handled
        reply = json.loads(ws.recv(timeout=60))
    assert reply["data"]["terminated"] is True
    assert "the limit is 100000 (EnvConfig.max_action_chars)" in reply["data"]["observation"]


@pytest.mark.timeout(180)
def test_simultaneous_initializes_in_one_event_loop_never_exceed_capacity(tiny_path: str) -> None:
    """The race without network jitter: every request reaches the endpoint before any session
    exists (before, all passed the capacity check and the extra ones got sessions with no slot,
    invisible to /health and never reaped)."""
    server = WorldServer(ServerConfig(world="notes_app", worlds_dir=tiny_path,
                                      max_sessions=CAPACITY))

    async def burst() -> tuple[list[int], dict[str, Any]]:
        async with server.mcp.run():
            transport = httpx.ASGITransport(app=server.app)
            async with httpx.AsyncClient(transport=transport,
                                         base_url="http://127.0.0.1:8001") as client:
                responses = await asyncio.gather(*[
                    client.post("/mcp", json=INITIALIZE, headers=MCP_HEADERS, timeout=60)
                    for _ in range(15 * CAPACITY)])
                state = (await client.get("/health")).json()
        return [r.status_code for r in responses], state

    try:
        statuses, state = asyncio.run(burst())
    finally:
        server.close()
    assert statuses.count(200) == CAPACITY and statuses.count(503) == 14 * CAPACITY, statuses
    assert state["sessions"]["mcp"] == CAPACITY
