"""Serve a world over the network: an MCP endpoint and a session server (``awm env start``).

Agents outside this process use the world the way they would use AWM's ``awm env start``:

- ``/mcp``: the world's tools over MCP (Streamable HTTP, official ``mcp`` SDK), with the same
  names, descriptions, schemas and result texts a model sees in-process; one database per MCP
  session.
- ``/ws``: sessions for trainers in OpenEnv's shape (``reset``/``step``/``state``/``close`` with
  request ids, typed errors, a capacity limit, idle reaping); ``gym.make("AWM/remote-v0",
  url=...)`` is its Gymnasium client.

See docs/server.md for the protocol, the threading model and the limits.

Example:
    >>> from awm_gym.server import ServerConfig
    >>> ServerConfig(world="spotify", port=0).is_loopback
    True
"""

from __future__ import annotations

from awm_gym.server.config import ServerConfig
from awm_gym.server.protocol import PROTOCOL_VERSION, ErrorCode, MessageType

__all__ = ["ServerConfig", "serve", "WorldServer", "ServerProcess", "PROTOCOL_VERSION",
           "ErrorCode", "MessageType"]


def __getattr__(name: str):  # noqa: ANN202 - PEP 562: uvicorn and the world load only when used
    if name == "serve":
        from awm_gym.server.runner import serve

        return serve
    if name == "WorldServer":
        from awm_gym.server.app import WorldServer

        return WorldServer
    if name == "ServerProcess":
        from awm_gym.server.process import ServerProcess

        return ServerProcess
    raise AttributeError(f"module 'awm_gym.server' has no attribute {name!r}")
