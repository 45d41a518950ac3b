"""One session of a world server (``awm env start``), over its WebSocket protocol, synchronously.

:class:`SessionClient` opens ``/ws``, reads the server's ``session`` frame, and matches every reply
to its request by id: a reply that arrives after its request timed out is skipped, never taken
for the answer to a later request (the desynchronisation OpenEnv's client suffers, its issue
#1143). Requests can be pipelined across many clients (send on each, then receive on each),
which is how :class:`~awm_gym.remote.runtime.RemoteRuntime` steps N sessions at once.

Errors::

    RemoteError            the server refused a request (``code`` = the protocol's ErrorCode)
     +-- SessionLostError  the connection failed, was closed, timed out, or the session expired

Example:
    >>> session_url("http://127.0.0.1:8001/mcp")
    'ws://127.0.0.1:8001/ws'
    >>> mcp_url("http://127.0.0.1:8001")
    'http://127.0.0.1:8001/mcp'
"""

from __future__ import annotations

import contextlib
import json
import logging
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from awm_gym.boundary import best_effort
from awm_gym.errors import AWMGymError
from awm_gym.wire.auth import auth_headers
from awm_gym.wire.protocol import ERROR_FRAME, PROTOCOL_VERSION, SESSION_FRAME, encode_frame

logger = logging.getLogger(__name__)

__all__ = ["SessionClient", "SessionInfo", "RemoteError", "SessionLostError", "session_url",
           "mcp_url"]

_MAX_REPLY_BYTES = 256 * 1024 * 1024


class RemoteError(AWMGymError, RuntimeError):
    """A world server refused a request or could not be reached.

    Attributes:
        code: the protocol's error code (``CAPACITY_REACHED``, ...), or None for transport faults.
    """

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code


class SessionLostError(RemoteError):
    """The session is gone: connection refused/closed, reply timeout, or reaped as idle."""


def session_url(url: str) -> str:
    """The session endpoint for a server URL: ``http(s)://host:port[/...]`` or ``ws(s)://...``."""
    parts = urlsplit(url)
    scheme = {"http": "ws", "https": "wss", "ws": "ws", "wss": "wss"}.get(parts.scheme)
    if scheme is None or not parts.netloc:
        raise RemoteError(f"url={url!r}: give the server's address as printed by `awm env "
                          "start`, e.g. 'http://127.0.0.1:8001'.")
    return urlunsplit((scheme, parts.netloc, "/ws", "", ""))


def mcp_url(url: str) -> str:
    """The MCP endpoint for a server URL: the address ``awm env start`` prints
    (``http://127.0.0.1:8001``) gets ``/mcp`` appended; a URL ending in ``/mcp`` is kept.

    Raises:
        RemoteError: ``url`` is not an http(s) address.
    """
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise RemoteError(f"url={url!r}: give the server's address as printed by `awm env "
                          "start`, e.g. 'http://127.0.0.1:8001' (/mcp is appended).")
    path = parts.path.rstrip("/")
    if not path.endswith("/mcp"):
        path += "/mcp"
    return urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))


@dataclass(frozen=True)
class SessionInfo:
    """What the server says about a new session (its ``session`` frame)."""

    session_id: str
    world: str
    num_tasks: int
    env_config: dict[str, Any]
    max_message_bytes: int
    idle_timeout_s: float


