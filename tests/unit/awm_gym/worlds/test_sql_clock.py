"""Tests for awm_gym/worlds/sql_clock.py: SQLite's time keywords become the clock's functions."""

from __future__ import annotations

import sqlite3

import pytest

from awm_gym.worlds.clock import EpisodeClock
from awm_gym.worlds.sql_clock import rewrite_time_keywords


@pytest.mark.parametrize(("sql", "expected"), [
    ("SELECT CURRENT_TIMESTAMP", "SELECT (datetime('now'))"),
    ("select current_date, Current_Time", "select (date('now')), (time('now'))"),
    ("CREATE TABLE t (a DATETIME DEFAULT CURRENT_TIMESTAMP)",
     "CREATE TABLE t (a DATETIME DEFAULT (datetime('now')))"),
    ("CREATE TABLE t (a DEFAULT (CURRENT_TIMESTAMP))", "CREATE TABLE t (a DEFAULT ((datetime('now'))))"),
    ("UPDATE t SET at=CURRENT_TIMESTAMP WHERE id=1", "UPDATE t SET at=(datetime('now')) WHERE id=1"),
])
def test_keywords_are_replaced(sql: str, expected: str) -> None:
    assert rewrite_time_keywords(sql) == expected


@pytest.mark.parametrize("sql", [
    "SELECT 'CURRENT_TIMESTAMP', 'it''s CURRENT_DATE'",
    'SELECT "current_time", `current_date`, [CURRENT_TIMESTAMP] FROM t',
    "SELECT t.current_date, t . CURRENT_TIME FROM t",
    "SELECT 1 -- CURRENT_TIMESTAMP\n",
    "SELECT /* CURRENT_DATE */ 1",
    "SELECT current_timestamps, my_current_date, CURRENT_TIMESTAMP_X FROM t",
    "SELECT x'43555252454e545f44415445'",
    "SELECT 'unterminated CURRENT_DATE",
    "",
])
def test_everything_else_is_left_alone(sql: str) -> None:
    assert rewrite_time_keywords(sql) == sql


def test_a_mixed_statement() -> None:
    sql = ("INSERT INTO \"current_date\" (note, at) VALUES ('CURRENT_TIME is ''now''', "
           "CURRENT_TIMESTAMP) -- CURRENT_DATE")
    assert rewrite_time_keywords(sql) == (
        "INSERT INTO \"current_date\" (note, at) VALUES ('CURRENT_TIME is ''now''', "
        "(datetime('now'))) -- CURRENT_DATE")


def test_rewritten_sql_means_the_same_on_a_plain_connection() -> None:
    plain = sqlite3.connect(":memory:")
    for sql in ("SELECT CURRENT_TIMESTAMP", "SELECT CURRENT_DATE", "SELECT CURRENT_TIME"):
        before = plain.execute(sql).fetchone()[0]
        after = plain.execute(rewrite_time_keywords(sql)).fetchone()[0]
        assert len(before) == len(after) and after[:4] == before[:4]


def test_raw_inserts_into_default_current_timestamp_columns_read_the_clock() -> None:
    clock = EpisodeClock("2026-01-01 12:00:00")
    conn = sqlite3.connect(":memory:")
    clock.install_sql(conn)
    conn.execute(rewrite_time_keywords(
        "CREATE TABLE t (id INTEGER PRIMARY KEY, ts DATETIME DEFAULT CURRENT_TIMESTAMP, "
        "d DATE DEFAULT CURRENT_DATE, tm TEXT DEFAULT CURRENT_TIME)"))
    clock.tick()
    conn.execute("INSERT INTO t (id) VALUES (1)")
    clock.tick()
    conn.execute("INSERT INTO t DEFAULT VALUES")
    assert conn.execute("SELECT ts, d, tm FROM t ORDER BY id").fetchall() == [
        ("2026-01-01 12:00:01", "2026-01-01", "12:00:01"),
        ("2026-01-01 12:00:02", "2026-01-01", "12:00:02")]


@pytest.mark.parametrize(("sql", "expected"), [
    ("CREATE TABLE t (a TEXT DEFAULT CURRENT_DATE CHECK (a <= CURRENT_DATE))",
     "CREATE TABLE t (a TEXT DEFAULT (date('now')) CHECK (a <= CURRENT_DATE))"),
    ("CREATE TABLE t (a DEFAULT (coalesce(NULL, (CURRENT_TIME))), b AS (CURRENT_DATE))",
     "CREATE TABLE t (a DEFAULT (coalesce(NULL, ((time('now'))))), b AS (CURRENT_DATE))"),
    ("create temp table t (a default current_timestamp)",
     "create temp table t (a default (datetime('now')))"),
    ("ALTER TABLE t ADD COLUMN a DEFAULT CURRENT_TIMESTAMP",
     "ALTER TABLE t ADD COLUMN a DEFAULT (datetime('now'))"),
    ("CREATE INDEX i ON t (CURRENT_DATE)", "CREATE INDEX i ON t (CURRENT_DATE)"),
    ("CREATE TRIGGER tr AFTER UPDATE ON t BEGIN UPDATE t SET at = CURRENT_TIMESTAMP; END",
     "CREATE TRIGGER tr AFTER UPDATE ON t BEGIN UPDATE t SET at = (datetime('now')); END"),
])
def test_table_ddl_rewrites_only_defaults(sql: str, expected: str) -> None:
    assert rewrite_time_keywords(sql) == expected


def test_a_rewritten_schema_behaves_as_the_original_on_a_plain_connection() -> None:
    ddl = ("CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT DEFAULT CURRENT_TIMESTAMP "
           "CHECK (CURRENT_TIMESTAMP IS NOT NULL))")
    for sql in (ddl, rewrite_time_keywords(ddl)):
        plain = sqlite3.connect(":memory:")
        plain.execute(sql)
        plain.execute("INSERT INTO t (id) VALUES (1)")
        assert plain.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
