"""Serve one world until stopped: uvicorn on a background thread, generated code on this one.

:func:`serve` is what ``awm env start`` calls. It binds the socket itself (so ``port=0`` works and
the address is known before anyone connects: no bind-then-close race), runs uvicorn's event loop
on a thread named ``awm-server-io``, and runs the :class:`~awm_gym.server.executor.RuntimeLoop`
on the calling thread, which should be the main thread: there ``SIGALRM`` can stop a tool call
that loops forever (see :mod:`awm_gym.server.executor`). SIGINT or SIGTERM stop the server
gracefully: uvicorn closes the connections, requests already running finish, then the runtime
closes. A second Ctrl-C stops at once.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from awm_gym.boundary import closing_on_error
from awm_gym.errors import AWMGymError
from awm_gym.server.config import ServerConfig
from awm_gym.server.registry import make_server

logger = logging.getLogger(__name__)

__all__ = ["serve", "bind_socket"]

_SHUTDOWN_GRACE_S = 5.0


def bind_socket(host: str, port: int) -> socket.socket:
    """A listening-ready TCP socket bound to ``host:port`` (``port=0``: a free port).

    Raises:
        OSError: the address is taken or invalid; the message says which and what to do.
    """
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
        sock = socket.socket(family, kind, proto)
    except OSError as e:
        raise OSError(f"cannot listen on {host}:{port}: {e}. Check --host.") from e
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as e:
        sock.close()
        raise OSError(f"cannot listen on {host}:{port}: {e.strerror or e}. Another server may "
                      "hold the port: stop it, or pass another --port (0 picks a free one).") from e
    return sock


def _url(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


@contextlib.contextmanager
def _stop_on_signals(stop: threading.Event) -> Iterator[None]:
    """SIGINT/SIGTERM set ``stop`` (a second SIGINT raises KeyboardInterrupt); main thread only."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_signal(signum: int, _: Any) -> None:
        if stop.is_set() and signum == signal.SIGINT:
            raise KeyboardInterrupt
        logger.warning("received %s: stopping the server", signal.Signals(signum).name)
        stop.set()

    saved = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, handler in saved.items():
            signal.signal(s, handler)


def serve(config: ServerConfig, *, on_ready: Callable[[str], None] | None = None,
          stop: threading.Event | None = None) -> None:
    """Serve ``config.world`` until SIGINT/SIGTERM (or ``stop`` is set).

    Args:
        config: what to serve and the limits.
        on_ready: called with the base URL (``http://host:port``) once the server accepts
            connections; the MCP endpoint is ``<url>/mcp`` and sessions are ``<url>/ws``
            (``protocol="openenv"``: OpenEnv's routes, ``/ws`` for its clients; that server is
            registered by ``import awm_gym.integrations.openenv``, see
            :mod:`awm_gym.server.registry`).
        stop: an event that stops the server when set (besides the signals).

    Call it on the main thread: elsewhere a tool call that loops in Python cannot be stopped
    (only SQL queries stay bounded), and a warning says so.

    Raises:
        UnknownWorldError: no such world in the world set.
        OSError: the address cannot be bound.
        AWMGymError: uvicorn failed to start, or no server is registered for
            ``config.protocol``.
    """
    import uvicorn

    if threading.current_thread() is not threading.main_thread():
        logger.warning("serve() is running off the main thread: tool timeouts then stop SQL "
                       "queries only, not Python code that loops; run the server as a process "
                       "(`awm env start`) to keep them.")
    if not config.is_loopback and not config.auth_token:
        logger.warning("serving %s on %s without an auth token: anyone who can reach this "
                       "address can run the world's code. Set --auth-token (or $AWM_GYM_AUTH_"
                       "TOKEN) and send it as 'Authorization: Bearer <token>'.", config.world,
                       config.host)
    stop = stop if stop is not None else threading.Event()
    sock = bind_socket(config.host, config.port)  # first: a taken port fails before any loading
    with closing_on_error(sock.close):
        server = make_server(config)
    try:
        uv = uvicorn.Server(uvicorn.Config(
            server.app, ws="websockets-sansio", ws_max_size=config.hard_message_bytes,
            ws_per_message_deflate=False, lifespan="on", log_level="warning",
            access_log=False, timeout_graceful_shutdown=_SHUTDOWN_GRACE_S))
        io = threading.Thread(target=uv.run, kwargs={"sockets": [sock]}, name="awm-server-io",
                              daemon=True)
        with _stop_on_signals(stop):
            io.start()
            while not uv.started and io.is_alive() and not stop.is_set():
                time.sleep(0.01)
            if not io.is_alive():
                raise AWMGymError("the server's event loop stopped during start-up; see the "
                                  "log above.")
            if uv.started and on_ready is not None:
                on_ready(_url(sock))
            try:
                server.jobs.run(should_stop=lambda: stop.is_set() or not io.is_alive())
            finally:
                uv.should_exit = True  # requests in flight still get their runtime jobs run:
                server.jobs.run(should_stop=lambda: not io.is_alive())
                io.join(timeout=_SHUTDOWN_GRACE_S)
    finally:
        sock.close()
        server.close()
