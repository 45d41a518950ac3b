"""What a world server and its clients agree on over the network: the session protocol and auth.

:mod:`awm_gym.server` speaks it, :mod:`awm_gym.remote` (and any other client) reads it, so it
lives below both and imports neither:

- :mod:`~awm_gym.wire.protocol`: the ``/ws`` session frames (message types, error codes, the
  checks on each request, :data:`PROTOCOL_VERSION`).
- :mod:`~awm_gym.wire.auth`: the shared-secret token (the header a client sends, the gate a
  server puts in front of its routes, the environment variable the CLI reads it from).

The pipe between a shard worker and its caller in this process tree is another channel, internal
to the envs: :mod:`awm_gym.envs.wire`.

Example:
    >>> from awm_gym.wire import auth_headers, encode_frame
    >>> auth_headers("s3cret")
    {'Authorization': 'Bearer s3cret'}
    >>> encode_frame("step", 2, {"reward": 1.0})
    '{"type": "step", "id": 2, "data": {"reward": 1.0}}'
"""

from __future__ import annotations

from awm_gym.wire.auth import AUTH_TOKEN_ENV, OPEN_PATHS, TokenGate, auth_headers
from awm_gym.wire.protocol import (
    CLOSE_CODES,
    ERROR_FRAME,
    PROTOCOL_VERSION,
    SESSION_FRAME,
    ErrorCode,
    MessageType,
    ProtocolError,
    Request,
    encode_frame,
    error_frame,
    parse_request,
    reset_arguments,
    step_action,
)

__all__ = ["AUTH_TOKEN_ENV", "OPEN_PATHS", "TokenGate", "auth_headers", "CLOSE_CODES",
           "ERROR_FRAME", "PROTOCOL_VERSION", "SESSION_FRAME", "ErrorCode", "MessageType",
           "ProtocolError", "Request", "encode_frame", "error_frame", "parse_request",
           "reset_arguments", "step_action"]
