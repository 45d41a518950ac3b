"""The clock world code reads: deterministic per episode, moving one step per tool call.

AWM's seed rows often use ``datetime('now', '-3 days')`` and its generated code stamps rows with
``datetime.utcnow()``, ``time.time()`` or a ``DEFAULT CURRENT_TIMESTAMP`` column. Left alone, all
of these make a world's initial state and every tool result depend on the wall clock. Here
"now" is a value we own:

* :class:`FrozenClock` is one fixed instant (templates are built on it: seed rows see it);
* :class:`EpisodeClock` is one instance's clock: it starts at the world's base time on reset
  and advances by ``step_s`` before every tool call, so two calls never share an instant
  (codes built from the time differ) and the same actions give the same times on any day.

Both reach every path to "now":

* SQL: :func:`install_sql_clock` overloads SQLite's ``datetime``/``date``/``time``/
  ``julianday``/``strftime``/``unixepoch`` on a connection (an application-defined function
  takes precedence over the built-in): ``'now'`` and the no-argument forms read the clock,
  everything else is computed by SQLite itself. The keywords ``CURRENT_TIMESTAMP``/
  ``CURRENT_DATE``/``CURRENT_TIME`` cannot be overloaded; :mod:`awm_gym.worlds.sql_clock`
  rewrites them into those functions in seed SQL, column defaults and every statement the
  world's SQLAlchemy engine runs (``func.now()`` compiles to ``CURRENT_TIMESTAMP``).
* Python: :func:`patch_module_clock` rebinds, in an executed world module, the names bound to
  ``datetime``/``date``/the ``datetime`` module and the ``time`` module (or ``time.time``) to
  stand-ins that read the clock (``now``/``utcnow``/``today``, ``date.today``, ``time.time``/
  ``time_ns``/``gmtime``/``localtime``/``ctime``/``strftime``) and rewires SQLAlchemy column
  defaults such as ``default=datetime.utcnow`` and pydantic ``default_factory`` fields. Local time is UTC, so results do not depend on
  the machine's time zone. Type annotations keep meaning the real classes.

Example:
    >>> import sqlite3
    >>> clock = EpisodeClock("2026-01-01 12:00:00", step_s=1.0)
    >>> conn = sqlite3.connect(":memory:")
    >>> clock.install_sql(conn)
    >>> conn.execute("SELECT datetime('now', '-2 days')").fetchone()[0]
    '2025-12-30 12:00:00'
    >>> clock.tick(); conn.execute("SELECT datetime('now')").fetchone()[0]
    '2026-01-01 12:00:01'
    >>> clock.restart(); clock.now
    '2026-01-01 12:00:00'
"""

from __future__ import annotations

import datetime as _dt
import functools
import sqlite3
import threading
import time as _time
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from awm_gym.boundary import Failure, capture

__all__ = ["FrozenClock", "EpisodeClock", "DEFAULT_FROZEN_NOW", "install_sql_clock",
           "patch_module_clock", "parse_instant"]

DEFAULT_FROZEN_NOW = "2026-01-01 12:00:00"
"""The base instant when neither the configuration nor the seed data says otherwise (UTC)."""

_SQL_TIME_FUNCTIONS = ("datetime", "date", "time", "julianday", "strftime", "unixepoch")
_EPOCH = _dt.datetime(1970, 1, 1)
_reference = threading.local()  # one plain connection per thread evaluates the real functions


def _reference_connection() -> sqlite3.Connection:
    conn = getattr(_reference, "conn", None)
    if conn is None:
        conn = sqlite3.connect(":memory:", check_same_thread=False)
        _reference.conn = conn
    return conn


def parse_instant(value: str, what: str = "clock") -> _dt.datetime:
    """``'YYYY-MM-DD HH:MM:SS'`` (UTC) as a naive datetime; the error names ``what``."""
    try:
        return _parse_instant(value)
    except (TypeError, ValueError) as e:
        raise ValueError(f"{what}={value!r}: expected 'YYYY-MM-DD HH:MM:SS' (UTC), "
                         f"e.g. {DEFAULT_FROZEN_NOW!r}.") from e


@functools.lru_cache(maxsize=4096)  # every reset of an instance parses its world's base time
def _parse_instant(value: str) -> _dt.datetime:  # datetimes are immutable: safe to share
    return _dt.datetime.strptime(value, "%Y-%m-%d %H:%M:%S")


def _sql_text(instant: _dt.datetime) -> str:
    text = instant.strftime("%Y-%m-%d %H:%M:%S")
    if instant.microsecond:
        text += f".{instant.microsecond // 1000:03d}"
    return text


def install_sql_clock(conn: sqlite3.Connection, now_text: Callable[[], str]) -> None:
    """Overload SQLite's date/time functions on ``conn`` so ``'now'`` is ``now_text()``."""
    for name in _SQL_TIME_FUNCTIONS:
        conn.create_function(name, -1, _sql_function(name, now_text), deterministic=True)


