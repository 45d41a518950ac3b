"""A frozen clock for world databases and generated code, so initial states and episodes repeat.

AWM's seed rows often use ``datetime('now', '-3 days')`` and its generated code stamps new rows with
``datetime.utcnow()``. Left alone, both make a world's initial state and every tool result depend
on the wall clock. A :class:`FrozenClock` pins "now" to one instant:

* in SQL, by overloading SQLite's date and time functions on a connection (an application-defined
  function takes precedence over the built-in of the same name): ``'now'`` and the no-argument
  forms evaluate at the frozen instant, everything else is computed by SQLite itself;
* in Python, by :meth:`FrozenClock.freeze_module`: after a world's code is executed, the names
  it bound to ``datetime``/``date`` (or the ``datetime`` module) are rebound to stand-ins whose
  ``now()``, ``utcnow()`` and ``today()`` read the frozen instant, and SQLAlchemy column defaults
  such as ``default=datetime.utcnow`` are rewired the same way. Type annotations keep meaning
  the real classes (pydantic sees the stand-ins as ``datetime``/``date``).

Not covered (documented in docs/worlds.md): the SQL keywords ``CURRENT_TIMESTAMP`` /
``CURRENT_DATE`` / ``CURRENT_TIME`` (the template builder rewrites values they produced during
the build), ``time.time()`` and SQLAlchemy's ``func.now()``.

Example:
    >>> import sqlite3
    >>> clock = FrozenClock("2026-01-01 12:00:00")
    >>> conn = sqlite3.connect(":memory:")
    >>> clock.install_sql(conn)
    >>> conn.execute("SELECT datetime('now', '-2 days')").fetchone()[0]
    '2025-12-30 12:00:00'
"""

from __future__ import annotations

import datetime as _dt
import sqlite3
import threading
import types
from dataclasses import dataclass, field
from typing import Any

__all__ = ["FrozenClock", "DEFAULT_FROZEN_NOW"]

DEFAULT_FROZEN_NOW = "2026-01-01 12:00:00"
"""The instant every world's clock reads unless configured otherwise (UTC, SQLite's format)."""

_SQL_TIME_FUNCTIONS = ("datetime", "date", "time", "julianday", "strftime", "unixepoch")
_reference = threading.local()  # one plain connection per thread evaluates the real functions


def _reference_connection() -> sqlite3.Connection:
    conn = getattr(_reference, "conn", None)
    if conn is None:
        conn = sqlite3.connect(":memory:", check_same_thread=False)
        _reference.conn = conn
    return conn


@dataclass(frozen=True)
class FrozenClock:
    """The instant "now" is pinned to, and the means to pin SQL and Python code to it.

    Args:
        now: the frozen instant, ``"YYYY-MM-DD HH:MM:SS"`` in UTC.
    """

    now: str = DEFAULT_FROZEN_NOW
    _now_dt: _dt.datetime = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        try:
            parsed = _dt.datetime.strptime(self.now, "%Y-%m-%d %H:%M:%S")
        except (TypeError, ValueError) as e:
            raise ValueError(
                f"FrozenClock.now={self.now!r}: expected 'YYYY-MM-DD HH:MM:SS' (UTC), "
                f"e.g. {DEFAULT_FROZEN_NOW!r}."
            ) from e
        object.__setattr__(self, "_now_dt", parsed)

    @property
    def now_datetime(self) -> _dt.datetime:
        """The frozen instant as a naive UTC ``datetime``."""
        return self._now_dt

    def install_sql(self, conn: sqlite3.Connection) -> None:
        """Overload SQLite's date/time functions on ``conn`` so ``'now'`` is the frozen instant."""
        for name in _SQL_TIME_FUNCTIONS:
            conn.create_function(name, -1, self._sql_function(name), deterministic=True)

    def _sql_function(self, name: str):
        frozen = self.now

        def evaluate(*args: object) -> object:
            if name == "strftime":
                fixed = list(args) if len(args) >= 2 else [*args, frozen][:2]
            else:
                fixed = list(args) if args else [frozen]
            fixed = [frozen if isinstance(a, str) and a.strip().lower() == "now" else a
                     for a in fixed]
            placeholders = ",".join("?" * len(fixed))
            return _reference_connection().execute(
                f"SELECT {name}({placeholders})", fixed).fetchone()[0]

        return evaluate

    def datetime_module(self) -> types.ModuleType:
        """A stand-in for the ``datetime`` module whose "now" functions read the frozen clock."""
        frozen = self._now_dt

        class datetime(_dt.datetime):  # noqa: N801 - must read as the real class name
            @classmethod
            def now(cls, tz: _dt.tzinfo | None = None) -> _dt.datetime:
                if tz is None:
                    return cls.fromisoformat(frozen.isoformat())
                return cls.fromisoformat(frozen.replace(tzinfo=_dt.timezone.utc)
                                         .astimezone(tz).isoformat())

            @classmethod
            def utcnow(cls) -> _dt.datetime:
                return cls.fromisoformat(frozen.isoformat())

            @classmethod
            def today(cls) -> _dt.datetime:
                return cls.fromisoformat(frozen.isoformat())

            @classmethod
            def __get_pydantic_core_schema__(cls, _source: Any, handler: Any) -> Any:
                return handler.generate_schema(_dt.datetime)  # annotations mean the real type

        class date(_dt.date):  # noqa: N801
            @classmethod
            def today(cls) -> _dt.date:
                return cls(frozen.year, frozen.month, frozen.day)

            @classmethod
            def __get_pydantic_core_schema__(cls, _source: Any, handler: Any) -> Any:
                return handler.generate_schema(_dt.date)

        module = types.ModuleType("datetime", _dt.__doc__)
        module.__dict__.update({k: v for k, v in vars(_dt).items() if not k.startswith("__")})
        module.datetime = datetime
        module.date = date
        datetime.__module__ = date.__module__ = "datetime"
        return module

    def freeze_module(self, namespace: dict[str, Any]) -> None:
        """Make an executed world module read this clock (see the module docstring)."""
        shim = self.datetime_module()
        replacements = {id(_dt): shim, id(_dt.datetime): shim.datetime, id(_dt.date): shim.date}
        for key, value in list(namespace.items()):
            if id(value) in replacements and (value is _dt or value is _dt.datetime
                                              or value is _dt.date):
                namespace[key] = replacements[id(value)]
        frozen_calls = {"now": shim.datetime.now, "utcnow": shim.datetime.utcnow,
                        "today": shim.datetime.today}
        for table in _tables_in(namespace):
            for column in table.columns:
                for attr in ("default", "onupdate"):
                    default = getattr(column, attr, None)
                    fn = getattr(getattr(default, "arg", None), "__wrapped__", None)
                    owner = getattr(fn, "__self__", None)
                    name = getattr(fn, "__name__", "")
                    if owner in (_dt.datetime, _dt.date) and name in frozen_calls:
                        call = shim.date.today if owner is _dt.date else frozen_calls[name]
                        default.arg = lambda _ctx, _call=call: _call()


def _tables_in(namespace: dict[str, Any]) -> list[Any]:
    from sqlalchemy import MetaData

    seen: dict[int, Any] = {}
    for value in namespace.values():
        metadata = getattr(value, "metadata", None)
        if isinstance(value, MetaData):
            metadata = value
        if isinstance(metadata, MetaData):
            for table in metadata.tables.values():
                seen[id(table)] = table
    return list(seen.values())
