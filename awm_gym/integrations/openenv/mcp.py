"""OpenEnv's MCP routes for a world: ``tools/list`` and ``tools/call`` on a session's episode.

OpenEnv's server answers JSON-RPC ``tools/list`` / ``tools/call`` at ``/mcp`` (HTTP and
WebSocket) by asking the session's environment for its ``mcp_client``, an object with
``list_tools()`` and ``call_tool(name, arguments)`` (normally a FastMCP client of a server inside
the environment). :class:`EpisodeTools` is that object for an :class:`AWMEnvironment`: it lists
the world's tools as MCP lists them (``name``, ``description``, ``inputSchema``), and a call is
one turn of the session's episode, the same as ``step(AWMAction(tool_call=...))``: the world's
text comes back, the turn counts towards the step limit, and the database is the episode's.

So OpenEnv's own ``MCPToolClient`` works against ``awm env start --protocol openenv``: it opens a
session (``openenv/session/create``), resets it over the WebSocket, lists and calls tools over
``/mcp``, and the final answer is a ``step`` whose observation carries the verdict. A call
outside an episode (before ``reset``, or after the answer) is a JSON-RPC error naming the cause.

Example:
    >>> import asyncio
    >>> from awm_gym.integrations.openenv import AWMEnvironment
    >>> env = AWMEnvironment("spotify")
    >>> tools = asyncio.run(env.mcp_client.list_tools())
    >>> tools[0]["name"], sorted(tools[0])
    ('get_current_user', ['description', 'inputSchema', 'name'])
    >>> _ = env.reset(seed=0, task_idx=2)
    >>> reply = asyncio.run(env.mcp_client.call_tool("list_followed_artists", {}))
    >>> "Kiro Nakamura" in reply["data"], reply["done"], env.state.step_count
    (True, False, 1)
    >>> env.close()
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from awm_gym.integrations.openenv.models import AWMAction, AWMObservation, ToolCallSpec

__all__ = ["EpisodeTools", "SessionEnvironment"]


class _ToolSource(Protocol):
    @property
    def tools(self) -> Sequence[Mapping[str, Any]]:
        """The world's tools as MCP lists them (``name``, ``description``, ``inputSchema``)."""
        ...


class SessionEnvironment(Protocol):
    """What :class:`EpisodeTools` uses of a session's environment: its backend's tools and
    ``step_async``. An :class:`~awm_gym.integrations.openenv.environment.AWMEnvironment` is one
    (that module imports this one, never the other way)."""

    @property
    def backend(self) -> _ToolSource: ...

    async def step_async(self, action: AWMAction) -> AWMObservation: ...


class EpisodeTools:
    """The ``mcp_client`` OpenEnv's server asks an environment for: the world's tools, each call
    a turn of this environment's episode.

    Args:
        env: the session's environment.
    """

    def __init__(self, env: SessionEnvironment) -> None:
        self._env = env

    def __repr__(self) -> str:
        return f"EpisodeTools({self._env!r})"

    def is_connected(self) -> bool:
        """Always: the tools run in the environment itself, there is no transport to open."""
        return True

    async def __aenter__(self) -> EpisodeTools:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    async def list_tools(self) -> list[dict[str, Any]]:
        """The world's tools as MCP lists them (``name``, ``description``, ``inputSchema``)."""
        return [dict(tool) for tool in self._env.backend.tools]

    async def call_tool(self, name: str, arguments: Mapping[str, Any] | None = None
                        ) -> dict[str, Any]:
        """Call ``name`` as the episode's next turn.

        Returns:
            ``data`` (the world's text, what ``MCPToolClient.call_tool`` returns), ``content``
            (the same as one MCP text block), and the turn's ``reward``, ``done`` and, when the
            turn ended the episode (the step limit), the ``verdict``.

        Raises:
            EnvUsageError: no episode is running (reset first); the server replies with a
                JSON-RPC error carrying the message.
        """
        action = AWMAction(tool_call=ToolCallSpec(name=name, arguments=dict(arguments or {})))
        observation = await self._env.step_async(action)
        verdict = observation.verdict
        return {"data": observation.text,
                "content": [{"type": "text", "text": observation.text}],
                "reward": observation.reward, "done": observation.done,
                "verdict": None if verdict is None else verdict.model_dump()}