def _sql_function(name: str, now_text: Callable[[], str]) -> Callable[..., object]:
    # deterministic=True as SQLite's own functions are (they may appear in CHECKs and indexes);
    # SQLite evaluates a constant call once per statement, as it does for its own 'now'
    def evaluate(*args: object) -> object:
        if name == "strftime":
            fixed = list(args) if len(args) >= 2 else [*args, "now"][:2]
        else:
            fixed = list(args) if args else ["now"]
        if any(isinstance(a, str) and a.strip().lower() == "now" for a in fixed):
            now = now_text()
            fixed = [now if isinstance(a, str) and a.strip().lower() == "now" else a
                     for a in fixed]
        placeholders = ",".join("?" * len(fixed))
        return _reference_connection().execute(
            f"SELECT {name}({placeholders})", fixed).fetchone()[0]

    return evaluate


@dataclass(frozen=True)
class FrozenClock:
    """One fixed instant "now" reads (templates are built on it).

    Args:
        now: ``"YYYY-MM-DD HH:MM:SS"`` in UTC; None means :data:`DEFAULT_FROZEN_NOW`.
    """

    now: str = DEFAULT_FROZEN_NOW
    _now_dt: _dt.datetime = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.now is None:
            object.__setattr__(self, "now", DEFAULT_FROZEN_NOW)
        object.__setattr__(self, "_now_dt", parse_instant(self.now, "FrozenClock.now"))

    @property
    def now_datetime(self) -> _dt.datetime:
        """The instant as a naive UTC ``datetime``."""
        return self._now_dt

    def install_sql(self, conn: sqlite3.Connection) -> None:
        """Overload SQLite's date/time functions on ``conn`` so ``'now'`` is this instant."""
        text = self.now
        install_sql_clock(conn, lambda: text)

    def datetime_module(self) -> types.ModuleType:
        """A stand-in for the ``datetime`` module whose "now" functions read this instant."""
        return _datetime_module(lambda: self._now_dt)

    def freeze_module(self, namespace: dict[str, Any]) -> None:
        """Make an executed world module read this instant (see :func:`patch_module_clock`)."""
        patch_module_clock(namespace, lambda: self._now_dt)


class EpisodeClock:
    """One instance's clock: ``base`` after a restart, ``step_s`` later after each tick.

    Args:
        base: the instant a restart goes back to (``"YYYY-MM-DD HH:MM:SS"``, UTC).
        step_s: seconds each :meth:`tick` adds (0: the clock stays at ``base``).
    """

    __slots__ = ("base", "step_s", "ticks", "_base_dt")

    def __init__(self, base: str, step_s: float = 1.0) -> None:
        if not step_s >= 0:
            raise ValueError(f"EpisodeClock.step_s={step_s!r}: must be >= 0 seconds.")
        self._base_dt = parse_instant(base, "EpisodeClock.base")
        self.base, self.step_s, self.ticks = base, float(step_s), 0

    def __repr__(self) -> str:
        return f"EpisodeClock({self.base!r}, step_s={self.step_s:g}, now={self.now!r})"

    @property
    def now_datetime(self) -> _dt.datetime:
        """The current instant as a naive UTC ``datetime``."""
        return self._base_dt + _dt.timedelta(seconds=self.ticks * self.step_s)

    @property
    def now(self) -> str:
        """The current instant in SQLite's text format (milliseconds only when not zero)."""
        return _sql_text(self.now_datetime)

    def tick(self) -> None:
        """Advance by one step (called before every tool call)."""
        self.ticks += 1

    def restart(self) -> None:
        """Go back to ``base`` (called on reset)."""
        self.ticks = 0

    def install_sql(self, conn: sqlite3.Connection) -> None:
        """Overload SQLite's date/time functions on ``conn`` so ``'now'`` reads this clock."""
        install_sql_clock(conn, lambda: self.now)


def _datetime_module(now: Callable[[], _dt.datetime]) -> types.ModuleType:
    class datetime(_dt.datetime):  # noqa: N801 - must read as the real class name
        @classmethod
        def now(cls, tz: _dt.tzinfo | None = None) -> _dt.datetime:
            instant = now_fn()
            if tz is None:
                return cls.fromisoformat(instant.isoformat())
            return cls.fromisoformat(instant.replace(tzinfo=_dt.timezone.utc)
                                     .astimezone(tz).isoformat())

        @classmethod
        def utcnow(cls) -> _dt.datetime:
            return cls.fromisoformat(now_fn().isoformat())

        @classmethod
        def today(cls) -> _dt.datetime:
            return cls.fromisoformat(now_fn().isoformat())

        @classmethod
        def __get_pydantic_core_schema__(cls, _source: Any, handler: Any) -> Any:
            return handler.generate_schema(_dt.datetime)  # annotations mean the real type

    class date(_dt.date):  # noqa: N801
        @classmethod
        def today(cls) -> _dt.date:
            instant = now_fn()
            return cls(instant.year, instant.month, instant.day)

        @classmethod
        def __get_pydantic_core_schema__(cls, _source: Any, handler: Any) -> Any:
            return handler.generate_schema(_dt.date)

    now_fn = now
    module = types.ModuleType("datetime", _dt.__doc__)
    module.__dict__.update({k: v for k, v in vars(_dt).items() if not k.startswith("__")})
    module.datetime = datetime
    module.date = date
    datetime.__module__ = date.__module__ = "datetime"
    return module


