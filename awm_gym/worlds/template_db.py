"""Build a world's initial database exactly as AWM does, serialize it, cache it by content hash.

AWM's ``reset_single_database`` builds a world's SQLite file in two passes, and the public
verifiers were generated against databases built this way, failed rows included:

1. for each table, in one ``try``: its DDL, then its indexes, then its optional ``examples``
   (a failing DDL skips that table's indexes); no foreign-key pragma; one commit at the end;
2. ``PRAGMA foreign_keys = ON``, then every INSERT on its own, failures counted and skipped,
   one commit at the end.

The server then imports the generated module, whose ``Base.metadata.create_all`` adds tables
that exist only in the ORM; :func:`awm_gym.tools.host.prepare_world` does that step against the
template. The build runs under a :class:`~awm_gym.worlds.clock.FrozenClock`, so seed rows written with
``datetime('now', ...)`` are the same on every machine; the keywords ``CURRENT_TIMESTAMP`` /
``CURRENT_DATE`` / ``CURRENT_TIME`` (in a seed INSERT, or a column ``DEFAULT`` that fills rows
now and during every episode) are rewritten into the clock's functions before each statement
runs (:mod:`awm_gym.worlds.sql_clock`), so the template's defaults read the episode's clock.

Whatever fails is counted, never raised: the world is built with what succeeds, as AWM builds it.

Example:
    >>> from awm_gym.worlds.world_set import TableDef, SampleTable
    >>> tables = (TableDef("t", "CREATE TABLE t (id INTEGER PRIMARY KEY, at TEXT)", (), ()),)
    >>> rows = (SampleTable("t", ("INSERT INTO t VALUES (1, datetime('now'))", "INSERT INTO nope VALUES (1)")),)
    >>> conn, report = build_template_db(tables, rows, FrozenClock("2026-01-01 12:00:00"))
    >>> conn.execute("SELECT at FROM t").fetchall(), report.inserts_failed
    ([('2026-01-01 12:00:00',)], 1)
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sqlite3
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from awm_gym.atomic_io import write_bytes_atomic
from awm_gym.boundary import Failure, capture
from awm_gym.worlds.clock import DEFAULT_FROZEN_NOW, FrozenClock
from awm_gym.worlds.sql_clock import rewrite_time_keywords

__all__ = ["TemplateReport", "build_template_db", "TemplateCache", "default_cache_dir",
           "open_database"]

logger = logging.getLogger(__name__)

TEMPLATE_FORMAT = 3
"""Bump when the builder changes what it produces, so stale cache entries are not reused."""


@dataclass(frozen=True, slots=True)
class TemplateReport:
    """What happened while a world's template database was built.

    Attributes:
        tables_total / tables_failed: DDL blocks run and how many failed (with their errors).
        inserts_total / inserts_failed: seed INSERTs run and how many failed (with their errors).
        failures: ``(table, statement_index, error)`` for each failure; index -1 is the DDL
            block (a failing index or example says which: ``index 1 (CREATE INDEX ...): ...``).
        base_time: the clock the seed rows saw, which is where every episode's clock starts.
    """

    tables_total: int
    tables_failed: int
    inserts_total: int
    inserts_failed: int
    failures: tuple[tuple[str, int, str], ...]
    base_time: str = DEFAULT_FROZEN_NOW

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> TemplateReport:
        return cls(data["tables_total"], data["tables_failed"], data["inserts_total"],
                   data["inserts_failed"], tuple(tuple(f) for f in data["failures"]),
                   data["base_time"])


def open_database(data: bytes | None, clock: Any) -> sqlite3.Connection:
    """A new in-memory connection holding ``data`` (serialized SQLite), on ``clock`` (a
    :class:`~awm_gym.worlds.clock.FrozenClock` or an
    :class:`~awm_gym.worlds.clock.EpisodeClock`: its SQL functions read it at each call)."""
    conn = sqlite3.connect(":memory:", check_same_thread=False)
    if data is not None:
        conn.deserialize(data)
    clock.install_sql(conn)
    return conn


def build_template_db(tables: Sequence, samples: Sequence, clock: FrozenClock
                      ) -> tuple[sqlite3.Connection, TemplateReport]:
    """Run a world's DDL and seed INSERTs the way AWM does, in memory, on ``clock``.

    Args:
        tables: the world's :class:`~awm_gym.worlds.world_set.TableDef` entries.
        samples: the world's :class:`~awm_gym.worlds.world_set.SampleTable` entries.
        clock: the frozen clock seed rows see as "now".

    Returns:
        The open connection (foreign keys back OFF, as a fresh connection has them) and a report.
    """
    conn = open_database(None, clock)
    conn.execute("PRAGMA user_version = 0")  # writes page 1: a world whose tables all fail
    # still serializes (an in-memory database with no page cannot)
    # AWM's own SQLite, functions not overloaded: it alone rejects 'now' where stock SQLite
    # does (CHECKs, generated columns, indexes), which our deterministic overloads accept
    stock = sqlite3.connect(":memory:")
    failures: list[tuple[str, int, str]] = []
    tables_failed = 0
    for table in tables:
        block = (("DDL", table.ddl), *((f"index {k}", s) for k, s in enumerate(table.indexes)),
                 *((f"example {k}", s) for k, s in enumerate(table.examples)))
        for what, statement in block:  # one try per table, as AWM: a failure skips the rest
            error = _run_statement(conn, stock, statement)
            if error is not None:
                tables_failed += 1
                prefix = "" if what == "DDL" else f"{what} ({_clip(statement)}): "
                failures.append((table.name, -1, prefix + error))
                break
    _commit(conn)
    conn.execute("PRAGMA foreign_keys = ON")
    stock.execute("PRAGMA foreign_keys = ON")
    inserts_total = inserts_failed = 0
    for sample in samples:
        for i, statement in enumerate(sample.insert_statements):
            inserts_total += 1
            error = _run_statement(conn, stock, statement)
            if error is not None:
                inserts_failed += 1
                failures.append((sample.table_name, i, error))
    _commit(conn)
    stock.close()
    conn.execute("PRAGMA foreign_keys = OFF")
    report = TemplateReport(len(tables), tables_failed, inserts_total, inserts_failed,
                            tuple(failures), clock.now)
    return conn, report


def _run_statement(conn: sqlite3.Connection, stock: sqlite3.Connection,
                   statement: object) -> str | None:
    """Execute one statement of seed SQL; returns its error text, or None when it ran.

    Every exception is a failure of that statement, as in AWM (``except Exception``): besides
    ``sqlite3.Error`` that covers two statements in one string, NUL characters, lone
    surrogates and values SQLite cannot bind. The statement runs with its time keywords
    rewritten to the clock's functions (:mod:`awm_gym.worlds.sql_clock`); should the rewritten
    form fail to compile (a keyword used as a column name), the original runs, but not when it
    broke a constraint: that is the statement's own failure on the clock's time (the original
    would write the machine's real time instead). It also runs on ``stock``,
    a plain connection: a statement stock SQLite rejects for reading 'now' where it must not
    fails here too, so the statements that succeed are the ones that succeed under AWM.
    """
    stock_error = _execute(stock, statement)
    if stock_error is not None and "non-deterministic" in stock_error:
        return stock_error
    rewritten = capture(rewrite_time_keywords, statement)  # type: ignore[arg-type]
    if isinstance(rewritten, Failure):  # not a string: executing it reports the error
        rewritten = statement
    error = _execute(conn, rewritten)
    if error is not None and rewritten is not statement and not error.startswith(
            "IntegrityError"):  # a constraint the clock's value broke is the statement's failure
        error = _execute(conn, statement)
    return error


def _execute(conn: sqlite3.Connection, statement: object) -> str | None:
    failure = capture(conn.execute, statement)  # type: ignore[arg-type]
    # generated SQL may fail in any way; that is data
    return failure.text if isinstance(failure, Failure) else None


def _commit(conn: sqlite3.Connection) -> None:
    if conn.in_transaction:
        conn.commit()


def _clip(statement: object, limit: int = 80) -> str:
    text = " ".join(str(statement).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def default_cache_dir() -> Path:
    """``$AWM_GYM_CACHE``, else ``$XDG_CACHE_HOME/awm_gym``, else ``~/.cache/awm_gym``."""
    if os.environ.get("AWM_GYM_CACHE"):
        return Path(os.environ["AWM_GYM_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "awm_gym"


class TemplateCache:
    """Template databases on disk, keyed by world content hash, clock and builder version.

    Each entry is ``<key>.db`` plus ``<key>.json`` (the build report and the database's
    sha256), the JSON written last with an atomic rename, so an entry exists only when both are
    complete. :meth:`load` checks the database against its sha256: an entry changed since it
    was written (a world's code that opened the file and ``UPDATE``d it) is not used, and the
    template is built again.
    """

    def __init__(self, directory: str | os.PathLike | None = None) -> None:
        self.directory = Path(directory) if directory is not None else default_cache_dir()

    def __repr__(self) -> str:
        return f"TemplateCache({str(self.directory)!r})"

    @staticmethod
    def key(content_hash: str, clock: FrozenClock | str | None) -> str:
        """The entry of a world's content built at ``clock`` (an instant, or None: derived)."""
        spec = clock.now if isinstance(clock, FrozenClock) else (clock or "auto")
        raw = f"{content_hash}|{spec}|{TEMPLATE_FORMAT}|{sqlite3.sqlite_version}"
        return hashlib.sha256(raw.encode()).hexdigest()[:32]

    def has(self, key: str) -> bool:
        """Whether the entry ``key`` is complete (its report, written last, exists)."""
        return (self.directory / f"{key}.json").is_file()

    def load(self, key: str) -> tuple[bytes, TemplateReport] | None:
        """The entry's database and report; None when it is missing, incomplete, or its database
        no longer matches the sha256 written with it."""
        db, meta = self.directory / f"{key}.db", self.directory / f"{key}.json"
        try:
            fields = json.loads(meta.read_text())
            report = TemplateReport.from_json(fields)
            data = db.read_bytes()
        except (OSError, ValueError, KeyError, TypeError):
            return None
        if fields.get("sha256") != hashlib.sha256(data).hexdigest():
            logger.warning("cached template %s does not match its sha256; building it again",
                           db)
            return None
        return data, report

    def save(self, key: str, data: bytes, report: TemplateReport) -> None:
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            write_bytes_atomic(self.directory / f"{key}.db", data)
            meta = {**report.to_json(), "sha256": hashlib.sha256(data).hexdigest()}
            write_bytes_atomic(self.directory / f"{key}.json", json.dumps(meta).encode())
        except OSError:  # a read-only or full cache only costs a rebuild next time
            pass


