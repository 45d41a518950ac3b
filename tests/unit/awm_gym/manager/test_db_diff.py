"""diff_databases on real SQLite databases: keys, rowid tables, created and dropped tables."""

from __future__ import annotations

import sqlite3

from awm_gym.manager.db_diff import DatabaseDiff, diff_databases


def make(statements: list[str]) -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    for statement in statements:
        conn.execute(statement)
    conn.commit()
    return conn


def test_identical_databases_have_no_diff() -> None:
    conn = make(["CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)", "INSERT INTO t VALUES (1, 'a')"])
    image = conn.serialize()
    assert diff_databases(image, image).empty
    conn.execute("UPDATE t SET v = 'a'")  # a write that changes no value
    conn.commit()
    assert diff_databases(image, conn.serialize()).empty


def test_composite_keys_rowid_tables_and_schema_changes() -> None:
    conn = make([
        "CREATE TABLE link (a INTEGER, b INTEGER, note TEXT, PRIMARY KEY (a, b))",
        "CREATE TABLE log (msg TEXT)",
        "CREATE TABLE gone (id INTEGER PRIMARY KEY)",
        "INSERT INTO link VALUES (1, 2, 'x'), (2, 1, 'y')",
        "INSERT INTO log VALUES ('first'), ('second')",
        "INSERT INTO gone VALUES (7)",
    ])
    before = conn.serialize()
    conn.execute("DELETE FROM link WHERE a = 2")
    conn.execute("UPDATE link SET note = 'z' WHERE a = 1")
    conn.execute("UPDATE log SET msg = 'SECOND' WHERE rowid = 2")
    conn.execute("DROP TABLE gone")
    conn.execute("CREATE TABLE fresh (k TEXT PRIMARY KEY, blob BLOB)")
    conn.execute("INSERT INTO fresh VALUES ('k1', x'00ff')")
    conn.commit()
    diff = diff_databases(before, conn.serialize())
    tables = {t.table: t for t in diff.tables}
    assert sorted(tables) == ["fresh", "gone", "link", "log"]
    assert tables["link"].key_columns == ["a", "b"]
    assert [(c.kind, c.key) for c in tables["link"].changes] == [("changed", [1, 2]),
                                                                  ("removed", [2, 1])]
    assert tables["link"].changes[0].changed_columns == ["note"]
    assert tables["log"].key_columns == ["rowid"]
    assert [(c.kind, c.key, c.after) for c in tables["log"].changes] == [
        ("changed", [2], {"msg": "SECOND"})]
    assert [c.kind for c in tables["gone"].changes] == ["removed"]
    assert [c.kind for c in tables["fresh"].changes] == ["added"]
    assert diff.counts() == {"added": 1, "removed": 2, "changed": 2}
    # JSON round trip (blobs become hex text)
    again = DatabaseDiff.from_json(diff.to_json())
    assert [t.table for t in again.tables] == [t.table for t in diff.tables]
    assert again.tables[0].changes[0].after == {"k": "k1", "blob": "0x00ff"}
    assert DatabaseDiff.from_json(None).empty
