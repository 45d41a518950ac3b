"""Tests for awm_gym/manager/probe.py: clock-reading seed rows and seed-drawn tool arguments."""

from __future__ import annotations

import sqlite3

import pytest

from awm_gym.manager.probe import SeedValues, draw_arguments, find_clock_seeds
from awm_gym.tools.catalogue import ToolSpec
from awm_gym.worlds.records import SampleTable


@pytest.mark.parametrize(("statement", "expression"), [
    ("INSERT INTO t VALUES (1, datetime('now', '-2 days'));", "datetime('now', '-2 days')"),
    ("INSERT INTO t VALUES (1, DATE('now'));", "DATE('now')"),
    ("INSERT INTO t VALUES (1, strftime('%Y-%m-%d', 'now', '+1 month'));",
     "strftime('%Y-%m-%d', 'now', '+1 month')"),
    ("INSERT INTO t VALUES (1, julianday('now'));", "julianday('now')"),
    ("INSERT INTO t (a, b) VALUES (1, CURRENT_TIMESTAMP);", "CURRENT_TIMESTAMP"),
])
def test_seed_rows_that_read_the_clock_are_found(statement: str, expression: str) -> None:
    [seed] = find_clock_seeds([SampleTable("t", ("INSERT INTO t VALUES (0, 'x');", statement))])
    assert (seed.table, seed.index, seed.expression) == ("t", 1, expression)


def test_literal_dates_and_the_word_now_in_text_are_not_clock_reads() -> None:
    rows = SampleTable("t", ("INSERT INTO t VALUES (1, '2025-12-01 09:00:00');",
                             "INSERT INTO t VALUES (2, 'call me now');",
                             "INSERT INTO t VALUES (3, datetime('2025-12-01', '+1 day'));"))
    assert find_clock_seeds([rows]) == []


@pytest.fixture()
def seeds() -> SeedValues:
    conn = sqlite3.connect(":memory:")
    conn.executescript(
        "CREATE TABLE categories (id INTEGER PRIMARY KEY, name TEXT);"
        "CREATE TABLE notes (id INTEGER PRIMARY KEY, category_id INTEGER, title TEXT, "
        "status TEXT, pinned INTEGER, score REAL);"
        "INSERT INTO categories VALUES (7, 'Work');"
        "INSERT INTO notes VALUES (3, 7, 'Budget', NULL, 1, 2.5), (4, 7, 'Plan', 'open', 0, 1);")
    return SeedValues.read(conn)


def tool(properties: dict, required: list[str]) -> ToolSpec:
    return ToolSpec("t", "", {"type": "object", "properties": properties, "required": required})


def test_ids_come_from_the_table_a_parameter_names(seeds: SeedValues) -> None:
    assert draw_arguments(tool({"note_id": {"type": "integer"}}, ["note_id"]), seeds) == {
        "note_id": 3}
    # category_id: the categories table's ids first (7), not a notes.category_id column value
    assert draw_arguments(tool({"category_id": {"type": "integer"}}, ["category_id"]),
                          seeds) == {"category_id": 7}


def test_values_come_from_a_column_of_that_name_and_fit_the_type(seeds: SeedValues) -> None:
    # the first non-null status; a NULL is skipped
    assert draw_arguments(tool({"status": {"type": "string"}}, ["status"]), seeds) == {
        "status": "open"}
    assert draw_arguments(tool({"pinned": {"type": "boolean"}}, ["pinned"]), seeds) == {
        "pinned": True}
    assert draw_arguments(tool({"score": {"type": "number"}}, ["score"]), seeds) == {"score": 2.5}
    # anyOf-only parameters take their first non-null type
    any_of = {"anyOf": [{"type": "null"}, {"type": "string"}]}
    assert draw_arguments(tool({"title": any_of}, ["title"]), seeds) == {"title": "Budget"}


def test_enums_and_defaults_win_and_optional_parameters_are_left_out(seeds: SeedValues) -> None:
    props = {"status": {"type": "string", "enum": ["closed", "open"]},
             "limit": {"type": "integer", "default": 5}, "note_id": {"type": "integer"}}
    assert draw_arguments(tool(props, ["status", "limit"]), seeds) == {"status": "closed",
                                                                      "limit": 5}


def test_a_tool_is_skipped_when_a_required_value_cannot_be_drawn(seeds: SeedValues) -> None:
    assert draw_arguments(tool({"q": {"type": "string"}}, ["q"]), seeds) is None
    # a value of the wrong type for the schema is not drawn
    assert draw_arguments(tool({"title": {"type": "integer"}}, ["title"]), seeds) is None
    # the drawn value must pass the schema (here: a minimum the seed id breaks)
    assert draw_arguments(tool({"note_id": {"type": "integer", "minimum": 10}}, ["note_id"]),
                          seeds) is None


def test_a_tool_without_required_parameters_is_called_with_none(seeds: SeedValues) -> None:
    assert draw_arguments(ToolSpec("ping", "", {"type": "object", "properties": {}}),
                          seeds) == {}
