"""Execute a world's generated FastAPI code once per process and call its tools on any instance.

A :class:`ToolHost` owns one world's app in this process:

1. **Load.** ``full_code`` runs once as a real module (``__name__`` is not ``"__main__"``, so the
   uvicorn footer does not run) while ``sqlalchemy.create_engine`` is patched to return one routed
   engine (:mod:`awm_gym.tools.db_routing`); afterwards its ``datetime``/``time`` names read the
   clock of the instance whose tool call runs (:mod:`awm_gym.worlds.clock`). The
   module's ``create_all`` therefore runs on whichever database is bound at load time (the
   template being built). Session factories are wrapped so every session a tool call opens is
   tracked, then rolled back and closed when the call ends, whatever the handler did.
2. **Catalogue.** Tools are what AWM's MCP layer (fastapi_mcp 0.4.0) shows a model: see
   :mod:`awm_gym.tools.catalogue`.
3. **Call.** :meth:`ToolHost.call` binds the instance's database and dispatches through
   :mod:`awm_gym.tools.dispatch`, which returns the exact text AWM's MCP layer would produce.
4. **Defects.** Real generated code has defects the runtime reports (never hides):
   two routes on one method and path (the second tool silently runs the first handler), a
   parameter route that shadows a later static one, ``async def`` handlers that block the event
   loop a real server would run them on. They are listed in :attr:`ToolHost.defects`.

Example:
    >>> from awm_gym import EnvConfig, get_world_set
    >>> from awm_gym.envs import get_prepared_world
    >>> world = get_prepared_world(get_world_set()["spotify"], EnvConfig())
    >>> slot = world.open_slot(step_s=1.0)
    >>> print(world.host.call(slot, "get_track", {"track_id": "x"}).text)
    Input validation error: 'x' is not of type 'integer'
    >>> world.host.call(slot, "get_track", {"track_id": 999999}).text
    'Error calling get_track. Status code: 500. Response: Internal Server Error'
"""

from __future__ import annotations

import contextlib
import datetime
import inspect
import linecache
import logging
import sys
import threading
import time
import types
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from awm_gym.boundary import Failure, capture, closing_on_error, describe, reraise_as
from awm_gym.errors import ToolHostError, WorldLoadError
from awm_gym.tools.catalogue import Catalogue, CatalogueCache
from awm_gym.tools.db_routing import (
    DatabaseSlot,
    bind_database,
    bound_slot,
    create_routed_engine,
    current_slot,
)
from awm_gym.tools.dispatch import AsgiCaller, Operation, ToolResult
from awm_gym.tools.fast_path import app_allows_fast_path, handler_awaits
from awm_gym.vocab import ToolOutcome
from awm_gym.worlds.base_time import SENTINEL_NOW, derive_base_time
from awm_gym.worlds.clock import EpisodeClock, FrozenClock, patch_module_clock
from awm_gym.worlds.template_db import (
    TemplateCache,
    TemplateReport,
    build_template_db,
    open_database,
)
from awm_gym.worlds.world_set import WorldDef

logger = logging.getLogger(__name__)

__all__ = ["ToolHost", "WorldDefect", "PreparedWorld", "load_world_module", "load_host_on"]

_EXEC_LOCK = threading.RLock()  # patches below are process-wide: one world loads at a time


@dataclass(frozen=True, slots=True)
class WorldDefect:
    """A defect found in a world's generated code.

    Attributes:
        kind: ``duplicate_route`` | ``shadowed_route`` | ``blocking_async_handler`` |
            ``duplicate_operation_id`` | ``module_state``.
        tool: the affected tool (operation id), if any.
        detail: what happens and why.
    """

    kind: str
    tool: str | None
    detail: str

    def __str__(self) -> str:
        return f"{self.kind}{f' ({self.tool})' if self.tool else ''}: {self.detail}"


class _TrackingSessionFactory:
    """Wraps a generated ``sessionmaker`` so sessions opened during a tool call are tracked."""

    def __init__(self, factory: Any) -> None:
        self._factory = factory

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        session = self._factory(*args, **kwargs)
        current_slot().open_sessions.append(session)
        return session

    def __getattr__(self, name: str) -> Any:  # configure(), kw, class_ ... stay available
        return getattr(self._factory, name)


