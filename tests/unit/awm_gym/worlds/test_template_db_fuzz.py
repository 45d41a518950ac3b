"""Property test of awm_gym/worlds/template_db.py on random SQLite schemas and seed INSERTs.

Hypothesis draws schemas as LLMs write them, and worse: CHECKs with nested parentheses,
composite keys, foreign keys (with cascades, to tables that exist, failed or never existed),
``WITHOUT ROWID``, generated columns, quoted names, defaults of every kind (the time keywords,
``'now'`` functions, expressions, a function that does not exist), indexes on expressions and
on missing columns, 'now' where stock SQLite forbids it, and statements broken on purpose.

The property: :func:`build_template_db` never raises, its report counts every statement, and
the statements that fail are exactly those that fail under AWM's own build (a reference written
here: DDL + indexes + examples per table in one try, then each INSERT with foreign keys on, on
a plain ``sqlite3`` connection whose time functions are SQLite's own).
"""

from __future__ import annotations

import sqlite3

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from awm_gym.worlds.clock import FrozenClock
from awm_gym.worlds.template_db import build_template_db
from awm_gym.worlds.world_set import SampleTable, TableDef

NAMES = ("users", "orders", "order items", "select", "t4")
QUOTES = (lambda n: f'"{n}"', lambda n: f"[{n}]", lambda n: f"`{n}`")
DEFAULTS = ("NULL", "0", "-1.5", "'txt'", "'it''s'", "CURRENT_TIMESTAMP", "current_date",
            "CURRENT_TIME", "(datetime('now'))", "(datetime('now', '-3 days'))",
            "(strftime('%Y', 'now'))", "(1 + (2 * (3 - 1)))", "(lower('X'))", "(no_such_fn())",
            "X'00'", "TRUE")
CHECKS = ("((c1 >= 0) AND ((c1 < 100) OR (c1 IS NULL)))", "(length(c2) > (1 - (1)))",
          "(c1 IN (1, 2, (3)))", "(datetime('now') IS NOT NULL)", "(CURRENT_TIMESTAMP IS NOT NULL)",
          "((((c1))) <> -1)", "(date(c2) IS NULL OR date(c2) >= '2000-01-01')")
GENERATED = ("GENERATED ALWAYS AS ((c1 * 2) + 1) STORED", "AS (c2 || 'x') VIRTUAL",
             "AS (datetime('now'))", "AS (CURRENT_DATE) STORED", "AS (upper(c2))")
VALUES = ("1", "2", "3", "99", "-7", "NULL", "'a'", "'o''brien'", "'2026-03-01 10:00:00'",
          "datetime('now', '-1 day')", "CURRENT_TIMESTAMP", "date('now')", "'Kid\\'s'",
          "(1 + (1))", "x'ff'")


def _table_name(draw: st.DrawFn, name: str) -> str:
    if " " in name or name == "select":  # must be quoted to be valid at all
        return draw(st.sampled_from(QUOTES))(name)
    return draw(st.sampled_from((lambda n: n, *QUOTES)))(name)


@st.composite
def tables_and_samples(draw: st.DrawFn) -> tuple[tuple[TableDef, ...], tuple[SampleTable, ...]]:
    count = draw(st.integers(1, 4))
    names = [_table_name(draw, n) for n in NAMES[:count]]
    tables, samples = [], []
    for k, name in enumerate(names):
        columns = ["id INTEGER NOT NULL", "c1 INTEGER", "c2 TEXT"]
        composite = draw(st.booleans())
        if not composite:
            columns[0] = "id INTEGER PRIMARY KEY"
        if draw(st.booleans()):
            columns[1] += " UNIQUE"
        for _ in range(draw(st.integers(0, 3))):
            j = len(columns)
            kind = draw(st.sampled_from(("TEXT", "DATETIME", "REAL", "BLOB", "NUMERIC", "")))
            quoted = draw(st.sampled_from((f"c{j}", f'"col {j}"', f"[c{j}]", '"order"')))
            default = draw(st.sampled_from(DEFAULTS))
            extra = draw(st.sampled_from(("", " NOT NULL", " CHECK (length(%s) >= 0)" % quoted)))
            columns.append(f"{quoted} {kind} DEFAULT {default}{extra}".replace("  ", " "))
        if draw(st.booleans()):
            columns.append(f"g {draw(st.sampled_from(GENERATED))}")
        constraints = []
        if composite:
            constraints.append("PRIMARY KEY (id, c1)" if draw(st.booleans()) else "PRIMARY KEY (id)")
        if draw(st.booleans()):
            constraints.append(f"CHECK {draw(st.sampled_from(CHECKS))}")
        if k and draw(st.booleans()):
            parent = draw(st.sampled_from((*names[:k], "missing_table")))
            action = draw(st.sampled_from(("", " ON DELETE CASCADE", " ON UPDATE SET NULL")))
            constraints.append(f"FOREIGN KEY (c1) REFERENCES {parent}(id){action}")
        suffix = " WITHOUT ROWID" if draw(st.booleans()) else ""
        ddl = f"CREATE TABLE {name} ({', '.join(columns + constraints)}){suffix};"
        ddl = _maybe_break(draw, ddl)
        indexes = tuple(_maybe_break(draw, f"CREATE {u}INDEX idx_{k}_{i} ON {name}({on});")
                        for i, (u, on) in enumerate(draw(st.lists(st.tuples(
                            st.sampled_from(("", "UNIQUE ")),
                            st.sampled_from(("c1", "c2", "nope", "(date('now'))", "lower(c2)",
                                             "c1, c2"))), max_size=2))))
        examples = tuple(draw(st.lists(st.just(f"INSERT INTO {name} (id, c1) VALUES (100, 1);"),
                                       max_size=1)))
        tables.append(TableDef(name, ddl, indexes, examples))
        inserts = []
        for i in range(draw(st.integers(0, 5))):
            target = draw(st.sampled_from((name, name, "nowhere")))
            if draw(st.integers(0, 9)) == 0:
                inserts.append(f"INSERT INTO {target} DEFAULT VALUES;")
                continue
            c1, c2 = draw(st.sampled_from(VALUES)), draw(st.sampled_from(VALUES))
            row = draw(st.sampled_from((str(i + 1), "1")))
            inserts.append(_maybe_break(
                draw, f"INSERT INTO {target} (id, c1, c2) VALUES ({row}, {c1}, {c2});"))
        samples.append(SampleTable(name, tuple(inserts)))
    return tuple(tables), tuple(samples)


