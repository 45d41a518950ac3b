"""The MCP endpoint (``/mcp``): the world's tools over Streamable HTTP, one database per session.

Built on the official ``mcp`` SDK (the low-level ``Server`` and its
``StreamableHTTPSessionManager``, stateful mode), which is what AWM's ``awm env start`` serves
through fastapi_mcp. What a client sees is what a model sees in-process: ``tools/list`` returns
the runtime's catalogue (same names, descriptions and input schemas), and ``tools/call`` runs
:meth:`awm_gym.tools.host.ToolHost.call`, the in-process dispatch, so results and errors carry the
same text and ``isError`` flag (an unknown tool reads ``Unknown tool: <name>``, as fastapi_mcp
says it). The call runs where the server's runtime runs world code: in this process for the
built-in worlds, in a contained worker for a world set from disk
(:meth:`~awm_gym.envs.shards.ShardedRuntime.call_tool`; a call that ends or hangs its worker
gets an error result and the session's database is rebuilt without it).

Each MCP session gets its own in-memory copy of the world's initial database (the runtime's
*tool session* keyed by the session's slot), opened on its first tool call and closed when the
session ends (the client's DELETE, reaping, or server shutdown). The SDK's per-session
``lifespan`` hook marks both ends.

Nothing can squat the table (issue 17, item 3). A session exists only after a valid
``initialize``: a request without a session id that is anything else (invalid JSON, another
method, wrong headers) gets 400 and holds nothing. For a valid one the slot is taken here, before
the SDK creates its transport, in the same event-loop step as the capacity check (so capacity is
exact across MCP and WebSocket sessions), and handed to the session's lifespan; if the SDK
refuses the request anyway, the session is ended at once. Bodies over ``max_request_bytes`` get
413 unread, and ``max_sessions_per_client`` caps one remote address.

mcp 1.26 runs the server's lifespan once per session; mcp 2 runs it once for the whole manager.
So the session state is also kept by session id (:attr:`McpEndpoint.by_id`): handlers find it
there first, and on mcp 2 it is created when the ``initialize`` answer names the new session id and
closed by the client's DELETE or the reaper (a crashed session is reaped when idle).
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from mcp import types
from mcp.server.streamable_http import MCP_SESSION_ID_HEADER
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.datastructures import Headers
from starlette.requests import Request

from awm_gym.server.http_limits import accepts_mcp, is_initialize, jsonrpc_error, read_body, replay
from awm_gym.server.sessions import Session
from awm_gym.tools.mcp_compat import MCP_MAJOR, build_tool_server

logger = logging.getLogger(__name__)

_PER_SESSION_LIFESPAN = MCP_MAJOR < 2
"""mcp 1.x enters the server's lifespan once per session (our hook for both ends of a session);
mcp 2 once per session manager, so there sessions are tracked by id instead."""

__all__ = ["McpEndpoint"]


@dataclass(eq=False)
class _McpSession:
    """One MCP session's state: its table entry, database and transport id."""

    session: Session | None
    has_database: bool = False
    """Whether a tool call opened the session's database in the runtime (closed at the end)."""
    closed: bool = False
    """Set once the session ended: its slot may already serve another session."""
    transport_id: str | None = None


@dataclass(eq=False)
class _Reservation:
    """A slot taken for an ``initialize`` request, claimed by the session the SDK starts for it."""

    session: Session
    state: _McpSession | None = None


_RESERVATION: contextvars.ContextVar[_Reservation | None] = contextvars.ContextVar(
    "awm_mcp_reservation", default=None)
"""The reservation of the request being handled. The SDK starts a session's task from the
request's task, and asyncio copies the context into it, so the session's lifespan sees it."""


