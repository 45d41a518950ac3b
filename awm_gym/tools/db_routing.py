"""Route a world's one SQLAlchemy engine to whichever instance database is current.

A world's generated code is executed once per process and creates one engine at import. Every
instance has its own in-memory SQLite connection. This module gives that engine a connection pool
that, on each checkout, hands out the connection of the *current* instance, which the caller sets
with :func:`bind_database` (a ``ContextVar``, so it also follows threads started by anyio and
asyncio tasks). The pool never closes an instance connection: the instance owns its lifetime.

Example:
    >>> import sqlite3
    >>> from sqlalchemy import text
    >>> engine = create_routed_engine()
    >>> a, b = DatabaseSlot(sqlite3.connect(":memory:")), DatabaseSlot(sqlite3.connect(":memory:"))
    >>> with bind_database(a), engine.begin() as c:
    ...     _ = c.execute(text("CREATE TABLE t (x)"))
    >>> with bind_database(b), engine.connect() as c:
    ...     c.execute(text("SELECT count(*) FROM sqlite_master")).scalar()
    0
"""

from __future__ import annotations

import contextlib
import functools
import sqlite3
from collections.abc import Iterator
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from awm_gym.errors import ToolHostError
from awm_gym.worlds.clock import EpisodeClock
from awm_gym.worlds.sql_clock import mentions_time_keyword, rewrite_time_keywords

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine
    from sqlalchemy.pool.base import _ConnectionRecord

__all__ = ["DatabaseSlot", "bind_database", "bound_slot", "create_routed_engine", "current_slot"]


class DatabaseSlot:
    """One instance's database connection, plus what the tool layer tracks during a call.

    Attributes:
        conn: the instance's SQLite connection (in memory; replaced or deserialized on reset).
        clock: the instance's :class:`~awm_gym.worlds.clock.EpisodeClock` (the one ``conn``'s
            SQL functions read), or None: the world's base time, not moving.
        open_sessions: SQLAlchemy sessions created during the current tool call.
    """

    __slots__ = ("conn", "clock", "open_sessions", "_record", "_record_conn")

    def __init__(self, conn: sqlite3.Connection, clock: EpisodeClock | None = None) -> None:
        self.conn = conn
        self.clock = clock
        self.open_sessions: list[Any] = []
        self._record: _ConnectionRecord | None = None
        self._record_conn: sqlite3.Connection | None = None

    def __repr__(self) -> str:
        return f"DatabaseSlot(conn={self.conn!r})"


_current: ContextVar[DatabaseSlot | None] = ContextVar("awm_gym_current_db", default=None)


def current_slot() -> DatabaseSlot:
    """The slot bound by the innermost :func:`bind_database`; raises if none is bound."""
    slot = _current.get()
    if slot is None:
        raise ToolHostError(
            "A world's database was used outside a tool call: no instance database is bound. "
            "Call tools through ToolHost.call(...) (or bind_database(slot)) so the engine knows "
            "which instance it serves.")
    return slot


def bound_slot() -> DatabaseSlot | None:
    """The slot bound by the innermost :func:`bind_database`, or None outside a tool call."""
    return _current.get()


@contextlib.contextmanager
def bind_database(slot: DatabaseSlot) -> Iterator[DatabaseSlot]:
    """Make ``slot`` the database every routed engine uses inside the ``with`` block."""
    token = _current.set(slot)
    try:
        yield slot
    finally:
        _current.reset(token)


def _creator(*_args: Any) -> sqlite3.Connection:
    return current_slot().conn


@functools.cache
def _routed_pool_class() -> type:
    """The pool class, built at the first engine: SQLAlchemy is imported only by a process
    that runs world code (a caller whose worlds run in shard workers never imports it)."""
    from sqlalchemy.pool import Pool
    from sqlalchemy.pool.base import _ConnectionRecord

    class _RoutedPool(Pool):
        """A pool whose single 'connection' is the current instance's connection."""

        def _do_get(self) -> _ConnectionRecord:
            slot = current_slot()
            record = slot._record
            if (record is None or slot._record_conn is not slot.conn
                    or record.dbapi_connection is None):
                record = _ConnectionRecord(self)
                slot._record, slot._record_conn = record, slot.conn
            return record

        def _do_return_conn(self, record: _ConnectionRecord) -> None:
            pass  # nothing pooled: the slot keeps the record

        def _close_connection(self, connection: Any, *, terminate: bool = False) -> None:
            pass  # instance connections belong to their instance, never to the pool

        def status(self) -> str:
            return "_RoutedPool"

        def dispose(self) -> None:
            pass

        def recreate(self) -> _RoutedPool:
            return self.__class__(self._creator, dialect=self._dialect,
                                  reset_on_return=self._reset_on_return, _dispatch=self.dispatch)

    return _RoutedPool


def create_routed_engine() -> Engine:
    """An SQLite engine whose connections are the current instance's (see :func:`bind_database`).

    Every statement it runs has SQLite's time keywords rewritten into the clock's functions
    (:func:`~awm_gym.worlds.sql_clock.rewrite_time_keywords`): ``func.now()``, raw
    ``CURRENT_TIMESTAMP`` and ``server_default`` DDL read the instance's clock.
    """
    from sqlalchemy import event
    from sqlalchemy.engine.create import create_engine  # the original: load_world_module
    # replaces the package's names while a world's code runs

    engine = create_engine("sqlite://", creator=_creator, poolclass=_routed_pool_class())
    event.listen(engine, "before_cursor_execute", _rewrite_time_keywords, retval=True)
    return engine


def _rewrite_time_keywords(_conn: Any, _cursor: Any, statement: str, parameters: Any,
                           _context: Any, _executemany: bool) -> tuple[str, Any]:
    if mentions_time_keyword(statement):
        statement = rewrite_time_keywords(statement)
    return statement, parameters

