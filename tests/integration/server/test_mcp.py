"""The MCP endpoint (``/mcp``) of a real ``awm env start`` process, through the official ``mcp``
client over Streamable HTTP, against the same world run in this process."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import anyio
import httpx
import pytest
from mcp import ClientSession

import awm_gym
from awm_gym import EnvConfig
from awm_gym.envs import get_prepared_world
from awm_gym.remote import RemoteError, list_mcp_tools
from awm_gym.server import ServerConfig
from awm_gym.server.process import ServerProcess
from awm_gym.tools.mcp_compat import client_streams, result_is_error, tool_input_schema

# (tool, arguments): a read, writes, a 404-style failure, schema failures, an unknown tool
CALLS = [
    ("search_artists", {"q": "Luna Vale"}),
    ("like_track", {"track_id": 21}),
    ("like_track", {"track_id": 21}),           # the second like of the same track
    ("get_track", {"track_id": 999999}),
    ("get_track", {"track_id": "x"}),           # wrong type
    ("get_track", {}),                          # missing required argument
    ("no_such_tool", {"a": 1}),
]


@pytest.fixture(scope="module")
def server(spotify_id: str) -> Iterator[ServerProcess]:
    with ServerProcess(ServerConfig(world="spotify", port=0, max_sessions=8)) as process:
        yield process


@pytest.fixture(scope="module")
def host() -> Any:
    return get_prepared_world(awm_gym.get_world_set()["spotify"], EnvConfig())


def in_process(host: Any, calls: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, bool]]:
    """(text, is_error) of each call on a fresh instance database, in this process."""
    slot = host.open_slot(EnvConfig().clock_step_s)  # as each MCP session opens its database
    out = []
    for name, arguments in calls:
        if not host.host.has_tool(name):
            out.append((f"Unknown tool: {name}", True))  # fastapi_mcp's text under AWM
            continue
        result = host.host.call(slot, name, arguments)
        out.append((result.text, result.is_error))
    slot.conn.close()
    return out


async def over_mcp(url: str, *sessions_calls: list[tuple[str, dict[str, Any]]]
                   ) -> tuple[list[Any], list[list[tuple[str, bool]]]]:
    """Open one MCP session per call list (all at once), run each list in order."""
    results: list[list[tuple[str, bool]]] = [[] for _ in sessions_calls]
    tools: list[Any] = []

    async def run(k: int, calls: list[tuple[str, dict[str, Any]]]) -> None:
        async with client_streams(url) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            listed = await session.list_tools()
            if k == 0:
                tools.extend(listed.tools)
            for name, arguments in calls:
                result = await session.call_tool(name, arguments)
                assert len(result.content) == 1 and result.content[0].type == "text"
                results[k].append((result.content[0].text, result_is_error(result)))

    async with anyio.create_task_group() as group:
        for k, calls in enumerate(sessions_calls):
            group.start_soon(run, k, calls)
    return tools, results


def test_mcp_lists_and_calls_tools_with_the_in_process_texts(server, host) -> None:
    tools, [results] = anyio.run(over_mcp, server.url + "/mcp", CALLS)
    listed = [{"name": t.name, "description": t.description, "inputSchema": tool_input_schema(t)}
              for t in tools]
    assert listed == [t.to_dict() for t in host.host.tools]
    expected = in_process(host, CALLS)
    assert results == expected
    texts = [text for text, _ in results]
    assert texts[0].startswith("[\n  {") and '"name": "Luna Vale"' in texts[0]
    assert results[3][1] and texts[3].startswith("Error calling get_track. Status code: ")
    assert texts[4] == "Input validation error: 'x' is not of type 'integer'"
    assert texts[5] == "Input validation error: 'track_id' is a required property"
    assert results[6] == ("Unknown tool: no_such_tool", True)


def test_each_mcp_session_has_its_own_database(server, host) -> None:
    like = [("like_track", {"track_id": 21})]
    check = [("list_liked_tracks", {})]  # lists track 21 only after the like
    _, (first, second) = anyio.run(over_mcp, server.url + "/mcp", like + check, check)
    liked, listed_after = in_process(host, like + check)
    [listed_before] = in_process(host, check)
    assert first == [liked, listed_after]
    assert second == [listed_before]  # session 2 never saw session 1's like
    assert listed_before != listed_after
    deadline = time.monotonic() + 10  # the clients' DELETEs ended both sessions on the server
    while httpx.get(server.url + "/health", timeout=10).json()["sessions"]["mcp"] != 0:
        assert time.monotonic() < deadline, "MCP sessions were not released"
        time.sleep(0.05)


def test_awm_env_check_lists_the_tools(server, host) -> None:
    tools = list_mcp_tools(server.url + "/mcp")
    assert [t["name"] for t in tools] == [t.name for t in host.host.tools]
    run = subprocess.run([sys.executable, "-m", "awm_gym.cli", "env", "check", "--url",
                          server.url], capture_output=True, text=True, timeout=120)  # as printed
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == f"{len(host.host.tools)} tools at {server.url}/mcp"
    assert lines[1].startswith(f"  {host.host.tools[0].name}: ")


def test_awm_env_check_names_an_unreachable_server(server) -> None:
    dead = "http://127.0.0.1:9/mcp"  # the discard port: nothing listens there
    with pytest.raises(RemoteError, match=r"cannot list the tools of http://127\.0\.0\.1:9/mcp"):
        list_mcp_tools(dead, timeout_s=5)
    run = subprocess.run([sys.executable, "-m", "awm_gym.cli", "env", "check", "--url", dead,
                          "--timeout", "5"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and run.stderr.startswith("awm env check: error: cannot list the "
                                                          "tools of http://127.0.0.1:9/mcp")
    assert len(run.stderr.splitlines()) == 1 and "Traceback" not in run.stderr


def test_concurrent_first_calls_of_one_session_share_its_database(server, host) -> None:
    async def scenario() -> str:
        async with client_streams(server.url + "/mcp") as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            async with anyio.create_task_group() as group:  # both race to open the database
                group.start_soon(session.call_tool, "like_track", {"track_id": 21})
                group.start_soon(session.call_tool, "like_track", {"track_id": 22})
            liked = await session.call_tool("list_liked_tracks", {})
            return liked.content[0].text

    both = in_process(host, [("like_track", {"track_id": 21}), ("like_track", {"track_id": 22}),
                             ("list_liked_tracks", {})])[2][0]
    one = in_process(host, [("like_track", {"track_id": 21}), ("list_liked_tracks", {})])[1][0]
    liked = anyio.run(scenario)
    assert both != one and '"id": 22' in both
    assert liked.count('"id": 21') == both.count('"id": 21')
    assert liked.count('"id": 22') == both.count('"id": 22')  # both likes landed in one database


def test_a_contained_server_answers_byte_identically(host) -> None:
    """``--isolation process`` (what a world set from disk gets by default): tool calls run in
    a contained worker, and ``tools/list``/``tools/call`` still equal the in-process texts."""
    config = ServerConfig(world="spotify", port=0, max_sessions=4,
                          env=EnvConfig(isolation="process"))
    with ServerProcess(config) as contained:
        metadata = httpx.get(contained.url + "/metadata", timeout=10).json()
        assert "seccomp" in metadata["containment"]["active"] or \
            metadata["containment"]["missing"]
        like = [("like_track", {"track_id": 21})]
        check = [("list_liked_tracks", {})]
        tools, (results, first, second) = anyio.run(over_mcp, contained.url + "/mcp", CALLS,
                                                    like + check, check)
    listed = [{"name": t.name, "description": t.description, "inputSchema": tool_input_schema(t)}
              for t in tools]
    assert listed == [t.to_dict() for t in host.host.tools]
    assert results == in_process(host, CALLS)
    assert first == in_process(host, like + check)
    assert second == in_process(host, check)  # each session its own database, as in-process
