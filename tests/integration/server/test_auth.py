"""A server started with a token answers only clients that send it (MCP, sessions, remote envs);
/health stays open."""

from __future__ import annotations

import urllib.error
import urllib.request
from collections.abc import Iterator

import gymnasium as gym
import pytest

import awm_gym  # noqa: F401 - registers AWM/remote-v0
from awm_gym.remote.client import RemoteError, SessionLostError
from awm_gym.remote.mcp_check import list_mcp_tools
from awm_gym.server.config import ServerConfig
from awm_gym.server.process import ServerProcess

TOKEN = "a-long-enough-test-token-0123"


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProcess]:
    with ServerProcess(ServerConfig(world="spotify", port=0, auth_token=TOKEN)) as process:
        yield process


def _status(url: str, token: str | None = None, method: str = "GET") -> int:
    request = urllib.request.Request(url, method=method, data=b"{}" if method == "POST" else None,
                                     headers={"Authorization": f"Bearer {token}"} if token else {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as e:
        return e.code


def test_health_is_open_and_mcp_needs_the_token(server: ServerProcess) -> None:
    assert _status(f"{server.url}/health") == 200
    assert _status(f"{server.url}/mcp", method="POST") == 401
    assert _status(f"{server.url}/mcp", token="wrong-token-of-some-length", method="POST") == 401
    assert _status(f"{server.url}/metadata") == 401
    assert _status(f"{server.url}/metadata", token=TOKEN) == 200


def test_mcp_clients_list_tools_only_with_the_token(server: ServerProcess) -> None:
    assert len(list_mcp_tools(f"{server.url}/mcp", auth_token=TOKEN)) > 10
    with pytest.raises(RemoteError):
        list_mcp_tools(f"{server.url}/mcp")


def test_remote_envs_play_only_with_the_token(server: ServerProcess) -> None:
    with pytest.raises(SessionLostError):
        gym.make_vec("AWM/remote-v0", num_envs=1, url=server.url)
    envs = gym.make_vec("AWM/remote-v0", num_envs=2, url=server.url, auth_token=TOKEN)
    try:
        obs, _ = envs.reset(seed=[0, 1])
        assert all(obs)
        obs, *_ = envs.step(['<tool_call>{"name": "list_tools", "arguments": {}}</tool_call>'] * 2)
        assert all("Tool:" in o or "tool" in o.lower() for o in obs)
    finally:
        envs.close()


def test_a_short_token_is_refused_with_the_fix() -> None:
    with pytest.raises(ValueError, match="at least 16 characters"):
        ServerConfig(world="spotify", auth_token="short")