@contextlib.contextmanager
def _patched_create_engine(engine: Any) -> Iterator[None]:
    import sqlalchemy
    import sqlalchemy.engine

    def create_engine(*_args: Any, **_kwargs: Any) -> Any:  # the requested URL is ignored
        return engine

    saved = (sqlalchemy.create_engine, sqlalchemy.engine.create_engine)
    sqlalchemy.create_engine = sqlalchemy.engine.create_engine = create_engine
    try:
        yield
    finally:
        sqlalchemy.create_engine, sqlalchemy.engine.create_engine = saved


def load_world_module(name: str, full_code: str, slot: DatabaseSlot,
                      clock: FrozenClock) -> types.ModuleType:
    """Execute ``full_code`` as module ``awm_world_<name>`` against ``slot``'s database.

    Raises:
        WorldLoadError: the code does not compile, raises at import, or defines no FastAPI ``app``.
    """
    from sqlalchemy.orm import sessionmaker

    module_name = f"awm_world_{name}"
    filename = f"<awm world {name}>"
    try:
        code = compile(full_code, filename, "exec")
    except SyntaxError as e:
        raise WorldLoadError(f"World {name!r}: gen_envs.jsonl full_code does not compile: "
                             f"{e.msg} at line {e.lineno}. Regenerate or fix the code.") from e
    module = types.ModuleType(module_name)
    module.__file__ = filename
    # linecache lets tracebacks and inspect.getsource see the generated source
    linecache.cache[filename] = (len(full_code), None, full_code.splitlines(True), filename)
    engine = create_routed_engine()
    with _EXEC_LOCK, _patched_create_engine(engine), bind_database(slot), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sys.modules[module_name] = module  # pydantic resolves annotations through sys.modules
        try:  # generated code may raise anything, even SystemExit
            with closing_on_error(lambda: sys.modules.pop(module_name, None)), reraise_as(
                    WorldLoadError, lambda e: f"World {name!r}: its generated code raised at "
                    f"import: {describe(e)}", catch=BaseException):
                exec(code, module.__dict__)
        finally:
            slot.open_sessions.clear()
    from fastapi import FastAPI

    if not isinstance(module.__dict__.get("app"), FastAPI):
        raise WorldLoadError(f"World {name!r}: its generated code defines no FastAPI `app`; AWM "
                             "code must create `app = FastAPI(...)` at module level.")
    patch_module_clock(module.__dict__, _instance_now(clock))
    for key, value in list(module.__dict__.items()):
        if isinstance(value, sessionmaker):
            module.__dict__[key] = _TrackingSessionFactory(value)
    module.__dict__["_awm_gym_engine"] = engine
    return module


def _instance_now(default: FrozenClock) -> Callable[[], datetime.datetime]:
    """"Now" for a world module: the clock of the instance whose tool call is running (the one
    bound by :func:`~awm_gym.tools.db_routing.bind_database`), else the world's base time."""

    def now() -> datetime.datetime:
        slot = bound_slot()
        clock = slot.clock if slot is not None and slot.clock is not None else default
        return clock.now_datetime

    return now


def find_defects(module: types.ModuleType) -> list[WorldDefect]:
    """Report duplicate routes, shadowed routes and blocking async handlers in a loaded world."""
    from fastapi.routing import APIRoute

    defects: list[WorldDefect] = []
    routes = [r for r in module.app.routes if isinstance(r, APIRoute)]
    seen: dict[tuple[str, str], APIRoute] = {}
    seen_ids: dict[str, APIRoute] = {}
    for route in routes:
        op = route.operation_id or route.unique_id
        if op in seen_ids:
            defects.append(WorldDefect("duplicate_operation_id", op,
                                       f"two routes share the operation id {op!r}; MCP lists one"))
        seen_ids.setdefault(op, route)
        for method in sorted(route.methods or ()):
            key = (method, route.path)
            if key in seen:
                first = seen[key]
                defects.append(WorldDefect(
                    "duplicate_route", op,
                    f"{method} {route.path} is also served by "
                    f"{first.operation_id or first.unique_id!r}, declared first: calling {op!r} "
                    "runs that handler instead (as it does under AWM's server)."))
            else:
                seen[key] = route
    for i, later in enumerate(routes):
        for earlier in routes[:i]:
            if earlier.path == later.path or not (earlier.methods & later.methods):
                continue
            if "{" not in later.path and earlier.path_regex.match(later.path):
                defects.append(WorldDefect(
                    "shadowed_route", later.operation_id or later.unique_id,
                    f"{later.path} is matched first by {earlier.path} "
                    f"({earlier.operation_id or earlier.unique_id!r}), so this tool never runs "
                    "its own handler."))
                break
    blocking = [r.operation_id or r.unique_id for r in routes if _is_blocking_async(r.endpoint)]
    if blocking:
        defects.append(WorldDefect(
            "blocking_async_handler", None,
            f"{len(blocking)} of {len(routes)} `async def` handlers do blocking database work "
            "without awaiting, so a real server runs them one at a time on its event loop "
            f"(awm_gym calls them directly, unaffected): {', '.join(blocking)}."))
    return defects


