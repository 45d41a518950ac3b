"""Which server serves each ``ServerConfig.protocol``: ``awm`` is built in, others register.

:func:`~awm_gym.server.runner.serve` runs ``make_server(config)``. An integration adds its protocol
by calling :func:`register_server` when it is imported (``awm_gym.integrations.openenv``
registers ``openenv``), so this package never imports the integrations: the ``awm`` command (its
composition root, :mod:`awm_gym.cli`) imports them before it runs. Light: a server's own
modules load only when one is made.

Example:
    >>> sorted(registered_protocols())[:1]
    ['awm']
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from awm_gym.errors import AWMGymError

if TYPE_CHECKING:
    from awm_gym.server.config import ServerConfig
    from awm_gym.server.executor import RuntimeLoop

__all__ = ["ServedWorld", "ServerFactory", "register_server", "make_server",
           "registered_protocols"]


class ServedWorld(Protocol):
    """What :func:`~awm_gym.server.runner.serve` runs: an ASGI app for uvicorn's thread, the jobs
    it runs on the calling thread, and ``close``."""

    app: Any
    jobs: RuntimeLoop

    def close(self) -> None: ...


ServerFactory = Callable[["ServerConfig"], ServedWorld]
"""Builds the server of one protocol from the config (loads the world, builds the app)."""


def _world_server(config: ServerConfig) -> ServedWorld:
    from awm_gym.server.app import WorldServer  # starlette and mcp: only when a server starts

    return WorldServer(config)


_FACTORIES: dict[str, ServerFactory] = {"awm": _world_server}


def register_server(protocol: str, factory: ServerFactory) -> None:
    """Serve ``ServerConfig(protocol=protocol)`` with ``factory`` (registering again replaces)."""
    _FACTORIES[protocol] = factory


def registered_protocols() -> tuple[str, ...]:
    """The protocols a server can be made for now."""
    return tuple(_FACTORIES)


def make_server(config: ServerConfig) -> ServedWorld:
    """The server of ``config.protocol``.

    Raises:
        AWMGymError: no server is registered for that protocol (its integration was not
            imported); the message names the module to import.
    """
    factory = _FACTORIES.get(config.protocol)
    if factory is None:
        raise AWMGymError(
            f"ServerConfig.protocol={config.protocol!r}: no server is registered for it (have: "
            f"{', '.join(map(repr, _FACTORIES))}). Import its integration first (e.g. `import "
            f"awm_gym.integrations.{config.protocol}`), as `awm env start` does.")
    return factory(config)
