"""What a task's rows alone show is wrong with it, read against the world's initial database.

Three static checks ``awm check`` runs per task (:mod:`awm_gym.manager.check`), each giving
at most one :class:`~awm_gym.manager.findings.Finding`:

* :func:`compile_finding`: the verifier's code does not compile (a syntax error: it can never
  run, so the task can never be scored);
* :func:`schema_finding`: the verifier reads a table or column the schema lacks. Every string
  literal of the verifier that starts like an SQL statement (``SELECT``, ``WITH``, ``INSERT``,
  ``UPDATE``, ``DELETE``) is prepared (``EXPLAIN``, nothing runs) against the template
  database; SQLite's ``no such table`` / ``no such column`` is the finding. f-strings and
  ``str.format`` templates are not read (their text is not known), nor are tables the verifier
  creates itself; a table named through an attached schema (``init.items``) counts when the
  schema has ``items``.
* :func:`existing_key_finding`: a create-task whose unique key already exists in the seed rows,
  so the create must fail. Decided from the reference solution (a ``POST`` tool whose name or
  path names the table, called with every column of one of the table's ``UNIQUE`` / non-rowid
  ``PRIMARY KEY`` keys, on values the seed already holds) or, for a task whose text asks to
  create (``Create ...``, ``Add ...``, ``Register ...``), from the verifier's queries (a
  single-table ``SELECT`` whose ``WHERE`` pins every column of a unique key to literals the
  seed already holds).

Example:
    >>> compile_finding("def verify_task(a, b):\\n    return {", 3).kind
    'verifier_does_not_compile'
    >>> import sqlite3
    >>> conn = sqlite3.connect(":memory:")
    >>> _ = conn.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT UNIQUE)")
    >>> schema_finding("q = 'SELECT price FROM items'", 0, conn).message
    "task 0: the verifier reads a column the schema lacks: no such column: price (in 'SELECT price FROM items')"
"""

from __future__ import annotations

import ast
import re
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from awm_gym.manager.findings import Finding, Severity

__all__ = ["compile_finding", "schema_finding", "existing_key_finding", "sql_strings",
           "unique_keys"]

_SQL_START = re.compile(r"^\s*(SELECT|WITH|INSERT|UPDATE|DELETE)\b", re.IGNORECASE)
_CREATED = re.compile(r"\bCREATE\s+(?:TEMP\w*\s+)?(?:TABLE|VIEW)\s+(?:IF\s+NOT\s+EXISTS\s+)?"
                      r"[\"`\[]?(\w+)", re.IGNORECASE)
_MISSING = re.compile(r"^no such (table|column): (\S+)$")
_CREATE_VERBS = re.compile(r"^\s*(?:please\s+)?(create|add|register|open|make|set up|sign up|"
                           r"book|schedule|post|submit|publish|invite|enroll)\b", re.IGNORECASE)
_FROM = re.compile(r"\bFROM\s+[\"`\[]?(\w+)[\"`\]]?", re.IGNORECASE)
_EQUALS = re.compile(r"(?:\b\w+\.)?[\"`\[]?(\w+)[\"`\]]?\s*=\s*('(?:[^']|'')*'|-?\d+(?:\.\d+)?)")


def compile_finding(code: str, task_idx: int) -> Finding | None:
    """A ``verifier_does_not_compile`` finding when ``code`` is not valid Python."""
    try:
        compile(code, f"<verifier of task {task_idx}>", "exec")
    except (SyntaxError, ValueError) as e:  # ValueError: a NUL byte in the source
        where = f" (line {e.lineno})" if getattr(e, "lineno", None) else ""
        msg = getattr(e, "msg", None) or str(e)
        return Finding(Severity.DEFECT, "verifier_does_not_compile",
                       f"task {task_idx}: the verifier does not compile: {msg}{where}, so the "
                       "task can never be scored", detail=str(e), task_idx=task_idx)
    return None