def _is_blocking_async(fn: Any) -> bool:
    if not inspect.iscoroutinefunction(fn):
        return False
    return not handler_awaits(fn)



_PLAIN = (int, float, str, bytes, bool, list, dict, set, tuple, type(None))


def module_state(module: types.ModuleType) -> dict[str, str]:
    """A fingerprint (``repr``, cut at 10,000 characters) of each plain-data global of
    ``module``; classes, functions, modules, engines and the app are left out."""
    state = {}
    for name, value in vars(module).items():
        if name.startswith("__") or not isinstance(value, _PLAIN):
            continue
        text = capture(repr, value)  # a hostile __repr__ is not ours to fix
        state[name] = f"<unrepresentable {type(value).__name__}>" \
            if isinstance(text, Failure) else text[:10_000]
    return state


class ToolHost:
    """One world's generated app in this process, callable on any instance's database.

    Args:
        name: the world's name.
        full_code: the world's generated module.
        bootstrap: the database bound while the module executes (its ``create_all`` runs there).
        clock: the world's base time, which the module's ``datetime``/``time`` read outside a
            tool call or on an instance without a clock of its own.
        timeout_s: the default limit for one tool call.
        catalogue: the world's catalogue when known (from
            :class:`~awm_gym.tools.catalogue.CatalogueCache`); None builds it from the app with
            fastapi_mcp.

    Attributes:
        tools: the catalogue, as MCP lists it.
        catalogue: the tools, their routing and the ``list_tools`` text.
    """

    def __init__(self, name: str, full_code: str, bootstrap: DatabaseSlot, clock: FrozenClock,
                 timeout_s: float = 10.0, catalogue: Catalogue | None = None) -> None:

        self.name = name
        self.timeout_s = timeout_s
        self.module = load_world_module(name, full_code, bootstrap, clock)
        self.app = self.module.app
        if catalogue is None:  # broken models/routes in generated code fail here
            with reraise_as(WorldLoadError, lambda e: f"World {name!r}: its tools cannot be "
                            f"listed (OpenAPI conversion failed): {describe(e)}"):
                catalogue = Catalogue.of_app(self.app)
        self.catalogue = catalogue
        self.tools = list(catalogue.tools)
        fast_ok = app_allows_fast_path(self.app)
        routes = list(self.app.router.routes)
        self.operations = {t.name: Operation(t.name, dict(catalogue.operations[t.name]), routes,
                                             fast_ok=fast_ok)
                           for t in self.tools}
        self._tools_by_name = {t.name: t for t in self.tools}
        self._defects: tuple[WorldDefect, ...] | None = None
        self._state_at_load = module_state(self.module)
        self._asgi = AsgiCaller(self.app)

    @property
    def defects(self) -> tuple[WorldDefect, ...]:
        """Defects found in the generated code (see :class:`WorldDefect`), found on first read."""
        if self._defects is None:
            self._defects = tuple(find_defects(self.module))
        return self._defects

    def __repr__(self) -> str:
        return f"ToolHost({self.name!r}, tools={len(self.tools)})"

    def mutated_state(self) -> list[str]:
        """Module-level variables (plain data: numbers, strings, lists, dicts, sets) whose value
        changed since the module was loaded: state that handlers carry across instances and
        episodes, which a reset does not undo (``awm check`` reports it)."""
        now = module_state(self.module)
        return sorted(k for k in set(now) | set(self._state_at_load)
                      if now.get(k) != self._state_at_load.get(k))

    @property
    def tool_names(self) -> frozenset[str]:
        """The names of this world's tools (operation ids)."""
        return frozenset(self._tools_by_name)

    def has_tool(self, tool: str) -> bool:
        return tool in self._tools_by_name

    def call(self, slot: DatabaseSlot, tool: str, arguments: Any,
             timeout_s: float | None = None) -> ToolResult:
        """Call ``tool`` with ``arguments`` on ``slot``'s database; returns a ToolResult.

        Faults of the generated code (exceptions, 500s, hangs) and invalid arguments come back
        as error results, exactly as AWM's MCP layer words them. The instance's clock
        (``slot.clock``) advances one step first, so each call runs at its own instant.

        Raises:
            ToolHostError: ``tool`` is not one of this world's tools (check :meth:`has_tool`).
        """
        spec = self._tools_by_name.get(tool)
        if spec is None:
            raise ToolHostError(f"World {self.name!r} has no tool {tool!r}; "
                                f"its tools are: {', '.join(sorted(self._tools_by_name))}.")
        if slot.clock is not None:
            slot.clock.tick()  # every call, even one its arguments fail, runs one step later
        start = time.perf_counter()
        error = spec.validation_error(arguments)
        if error is not None:
            return ToolResult(error, True, None, ToolOutcome.INPUT_INVALID, None,
                              time.perf_counter() - start)
        return self.operations[tool].call(slot, arguments,
                                          timeout_s=timeout_s or self.timeout_s, asgi=self._asgi)

    def close(self) -> None:
        self._asgi.close()


