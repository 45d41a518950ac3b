"""Configuration of a world server: what it serves, where, and its limits.

Example:
    >>> ServerConfig(world="spotify").max_sessions
    128
    >>> ServerConfig(world="spotify", port=70000)
    Traceback (most recent call last):
    ...
    ValueError: ServerConfig.port=70000: use 0 (any free port) to 65535.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from awm_gym.envs.config import EnvConfig

__all__ = ["ServerConfig", "LOOPBACK_HOSTS", "PROTOCOLS"]

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
PROTOCOLS = ("awm", "openenv")


@dataclass(frozen=True)
class ServerConfig:
    """How ``awm env start`` serves one world (the episode rules live in ``env``)."""

    world: str
    """The world to serve (a name from the world set, e.g. ``spotify``)."""
    worlds_dir: str | None = None
    """The world set directory (AWM format); None serves the built-in worlds."""
    host: str = "127.0.0.1"
    """Interface to listen on. The default accepts only local clients; 0.0.0.0 exposes the
    world's generated code to the network (it is untrusted code: bind it to a trusted network)."""
    port: int = 8001
    """TCP port; 0 picks a free one (the chosen address is printed when the server is ready)."""
    max_sessions: int = 128
    """Concurrent sessions (WebSocket and MCP together); more are refused with
    ``CAPACITY_REACHED`` (WebSocket) or HTTP 503 (MCP)."""
    max_sessions_per_client: int = 0
    """The most sessions one remote address may hold at once (0: no per-client limit). Behind a
    proxy every client has the proxy's address: leave it 0 there."""
    max_request_bytes: int = 4 * 1024 * 1024
    """Largest HTTP request body (``/mcp``); a larger one gets 413 before it is read (by its
    Content-Length) or as soon as it passes the limit (chunked)."""
    idle_timeout_s: float = 300.0
    """Sessions idle this long are reaped and their instance freed; 0 never reaps."""
    max_message_bytes: int = 4 * 1024 * 1024
    """Largest WebSocket request answered; a longer one gets ``MESSAGE_TOO_LARGE`` and the
    session goes on. Frames over twice this size close the connection (code 1009) unread."""
    auth_token: str | None = field(default=None, repr=False)
    """A shared secret every client must send (``Authorization: Bearer <token>``) on /mcp and
    /ws; /health stays open. The CLI also reads it from ``$AWM_GYM_AUTH_TOKEN``. Binding a
    non-loopback host without one prints a warning."""
    protocol: Literal["awm", "openenv"] = "awm"
    """What the server speaks. 'awm': MCP at /mcp and our session protocol at /ws (request ids,
    typed errors, batched steps; ``gym.make("AWM/remote-v0", url=...)``). 'openenv': OpenEnv's
    own server (openenv-core's ``create_app``: /reset, /step, /state, /schema, /metadata, /ws)
    for OpenEnv clients, TRL and Spaces; needs ``pip install "awm-gym[openenv]"``."""
    env: EnvConfig = field(default_factory=EnvConfig)
    """Episode limits, timeouts and rewards of every session (as ``gym.make`` keyword args)."""

    def __post_init__(self) -> None:
        if not isinstance(self.world, str) or not self.world:
            raise ValueError(f"ServerConfig.world={self.world!r}: name the world to serve, e.g. "
                             "world='spotify' (`awm list` shows them).")
        if not 0 <= self.port <= 65535:
            raise ValueError(f"ServerConfig.port={self.port}: use 0 (any free port) to 65535.")
        if self.protocol not in PROTOCOLS:
            raise ValueError(f"ServerConfig.protocol={self.protocol!r}: choose one of "
                             f"{', '.join(map(repr, PROTOCOLS))}.")
        if self.max_sessions < 1:
            raise ValueError(f"ServerConfig.max_sessions={self.max_sessions}: must be >= 1.")
        if self.max_sessions_per_client < 0:
            raise ValueError(f"ServerConfig.max_sessions_per_client={self.max_sessions_per_client}"
                             ": must be >= 0 (0 = no per-client limit).")
        if self.max_request_bytes < 1024:
            raise ValueError(f"ServerConfig.max_request_bytes={self.max_request_bytes}: must be "
                             ">= 1024 so that ordinary requests fit.")
        if not self.idle_timeout_s >= 0:
            raise ValueError(f"ServerConfig.idle_timeout_s={self.idle_timeout_s}: must be >= 0 "
                             "seconds (0 never reaps idle sessions).")
        if self.auth_token is not None and len(self.auth_token) < 16:
            raise ValueError("ServerConfig.auth_token: use at least 16 characters (e.g. "
                             "`python -c 'import secrets; print(secrets.token_urlsafe())'`).")
        if self.max_message_bytes < 1024:
            raise ValueError(f"ServerConfig.max_message_bytes={self.max_message_bytes}: must be "
                             ">= 1024 so that ordinary actions fit.")

    @property
    def is_loopback(self) -> bool:
        """Whether only this machine can connect (then Host/Origin headers are checked too)."""
        return self.host in LOOPBACK_HOSTS

    @property
    def hard_message_bytes(self) -> int:
        """Frames larger than this close the connection without being read."""
        return 2 * self.max_message_bytes
