"""A shared-secret gate in front of every route a client acts through (``/mcp``, ``/ws``, and any
route mounted beside them); ``/health`` stays open for liveness probes.

A client presents the token as ``Authorization: Bearer <token>`` (or ``X-AWM-Token: <token>``);
it is compared in constant time. A refused HTTP request gets 401 with a JSON body naming the
header; a refused WebSocket handshake is answered 403 before the connection opens.

Example:
    >>> gate = TokenGate(app=None, token="s3cret")
    >>> gate.allows({"headers": [(b"authorization", b"Bearer s3cret")]})
    True
    >>> gate.allows({"headers": [(b"authorization", b"Bearer guess")]})
    False
"""

from __future__ import annotations

import hmac
import json
from typing import Any

__all__ = ["AUTH_TOKEN_ENV", "OPEN_PATHS", "TokenGate", "auth_headers"]

AUTH_TOKEN_ENV = "AWM_GYM_AUTH_TOKEN"
"""The environment variable ``awm env start`` and ``awm env check`` read the token from."""

OPEN_PATHS = frozenset({"/health"})
"""Routes answered without the token."""


def auth_headers(token: str | None) -> dict[str, str]:
    """The request headers a client sends for ``token`` ({} without one)."""
    return {"Authorization": f"Bearer {token}"} if token else {}


class TokenGate:
    """ASGI middleware: requests without the right token never reach ``app``."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self._token = token.encode()

    def allows(self, scope: dict[str, Any]) -> bool:
        """Whether ``scope``'s headers carry the token."""
        presented = b""
        for name, value in scope.get("headers", []):
            if name == b"authorization" and value[:7].lower() == b"bearer ":
                presented = value[7:].strip()
            elif name == b"x-awm-token":
                presented = value.strip()
        return hmac.compare_digest(presented, self._token)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if (scope["type"] not in ("http", "websocket") or scope.get("path") in OPEN_PATHS
                or self.allows(scope)):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})  # before accept: HTTP 403
            return
        body = json.dumps({"error": "unauthorized", "message": "this server needs a token: send "
                           "'Authorization: Bearer <token>' (awm env start --auth-token)."})
        await send({"type": "http.response.start", "status": 401,
                    "headers": [(b"content-type", b"application/json"),
                                (b"www-authenticate", b"Bearer")]})
        await send({"type": "http.response.body", "body": body.encode()})
