"""Tests for awm_gym/worlds/template_db.py: AWM's build order, the frozen clock, and the on-disk cache."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest

from awm_gym.worlds.clock import FrozenClock
from awm_gym.worlds.template_db import (
    TemplateCache,
    TemplateReport,
    build_template_db,
    default_cache_dir,
    open_database,
)
from awm_gym.worlds.world_set import SampleTable, TableDef

CLOCK = FrozenClock("2026-01-01 12:00:00")

USERS = TableDef("users", "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL, "
                 "joined_at DATETIME DEFAULT CURRENT_TIMESTAMP)",
                 ("CREATE INDEX idx_users_name ON users(name)",), ())
POSTS = TableDef("posts", "CREATE TABLE posts (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL, "
                 "title TEXT, posted_at TEXT, FOREIGN KEY (user_id) REFERENCES users(id))",
                 ("CREATE INDEX idx_posts_user ON posts(user_id)",), ())


def names(conn: sqlite3.Connection, kind: str) -> set[str]:
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = ?", (kind,))}


def test_foreign_key_violations_are_counted_and_skipped() -> None:
    samples = (
        SampleTable("users", ("INSERT INTO users (id, name) VALUES (1, 'ann')",)),
        SampleTable("posts", ("INSERT INTO posts VALUES (1, 1, 'ok', '2025-01-01')",
                              "INSERT INTO posts VALUES (2, 99, 'orphan', '2025-01-01')",
                              "INSERT INTO posts VALUES (3, 1, 'also ok', '2025-01-02')")),
    )
    conn, report = build_template_db((USERS, POSTS), samples, CLOCK)
    assert conn.execute("SELECT id FROM posts ORDER BY id").fetchall() == [(1,), (3,)]
    assert (report.tables_total, report.tables_failed) == (2, 0)
    assert (report.inserts_total, report.inserts_failed) == (4, 1)
    assert report.failures == (("posts", 1, "IntegrityError: FOREIGN KEY constraint failed"),)


def test_foreign_keys_are_off_afterwards_as_on_a_fresh_connection() -> None:
    conn, _ = build_template_db((USERS, POSTS), (), CLOCK)
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 0
    conn.execute("INSERT INTO posts VALUES (1, 42, 'orphan', NULL)")  # not enforced any more
    reopened = open_database(conn.serialize(), CLOCK)
    assert reopened.execute("PRAGMA foreign_keys").fetchone()[0] == 0


def test_examples_run_with_the_ddl_before_foreign_keys_are_on() -> None:
    posts = TableDef(POSTS.name, POSTS.ddl, POSTS.indexes,
                     ("INSERT INTO posts VALUES (7, 99, 'example orphan', NULL)",))
    conn, report = build_template_db((USERS, posts), (), CLOCK)
    assert conn.execute("SELECT id, user_id FROM posts").fetchall() == [(7, 99)]
    assert report.tables_failed == 0


def test_a_failing_ddl_skips_its_indexes_and_examples_but_not_other_tables() -> None:
    broken = TableDef("broken", "CREATE TABLE broken (id INTEGER PRIMARY KEY,, oops)",
                      ("CREATE INDEX idx_broken ON broken(id)",),
                      ("INSERT INTO broken VALUES (1)",))
    conn, report = build_template_db((USERS, broken, POSTS), (), CLOCK)
    assert names(conn, "table") == {"users", "posts"}
    assert names(conn, "index") == {"idx_users_name", "idx_posts_user"}
    assert report.tables_failed == 1
    [(table, idx, error)] = report.failures
    assert (table, idx) == ("broken", -1) and error.startswith("OperationalError: ")


def test_a_failing_index_keeps_the_table_but_skips_the_rest_of_the_block() -> None:
    t = TableDef("t", "CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT)",
                 ("CREATE INDEX idx_bad ON t(no_such_column)", "CREATE INDEX idx_good ON t(a)"),
                 ("INSERT INTO t VALUES (1, 'x')",))
    conn, report = build_template_db((t,), (), CLOCK)
    assert names(conn, "table") == {"t"}
    assert names(conn, "index") == set()
    assert conn.execute("SELECT count(*) FROM t").fetchone()[0] == 0
    assert report.tables_failed == 1 and report.failures[0][:2] == ("t", -1)


def test_insert_into_a_failed_table_is_a_failed_insert() -> None:
    broken = TableDef("broken", "CREATE TABLE broken (", (), ())
    _, report = build_template_db((broken,), (SampleTable("broken", ("INSERT INTO broken "
                                                                     "VALUES (1)",)),), CLOCK)
    assert (report.tables_failed, report.inserts_failed) == (1, 1)
    assert report.failures[1] == ("broken", 0, "OperationalError: no such table: broken")


def test_seed_rows_see_the_frozen_clock() -> None:
    samples = (SampleTable("users", ("INSERT INTO users (id, name) VALUES (1, 'ann')",)),
               SampleTable("posts", ("INSERT INTO posts VALUES (1, 1, 'a', datetime('now', "
                                     "'-3 days'))",
                                     "INSERT INTO posts VALUES (2, 1, 'b', date('now'))")))
    conn, _ = build_template_db((USERS, POSTS), samples, CLOCK)
    assert conn.execute("SELECT posted_at FROM posts ORDER BY id").fetchall() == [
        ("2025-12-29 12:00:00",), ("2026-01-01",)]


def test_current_timestamp_defaults_are_rewritten_to_the_frozen_clock() -> None:
    t = TableDef("t", "CREATE TABLE t (id INTEGER PRIMARY KEY, "
                 "ts DATETIME DEFAULT CURRENT_TIMESTAMP, d DATE DEFAULT current_date, "
                 "tm TEXT DEFAULT CURRENT_TIME, kept DATETIME DEFAULT CURRENT_TIMESTAMP)", (), ())
    samples = (SampleTable("t", ("INSERT INTO t (id) VALUES (1)",
                                 "INSERT INTO t (id, kept) VALUES (2, '2025-06-01 08:00:00')")),)
    conn, _ = build_template_db((t,), samples, CLOCK)
    rows = conn.execute("SELECT id, ts, d, tm, kept FROM t ORDER BY id").fetchall()
    assert rows == [(1, "2026-01-01 12:00:00", "2026-01-01", "12:00:00", "2026-01-01 12:00:00"),
                    (2, "2026-01-01 12:00:00", "2026-01-01", "12:00:00", "2025-06-01 08:00:00")]


def test_explicit_current_timestamp_in_a_seed_insert_is_frozen_too() -> None:
    t = TableDef("t", "CREATE TABLE t (id INTEGER PRIMARY KEY, at TEXT)", (), ())
    samples = (SampleTable("t", ("INSERT INTO t VALUES (1, CURRENT_TIMESTAMP)",)),)
    conn, _ = build_template_db((t,), samples, CLOCK)
    assert conn.execute("SELECT at FROM t").fetchone()[0] == "2026-01-01 12:00:00"


def test_build_is_deterministic_and_round_trips_through_bytes() -> None:
    samples = (SampleTable("users", ("INSERT INTO users (id, name) VALUES (1, 'ann')",
                                     "INSERT INTO users (id, name) VALUES (2, 'bo')")),)
    a, report_a = build_template_db((USERS, POSTS), samples, CLOCK)
    b, report_b = build_template_db((USERS, POSTS), samples, CLOCK)
    assert a.serialize() == b.serialize() and report_a == report_b
    copy = open_database(a.serialize(), CLOCK)
    assert copy.execute("SELECT * FROM users ORDER BY id").fetchall() == [
        (1, "ann", "2026-01-01 12:00:00"), (2, "bo", "2026-01-01 12:00:00")]
    # the copy runs on the clock it was opened with
    assert copy.execute("SELECT datetime('now')").fetchone()[0] == "2026-01-01 12:00:00"
    assert open_database(None, FrozenClock("2030-05-05 05:05:05")).execute(
        "SELECT date('now')").fetchone()[0] == "2030-05-05"


def test_report_json_round_trip() -> None:
    report = TemplateReport(3, 1, 10, 2, (("a", -1, "OperationalError: x"), ("b", 4, "e")))
    assert TemplateReport.from_json(json.loads(json.dumps(report.to_json()))) == report


# -- the cache -----------------------------------------------------------------------------------


REPORT = TemplateReport(1, 0, 2, 1, (("t", 1, "IntegrityError: UNIQUE constraint failed: t.id"),))


def test_cache_round_trip(tmp_path: Path) -> None:
    cache = TemplateCache(tmp_path / "cache")
    key = TemplateCache.key("abc123", CLOCK)
    assert cache.load(key) is None
    cache.save(key, b"SQLite bytes", REPORT)
    assert cache.load(key) == (b"SQLite bytes", REPORT)
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == [f"{key}.db", f"{key}.json"]


def test_cache_entry_without_its_db_file_is_a_miss(tmp_path: Path) -> None:
    cache = TemplateCache(tmp_path)
    key = TemplateCache.key("abc123", CLOCK)
    cache.save(key, b"data", REPORT)
    os.unlink(tmp_path / f"{key}.db")
    assert cache.load(key) is None


def test_cache_entry_without_its_json_file_is_a_miss(tmp_path: Path) -> None:
    cache = TemplateCache(tmp_path)
    key = TemplateCache.key("abc123", CLOCK)
    cache.save(key, b"data", REPORT)
    os.unlink(tmp_path / f"{key}.json")
    assert cache.load(key) is None


@pytest.mark.parametrize("meta", ["", "{not json", '{"tables_total": 1}', "[]"])
def test_cache_entry_with_a_broken_report_is_a_miss(tmp_path: Path, meta: str) -> None:
    cache = TemplateCache(tmp_path)
    key = TemplateCache.key("abc123", CLOCK)
    cache.save(key, b"data", REPORT)
    (tmp_path / f"{key}.json").write_text(meta)
    assert cache.load(key) is None


def test_cache_key_depends_on_content_and_clock() -> None:
    key = TemplateCache.key("abc", CLOCK)
    assert key == TemplateCache.key("abc", FrozenClock("2026-01-01 12:00:00"))
    assert key != TemplateCache.key("abd", CLOCK)
    assert key != TemplateCache.key("abc", FrozenClock("2026-01-01 12:00:01"))


def test_cache_writes_leave_no_temporary_files(tmp_path: Path) -> None:
    cache = TemplateCache(tmp_path)
    for i in range(3):
        cache.save(TemplateCache.key(f"w{i}", CLOCK), bytes([i]) * 1000, REPORT)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".") or p.suffix == ".tmp"]


def test_unwritable_cache_only_costs_a_rebuild(tmp_path: Path) -> None:
    blocker = tmp_path / "not_a_dir"
    blocker.write_text("a file where the cache directory should be")
    cache = TemplateCache(blocker / "cache")
    cache.save("k", b"data", REPORT)  # must not raise
    assert cache.load("k") is None


def test_default_cache_dir_follows_the_environment(monkeypatch: pytest.MonkeyPatch,
                                                   tmp_path: Path) -> None:
    monkeypatch.setenv("AWM_GYM_CACHE", str(tmp_path / "explicit"))
    assert default_cache_dir() == tmp_path / "explicit"
    assert TemplateCache().directory == tmp_path / "explicit"
    monkeypatch.delenv("AWM_GYM_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "xdg" / "awm_gym"


def test_a_real_template_survives_the_cache(tmp_path: Path) -> None:
    samples = (SampleTable("users", ("INSERT INTO users (id, name) VALUES (1, 'ann ☕')",)),)
    conn, report = build_template_db((USERS, POSTS), samples, CLOCK)
    cache = TemplateCache(tmp_path)
    key = TemplateCache.key("hash", CLOCK)
    cache.save(key, conn.serialize(), report)
    data, loaded_report = cache.load(key)
    assert data == conn.serialize() and loaded_report == report
    assert open_database(data, CLOCK).execute("SELECT name FROM users").fetchone()[0] == "ann ☕"


# -- real AWM output: whatever fails, the build goes on and the report counts it -------------


def test_a_table_referencing_a_broken_table_builds_as_awm_builds_it() -> None:
    broken = TableDef("parents", "CREATE TABLE parents (id INTEGER PRIMARY KEY,, name TEXT)", (), ())
    child = TableDef("children", "CREATE TABLE children (id INTEGER PRIMARY KEY, parent_id "
                     "INTEGER REFERENCES parents(id), born_at DATETIME DEFAULT CURRENT_TIMESTAMP)",
                     (), ())
    plain = TableDef("toys", "CREATE TABLE toys (id INTEGER PRIMARY KEY, name TEXT)", (), ())
    samples = (SampleTable("parents", ("INSERT INTO parents VALUES (1, 'p')",)),
               SampleTable("children", ("INSERT INTO children (id, parent_id) VALUES (1, 1)",)),
               SampleTable("toys", ("INSERT INTO toys VALUES (1, 'ball')",)))
    conn, report = build_template_db((broken, child, plain), samples, CLOCK)
    assert names(conn, "table") == {"children", "toys"}
    assert conn.execute("SELECT name FROM toys").fetchall() == [("ball",)]
    assert (report.tables_failed, report.inserts_total, report.inserts_failed) == (1, 3, 2)
    assert report.failures[2] == ("children", 0, "OperationalError: no such table: main.parents")


@pytest.mark.parametrize(("statement", "error"), [
    ("INSERT INTO t VALUES (1, 'a'); INSERT INTO t VALUES (2, 'b')", "one statement at a time"),
    ("INSERT INTO t VALUES (1, 'nul\x00byte')", "null character"),
    ("INSERT INTO t VALUES (1, 'lone \ud800 surrogate')", "surrogates not allowed"),
    ("INSERT INTO t VALUES (1, 'Kid\\'s')", "syntax error"),
    ("", None),
])
def test_any_failing_statement_is_counted_never_raised(statement: str, error: str | None) -> None:
    t = TableDef("t", "CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT)", (), ())
    conn, report = build_template_db((t,), (SampleTable("t", (statement,)),), CLOCK)
    if error is None:  # an empty statement runs as a no-op, as in AWM
        assert report.inserts_failed == 0
        return
    assert report.inserts_failed == 1 and error in report.failures[0][2]
    assert conn.execute("SELECT count(*) FROM t").fetchone()[0] == 0


def test_a_failing_index_is_named_in_the_report() -> None:
    t = TableDef("t", "CREATE TABLE t (id INTEGER PRIMARY KEY)",
                 ("CREATE INDEX ok ON t(id)", "CREATE INDEX bad ON t(nope)"), ())
    _, report = build_template_db((t,), (), CLOCK)
    [(table, idx, error)] = report.failures
    assert (table, idx) == ("t", -1)
    assert error == ("index 1 (CREATE INDEX bad ON t(nope)): OperationalError: no such column: "
                     "nope")


def test_a_bad_default_fails_the_inserts_that_use_it() -> None:
    t = TableDef("t", "CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT DEFAULT (no_such_fn()))",
                 (), ())
    samples = (SampleTable("t", ("INSERT INTO t (id) VALUES (1)", "INSERT INTO t VALUES (2, 'x')")),)
    conn, report = build_template_db((t,), samples, CLOCK)
    assert conn.execute("SELECT id FROM t").fetchall() == [(2,)]
    assert report.inserts_failed == 1 and "no_such_fn" in report.failures[0][2]


@pytest.mark.parametrize(("ddl", "index", "insert_fails"), [
    ("CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT CHECK (a <= datetime('now')))", None, True),
    ("CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT, g TEXT AS (date('now')))", None, True),
    ("CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT)", "CREATE INDEX i ON t (date('now'))", True),
    ("CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT CHECK (a <= CURRENT_TIMESTAMP))", None, False),
])
def test_now_where_stock_sqlite_forbids_it_fails_as_under_awm(ddl: str, index: str | None,
                                                             insert_fails: bool) -> None:
    """(CREATE INDEX succeeds on an empty table; the row it cannot index fails.)"""
    # our time functions are overloads marked deterministic; stock SQLite still decides here
    t = TableDef("t", ddl, (index,) if index else (), ())
    conn, report = build_template_db((t,), (SampleTable("t", ("INSERT INTO t (id, a) VALUES "
                                                               "(1, '2020-01-01')",)),), CLOCK)
    assert report.tables_failed == 0
    assert report.inserts_failed == int(insert_fails)
    if insert_fails:
        assert "non-deterministic" in report.failures[0][2]


def test_a_world_whose_tables_all_fail_still_serializes() -> None:
    conn, report = build_template_db((TableDef("t", "CREATE TABLE t (", (), ()),), (), CLOCK)
    assert report.tables_failed == 1
    assert open_database(conn.serialize(), CLOCK).execute(
        "SELECT count(*) FROM sqlite_master").fetchone()[0] == 0
