"""Tests for awm_gym/worlds/base_time.py: a world's base time from its seed data."""

from __future__ import annotations

import sqlite3

import pytest

from awm_gym.worlds.base_time import SENTINEL_NOW, derive_base_time, is_past_column
from awm_gym.worlds.clock import DEFAULT_FROZEN_NOW, FrozenClock
from awm_gym.worlds.template_db import build_template_db
from awm_gym.worlds.world_set import SampleTable, TableDef


def _db(*rows: tuple[str, str]) -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    columns = sorted({c for c, _ in rows})
    conn.execute(f"CREATE TABLE t ({', '.join(columns)})")
    for column, value in rows:
        conn.execute(f"INSERT INTO t ({column}) VALUES (?)", (value,))
    return conn


@pytest.mark.parametrize(("name", "past"), [
    ("created_at", True), ("updatedAt", True), ("sent_at", True), ("last_login", True),
    ("order_timestamp", True), ("due_date", False), ("expires_at", False),
    ("start_time", False), ("scheduled_at", False), ("next_billing_date", False),
    ("name", False), ("price", False), ("birth_date", False),
])
def test_past_columns(name: str, past: bool) -> None:
    assert is_past_column(name) is past


@pytest.mark.parametrize(("rows", "expected"), [
    ((("created_at", "2026-03-12 17:45:00"),), "2026-03-12 18:00:00"),
    ((("created_at", "2026-03-12 17:00:00"),), "2026-03-12 17:00:00"),
    ((("created_at", "2026-03-12"),), "2026-03-12 00:00:00"),
    ((("created_at", "2026-03-12T17:45:10Z"),), "2026-03-12 18:00:00"),
    ((("created_at", "2026-03-12T17:45:00+02:00"),), "2026-03-12 16:00:00"),
    ((("created_at", "2025-06-01 08:00:00"),), DEFAULT_FROZEN_NOW),  # older: the default
    ((("due_date", "2027-01-01"), ("created_at", "2026-02-01 10:30:00")), "2026-02-01 11:00:00"),
    ((("created_at", "1900-01-01 00:00:00"),), DEFAULT_FROZEN_NOW),  # sentinel-derived
    ((("created_at", "not a date"), ("created_at", "2026-13-45")), DEFAULT_FROZEN_NOW),
    ((), DEFAULT_FROZEN_NOW),
])
def test_derive_base_time(rows: tuple[tuple[str, str], ...], expected: str) -> None:
    conn = _db(*rows) if rows else sqlite3.connect(":memory:")
    assert derive_base_time(conn) == expected


def test_now_relative_seed_rows_do_not_move_the_base() -> None:
    t = TableDef("m", "CREATE TABLE m (id INTEGER PRIMARY KEY, created_at TEXT DEFAULT "
                 "CURRENT_TIMESTAMP)", (), ())
    samples = (SampleTable("m", ("INSERT INTO m VALUES (1, '2026-02-10 09:10:00')",
                                 "INSERT INTO m VALUES (2, datetime('now', '+400 days'))",
                                 "INSERT INTO m (id) VALUES (3)")),)
    probe, _ = build_template_db((t,), samples, FrozenClock(SENTINEL_NOW))
    assert derive_base_time(probe) == "2026-02-10 10:00:00"
