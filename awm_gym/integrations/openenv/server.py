"""Serve one world through openenv-core's own server (``awm env start --protocol openenv``).

:class:`OpenEnvWorldServer` builds the app with openenv-core's ``create_app`` (its
``HTTPEnvServer``): ``/reset``, ``/step``, ``/state``, ``/schema``, ``/health``, ``/metadata``
and ``/ws`` are OpenEnv's, with its session limit and idle timeout
(``ConcurrencyConfig(max_concurrent_envs=max_sessions, session_timeout=idle_timeout_s)``), so any
OpenEnv client (``EnvClient``, TRL's OpenEnv integration, a Space) talks to it unchanged.

Each session is an :class:`~awm_gym.integrations.openenv.environment.AWMEnvironment` whose
instance is a slot of one shared runtime (``max_sessions`` instances, plus two for OpenEnv's
stateless HTTP ``/reset``). A session takes its slot at its first reset and gives it back when it
closes. Every reset and step goes through the :class:`~awm_gym.server.executor.RuntimeLoop`,
which :func:`awm_gym.server.serve` runs on the main thread, as for the ``awm`` protocol: the
event loop never runs generated code, tool timeouts stop runaway handlers, and steps of different
sessions that arrive together are one batched runtime step (their final answers one verifier
batch).

OpenEnv's HTTP ``/reset`` and ``/step`` are stateless (each request makes a throwaway
environment), so an HTTP ``/step`` never has an episode: it is answered with a 400 whose
``detail`` says to use the session client (``AWMEnvClient``, WebSocket ``/ws``), as is any other
:class:`~awm_gym.errors.EnvUsageError` (a caller's mistake, not a server fault).

On a loopback address the Host and Origin headers must name this machine (DNS rebinding), as on
``/mcp`` and ``/ws`` of the ``awm`` protocol; ``--auth-token`` gates every route but ``/health``.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.websockets import WebSocket

from awm_gym.integrations.openenv.distribution import missing_openenv

try:
    from openenv.core.env_server.http_server import create_app
    from openenv.core.env_server.types import ConcurrencyConfig
except ImportError as e:  # the one-line error that names the extra
    raise missing_openenv(e) from e

from awm_gym.envs.config import EnvConfig
from awm_gym.envs.protocol import StepOutcome
from awm_gym.envs.registration import get_world_set
from awm_gym.envs.vector_env import make_runtime
from awm_gym.errors import EnvUsageError
from awm_gym.integrations.openenv.environment import AWMEnvironment
from awm_gym.integrations.openenv.models import AWMAction, AWMObservation
from awm_gym.integrations.openenv.tasks import WorldTasks
from awm_gym.server.config import ServerConfig
from awm_gym.server.executor import RuntimeLoop
from awm_gym.wire.auth import TokenGate
from awm_gym.worlds.splits import Split

__all__ = ["OpenEnvWorldServer"]

_HTTP_HEADROOM = 2
"""Instances beyond ``max_sessions`` for OpenEnv's stateless HTTP ``/reset`` (each makes a
throwaway environment), so they never take a WebSocket session's instance."""


class _Slots:
    """Free instance indices of the shared runtime (taken from session threads: locked)."""

    def __init__(self, n: int) -> None:
        self._free, self._lock = list(range(n - 1, -1, -1)), threading.Lock()

    def take(self) -> int:
        with self._lock:
            if not self._free:
                raise EnvUsageError("every instance of this server is in use; retry later or "
                                    "start the server with a larger --max-sessions.")
            return self._free.pop()

    def give(self, slot: int) -> None:
        with self._lock:
            self._free.append(slot)


class _ServedBackend:
    """One session's instance: a slot of the server's runtime, driven through its job loop."""

    def __init__(self, server: OpenEnvWorldServer) -> None:
        self.server = server
        self.world, self.config = server.world, server.env_config
        self.title, self.tools_text, self.tasks = server.title, server.tools_text, server.tasks
        self.tools = server.tools
        self._slot: int | None = None
        self._pending: asyncio.Future | None = None

    async def _run(self, future: asyncio.Future) -> Any:
        self._pending = future
        return await asyncio.shield(future)  # a cancelled handler must not orphan the job

    async def reset_async(self, seed: int, task_idx: int | None) -> tuple[str, dict[str, Any]]:
        if self._slot is None:
            self._slot = self.server.slots.take()
        return await self._run(self.server.jobs.submit_reset(self._slot, seed, task_idx))

    async def step_async(self, action: str) -> StepOutcome:
        if self._slot is None:
            raise EnvUsageError("step() before the first reset: call reset(...) first.")
        return await self._run(self.server.jobs.submit_step(self._slot, action))

    def reset(self, seed: int, task_idx: int | None) -> tuple[str, dict[str, Any]]:
        raise EnvUsageError("a served AWMEnvironment runs through reset_async/step_async "
                            "(openenv-core's server awaits them).")

    step = reset  # type: ignore[assignment] - same refusal

    def close(self) -> None:
        slot, pending, self._slot = self._slot, self._pending, None
        if slot is None:
            return
        if pending is not None and not pending.done():  # still running on the runtime thread
            loop = pending.get_loop()
            loop.call_soon_threadsafe(pending.add_done_callback,
                                      lambda _: self.server.slots.give(slot))
        else:
            self.server.slots.give(slot)