def _maybe_break(draw: st.DrawFn, statement: str) -> str:
    how = draw(st.integers(0, 11))
    if how == 0:
        return statement.replace(", ", ",, ", 1)
    if how == 1:
        return statement.rstrip(";)")
    if how == 2:
        return statement.replace("INSERT", "INSRT").replace("CREATE", "CREAT")
    if how == 3:
        return statement + " SELECT 1;"
    return statement


def awm_reference_failures(tables: tuple[TableDef, ...], samples: tuple[SampleTable, ...]
                           ) -> list[tuple[str, int]]:
    """Where AWM's build fails: its algorithm on a plain connection (SQLite's own 'now')."""
    conn = sqlite3.connect(":memory:")
    failed = []
    for table in tables:
        try:
            conn.execute(table.ddl)
            for statement in (*table.indexes, *table.examples):
                conn.execute(statement)
        except Exception:  # noqa: BLE001 - AWM catches everything
            failed.append((table.name, -1))
    conn.commit()
    conn.execute("PRAGMA foreign_keys = ON")
    for sample in samples:
        for i, statement in enumerate(sample.insert_statements):
            try:
                conn.execute(statement)
            except Exception:  # noqa: BLE001
                failed.append((sample.table_name, i))
    return failed


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables_and_samples())
def test_the_build_never_raises_and_fails_exactly_where_awm_fails(world) -> None:
    tables, samples = world
    conn, report = build_template_db(tables, samples, FrozenClock("2026-01-01 12:00:00"))
    failed = [(table, index) for table, index, _ in report.failures]
    assert failed == awm_reference_failures(tables, samples)
    assert report.tables_total == len(tables)
    assert report.inserts_total == sum(len(s.insert_statements) for s in samples)
    assert report.tables_failed == sum(index == -1 for _, index in failed)
    assert report.inserts_failed == sum(index >= 0 for _, index in failed)
    assert all(error for _, _, error in report.failures)
    copy = sqlite3.connect(":memory:")  # the template is an ordinary SQLite database
    copy.deserialize(conn.serialize())
    assert copy.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_a_constraint_the_clocks_time_breaks_is_the_statements_failure() -> None:
    """Found by the property above: two seed rows give a UNIQUE column CURRENT_TIMESTAMP. Under
    AWM (one second) the second insert fails; the build once retried it unrewritten, which
    wrote the machine's real time into the template instead of failing."""
    users = TableDef(name="users", ddl="CREATE TABLE users (id INTEGER PRIMARY KEY, "
                     "c1 INTEGER UNIQUE, c2 TEXT);", indexes=(), examples=())
    inserts = ("INSERT INTO users (id, c1, c2) VALUES (1, CURRENT_TIMESTAMP, 1);",
               "INSERT INTO users DEFAULT VALUES;",
               "INSERT INTO users (id, c1, c2) VALUES (3, CURRENT_TIMESTAMP, 1);")
    tables, samples = (users,), (SampleTable(table_name="users", insert_statements=inserts),)
    conn, report = build_template_db(tables, samples, FrozenClock("2026-01-01 12:00:00"))
    assert [(t, i) for t, i, _ in report.failures] == awm_reference_failures(tables, samples) \
        == [("users", 2)]
    assert conn.execute("SELECT c1 FROM users ORDER BY id").fetchall() == [
        ("2026-01-01 12:00:00",), (None,)]