class McpEndpoint:
    """The ``/mcp`` ASGI app; ``server`` is the :class:`~awm_gym.server.app.WorldServer`.

    Enter :meth:`run` in the application's lifespan.
    """

    def __init__(self, server: Any) -> None:
        self.server = server
        self.tools = [types.Tool(name=t["name"], description=t["description"],
                                 inputSchema=t["inputSchema"]) for t in server.tools]
        # The runtime checks arguments against the schema itself (the same text as mcp's check)
        mcp_server = build_tool_server(server.app_title, version=server.version,
                                       lifespan=self._session_lifespan,
                                       list_tools=self._list_tools, call_tool=self._call_tool)
        self.mcp_server = mcp_server
        self.by_id: dict[str, _McpSession] = {}
        """Open sessions by MCP session id."""
        self.manager = StreamableHTTPSessionManager(
            app=mcp_server, stateless=False, security_settings=server.transport_security)

    def run(self) -> contextlib.AbstractAsyncContextManager[None]:
        """The session manager's task group; enter it in the app's lifespan."""
        return self.manager.run()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST":
            await self.manager.handle_request(scope, receive, send)
            if scope.get("method") == "DELETE" and not _PER_SESSION_LIFESPAN:
                state = self.by_id.get(Headers(scope=scope).get(MCP_SESSION_ID_HEADER, ""))
                transport = self._transports().get(state.transport_id or "") if state else None
                if state is not None and (transport is None or transport.is_terminated):
                    await self._close(state)
            return
        limit = self.server.config.max_request_bytes
        body = await read_body(scope, receive, limit)
        if body is None:
            await jsonrpc_error(413, f"the request body is larger than {limit} bytes (the "
                                "server's --max-request-bytes)")(scope, receive, send)
            return
        receive = replay(body, receive)
        if MCP_SESSION_ID_HEADER in Headers(scope=scope):
            await self.manager.handle_request(scope, receive, send)
        else:
            await self._initialize(scope, receive, send, body)

    async def _initialize(self, scope: Any, receive: Any, send: Any, body: bytes) -> None:
        """A request without a session id: only a valid ``initialize`` opens a session, and its
        slot is taken here, atomically, before the SDK creates anything."""
        request = Request(scope, receive)
        refusal = await self.server.refuse_post(request)
        if refusal is not None:  # DNS rebinding / cross-site page: the SDK's own answer
            await refusal(scope, receive, send)
            return
        if not accepts_mcp(request.headers) or not is_initialize(body):
            await jsonrpc_error(400, "a request without an mcp-session-id header must be an MCP "
                                "`initialize` request (JSON-RPC 2.0 with protocolVersion, "
                                "capabilities and clientInfo; Content-Type: application/json; "
                                "Accept: application/json, text/event-stream)")(
                scope, receive, send)
            return
        table = self.server.sessions
        client = scope["client"][0] if scope.get("client") else None
        session = table.open("mcp", client=client)
        if session is None:
            await self._refuse(scope, receive, send, table.client_is_full(client))
            return
        reservation = _Reservation(session)
        token = _RESERVATION.set(reservation)
        status: dict[str, Any] = {}

        async def watched_send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
                session_id = Headers(raw=message.get("headers", [])).get(MCP_SESSION_ID_HEADER)
                if (session_id and reservation.state is None and status["code"] < 400
                        and not _PER_SESSION_LIFESPAN):
                    self._adopt(reservation, session_id)
            await send(message)
        try:
            await self.manager.handle_request(scope, receive, watched_send)
        finally:
            _RESERVATION.reset(token)
            if reservation.state is None:  # the SDK started no session: give the slot back
                table.release(session)
            elif status.get("code", 500) >= 400:  # it started one and then refused the request
                await self._end(reservation.state)

    async def _refuse(self, scope: Any, receive: Any, send: Any, per_client: bool) -> None:
        config = self.server.config
        if per_client:
            message = (f"CAPACITY_REACHED: this client already holds "
                       f"{config.max_sessions_per_client} sessions (the server's "
                       "--max-sessions-per-client); close one and retry.")
        else:
            message = (f"CAPACITY_REACHED: this server already holds {config.max_sessions} "
                       "sessions (its --max-sessions); retry later or start it with a larger "
                       "--max-sessions.")
        await jsonrpc_error(503, message, code=-32000)(scope, receive, send)

    # -- per-session life ---------------------------------------------------------------------
    @contextlib.asynccontextmanager
    async def _session_lifespan(self, _: Any) -> AsyncIterator[_McpSession]:
        reservation = _RESERVATION.get()  # set by _initialize in the request that started us
        state = _McpSession(None)
        if reservation is not None and reservation.state is None:
            reservation.state = state
            state.session = reservation.session
            state.session.expire = self._expirer(state)
        try:
            yield state
        finally:
            await self._close(state)

    def _adopt(self, reservation: _Reservation, session_id: str) -> None:
        """The state of a session the SDK opened under ``session_id`` (mcp 2)."""
        state = _McpSession(reservation.session, transport_id=session_id)
        reservation.state = state
        state.session.expire = self._expirer(state)
        self.by_id[session_id] = state

    async def _end(self, state: _McpSession) -> None:
        """End a session now (its transport, database and slot)."""
        transport = self._transports().get(state.transport_id or "")
        if transport is not None:
            await transport.terminate()
        await self._close(state)

    def _transports(self) -> dict[str, Any]:
        # mcp 1.26 and 2.x keep each session's transport here (no public accessor)
        return self.manager._server_instances  # noqa: SLF001

    def _expirer(self, state: _McpSession) -> Any:
        async def expire(_: Session) -> None:
            transport = self._transports().get(state.transport_id or "")
            if transport is not None:
                await transport.terminate()  # ends the session's run() (mcp 1: its lifespan
                if _PER_SESSION_LIFESPAN:     # exit then closes it)
                    return
            await self._close(state)
        return expire

    async def _close(self, state: _McpSession) -> None:
        state.closed = True
        if state.has_database and state.session is not None:
            state.has_database = False
            await self.server.jobs.submit_call(self.server.runtime.end_tool_session,
                                               state.session.slot)
        if state.session is not None:
            self.server.sessions.release(state.session)
        if state.transport_id is not None and self.by_id.get(state.transport_id) is state:
            del self.by_id[state.transport_id]
        transport = self._transports().get(state.transport_id or "")
        if transport is not None and transport.is_terminated:
            # the SDK keeps terminated transports forever (a leak in a long-running server);
            # later requests with this id then get 404 "Session not found", as MCP specifies
            del self._transports()[state.transport_id]

    def _state(self, context: Any) -> _McpSession:
        session_id = (context.request.headers.get(MCP_SESSION_ID_HEADER)
                      if context.request is not None else None)
        if not _PER_SESSION_LIFESPAN:
            return self.by_id.get(session_id or "") or _McpSession(None)
        state: _McpSession = context.lifespan_context  # the session's own lifespan state
        if state.transport_id is None and session_id:
            state.transport_id = session_id
        return state

    # -- handlers -----------------------------------------------------------------------------
    async def _list_tools(self, context: Any) -> list[types.Tool]:
        state = self._state(context)
        if state.session is not None:
            state.session.touch()
        return self.tools

    async def _call_tool(self, context: Any, name: str, arguments: dict[str, Any]
                         ) -> types.CallToolResult:
        state = self._state(context)
        session = state.session
        if session is None or session.expired or state.closed:
            reason = ("the server was at capacity when it started" if session is None else
                      "it was idle longer than the server's --idle-timeout" if session.expired
                      else "it has ended")
            return _error_result(f"This MCP session has no database: {reason}. Start a new "
                                 "MCP session.")
        server = self.server
        if name not in server.tool_names:
            return _error_result(f"Unknown tool: {name}")  # fastapi_mcp's words
        session.begin()
        try:
            state.has_database = True  # the session's own clock: one step per tool call
            text, is_error = await server.jobs.submit_call(
                server.runtime.call_tool, session.slot, server.world, name, arguments)
        finally:
            session.end()
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                    isError=is_error)


def _error_result(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                isError=True)
