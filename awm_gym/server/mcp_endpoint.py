"""The MCP endpoint (``/mcp``): the world's tools over Streamable HTTP, one database per session.

Built on the official ``mcp`` SDK (the low-level ``Server`` and its
``StreamableHTTPSessionManager``, stateful mode), which is what AWM's ``awm env start`` serves
through fastapi_mcp. What a client sees is what a model sees in-process: ``tools/list`` returns
the runtime's catalogue (same names, descriptions and input schemas), and ``tools/call`` runs
:meth:`awm_gym.tools.host.ToolHost.call`, the in-process dispatch, so results and errors carry the
same text and ``isError`` flag (an unknown tool reads ``Unknown tool: <name>``, as fastapi_mcp
says it).

Each MCP session gets its own in-memory copy of the world's initial database, opened on its first
tool call and closed when the session ends (the client's DELETE, reaping, or server shutdown).
The SDK's per-session ``lifespan`` hook marks both ends. Sessions count against the server's
``max_sessions``: a new session over the limit gets HTTP 503 before the SDK sees it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.streamable_http import MCP_SESSION_ID_HEADER
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.requests import Request
from starlette.responses import JSONResponse

from awm_gym.server.sessions import Session
from awm_gym.tools.db_routing import DatabaseSlot

logger = logging.getLogger(__name__)

__all__ = ["McpEndpoint"]


@dataclass(eq=False)
class _McpSession:
    """One MCP session's state: its table entry, database and transport id."""

    session: Session | None
    slot: asyncio.Future | None = None
    """Resolves to the session's :class:`DatabaseSlot` (one future: concurrent first calls of a
    session must share one database)."""
    transport_id: str | None = None


class McpEndpoint:
    """The ``/mcp`` ASGI app; ``server`` is the :class:`~awm_gym.server.app.WorldServer`.

    Enter :meth:`run` in the application's lifespan.
    """

    def __init__(self, server: Any) -> None:
        self.server = server
        self.tools = [types.Tool(name=t["name"], description=t["description"],
                                 inputSchema=t["inputSchema"]) for t in server.tools]
        mcp_server: Server[_McpSession, Any] = Server(
            server.app_title, version=server.version, lifespan=self._session_lifespan)
        mcp_server.list_tools()(self._list_tools)
        # The runtime checks arguments against the schema itself (the same text as mcp's check)
        mcp_server.call_tool(validate_input=False)(self._call_tool)
        self.mcp_server = mcp_server
        self.manager = StreamableHTTPSessionManager(
            app=mcp_server, stateless=False, security_settings=server.transport_security)

    def run(self) -> contextlib.AbstractAsyncContextManager[None]:
        """The session manager's task group; enter it in the app's lifespan."""
        return self.manager.run()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and self.server.sessions.is_full:
            request = Request(scope, receive)
            if request.method == "POST" and MCP_SESSION_ID_HEADER not in request.headers:
                capacity = self.server.sessions.capacity
                self.server.sessions.refuse()
                response = JSONResponse(
                    {"jsonrpc": "2.0", "id": None, "error": {
                        "code": -32000, "message": f"CAPACITY_REACHED: this server already holds "
                        f"{capacity} sessions (its --max-sessions); retry later or start it "
                        "with a larger --max-sessions."}}, status_code=503)
                await response(scope, receive, send)
                return
        await self.manager.handle_request(scope, receive, send)

    # -- per-session life ---------------------------------------------------------------------
    @contextlib.asynccontextmanager
    async def _session_lifespan(self, _: Server) -> AsyncIterator[_McpSession]:
        state = _McpSession(None)
        state.session = self.server.sessions.open("mcp", expire=self._expirer(state))
        try:
            yield state
        finally:
            await self._close(state)

    def _transports(self) -> dict[str, Any]:
        # the pinned mcp==1.26.0 keeps each session's transport here (no public accessor)
        return self.manager._server_instances  # noqa: SLF001

    def _expirer(self, state: _McpSession) -> Any:
        async def expire(_: Session) -> None:
            transport = self._transports().get(state.transport_id or "")
            if transport is not None:
                await transport.terminate()  # ends the session's run(): lifespan exit closes it
            else:
                await self._close(state)
        return expire

    async def _close(self, state: _McpSession) -> None:
        if state.slot is not None:
            opening, state.slot = state.slot, None
            slot = await opening
            await self.server.jobs.submit_call(slot.conn.close)
        if state.session is not None:
            self.server.sessions.release(state.session)
        transport = self._transports().get(state.transport_id or "")
        if transport is not None and transport.is_terminated:
            # the SDK keeps terminated transports forever (a leak in a long-running server);
            # later requests with this id then get 404 "Session not found", as MCP specifies
            del self._transports()[state.transport_id]

    def _state(self) -> _McpSession:
        context = self.mcp_server.request_context
        state: _McpSession = context.lifespan_context
        if state.transport_id is None and context.request is not None:
            state.transport_id = context.request.headers.get(MCP_SESSION_ID_HEADER)
        return state

    # -- handlers -----------------------------------------------------------------------------
    async def _list_tools(self) -> list[types.Tool]:
        state = self._state()
        if state.session is not None:
            state.session.touch()
        return self.tools

    async def _call_tool(self, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        state = self._state()
        session = state.session
        if session is None or session.expired:
            reason = ("it was idle longer than the server's --idle-timeout" if session else
                      "the server was at capacity when it started")
            return _error_result(f"This MCP session has no database: {reason}. Start a new "
                                 "MCP session.")
        host = self.server.host
        if not host.has_tool(name):
            return _error_result(f"Unknown tool: {name}")  # fastapi_mcp's words
        session.begin()
        try:
            if state.slot is None:
                state.slot = self.server.jobs.submit_call(self._open_database)
            slot = await asyncio.shield(state.slot)
            result = await self.server.jobs.submit_call(
                host.call, slot, name, arguments, self.server.config.env.tool_timeout_s)
        finally:
            session.end()
        return types.CallToolResult(content=[types.TextContent(type="text", text=result.text)],
                                    isError=result.is_error)

    def _open_database(self) -> DatabaseSlot:
        # the session's own clock, from the world's base time, one step per tool call
        return self.server.prepared.open_slot(self.server.config.env.clock_step_s)


def _error_result(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                isError=True)
