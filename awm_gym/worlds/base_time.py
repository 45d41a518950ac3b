"""Pick a world's base time from its seed data, so the data looks as it did when generated.

Seed data is dated relative to when it was generated: an order placed "last week" carries a
literal date. A world run at a fixed default instant that comes before those dates shows them
as future rows, and history queries (``created_at >= datetime('now', '-7 days')``) miss them.
:func:`derive_base_time` reads a template built at a sentinel clock far in the past (so values
computed from ``'now'`` are recognisable and ignored) and takes the latest literal timestamp in
columns that record when something happened (``created_at``, ``sent_at``, ``last_login``, ...;
never ``due_date``, ``expires_at``, ``start_time`` and other columns that may hold the future),
rounds it up to the next whole hour, and never goes below :data:`DEFAULT_FROZEN_NOW`: worlds
whose data is older keep the default, as they always had.

Example:
    >>> import sqlite3
    >>> conn = sqlite3.connect(":memory:")
    >>> _ = conn.execute("CREATE TABLE m (id INTEGER, created_at TEXT, due_date TEXT)")
    >>> _ = conn.execute("INSERT INTO m VALUES (1, '2026-03-12 17:45:00', '2027-01-01')")
    >>> derive_base_time(conn)
    '2026-03-12 18:00:00'
"""

from __future__ import annotations

import datetime as _dt
import re
import sqlite3

from awm_gym.worlds.clock import DEFAULT_FROZEN_NOW, parse_instant

__all__ = ["derive_base_time", "SENTINEL_NOW"]

SENTINEL_NOW = "1900-01-01 00:00:00"
"""The clock a probe build runs at: values derived from ``'now'`` land around 1900."""

_PAST = re.compile(
    r"created|updated|modified|posted|sent|joined|registered|signed_?up|submitted|uploaded|"
    r"published|placed|paid|received|logged|occurred|added|completed|delivered|ordered|"
    r"last_|timestamp|redeemed|viewed|read_at|archived|deleted|cancel+ed|approved|merged|"
    r"resolved|closed_at|edited|commented|liked|visited|recorded", re.IGNORECASE)
_FUTURE = re.compile(
    r"due|expir|deadline|schedul|start|end|until|renew|next|valid|upcoming|remind|depart|"
    r"arriv|check_?in|check_?out|effective|planned|target|estimated|eta|birth", re.IGNORECASE)
_INSTANT = re.compile(r"^\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?"
                      r"(?:Z|[+-]\d{2}:?\d{2})?$")
_LOWEST, _HIGHEST = _dt.datetime(1971, 1, 1), _dt.datetime(2200, 1, 1)


def is_past_column(name: str) -> bool:
    """Whether a column name says it records when something already happened."""
    return bool(_PAST.search(name)) and not _FUTURE.search(name)


def _parse(value: object) -> _dt.datetime | None:
    if not isinstance(value, str) or not _INSTANT.match(value.strip()):
        return None
    try:
        instant = _dt.datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    if instant.tzinfo is not None:
        instant = instant.astimezone(_dt.timezone.utc).replace(tzinfo=None)
    return instant if _LOWEST <= instant < _HIGHEST else None


def latest_past_timestamp(conn: sqlite3.Connection) -> _dt.datetime | None:
    """The latest timestamp in a "when it happened" column of any table, or None."""
    latest: _dt.datetime | None = None
    tables = [r[0] for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
    for table in tables:
        quoted = '"' + table.replace('"', '""') + '"'
        try:
            columns = [c[1] for c in conn.execute(f"PRAGMA table_xinfo({quoted})")]
        except sqlite3.Error:
            continue
        for column in filter(is_past_column, columns):
            col = '"' + column.replace('"', '""') + '"'
            try:
                values = conn.execute(f"SELECT DISTINCT {col} FROM {quoted} "
                                      f"WHERE typeof({col}) = 'text'").fetchall()
            except sqlite3.Error:  # a virtual table whose module is missing, ...
                continue
            for (value,) in values:
                instant = _parse(value)
                if instant is not None and (latest is None or instant > latest):
                    latest = instant
    return latest


def derive_base_time(conn: sqlite3.Connection) -> str:
    """The base time for a world whose seed rows are in ``conn`` (built at :data:`SENTINEL_NOW`).

    Returns:
        The latest past timestamp rounded up to the whole hour, or :data:`DEFAULT_FROZEN_NOW`
        when that is later (or there is none); ``'YYYY-MM-DD HH:MM:SS'``.
    """
    default = parse_instant(DEFAULT_FROZEN_NOW)
    latest = latest_past_timestamp(conn)
    if latest is None or latest <= default:
        return DEFAULT_FROZEN_NOW
    rounded = latest.replace(minute=0, second=0, microsecond=0)
    if rounded < latest:
        rounded += _dt.timedelta(hours=1)
    return rounded.strftime("%Y-%m-%d %H:%M:%S")
