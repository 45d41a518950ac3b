"""Checks an HTTP request passes before it may cost the server anything: body size, and whether a
request without a session id is a well-formed MCP ``initialize`` (the only request that may open
a session).

Everything here runs on the event loop and reads at most ``limit`` bytes of a body.

Example:
    >>> is_initialize(b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": '
    ...               b'{"protocolVersion": "2025-06-18", "capabilities": {}, '
    ...               b'"clientInfo": {"name": "c", "version": "1"}}}')
    True
    >>> is_initialize(b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}'), is_initialize(b"[")
    (False, False)
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.responses import JSONResponse

__all__ = ["read_body", "replay", "is_initialize", "accepts_mcp", "jsonrpc_error"]

Receive = Callable[[], Awaitable[dict[str, Any]]]


async def read_body(scope: dict[str, Any], receive: Receive, limit: int) -> bytes | None:
    """The request body, or None as soon as it is known to exceed ``limit`` bytes (from its
    Content-Length before reading, else while reading: nothing past the limit is kept)."""
    for key, value in scope.get("headers", []):
        if key == b"content-length":
            try:
                if int(value) > limit:
                    return None
            except ValueError:
                return None
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return b"".join(chunks)
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def replay(body: bytes, receive: Receive) -> Receive:
    """An ASGI ``receive`` that hands the already read ``body`` over once, then passes on to the
    original ``receive`` (which reports the client's disconnect when it comes)."""
    sent = False

    async def replayed() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()
    return replayed


def is_initialize(body: bytes) -> bool:
    """Whether ``body`` is one JSON-RPC ``initialize`` request with the fields MCP requires."""
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):
        return False
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return False
    params = message.get("params")
    client = params.get("clientInfo") if isinstance(params, dict) else None
    return (message.get("method") == "initialize" and isinstance(message.get("id"), (int, str))
            and isinstance(params.get("protocolVersion"), str)
            and isinstance(params.get("capabilities"), dict)
            and isinstance(client, dict) and isinstance(client.get("name"), str)
            and isinstance(client.get("version"), str))


def accepts_mcp(headers: Any) -> bool:
    """Whether a POST names JSON as its content type and accepts both JSON and an event stream
    (what the SDK's transport requires before it answers 200)."""
    accept = [t.strip() for t in headers.get("accept", "").split(",")]
    content_type = headers.get("content-type", "")
    return (content_type.split(";")[0].strip().lower() == "application/json"
            and any(t.startswith("application/json") for t in accept)
            and any(t.startswith("text/event-stream") for t in accept))


def jsonrpc_error(status: int, message: str, code: int = -32600) -> JSONResponse:
    """A JSON-RPC error response (``id`` null: the request was not read as one)."""
    return JSONResponse({"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}},
                        status_code=status)
