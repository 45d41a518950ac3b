"""Tests for awm_gym/manager/task_checks.py: verifiers that cannot compile or read a missing
table or column, and create-tasks whose unique key the seed already holds (real SQLite)."""

from __future__ import annotations

import sqlite3

import pytest

from awm_gym.manager.task_checks import (compile_finding, existing_key_finding, schema_finding,
                                         sql_strings, unique_keys)
from awm_gym.worlds.records import Solution, SolutionCall


@pytest.fixture()
def db() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.executescript("""
        CREATE TABLE members (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, name TEXT);
        CREATE TABLE playlist_tracks (playlist_id INTEGER, track_id INTEGER, note TEXT,
                                      UNIQUE (playlist_id, track_id));
        CREATE TABLE tags (label TEXT PRIMARY KEY);
        CREATE UNIQUE INDEX members_name_lower ON members (lower(name));
        INSERT INTO members VALUES (1, 'ana@example.com', 'Ana');
        INSERT INTO playlist_tracks VALUES (7, 3, NULL);
        INSERT INTO tags VALUES ('urgent');
    """)
    return conn


def verifier(body: str) -> str:
    return ("def verify_task_completion(initial_db_path, final_db_path, final_answer=None):\n"
            "    conn = sqlite3.connect(final_db_path)\n" + body)


def test_a_syntax_error_is_a_finding_and_valid_code_is_not() -> None:
    f = compile_finding(verifier("    return {'result': 'others'\n"), 4)
    assert f is not None and f.kind == "verifier_does_not_compile" and f.task_idx == 4
    assert f.message.startswith("task 4: the verifier does not compile: '{' was never closed")
    assert compile_finding(verifier("    return {'result': 'others'}\n"), 4) is None
    assert compile_finding("x = 1\0", 0) is not None  # a NUL byte: ValueError, not SyntaxError


def test_sql_strings_skip_templates_and_f_strings() -> None:
    code = verifier(
        "    a = conn.execute('SELECT id FROM members WHERE email = ?', (x,))\n"
        "    b = conn.execute(f'SELECT {col} FROM members')\n"
        "    c = conn.execute('SELECT {} FROM members'.format(col))\n"
        "    d = conn.execute('select name from members '\n"
        "                     'where id = 1')\n"
        "    return {'result': 'others'}\n")
    assert sql_strings(code) == ["SELECT id FROM members WHERE email = ?",
                                 "select name from members where id = 1"]


@pytest.mark.parametrize(("sql", "expected"), [
    ("SELECT level FROM members WHERE id = 1", "column the schema lacks: no such column: level"),
    ("SELECT tier FROM accounts", "table the schema lacks: no such table: accounts"),
    ("UPDATE members SET nickname = 'x' WHERE id = 1", "no such column: nickname"),
])
def test_a_missing_table_or_column_is_a_finding(db: sqlite3.Connection, sql: str,
                                                expected: str) -> None:
    f = schema_finding(verifier(f"    conn.execute({sql!r})\n"), 2, db)
    assert f is not None and f.kind == "verifier_unknown_schema" and expected in f.message
    assert db.execute("SELECT count(*) FROM members").fetchone() == (1,)  # nothing ran


@pytest.mark.parametrize("sql", [
    "SELECT email FROM members WHERE id = ?",              # bound parameters: prepared fine
    "SELECT name FROM init.members",                       # an attached copy of the schema
    "SELECT x FROM scratch",                               # a table the verifier creates
    "SELECT count(*) FROM members WHERE",                  # a fragment: nothing decided
    "WITH m AS (SELECT id FROM members) SELECT id FROM m",
])
def test_what_cannot_be_decided_or_is_right_is_not_a_finding(db: sqlite3.Connection,
                                                             sql: str) -> None:
    code = verifier("    conn.execute('CREATE TEMP TABLE scratch (x INTEGER)')\n"
                    f"    conn.execute({sql!r})\n")
    assert schema_finding(code, 0, db) is None


def test_unique_keys_come_from_constraints_not_expressions(db: sqlite3.Connection) -> None:
    assert unique_keys(db) == {"members": [("email",)],
                               "playlist_tracks": [("playlist_id", "track_id")],
                               "tags": [("label",)]}


ROUTES = {"create_member": ("post", "/api/members"), "get_member": ("get", "/api/members/{id}"),
          "add_track": ("POST", "/api/playlists/{playlist_id}/tracks"),
          "send_invite": ("POST", "/api/invites")}


def solution(tool: str, **arguments: object) -> Solution:
    return Solution(0, (SolutionCall(tool, arguments),), None)


def test_a_create_of_an_existing_key_is_decided_from_the_solution(db: sqlite3.Connection
                                                                  ) -> None:
    f = existing_key_finding(3, "Register Ana.", solution(
        "create_member", payload={"email": "ana@example.com", "name": "Ana B"}), None, ROUTES, db)
    assert f is not None and f.kind == "create_key_exists" and f.task_idx == 3
    assert "create_member call would insert members(email='ana@example.com')" in f.message
    f = existing_key_finding(0, "Add track 3.", solution("add_track", playlist_id=7, track_id=3),
                             None, ROUTES, db)
    assert f is not None and "playlist_tracks(playlist_id=7, track_id=3)" in f.message


@pytest.mark.parametrize(("tool", "arguments"), [
    ("create_member", {"email": "new@example.com"}),   # a new key
    ("get_member", {"email": "ana@example.com"}),      # not a create (GET)
    ("send_invite", {"email": "ana@example.com"}),     # a POST that does not name the table
    ("add_track", {"playlist_id": 7, "track_id": 4}),  # only part of the key exists
])
def test_no_finding_when_the_solution_does_not_hit_an_existing_key(
        db: sqlite3.Connection, tool: str, arguments: dict) -> None:
    assert existing_key_finding(0, "Create it.", solution(tool, **arguments), None, ROUTES,
                                db) is None


def test_a_create_task_is_decided_from_the_verifier_without_a_solution(
        db: sqlite3.Connection) -> None:
    code = verifier("    n = conn.execute(\"SELECT count(*) FROM members WHERE email = "
                    "'ana@example.com'\").fetchone()[0]\n")
    f = existing_key_finding(1, "Create a member for ana@example.com.", None, code, ROUTES, db)
    assert f is not None and "verifier looks up as members(email='ana@example.com')" in f.message
    # not a create task, another key, or an OR: nothing decided
    assert existing_key_finding(1, "Rename Ana.", None, code, ROUTES, db) is None
    other = code.replace("ana@", "bo@")
    assert existing_key_finding(1, "Create a member.", None, other, ROUTES, db) is None
    either = code.replace("'ana@example.com'", "'ana@example.com' OR id = 2")
    assert existing_key_finding(1, "Create a member.", None, either, ROUTES, db) is None
