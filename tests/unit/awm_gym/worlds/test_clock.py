"""Tests for awm_gym/worlds/clock.py: SQL and Python "now" pinned to one instant."""

from __future__ import annotations

import datetime as _dt
import re
import sqlite3
import threading

import pytest

from awm_gym.worlds.clock import DEFAULT_FROZEN_NOW, FrozenClock

NOW = "2026-01-01 12:00:00"
EPOCH = 1767268800  # 2026-01-01 12:00:00 UTC


@pytest.fixture
def conn() -> sqlite3.Connection:
    c = sqlite3.connect(":memory:")
    FrozenClock(NOW).install_sql(c)
    yield c
    c.close()


def one(conn: sqlite3.Connection, sql: str) -> object:
    return conn.execute(sql).fetchone()[0]


@pytest.mark.parametrize(("sql", "expected"), [
    ("SELECT datetime('now')", NOW),
    ("SELECT datetime('NOW')", NOW),
    ("SELECT datetime(' now ')", NOW),
    ("SELECT date('now')", "2026-01-01"),
    ("SELECT time('now')", "12:00:00"),
    ("SELECT datetime('now', '-2 days')", "2025-12-30 12:00:00"),
    ("SELECT datetime('now', '+90 minutes', 'start of day')", "2026-01-01 00:00:00"),
    ("SELECT date('now', 'start of month', '-1 day')", "2025-12-31"),
    ("SELECT strftime('%Y-%m-%dT%H:%M', 'now', '-13 hours')", "2025-12-31T23:00"),
    ("SELECT strftime('%s', 'now')", str(EPOCH)),
    ("SELECT unixepoch('now')", EPOCH),
    ("SELECT julianday('now') = julianday('2026-01-01 12:00:00')", 1),
])
def test_now_and_modifiers_are_frozen(conn: sqlite3.Connection, sql: str, expected: object) -> None:
    assert one(conn, sql) == expected


@pytest.mark.parametrize(("sql", "expected"), [
    ("SELECT datetime()", NOW),
    ("SELECT date()", "2026-01-01"),
    ("SELECT time()", "12:00:00"),
    ("SELECT unixepoch()", EPOCH),
    ("SELECT strftime('%Y/%m/%d %H')", "2026/01/01 12"),
    ("SELECT julianday() = julianday('2026-01-01 12:00:00')", 1),
])
def test_no_argument_forms_mean_now(conn: sqlite3.Connection, sql: str, expected: object) -> None:
    assert one(conn, sql) == expected


@pytest.mark.parametrize(("sql", "expected"), [
    ("SELECT datetime('2024-02-28 10:00:00', '+1 day')", "2024-02-29 10:00:00"),
    ("SELECT date('2025-06-15')", "2025-06-15"),
    ("SELECT datetime(1700000000, 'unixepoch')", "2023-11-14 22:13:20"),
    ("SELECT strftime('%w', '2026-01-04')", "0"),
    ("SELECT datetime(NULL)", None),
    ("SELECT datetime('garbage')", None),
])
def test_explicit_times_are_computed_by_sqlite(conn: sqlite3.Connection, sql: str,
                                               expected: object) -> None:
    assert one(conn, sql) == expected


def test_frozen_functions_work_in_where_clauses_and_defaults(conn: sqlite3.Connection) -> None:
    conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, at TEXT DEFAULT (datetime('now')))")
    conn.execute("INSERT INTO t (id) VALUES (1)")
    conn.execute("INSERT INTO t VALUES (2, '2025-12-31 12:00:00')")
    assert conn.execute("SELECT at FROM t WHERE id = 1").fetchone()[0] == NOW
    assert conn.execute("SELECT id FROM t WHERE at < datetime('now', '-12 hours')").fetchall() == [
        (2,)]


def test_a_connection_without_the_clock_reads_the_wall_clock() -> None:
    plain = sqlite3.connect(":memory:")
    assert plain.execute("SELECT datetime('now')").fetchone()[0] != "2001-01-01 00:00:00"
    FrozenClock("2001-01-01 00:00:00").install_sql(plain)
    assert plain.execute("SELECT datetime('now')").fetchone()[0] == "2001-01-01 00:00:00"


def test_frozen_functions_work_from_other_threads() -> None:
    c = sqlite3.connect(":memory:", check_same_thread=False)
    FrozenClock(NOW).install_sql(c)
    out: list[object] = []
    t = threading.Thread(target=lambda: out.append(c.execute("SELECT date('now', '+1 day')")
                                                   .fetchone()[0]))
    t.start()
    t.join()
    assert out == ["2026-01-02"]