def _time_module(now: Callable[[], _dt.datetime]) -> types.ModuleType:
    """A stand-in for the ``time`` module: wall-clock reads come from ``now``; ``sleep``,
    ``perf_counter``, ``monotonic`` and the rest stay real."""

    def time() -> float:
        return (now() - _EPOCH).total_seconds()

    def time_ns() -> int:
        delta = now() - _EPOCH
        return (delta.days * 86_400 + delta.seconds) * 10**9 + delta.microseconds * 1000

    def gmtime(secs: float | None = None) -> _time.struct_time:
        return _time.gmtime(time() if secs is None else secs)

    def ctime(secs: float | None = None) -> str:
        return _time.asctime(gmtime(secs))

    def strftime(fmt: str, t: Any = None) -> str:
        return _time.strftime(fmt, gmtime() if t is None else t)

    module = types.ModuleType("time", _time.__doc__)
    module.__dict__.update({k: v for k, v in vars(_time).items() if not k.startswith("__")})
    module.__dict__.update(time=time, time_ns=time_ns, gmtime=gmtime, localtime=gmtime,
                           ctime=ctime, strftime=strftime)
    return module


def patch_module_clock(namespace: dict[str, Any], now: Callable[[], _dt.datetime]) -> None:
    """Make an executed world module read ``now()`` (a naive UTC datetime) as the time.

    Rebinds names bound to the ``datetime`` module, ``datetime.datetime``, ``datetime.date``,
    the ``time`` module and ``time.time``/``time.time_ns``, and rewires SQLAlchemy column
    ``default``/``onupdate`` callables and pydantic ``default_factory`` fields that are
    ``datetime.now``/``utcnow``/``today``, ``date.today`` or ``time.time``. ``now`` is called
    at each read, so it may follow the current instance.
    """
    dt_shim, time_shim = _datetime_module(now), _time_module(now)
    replacements: dict[int, Any] = {
        id(_dt): dt_shim, id(_dt.datetime): dt_shim.datetime, id(_dt.date): dt_shim.date,
        id(_time): time_shim, id(_time.time): time_shim.time,
        id(_time.time_ns): time_shim.time_ns}
    originals = {id(o): o for o in (_dt, _dt.datetime, _dt.date, _time, _time.time,
                                    _time.time_ns)}
    for key, value in list(namespace.items()):
        if id(value) in originals and originals[id(value)] is value:
            namespace[key] = replacements[id(value)]
    def stand_in(fn: Any) -> Callable[[], Any] | None:
        """The shim's version of a "now" callable of the real modules, else None."""
        owner, name = getattr(fn, "__self__", None), getattr(fn, "__name__", "")
        if owner is _dt.date and name == "today":
            return dt_shim.date.today
        if owner is _dt.datetime and name in ("now", "utcnow", "today"):
            return getattr(dt_shim.datetime, name)
        if fn is _time.time or fn is _time.time_ns:
            return getattr(time_shim, fn.__name__)
        return None

    for table in _tables_in(namespace):
        for column in table.columns:
            for attr in ("default", "onupdate"):
                default = getattr(column, attr, None)
                call = stand_in(getattr(getattr(default, "arg", None), "__wrapped__", None))
                if call is not None:
                    default.arg = lambda _ctx, _call=call: _call()
    for model in _pydantic_models_in(namespace):  # Field(default_factory=datetime.utcnow)
        saved = {}
        for name, field_info in model.model_fields.items():
            call = stand_in(field_info.default_factory)
            if call is not None:
                saved[name] = field_info.default_factory
                field_info.default_factory = call
        if saved and isinstance(capture(model.model_rebuild, force=True), Failure):
            for name, factory in saved.items():  # a model that cannot rebuild keeps them
                model.model_fields[name].default_factory = factory


def _pydantic_models_in(namespace: dict[str, Any]) -> list[Any]:
    try:
        from pydantic import BaseModel  # late: keeps this module importable without pydantic
    except ImportError:
        return []
    return [v for v in namespace.values()
            if isinstance(v, type) and issubclass(v, BaseModel) and v is not BaseModel]


def _tables_in(namespace: dict[str, Any]) -> list[Any]:
    from sqlalchemy import MetaData  # late: keeps this module importable without SQLAlchemy

    seen: dict[int, Any] = {}
    for value in namespace.values():
        metadata = getattr(value, "metadata", None)
        if isinstance(value, MetaData):
            metadata = value
        if isinstance(metadata, MetaData):
            for table in metadata.tables.values():
                seen[id(table)] = table
    return list(seen.values())