class PreparedWorld:
    """A world ready to run in this process: its template bytes, build report, catalogue and
    tool host.

    Each part may be given, or loaded when first read (``loaders``): a world whose template
    and catalogue are cached needs neither its code executed nor its rows parsed until a tool
    of it is called, so an env over 1,000 worlds pays only for the worlds and parts it uses.

    Example:
        >>> from awm_gym import EnvConfig, get_world_set
        >>> from awm_gym.envs import get_prepared_world
        >>> world = get_prepared_world(get_world_set()["spotify"], EnvConfig())
        >>> slot = world.open_slot(step_s=1.0)
        >>> slot.clock.now == world.base_time
        True
    """

    def __init__(self, name: str, *, built: tuple[bytes, TemplateReport] | None = None,
                 catalogue: Catalogue | None = None, host: ToolHost | None = None,
                 load_template: Callable[[], tuple[bytes, TemplateReport]] | None = None,
                 load_catalogue: Callable[[], Catalogue] | None = None,
                 load_host: Callable[[PreparedWorld], ToolHost] | None = None) -> None:
        self.name = name
        self._built, self._catalogue, self._host = built, catalogue, host
        self._load_template, self._load_catalogue = load_template, load_catalogue
        self._load_host = load_host
        self._lock = threading.RLock()

    def __repr__(self) -> str:
        return f"PreparedWorld({self.name!r}, host={'loaded' if self._host else 'lazy'})"

    def _template_and_report(self) -> tuple[bytes, TemplateReport]:
        if self._built is None:
            with self._lock:
                if self._built is None:
                    self._built = self._load_template()  # type: ignore[misc]
        return self._built

    @property
    def template(self) -> bytes:
        """The initial database, serialized (what every reset starts from)."""
        return self._template_and_report()[0]

    @property
    def report(self) -> TemplateReport:
        return self._template_and_report()[1]

    @property
    def catalogue(self) -> Catalogue:
        """The world's tools, their routing and its ``list_tools`` text."""
        if self._catalogue is None:
            with self._lock:
                if self._catalogue is None:
                    self._catalogue = (self._host.catalogue if self._host is not None
                                       else self._load_catalogue())  # type: ignore[misc]
        return self._catalogue

    @property
    def host(self) -> ToolHost:
        """The world's executed code (executed on first read when not given).

        Raises:
            WorldLoadError: the code cannot be loaded now (it could when its cache entries
                were written); the message names the world.
        """
        if self._host is None:
            with self._lock:
                if self._host is None:
                    self._host = self._load_host(self)  # type: ignore[misc]
        return self._host

    @property
    def is_host_loaded(self) -> bool:
        return self._host is not None

    @property
    def base_time(self) -> str:
        """Where every episode's clock starts (the clock the seed rows saw)."""
        return self.report.base_time

    def open_slot(self, step_s: float) -> DatabaseSlot:
        """A new instance database holding the template, on a clock at :attr:`base_time` that
        advances ``step_s`` seconds per tool call."""
        clock = EpisodeClock(self.base_time, step_s)
        return DatabaseSlot(open_database(self.template, clock), clock)

    def reset_slot(self, slot: DatabaseSlot) -> None:
        """Put an instance opened by :meth:`open_slot` back to the initial state and time, on
        a new connection: ``deserialize`` replaces only the ``main`` database, and what an
        episode's handlers left on the connection itself (TEMP tables, views and triggers,
        ATTACHed databases, PRAGMAs such as ``foreign_keys`` or ``recursive_triggers``, SQL
        functions they registered) would reach the next episode (issue 42, class 5). A fresh
        connection has the template's settings, as at :meth:`open_slot` (~25 us more per
        reset than ``deserialize``); the world's SQLAlchemy ``connect`` listeners run on it
        again at its first use, as in an instance's first episode."""
        if slot.clock is not None:
            slot.clock.restart()
        clock = slot.clock if slot.clock is not None else FrozenClock(self.base_time)
        old, slot.conn = slot.conn, open_database(self.template, clock)
        old.close()


