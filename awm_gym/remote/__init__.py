"""Use worlds served by another process (``awm env start``) through the same Gymnasium API.

``gym.make("AWM/remote-v0", url=...)`` gives a :class:`RemoteEnv`, ``gym.make_vec("AWM/remote-v0",
num_envs=N, url=...)`` a :class:`RemoteVectorEnv` over N sessions; :class:`SessionClient` is one
session of the wire protocol, :func:`list_mcp_tools` lists an MCP server's tools.

Example:
    >>> import gymnasium as gym, awm_gym
    >>> gym.spec("AWM/remote-v0").vector_entry_point
    'awm_gym.remote:RemoteVectorEnv'
"""

from __future__ import annotations

from awm_gym.lazy_exports import lazy_exports
from awm_gym.remote.client import (
    RemoteError,
    SessionClient,
    SessionInfo,
    SessionLostError,
    mcp_url,
    session_url,
)
from awm_gym.remote.mcp_check import list_mcp_tools

__all__ = ["RemoteEnv", "RemoteVectorEnv", "RemoteRuntime", "SessionClient", "SessionInfo",
           "RemoteError", "SessionLostError", "list_mcp_tools", "session_url", "mcp_url"]

# the env stack (runtime, SQLAlchemy) loads with the first env, not with `awm env check`
__getattr__ = lazy_exports(__name__, {"env": ("RemoteEnv", "RemoteVectorEnv"),
                                      "runtime": ("RemoteRuntime",)})
