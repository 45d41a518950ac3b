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

from awm_gym.lazy_exports import lazy_exports
from awm_gym.server.config import ServerConfig
from awm_gym.server.registry import register_server
from awm_gym.wire.protocol import PROTOCOL_VERSION, ErrorCode, MessageType

__all__ = ["ServerConfig", "serve", "WorldServer", "ServerProcess", "register_server",
           "PROTOCOL_VERSION", "ErrorCode", "MessageType"]

# uvicorn, starlette and the world load only when a server is made
__getattr__ = lazy_exports(__name__, {"runner": ("serve",), "app": ("WorldServer",),
                                      "process": ("ServerProcess",)})
