"""One served world as an ASGI application: ``/mcp``, ``/ws``, ``/health`` and ``/metadata``.

:class:`WorldServer` owns the runtime that runs the world's code (the vector env's own choice,
:func:`~awm_gym.envs.vector_env.make_runtime`: contained worker processes for a world set from
disk, this process for the built-in worlds; ``EnvConfig.isolation`` decides), the job loop that
hands every call to it (:mod:`awm_gym.server.executor`), the session table, and the two
endpoints. The server process itself never executes a contained world's code: its tools, their
list and the app's title all come from the runtime. :func:`awm_gym.server.serve` puts it behind
uvicorn.

Routes:

- ``POST|GET|DELETE /mcp``: MCP over Streamable HTTP (:mod:`awm_gym.server.mcp_endpoint`).
- ``WS /ws``: the session protocol (:mod:`awm_gym.wire.protocol`).
- ``GET /health``: ``{"status": "ok", "sessions": {"ws": n, "mcp": m}, "capacity", ...}``.
- ``GET /metadata``: the world, its task and tool counts, the limits, the episode config and
  ``containment`` (the layers in force in the workers; None when the world runs in-process).

Example:
    >>> server = WorldServer(ServerConfig(world="spotify", max_sessions=2))
    >>> server.world, server.num_tasks, len(server.tools) == len(server.tool_names)
    ('spotify', 10, True)
    >>> server.close()
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import AsyncIterator
from typing import Any

from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route, WebSocketRoute

from awm_gym.boundary import closing_on_error
from awm_gym.envs.registration import get_world_set
from awm_gym.envs.vector_env import make_runtime
from awm_gym.server.config import ServerConfig
from awm_gym.server.executor import RuntimeLoop
from awm_gym.server.mcp_endpoint import McpEndpoint
from awm_gym.server.sessions import SessionTable
from awm_gym.server.ws_endpoint import SessionEndpoint
from awm_gym.wire.auth import TokenGate
from awm_gym.wire.protocol import PROTOCOL_VERSION

logger = logging.getLogger(__name__)

__all__ = ["WorldServer", "loopback_header_check"]

_LOOPBACK_SECURITY = TransportSecuritySettings(
    enable_dns_rebinding_protection=True,
    allowed_hosts=["127.0.0.1", "127.0.0.1:*", "localhost", "localhost:*", "[::1]", "[::1]:*"],
    allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"])
"""On a loopback address a web page must not reach the world (DNS rebinding): the Host and
Origin headers must name this machine, as the mcp SDK's FastMCP does for localhost."""


def loopback_header_check() -> TransportSecurityMiddleware:
    """The mcp SDK's Host/Origin check for a loopback server (also guards ``--protocol
    openenv``)."""
    return TransportSecurityMiddleware(_LOOPBACK_SECURITY)


class WorldServer:
    """A world ready to serve: runtime, job loop, sessions, endpoints and the ASGI ``app``.

    Args:
        config: what to serve and the limits.

    Raises:
        UnknownWorldError: ``config.world`` is not in the world set (with close names).
    """

    config: ServerConfig
    world: str
    num_tasks: int
    tools: list[dict[str, Any]]
    tool_names: frozenset[str]
    tools_text: str
    runtime: Any
    sessions: SessionTable
    jobs: RuntimeLoop
    routes: Starlette

    def __init__(self, config: ServerConfig) -> None:
        from awm_gym import __version__

        self.config, env = config, config.env
        world_set = get_world_set(config.worlds_dir)
        world_def = world_set[config.world]  # its rows only: no code runs here
        self.world, self.num_tasks = world_def.name, len(world_def.tasks)
        # a server steps the few calls queued at a time: "auto" answers trusted worlds here
        runtime_env = env if env.num_workers != "auto" else dataclasses.replace(env,
                                                                                 num_workers=0)
        self.runtime = make_runtime(world_set, [self.world], config.max_sessions, runtime_env)
        """``WorldRuntime`` (this process) or ``ShardedRuntime`` (worker processes)."""
        with closing_on_error(self.runtime.close):  # its worker processes too
            self.tools = self.runtime.tools(self.world)
            self.tools_text = self.runtime.tools_text(self.world)
            self.app_title = self.runtime.title(self.world)
        self.tool_names = frozenset(t["name"] for t in self.tools)
        self.containment = getattr(self.runtime, "containment", None)
        """The layers in force in the workers (None: the world runs in this process)."""
        self.version = __version__
        self.env_config_dict = dataclasses.asdict(env)
        self.jobs = RuntimeLoop(self.runtime)
        self.sessions = SessionTable(config.max_sessions, config.idle_timeout_s,
                                     config.max_sessions_per_client)
        self.transport_security = _LOOPBACK_SECURITY if config.is_loopback else None
        self._header_check = TransportSecurityMiddleware(self.transport_security)
        self.mcp = McpEndpoint(self)
        self.routes = Starlette(routes=[
            Route("/mcp", endpoint=self.mcp),
            WebSocketRoute("/ws", endpoint=SessionEndpoint(self)),
            Route("/health", endpoint=self._health),
            Route("/metadata", endpoint=self._metadata),
        ], lifespan=self._lifespan)
        self.app: Any = (TokenGate(self.routes, config.auth_token) if config.auth_token
                         else self.routes)
        """The ASGI application to serve (the routes, behind the token gate when one is set)."""

    def __repr__(self) -> str:
        return (f"WorldServer({self.world!r}, sessions={len(self.sessions)}/"
                f"{self.config.max_sessions})")

    @contextlib.asynccontextmanager
    async def _lifespan(self, _: Starlette) -> AsyncIterator[None]:
        async with self.mcp.run():
            reaper = asyncio.create_task(self.sessions.reap_forever(), name="awm-session-reaper")
            try:
                yield
            finally:
                reaper.cancel()

    async def check_headers(self, connection: Any) -> str | None:
        """Why a connection's Host/Origin headers are refused (loopback servers), or None."""
        refused = await self._header_check.validate_request(connection, is_post=False)
        return None if refused is None else bytes(refused.body).decode("utf-8", "replace")

    async def refuse_post(self, request: Request) -> Any:
        """The SDK's own refusal of a POST's Host/Origin/Content-Type headers (421, 403 or 400,
        as the MCP transport would answer), or None when they pass."""
        return await self._header_check.validate_request(request, is_post=True)

    async def _health(self, request: Request) -> JSONResponse:
        table = self.sessions
        return JSONResponse({"status": "ok", "world": self.world, "sessions": table.counts(),
                             "capacity": table.capacity, "reaped": table.reaped,
                             "refused": table.refused, "steps": self.jobs.steps,
                             "batches": self.jobs.batches})

    async def _metadata(self, request: Request) -> JSONResponse:
        config = self.config
        return JSONResponse({
            "name": "awm-gym", "version": self.version, "protocol": PROTOCOL_VERSION,
            "world": self.world, "title": self.app_title, "num_tasks": self.num_tasks,
            "num_tools": len(self.tools),
            "endpoints": {"mcp": "/mcp", "sessions": "/ws", "health": "/health"},
            "max_sessions": config.max_sessions, "idle_timeout_s": config.idle_timeout_s,
            "max_message_bytes": config.max_message_bytes,
            "max_request_bytes": config.max_request_bytes,
            "max_sessions_per_client": config.max_sessions_per_client,
            "env_config": self.env_config_dict, "containment": self.containment})

    def close(self) -> None:
        """Close the runtime (instance databases, verifier pool, worker processes)."""
        self.runtime.close()