def prepare_world(world: WorldDef, *, clock: FrozenClock | None,
                  cache: TemplateCache | None = None, timeout_s: float = 10.0) -> PreparedWorld:
    """Build (or load from ``cache``) a world's template and execute its code once.

    Args:
        world: a :class:`~awm_gym.worlds.world_set.WorldDef`.
        clock: the base time (seed rows see it; episodes start at it), or None to derive it
            from the seed data (:func:`~awm_gym.worlds.base_time.derive_base_time`: a probe
            build at a sentinel clock, then the real build).
        cache: a :class:`~awm_gym.worlds.template_db.TemplateCache`, or None to always build.
        timeout_s: default limit per tool call.

    Raises:
        WorldLoadError: the world cannot be prepared (its code does not load, or its template
            build failed in a way AWM's would not survive); the message names the world.
            Failed DDL, indexes and INSERTs are not errors: they are in ``report``.
    """
    with reraise_as(WorldLoadError, lambda e: f"World {world.name!r} cannot be prepared: "
                    f"{describe(e)}. Run `awm check` on its world set for details."):
        return _prepare_world(world, clock=clock, cache=cache, timeout_s=timeout_s)


def _prepare_world(world: WorldDef, *, clock: FrozenClock | None, cache: TemplateCache | None,
                   timeout_s: float) -> PreparedWorld:
    key = TemplateCache.key(world.content_hash, clock)
    cached = cache.load(key) if cache is not None else None
    catalogues = CatalogueCache(cache.directory) if cache is not None else None
    catalogue_key = CatalogueCache.key(world.content_hash) if catalogues is not None else ""
    if cached is not None:
        data, report = cached
        catalogue = catalogues.load(catalogue_key) if catalogues is not None else None
        host = load_host_on(world, data, report, timeout_s, catalogue)
        if catalogue is None and catalogues is not None:
            catalogues.save(catalogue_key, host.catalogue)
        return PreparedWorld(world.name, built=(data, report), host=host)
    else:
        if clock is None:
            probe, _ = build_template_db(world.tables, world.samples, FrozenClock(SENTINEL_NOW))
            base = FrozenClock(derive_base_time(probe))
            probe.close()
        else:
            base = clock
        conn, report = build_template_db(world.tables, world.samples, base)
        slot = DatabaseSlot(conn)
        host = ToolHost(world.name, world.full_code, slot, base, timeout_s)  # runs create_all
        if conn.in_transaction:
            conn.commit()
        data = conn.serialize()
        if cache is not None:
            catalogues.save(catalogue_key, host.catalogue)  # before the template: a template
            cache.save(key, data, report)  # entry then means the whole world is cached
    slot.conn.close()
    return PreparedWorld(world.name, built=(data, report), host=host)


def load_host_on(world: WorldDef, template: bytes, report: TemplateReport, timeout_s: float,
                 catalogue: Catalogue | None = None) -> ToolHost:
    """Execute ``world``'s code against a copy of its template (its ``create_all`` then has
    nothing left to create) and return its host."""
    base = FrozenClock(report.base_time)
    slot = DatabaseSlot(open_database(template, base))
    try:
        return ToolHost(world.name, world.full_code, slot, base, timeout_s, catalogue)
    finally:
        slot.conn.close()