def sql_strings(code: str) -> list[str]:
    """The string literals of ``code`` that start like an SQL statement (f-strings and
    ``{}``/``%s`` templates left out: their text is not known), in source order."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return []
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):  # f-string: skip its literal parts too
            for part in ast.walk(node):
                if isinstance(part, ast.Constant):
                    part.value = None
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
              and _SQL_START.match(node.value) and "{" not in node.value
              and "%s" not in node.value):
            found.append((node.lineno, node.col_offset, node.value.strip()))
    return [text for _, _, text in sorted(found)]


def _tables(conn: sqlite3.Connection) -> set[str]:
    return {r[0].lower() for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")}


def schema_finding(code: str, task_idx: int, conn: sqlite3.Connection) -> Finding | None:
    """A ``verifier_unknown_schema`` finding when an SQL string of ``code`` names a table or
    column that the database ``conn`` (the world's template) lacks."""
    statements = sql_strings(code)
    created = {m.lower() for s in statements for m in _CREATED.findall(s)}
    created |= {m.lower() for m in _CREATED.findall(code)}
    tables = _tables(conn)
    missing: list[tuple[str, str, str]] = []
    for sql in statements:
        try:
            conn.execute("EXPLAIN " + sql)
        except sqlite3.ProgrammingError:
            continue  # prepared fine; it wants bound parameters (or holds two statements)
        except sqlite3.Error as e:
            m = _MISSING.match(str(e))
            if m is None:
                continue  # a fragment or another dialect: nothing decided
            what, name = m.groups()
            bare = name.split(".")[-1].lower()
            if what == "table" and (bare in created or bare in tables):
                continue
            missing.append((what, name, sql))
    if not missing:
        return None
    what, name, sql = missing[0]
    shown = sql if len(sql) <= 80 else sql[:77] + "..."
    more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
    return Finding(Severity.DEFECT, "verifier_unknown_schema",
                   f"task {task_idx}: the verifier reads a {what} the schema lacks: no such "
                   f"{what}: {name} (in {shown!r}){more}",
                   detail="\n".join(f"no such {w}: {n} in {s}" for w, n, s in missing),
                   task_idx=task_idx)


def unique_keys(conn: sqlite3.Connection) -> dict[str, list[tuple[str, ...]]]:
    """Table -> its unique keys (``UNIQUE`` constraints and indexes, non-rowid primary keys),
    each a tuple of column names; partial and expression indexes left out."""
    keys: dict[str, list[tuple[str, ...]]] = {}
    for (table,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND "
                                 "name NOT LIKE 'sqlite_%'"):
        quoted = '"' + table.replace('"', '""') + '"'
        for row in conn.execute(f"PRAGMA index_list({quoted})"):
            name, unique, partial = row[1], row[2], row[4] if len(row) > 4 else 0
            if not unique or partial:
                continue
            cols = tuple(r[2] for r in conn.execute(
                "PRAGMA index_info(\"" + name.replace('"', '""') + "\")"))
            if cols and None not in cols:
                keys.setdefault(table, []).append(cols)
    return keys


def _singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ses", "xes", "ches", "shes")):
        return word[:-2]
    return word[:-1] if word.endswith("s") and len(word) > 3 else word


def _names_table(text: str, table: str) -> bool:
    """Whether a tool's name and path name ``table`` (every word of it, singular)."""
    words = [_singular(w) for w in table.lower().split("_") if w]
    return bool(words) and all(w in text for w in words)


def _scalars(arguments: Any, out: dict[str, Any] | None = None) -> dict[str, Any]:
    """Every scalar argument by its key, at any depth (the first value of a key wins)."""
    out = {} if out is None else out
    if isinstance(arguments, Mapping):
        for key, value in arguments.items():
            if isinstance(value, (str, int, float)) and not isinstance(value, bool):
                out.setdefault(str(key), value)
            else:
                _scalars(value, out)
    elif isinstance(arguments, (list, tuple)):
        for value in arguments:
            _scalars(value, out)
    return out


def _existing(conn: sqlite3.Connection, table: str, key: Sequence[str],
              values: Mapping[str, Any]) -> bool:
    where = " AND ".join('"' + c.replace('"', '""') + '" = ?' for c in key)
    quoted = '"' + table.replace('"', '""') + '"'
    try:
        row = conn.execute(f"SELECT 1 FROM {quoted} WHERE {where} LIMIT 1",
                           [values[c] for c in key]).fetchone()
    except sqlite3.Error:
        return False
    return row is not None


def _key_text(table: str, key: Sequence[str], values: Mapping[str, Any]) -> str:
    return f"{table}({', '.join(f'{c}={values[c]!r}' for c in key)})"


def _from_solution(calls: Sequence[Any], routes: Mapping[str, tuple[str, str]],
                   conn: sqlite3.Connection, keys: Mapping[str, list[tuple[str, ...]]]
                   ) -> Iterator[tuple[str, str]]:
    """(key text, tool) for each create call of the solution that hits an existing key."""
    for call in calls:
        method, path = routes.get(call.tool, ("", ""))
        if method.upper() != "POST":
            continue
        text = f"{call.tool} {path}".lower()
        args = _scalars(call.arguments)
        for table, table_keys in keys.items():
            if not _names_table(text, table):
                continue
            for key in table_keys:
                if all(c in args for c in key) and _existing(conn, table, key, args):
                    yield _key_text(table, key, args), call.tool


def _literal(text: str) -> Any:
    if text.startswith("'"):
        return text[1:-1].replace("''", "'")
    return float(text) if "." in text else int(text)


def _from_verifier(code: str, conn: sqlite3.Connection,
                   keys: Mapping[str, list[tuple[str, ...]]]) -> Iterator[str]:
    """Key texts of single-table SELECTs that pin an existing unique key to literals."""
    by_lower = {t.lower(): t for t in keys}
    for sql in sql_strings(code):
        tables = _FROM.findall(sql)
        if len(tables) != 1 or re.search(r"\bJOIN\b", sql, re.IGNORECASE):
            continue
        table = by_lower.get(tables[0].lower())
        if table is None:
            continue
        where = re.split(r"\bWHERE\b", sql, maxsplit=1, flags=re.IGNORECASE)
        if len(where) < 2 or re.search(r"\bOR\b", where[1], re.IGNORECASE):
            continue
        pinned = {col: _literal(v) for col, v in _EQUALS.findall(where[1])}
        for key in keys[table]:
            if all(c in pinned for c in key) and _existing(conn, table, key, pinned):
                yield _key_text(table, key, pinned)


def existing_key_finding(task_idx: int, task: str, solution: Any, verifier_code: str | None,
                         routes: Mapping[str, tuple[str, str]], conn: sqlite3.Connection
                         ) -> Finding | None:
    """A ``create_key_exists`` finding when the task must create a row whose unique key the
    seed rows already hold (module doc: from the reference solution, else from the verifier).

    Args:
        task_idx: the task.
        task: the task's text.
        solution: its :class:`~awm_gym.worlds.records.Solution`, or None.
        verifier_code: its verifier's code, or None.
        routes: tool name -> (HTTP method, path).
        conn: the template database.
    """
    keys = unique_keys(conn)
    if not keys:
        return None
    if solution is not None:
        hit = next(_from_solution(solution.calls, routes, conn, keys), None)
        if hit is None:
            return None
        key, tool = hit
        how = f"its reference solution's {tool} call would insert {key}"
    elif verifier_code is not None and _CREATE_VERBS.match(task):
        key = next(_from_verifier(verifier_code, conn, keys), None)
        if key is None:
            return None
        how = f"it asks to create a row its verifier looks up as {key}"
    else:
        return None
    return Finding(Severity.DEFECT, "create_key_exists",
                   f"task {task_idx}: {how}, but the seed rows already hold that unique key, "
                   "so the create must fail", task_idx=task_idx)
