"""Tests for awm_gym/worlds/clock.py: SQL and Python "now" pinned to one instant."""

from __future__ import annotations

import datetime as _dt
import re
import sqlite3
import threading

import pytest

from awm_gym.worlds.clock import DEFAULT_FROZEN_NOW, EpisodeClock, FrozenClock, patch_module_clock

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


@pytest.mark.parametrize("bad", ["2026-01-01", "2026-01-01T12:00:00", "yesterday", "", 5])
def test_bad_instant_is_rejected_with_the_expected_format(bad: object) -> None:
    with pytest.raises(ValueError, match=re.escape("expected 'YYYY-MM-DD HH:MM:SS' (UTC)")):
        FrozenClock(bad)  # type: ignore[arg-type]


def test_default_instant() -> None:
    assert FrozenClock().now == FrozenClock(None).now == DEFAULT_FROZEN_NOW  # type: ignore[arg-type]
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


# -- the moving clock -------------------------------------------------------------------------


def test_episode_clock_moves_one_step_per_tick_and_restarts() -> None:
    clock = EpisodeClock(NOW, step_s=1.5)
    assert (clock.now, clock.now_datetime) == (NOW, _dt.datetime(2026, 1, 1, 12))
    clock.tick()
    assert clock.now == "2026-01-01 12:00:01.500"
    clock.tick()
    assert clock.now == "2026-01-01 12:00:03"
    clock.restart()
    assert clock.now == NOW and clock.ticks == 0
    frozen = EpisodeClock(NOW, step_s=0)
    frozen.tick()
    assert frozen.now == NOW


@pytest.mark.parametrize(("base", "step", "match"), [
    ("2026-01-01", 1.0, "EpisodeClock.base='2026-01-01'"),
    (NOW, -1.0, "EpisodeClock.step_s=-1.0: must be >= 0"),
    (NOW, float("nan"), "EpisodeClock.step_s=nan"),
])
def test_episode_clock_rejects_bad_settings(base: str, step: float, match: str) -> None:
    with pytest.raises(ValueError, match=re.escape(match)):
        EpisodeClock(base, step)


def test_sql_functions_read_the_episode_clock_at_each_call() -> None:
    clock = EpisodeClock(NOW)
    c = sqlite3.connect(":memory:")
    clock.install_sql(c)
    c.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, at TEXT DEFAULT (datetime('now')))")
    for _ in range(3):
        clock.tick()
        c.execute("INSERT INTO t (at) VALUES (datetime('now'))")
        c.execute("INSERT INTO t DEFAULT VALUES")
    assert [r[0] for r in c.execute("SELECT at FROM t ORDER BY id")] == [
        "2026-01-01 12:00:01", "2026-01-01 12:00:01", "2026-01-01 12:00:02",
        "2026-01-01 12:00:02", "2026-01-01 12:00:03", "2026-01-01 12:00:03"]
    assert one(c, "SELECT unixepoch()") == EPOCH + 3
    assert one(c, "SELECT strftime('%H:%M:%S')") == "12:00:03"


def test_two_connections_keep_their_own_clocks() -> None:
    a, b = EpisodeClock(NOW), EpisodeClock("2030-06-01 00:00:00")
    ca, cb = sqlite3.connect(":memory:"), sqlite3.connect(":memory:")
    a.install_sql(ca)
    b.install_sql(cb)
    a.tick()
    assert one(ca, "SELECT datetime()") == "2026-01-01 12:00:01"
    assert one(cb, "SELECT datetime()") == "2030-06-01 00:00:00"


TIME_MODULE = """
import time
import time as t2
from time import time as now_s, time_ns
from datetime import datetime

def stamps():
    return {"time": time.time(), "t2": t2.time(), "now_s": now_s(), "ns": time_ns(),
            "gm": time.gmtime()[:6], "local": time.localtime()[:6],
            "fmt": time.strftime("%Y%m%d-%H%M%S"), "ctime": time.ctime(),
            "code": f"MSG-{int(time.time() * 1000)}", "iso": datetime.utcnow().isoformat(),
            "perf": time.perf_counter() > 0, "sleep": time.sleep is __import__("time").sleep}
"""


def test_patch_module_clock_covers_time_and_follows_the_source() -> None:
    clock = EpisodeClock(NOW)
    ns: dict[str, object] = {}
    exec(TIME_MODULE, ns)
    patch_module_clock(ns, lambda: clock.now_datetime)
    s = ns["stamps"]()  # type: ignore[operator]
    assert s["time"] == s["t2"] == s["now_s"] == float(EPOCH)
    assert s["ns"] == EPOCH * 10**9
    assert s["gm"] == s["local"] == (2026, 1, 1, 12, 0, 0)
    assert (s["fmt"], s["ctime"]) == ("20260101-120000", "Thu Jan  1 12:00:00 2026")
    assert s["perf"] and s["sleep"]  # the rest of the time module stays real
    first = s["code"]
    clock.tick()
    s = ns["stamps"]()  # type: ignore[operator]
    assert first == f"MSG-{EPOCH * 1000}" and s["code"] == f"MSG-{(EPOCH + 1) * 1000}"
    assert s["iso"] == "2026-01-01T12:00:01"
    import time

    assert time.time() > EPOCH + 86_400 * 300  # the real module is untouched


def test_patch_module_clock_leaves_none_and_other_values_alone() -> None:
    ns: dict[str, object] = {"__doc__": None, "x": 1, "f": len}
    exec("import datetime", ns)
    patch_module_clock(ns, lambda: _dt.datetime(2026, 1, 1))
    assert ns["__doc__"] is None and ns["x"] == 1 and ns["f"] is len
    assert ns["datetime"].date.today() == _dt.date(2026, 1, 1)  # type: ignore[attr-defined]


PYDANTIC_MODULE = '''
from datetime import datetime, date
from pydantic import BaseModel, Field

class Stamp(BaseModel):
    at: datetime = Field(default_factory=datetime.utcnow)
    on: date = Field(default_factory=date.today)
    n: int = 0
'''


def test_patch_module_clock_rewires_pydantic_default_factories() -> None:
    import sys
    import types

    clock = EpisodeClock(NOW)
    module = types.ModuleType("awm_world_pydantic_test")  # as the tool host loads world code
    sys.modules[module.__name__] = module
    try:
        exec(PYDANTIC_MODULE, module.__dict__)
        ns = module.__dict__
        patch_module_clock(ns, lambda: clock.now_datetime)
    finally:
        del sys.modules[module.__name__]
    clock.tick()
    stamp = ns["Stamp"]()  # type: ignore[operator]
    assert (stamp.at, stamp.on, stamp.n) == (_dt.datetime(2026, 1, 1, 12, 0, 1),
                                             _dt.date(2026, 1, 1), 0)
    assert ns["Stamp"].model_json_schema()["properties"]["at"]["format"] == "date-time"  # type: ignore[attr-defined]