class SessionClient:
    """One open session.

    Args:
        url: the server (``http://127.0.0.1:8001``) or its ``ws://.../ws`` endpoint.
        connect_timeout_s: limit for the connection and the ``session`` frame.
        message_timeout_s: limit for each reply; past it the session is closed (not reused).

    Raises:
        SessionLostError: the server cannot be reached.
        RemoteError: the server refused the session (``code='CAPACITY_REACHED'``) or speaks
            another protocol version.
    """

    info: SessionInfo
    url: str

    def __init__(self, url: str, *, connect_timeout_s: float = 10.0,
                 message_timeout_s: float = 300.0, auth_token: str | None = None) -> None:
        from websockets.exceptions import InvalidHandshake, InvalidURI
        from websockets.sync.client import connect

        self.url = session_url(url)
        self.message_timeout_s = message_timeout_s
        self._next_id = 0
        self._ws: Any = None
        self._stack = contextlib.ExitStack()  # websockets wants connect() used as a context
        try:
            self._ws = self._stack.enter_context(connect(
                self.url, open_timeout=connect_timeout_s, compression=None,
                additional_headers=auth_headers(auth_token),
                max_size=_MAX_REPLY_BYTES, close_timeout=2))
        except (OSError, TimeoutError, InvalidHandshake, InvalidURI) as e:
            raise SessionLostError(f"cannot open a session at {self.url}: {e}. Is `awm env "
                                   "start` running there?") from e
        hello = self._read(time.monotonic() + connect_timeout_s)
        if hello.get("type") == ERROR_FRAME:
            self.close()
            error = hello.get("data") or {}
            raise RemoteError(f"{self.url} refused the session: {error.get('message')}",
                              error.get("code"))
        data = hello.get("data") or {}
        if hello.get("type") != SESSION_FRAME or data.get("protocol") != PROTOCOL_VERSION:
            self.close()
            raise RemoteError(f"{self.url} speaks session protocol {data.get('protocol')!r}; "
                              f"this client speaks {PROTOCOL_VERSION}. Use the same awm-gym "
                              "version on both sides.")
        self.info = SessionInfo(data["session_id"], data["world"], int(data["num_tasks"]),
                                dict(data["env_config"]), int(data["max_message_bytes"]),
                                float(data["idle_timeout_s"]))

    def __repr__(self) -> str:
        state = "open" if self.is_open else "closed"
        return f"SessionClient({self.url}, {state})"

    @property
    def is_open(self) -> bool:
        return self._ws is not None

    def send(self, kind: str, data: dict[str, Any] | None = None) -> int:
        """Send one request; returns its id (pass it to :meth:`receive`)."""
        from websockets.exceptions import ConnectionClosed

        if self._ws is None:
            raise SessionLostError(f"the session at {self.url} is closed; open a new one.")
        self._next_id += 1
        try:
            self._ws.send(encode_frame(kind, self._next_id, data))
        except (ConnectionClosed, OSError) as e:
            raise self._lost(e) from e
        return self._next_id

    def receive(self, request_id: int) -> dict[str, Any]:
        """The ``data`` of the reply to ``request_id``.

        Raises:
            RemoteError: the server answered with an error frame (``code`` says which).
            SessionLostError: the connection broke, the reply timed out, or the session expired.
        """
        deadline = time.monotonic() + self.message_timeout_s
        while True:
            frame = self._read(deadline)
            kind, error = frame.get("type"), frame.get("data") or {}
            if frame.get("id") == request_id:
                if kind == ERROR_FRAME:
                    raise RemoteError(str(error.get("message")), error.get("code"))
                return frame.get("data") or {}
            if kind == ERROR_FRAME and frame.get("id") is None:  # unsolicited: the server ends us
                self._drop()
                raise SessionLostError(f"the server ended the session: {error.get('message')}",
                                       error.get("code"))
            logger.debug("skipping a stale reply (id %r) while waiting for %r",
                         frame.get("id"), request_id)

    def request(self, kind: str, data: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send one request and return its reply's ``data``."""
        return self.receive(self.send(kind, data))

    def _read(self, deadline: float) -> dict[str, Any]:
        from websockets.exceptions import ConnectionClosed

        if self._ws is None:
            raise SessionLostError(f"the session at {self.url} is closed; open a new one.")
        try:
            raw = self._ws.recv(timeout=max(0.0, deadline - time.monotonic()))
        except TimeoutError as e:
            self._drop()
            raise SessionLostError(f"no reply from {self.url} within {self.message_timeout_s:g} "
                                   "s; the session was closed (raise message_timeout_s for "
                                   "slow worlds).") from e
        except (ConnectionClosed, OSError) as e:
            raise self._lost(e) from e
        try:
            frame = json.loads(raw)
        except ValueError as e:
            self._drop()
            raise SessionLostError(f"{self.url} sent a frame that is not JSON: {e}") from e
        if not isinstance(frame, dict):
            self._drop()
            raise SessionLostError(f"{self.url} sent a frame that is not a JSON object.")
        return frame

    def _lost(self, error: BaseException) -> SessionLostError:
        """The error for a closed connection, with the server's last word when it sent one
        (an unsolicited error frame still queued, e.g. SESSION_EXPIRED)."""
        reason, code = f"the connection to {self.url} was lost: {error}", None
        # ends when nothing (more) is queued, or the socket is unusable: expected, not logged
        with best_effort("reading the server's last frames", log=None):
            while True:
                frame = json.loads(self._ws.recv(timeout=0))
                data = frame.get("data") if isinstance(frame, dict) else None
                if frame.get("type") == ERROR_FRAME and frame.get("id") is None and data:
                    reason = f"the server ended the session: {data.get('message')}"
                    code = data.get("code")
        self._drop()
        return SessionLostError(reason, code)

    def _drop(self) -> None:
        ws, self._ws = self._ws, None
        if ws is not None:
            with best_effort("closing a broken session socket", log=logger):
                self._stack.close()

    def close(self) -> None:
        """End the session politely (``close`` request), then the socket; safe to call twice."""
        if self._ws is None:
            return
        with best_effort("saying goodbye", log=None):  # the server may be gone already
            if getattr(self, "info", None) is not None:
                self._ws.send(encode_frame("close", None))
        self._drop()