@pytest.mark.parametrize("bad", ["2026-01-01", "2026-01-01T12:00:00", "yesterday", "", None])
def test_bad_instant_is_rejected_with_the_expected_format(bad: object) -> None:
    with pytest.raises(ValueError, match=re.escape("expected 'YYYY-MM-DD HH:MM:SS' (UTC)")):
        FrozenClock(bad)  # type: ignore[arg-type]


def test_default_instant() -> None:
    assert FrozenClock().now == DEFAULT_FROZEN_NOW
    assert FrozenClock().now_datetime == _dt.datetime(2026, 1, 1, 12, 0, 0)


# -- Python code -----------------------------------------------------------------------------


MODULE = '''
import datetime as dtmod
from datetime import datetime, date, timezone, timedelta

def stamps():
    return {
        "utcnow": datetime.utcnow(),
        "now": datetime.now(),
        "now_utc": datetime.now(timezone.utc),
        "today": date.today(),
        "dt_today": datetime.today(),
        "module_utcnow": dtmod.datetime.utcnow(),
        "yesterday": datetime.utcnow() - timedelta(days=1),
        "constructed": datetime(2020, 5, 17, 8, 30),
    }
'''


def test_freeze_module_pins_datetime_names() -> None:
    ns: dict[str, object] = {"__name__": "world"}
    exec(MODULE, ns)
    FrozenClock(NOW).freeze_module(ns)
    s = ns["stamps"]()  # type: ignore[operator]
    frozen = _dt.datetime(2026, 1, 1, 12, 0, 0)
    assert s["utcnow"] == s["now"] == s["dt_today"] == s["module_utcnow"] == frozen
    assert s["now_utc"] == frozen.replace(tzinfo=_dt.timezone.utc)
    assert s["today"] == _dt.date(2026, 1, 1)
    assert s["yesterday"] == _dt.datetime(2025, 12, 31, 12, 0, 0)
    assert s["constructed"] == _dt.datetime(2020, 5, 17, 8, 30)
    # the stand-ins still are datetimes for isinstance checks and isoformat
    assert isinstance(s["utcnow"], _dt.datetime) and isinstance(s["today"], _dt.date)
    assert s["utcnow"].isoformat() == "2026-01-01T12:00:00"


def test_freeze_module_leaves_the_real_datetime_module_alone() -> None:
    ns: dict[str, object] = {}
    exec(MODULE, ns)
    FrozenClock("2001-01-01 00:00:00").freeze_module(ns)
    assert _dt.datetime.utcnow().year > 2001
    assert _dt.date.today().year > 2001


def test_stand_in_classes_keep_pydantic_schemas() -> None:
    from pydantic import BaseModel

    shim = FrozenClock(NOW).datetime_module()

    class Stamped(BaseModel):
        at: shim.datetime  # type: ignore[name-defined]
        on: shim.date  # type: ignore[name-defined]

    props = Stamped.model_json_schema()["properties"]
    assert props["at"]["format"] == "date-time" and props["on"]["format"] == "date"
    m = Stamped(at="2025-03-04T05:06:07", on="2025-03-04")
    assert m.at == _dt.datetime(2025, 3, 4, 5, 6, 7) and m.on == _dt.date(2025, 3, 4)


ORM_MODULE = '''
from datetime import datetime, date
from sqlalchemy import create_engine, Column, Integer, DateTime, Date
from sqlalchemy.orm import declarative_base, sessionmaker

engine = create_engine("sqlite://")
Base = declarative_base()

class Row(Base):
    __tablename__ = "rows"
    id = Column(Integer, primary_key=True)
    created_at = Column(DateTime, default=datetime.utcnow)
    updated_at = Column(DateTime, default=datetime.now, onupdate=datetime.utcnow)
    day = Column(Date, default=date.today)
    n = Column(Integer, default=0)

Base.metadata.create_all(engine)
Session = sessionmaker(bind=engine)
'''


def test_freeze_module_rewires_sqlalchemy_column_defaults() -> None:
    ns: dict[str, object] = {}
    exec(ORM_MODULE, ns)
    FrozenClock(NOW).freeze_module(ns)
    session = ns["Session"]()  # type: ignore[operator]
    row = ns["Row"]()  # type: ignore[operator]
    session.add(row)
    session.commit()
    frozen = _dt.datetime(2026, 1, 1, 12, 0, 0)
    assert (row.created_at, row.updated_at, row.day, row.n) == (frozen, frozen,
                                                                _dt.date(2026, 1, 1), 0)
    row.n = 1
    row.updated_at = _dt.datetime(2000, 1, 1)
    session.commit()
    row.n = 2
    session.commit()  # onupdate fires
    assert row.updated_at == frozen
    session.close()