STATELESS_STEP_HINT = (
    "OpenEnv's HTTP /step is stateless: each request gets a fresh environment, so no episode "
    "carries over from an HTTP /reset. Play episodes through a session: the WebSocket client "
    "(awm_gym.integrations.openenv.AWMEnvClient(base_url=...), openenv-core's EnvClient) on /ws."
)
"""The fix quoted when a step reaches OpenEnv's stateless HTTP route."""


async def _usage_error_response(request: Request, exc: Exception) -> JSONResponse:
    """A caller's mistake (:class:`EnvUsageError`) is a 400 naming it, never a bare 500."""
    detail = str(exc)
    if request.url.path.rstrip("/").endswith("/step"):
        detail = f"{detail} {STATELESS_STEP_HINT}"
    return JSONResponse({"detail": detail}, status_code=400)


class _LoopbackGuard:
    """ASGI middleware: refuse requests whose Host/Origin do not name this machine."""

    def __init__(self, app: Any) -> None:
        from awm_gym.server.app import loopback_header_check

        self.app, self._check = app, loopback_header_check()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "websocket":
            refused = await self._check.validate_request(WebSocket(scope, receive, send),
                                                         is_post=False)
            if refused is not None:
                await send({"type": "websocket.close", "code": 1008})
                return
        elif scope["type"] == "http":
            refused = await self._check.validate_request(Request(scope, receive), is_post=False)
            if refused is not None:
                await refused(scope, receive, send)
                return
        await self.app(scope, receive, send)


class OpenEnvWorldServer:
    """A world served through openenv-core: the shared runtime, its job loop and the ASGI app.

    Args:
        config: what to serve and the limits (``config.protocol`` is ``openenv``).
        split: the :class:`~awm_gym.worlds.splits.Split` whose subsets OpenEnv's task API
            lists (``/awm-<world>/splits``, ...); None: ``awm train``'s default split of the
            world set (``val_worlds=0.2, val_tasks=0.2, seed=0``).

    Example:
        >>> server = OpenEnvWorldServer(ServerConfig(world="spotify", max_sessions=2))
        >>> server.world, sorted(r.path for r in server.routes.routes if r.path in
        ...     {"/reset", "/step", "/state", "/schema", "/health", "/metadata", "/ws"})
        ('spotify', ['/health', '/metadata', '/reset', '/schema', '/state', '/step', '/ws'])
        >>> server.close()
    """

    def __init__(self, config: ServerConfig, split: Split | None = None) -> None:
        self.config = config
        world_set = get_world_set(config.worlds_dir)
        self.world = world_set[config.world].name
        self.tasks = WorldTasks.of(self.world, world_set, split)
        capacity = config.max_sessions + _HTTP_HEADROOM
        self.runtime = make_runtime(world_set, [self.world], capacity, config.env)
        self.env_config: EnvConfig = self.runtime.config
        self.tools_text = self.runtime.tools_text(self.world)
        self.tools: list[dict[str, Any]] = self.runtime.tools(self.world)
        """The world's tools as MCP lists them (OpenEnv's ``/mcp`` ``tools/list``)."""
        self.title = self.world
        self.slots = _Slots(capacity)
        self.jobs = RuntimeLoop(self.runtime)
        self.routes = create_app(
            self._make_env, AWMAction, AWMObservation, env_name=f"awm-{self.world}",
            concurrency_config=ConcurrencyConfig(
                max_concurrent_envs=config.max_sessions,
                session_timeout=config.idle_timeout_s or None))
        self.routes.add_exception_handler(EnvUsageError, _usage_error_response)
        app: Any = self.routes
        if config.is_loopback:
            app = _LoopbackGuard(app)
        if config.auth_token:
            app = TokenGate(app, config.auth_token)
        self.app: Any = app
        """The ASGI application to serve."""

    def __repr__(self) -> str:
        return f"OpenEnvWorldServer({self.world!r}, max_sessions={self.config.max_sessions})"

    def _make_env(self) -> AWMEnvironment:
        return AWMEnvironment(backend=_ServedBackend(self))

    def close(self) -> None:
        """Close the runtime (instance databases, verifier pool, worker processes)."""
        self.runtime.close()
