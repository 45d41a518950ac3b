"""The session protocol's wire format: message types, error codes, and the checks on each message.

One WebSocket connection is one session bound to one instance of the served world. Every frame
is a JSON object in a text frame. The client sends requests; the server answers each with exactly
one reply that echoes the request's ``type`` and ``id``, or with an ``error`` frame carrying the
``id`` too, so a client can always match a reply to its request (OpenEnv's ``/ws`` carries no id,
and a client that timed out read the previous answer for every later call: issue #1143 there)::

    server -> {"type": "session", "id": null, "data": {"session_id", "protocol", "world", ...}}
    client -> {"type": "reset", "id": 1, "data": {"seed": 3, "task_idx": 0}}
    server -> {"type": "reset", "id": 1, "data": {"observation": "...", "info": {...}}}
    client -> {"type": "step", "id": 2, "data": {"action": "<tool_call>...</tool_call>"}}
    server -> {"type": "step", "id": 2, "data": {"observation", "reward", "terminated",
                                                  "truncated", "info"}}
    client -> {"type": "state", "id": 3}            (episode bookkeeping, no side effect)
    client -> {"type": "tools", "id": 4}            (the tools and the list_tools text)
    client -> {"type": "close", "id": 5}            (reply, then the server closes the socket)
    server -> {"type": "error", "id": 2, "data": {"code": "VALIDATION_ERROR", "message": "..."}}

A bad message is answered with an ``error`` frame and the session goes on; only a refused session
(``CAPACITY_REACHED``), an idle one (``SESSION_EXPIRED``) or a frame over the hard size limit ends
the connection. A malformed *action* is not a protocol error: it is an observation with reward
-1.0, as in-process.

Example:
    >>> request = parse_request('{"type": "step", "id": 7, "data": {"action": "hi"}}', 1024)
    >>> request.type, request.id, step_action(request)
    (<MessageType.STEP: 'step'>, 7, 'hi')
    >>> try:
    ...     parse_request('{"type": "jump"}', 1024)
    ... except ProtocolError as e:
    ...     print(e.code.value, "|", e.message)
    UNKNOWN_TYPE | unknown message type 'jump'; valid: 'reset', 'step', 'state', 'tools', 'close'.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

__all__ = [
    "PROTOCOL_VERSION", "MessageType", "ErrorCode", "Request", "ProtocolError", "parse_request",
    "reset_arguments", "step_action", "encode_frame", "error_frame", "CLOSE_CODES",
    "SESSION_FRAME", "ERROR_FRAME",
]

PROTOCOL_VERSION = 1
"""Bumped when a message changes shape; the client checks it against the ``session`` frame."""

_MAX_ID_LENGTH = 128


class MessageType(StrEnum):
    """Requests a client may send; replies carry the same type (``session``/``error`` are the
    server's own frames)."""

    RESET = "reset"
    STEP = "step"
    STATE = "state"
    TOOLS = "tools"
    CLOSE = "close"


SESSION_FRAME = "session"
ERROR_FRAME = "error"


class ErrorCode(StrEnum):
    """The ``code`` of an ``error`` frame."""

    INVALID_JSON = "INVALID_JSON"
    """The frame is not valid JSON (or not UTF-8)."""
    INVALID_MESSAGE = "INVALID_MESSAGE"
    """Valid JSON, but not an object with a string ``type``, an optional ``id`` and ``data``."""
    UNKNOWN_TYPE = "UNKNOWN_TYPE"
    """``type`` is not one of :class:`MessageType`."""
    VALIDATION_ERROR = "VALIDATION_ERROR"
    """A field of ``data`` is missing, unknown, of the wrong type or out of range."""
    EPISODE_NOT_ACTIVE = "EPISODE_NOT_ACTIVE"
    """``step`` before the first ``reset`` or after the episode ended (autoreset is disabled)."""
    MESSAGE_TOO_LARGE = "MESSAGE_TOO_LARGE"
    """The frame is longer than the server's ``max_message_bytes``."""
    CAPACITY_REACHED = "CAPACITY_REACHED"
    """The server already holds ``max_sessions`` sessions; the connection is closed."""
    SESSION_EXPIRED = "SESSION_EXPIRED"
    """The session was idle longer than ``idle_timeout_s`` and was reaped; the connection is
    closed."""
    INTERNAL_ERROR = "INTERNAL_ERROR"
    """A fault of the server itself (a bug); the session goes on."""


CLOSE_CODES = {ErrorCode.CAPACITY_REACHED: 1013, ErrorCode.SESSION_EXPIRED: 4408}
"""WebSocket close codes the server uses after these errors (1013: try again later)."""


class ProtocolError(Exception):
    """A request the server answers with an ``error`` frame.

    Attributes:
        code: the :class:`ErrorCode`.
        message: what was wrong and how to fix it.
        request_id: the request's ``id`` when it could be read.
    """

    def __init__(self, code: ErrorCode, message: str, request_id: Any = None) -> None:
        super().__init__(f"{code.value}: {message}")
        self.code, self.message, self.request_id = code, message, request_id


@dataclass(frozen=True, slots=True)
class Request:
    """One parsed client frame."""

    type: MessageType
    id: str | int | None
    data: dict[str, Any]


def parse_request(frame: str | bytes, max_bytes: int) -> Request:
    """Check one client frame and return it as a :class:`Request`.

    Raises:
        ProtocolError: with the code that names what is wrong.
    """
    size = len(frame.encode("utf-8")) if isinstance(frame, str) else len(frame)
    if size > max_bytes:
        raise ProtocolError(ErrorCode.MESSAGE_TOO_LARGE,
                            f"the message has {size} bytes; this server accepts at most "
                            f"{max_bytes} (its --max-message-bytes). Send a shorter action.")
    try:
        message = json.loads(frame)
    except (ValueError, RecursionError) as e:  # UnicodeDecodeError is a ValueError
        raise ProtocolError(ErrorCode.INVALID_JSON, f"the message is not valid JSON ({e}); send "
                            'one JSON object per text frame, e.g. {"type": "state", "id": 1}.'
                            ) from None
    if not isinstance(message, dict):
        raise ProtocolError(ErrorCode.INVALID_MESSAGE, "the message must be a JSON object with "
                            f"'type', 'id' and 'data'; got a JSON {type(message).__name__}.")
    request_id = message.get("id")
    if isinstance(request_id, bool) or not (request_id is None
                                            or isinstance(request_id, (int, str))):
        raise ProtocolError(ErrorCode.INVALID_MESSAGE, "'id' must be a string, an integer or "
                            f"null; got {type(request_id).__name__}.")
    if isinstance(request_id, str) and len(request_id) > _MAX_ID_LENGTH:
        raise ProtocolError(ErrorCode.INVALID_MESSAGE, f"'id' has {len(request_id)} characters; "
                            f"use at most {_MAX_ID_LENGTH}.")
    unknown = sorted(set(message) - {"type", "id", "data"})
    if unknown:
        raise ProtocolError(ErrorCode.INVALID_MESSAGE, f"unknown top-level keys {unknown}; a "
                            "message has only 'type', 'id' and 'data'.", request_id)
    kind = message.get("type")
    valid = ", ".join(repr(t.value) for t in MessageType)
    if not isinstance(kind, str):
        raise ProtocolError(ErrorCode.INVALID_MESSAGE, f"'type' must be a string, one of {valid}.",
                            request_id)
    try:
        message_type = MessageType(kind)
    except ValueError:
        raise ProtocolError(ErrorCode.UNKNOWN_TYPE, f"unknown message type {kind!r}; valid: "
                            f"{valid}.", request_id) from None
    data = message.get("data")
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ProtocolError(ErrorCode.INVALID_MESSAGE, f"'data' must be a JSON object; got "
                            f"{type(data).__name__}.", request_id)
    return Request(message_type, request_id, data)


def _check_keys(request: Request, allowed: tuple[str, ...]) -> None:
    unknown = sorted(set(request.data) - set(allowed))
    if unknown:
        raise ProtocolError(ErrorCode.VALIDATION_ERROR, f"unknown field(s) {unknown} in "
                            f"{request.type.value}.data; valid: {', '.join(allowed) or 'none'}.",
                            request.id)


def _optional_index(request: Request, key: str) -> int | None:
    value = request.data.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ProtocolError(ErrorCode.VALIDATION_ERROR, f"{request.type.value}.data.{key} must "
                            f"be a non-negative integer or null; got {value!r}.", request.id)
    return value


def reset_arguments(request: Request) -> tuple[int | None, int | None]:
    """``(seed, task_idx)`` of a ``reset`` request (each may be null)."""
    _check_keys(request, ("seed", "task_idx"))
    return _optional_index(request, "seed"), _optional_index(request, "task_idx")


def step_action(request: Request) -> str:
    """The action text of a ``step`` request."""
    _check_keys(request, ("action",))
    action = request.data.get("action")
    if not isinstance(action, str):
        raise ProtocolError(ErrorCode.VALIDATION_ERROR, "step.data.action must be a string (the "
                            f"model's raw output); got {type(action).__name__}.", request.id)
    return action


def _jsonable(value: Any) -> Any:
    """Fallback for values ``json`` cannot write (numpy scalars, bytes, sets...)."""
    for method in ("tolist", "item"):  # numpy arrays, then numpy scalars
        convert = getattr(value, method, None)
        if callable(convert):
            return convert()
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    return str(value)


def encode_frame(kind: str, request_id: Any, data: Any = None) -> str:
    """One frame as JSON text (non-finite floats become null, so every client can parse it)."""
    try:
        return json.dumps({"type": kind, "id": request_id, "data": data}, ensure_ascii=False,
                          allow_nan=False, default=_jsonable)
    except ValueError:  # NaN/inf somewhere in the payload
        return json.dumps({"type": kind, "id": request_id, "data": _finite(data)},
                          ensure_ascii=False, default=_jsonable)


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def error_frame(code: ErrorCode, message: str, request_id: Any = None) -> str:
    """An ``error`` frame."""
    return encode_frame(ERROR_FRAME, request_id, {"code": code.value, "message": message})
