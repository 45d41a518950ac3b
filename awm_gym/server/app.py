"""One served world as an ASGI application: ``/mcp``, ``/ws``, ``/health`` and ``/metadata``.

:class:`WorldServer` loads the world once (its code, template and catalogue, as in-process), owns
the runtime whose instances back the WebSocket sessions, the job loop that runs every call into
generated code (:mod:`awm_gym.server.executor`), the session table, and the two endpoints.
:func:`awm_gym.server.serve` puts it behind uvicorn.

Routes:

- ``POST|GET|DELETE /mcp``: MCP over Streamable HTTP (:mod:`awm_gym.server.mcp_endpoint`).
- ``WS /ws``: the session protocol (:mod:`awm_gym.wire.protocol`).
- ``GET /health``: ``{"status": "ok", "sessions": {"ws": n, "mcp": m}, "capacity", ...}``.
- ``GET /metadata``: the world, its task and tool counts, the limits and the episode config.

Example:
    >>> server = WorldServer(ServerConfig(world="spotify", max_sessions=2))
    >>> server.world, server.num_tasks, len(server.tools) == len(server.host.tools)
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

from awm_gym.envs import WorldRuntime, get_prepared_world
from awm_gym.envs.registration import get_world_set
from awm_gym.server.config import ServerConfig
from awm_gym.server.executor import RuntimeLoop
from awm_gym.server.mcp_endpoint import McpEndpoint
from awm_gym.server.sessions import SessionTable
from awm_gym.server.ws_endpoint import SessionEndpoint
from awm_gym.tools.host import PreparedWorld
from awm_gym.wire.auth import TokenGate
from awm_gym.wire.protocol import PROTOCOL_VERSION
from awm_gym.worlds.clock import FrozenClock

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
    tools_text: str
    prepared: PreparedWorld
    sessions: SessionTable
    jobs: RuntimeLoop
    routes: Starlette

    def __init__(self, config: ServerConfig) -> None:
        from awm_gym import __version__

        self.config, env = config, config.env
        world_set = get_world_set(config.worlds_dir)
        world_def = world_set[config.world]
        self.world, self.num_tasks = world_def.name, len(world_def.tasks)
        prepared = get_prepared_world(world_def, env)  # loaded once per process, shared
        self.prepared = prepared
        self.host, self.template = prepared.host, prepared.template
        self.clock = FrozenClock(prepared.base_time)
        if env.num_workers:
            from awm_gym.envs.shards import ShardedRuntime

            self.runtime: Any = ShardedRuntime(world_set, [self.world], config.max_sessions, env,
                                               env.num_workers)
        else:
            self.runtime = WorldRuntime(world_set, [self.world], config.max_sessions, env)
        self.tools = self.runtime.tools(self.world)
        self.tools_text = self.runtime.tools_text(self.world)
        self.app_title = self.host.app.title or self.world
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
            "env_config": self.env_config_dict})

    def close(self) -> None:
        """Close the runtime (instance databases, verifier pool, worker processes)."""
        self.runtime.close()
