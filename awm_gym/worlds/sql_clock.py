"""Rewrite SQLite's time keywords into the functions a world's clock overloads.

``CURRENT_TIMESTAMP``, ``CURRENT_DATE`` and ``CURRENT_TIME`` are keywords, not functions: an
application-defined function cannot replace them, so a ``DEFAULT CURRENT_TIMESTAMP`` column, a
seed INSERT naming the keyword, raw SQL in a handler or SQLAlchemy's ``func.now()`` (which
compiles to ``CURRENT_TIMESTAMP`` on SQLite) would read the wall clock. Each keyword has a
function of the same value and format: ``(datetime('now'))``, ``(date('now'))`` and
``(time('now'))``, which :mod:`awm_gym.worlds.clock` overloads. The parentheses make the
replacement valid wherever the keyword is, a column ``DEFAULT`` included. In table DDL only
``DEFAULT`` expressions are rewritten (a CHECK, a generated column and an index keep the
keyword, which stock SQLite treats differently from the function there).

The scanner skips string literals, quoted identifiers (``"..."``, ```...```, ``[...]``),
comments and qualified names (``t.current_date``), so only the keyword itself is replaced.
On a connection without the overloads the rewritten SQL means what the original meant, so
a template built this way stays an ordinary SQLite database.

Example:
    >>> rewrite_time_keywords("INSERT INTO t VALUES ('CURRENT_DATE', CURRENT_TIMESTAMP)")
    "INSERT INTO t VALUES ('CURRENT_DATE', (datetime('now')))"
    >>> rewrite_time_keywords('CREATE TABLE t (a TEXT DEFAULT current_date, "current_time" TEXT)')
    'CREATE TABLE t (a TEXT DEFAULT (date(\\'now\\')), "current_time" TEXT)'
"""

from __future__ import annotations

import functools
import re

__all__ = ["rewrite_time_keywords", "mentions_time_keyword"]

_REPLACEMENTS = {
    "CURRENT_TIMESTAMP": "(datetime('now'))",
    "CURRENT_DATE": "(date('now'))",
    "CURRENT_TIME": "(time('now'))",
}
_HEAD = re.compile(r"\s*(?:--[^\n]*\n\s*|/\*.*?\*/\s*)*(CREATE\s+(?:TEMP\s+|TEMPORARY\s+)?"
                   r"(?:VIRTUAL\s+)?TABLE|ALTER\s+TABLE|CREATE\s+(?:UNIQUE\s+)?INDEX)\b",
                   re.IGNORECASE | re.DOTALL)
_CLOSERS = {"'": "'", '"': '"', "`": "`", "[": "]"}
_WORD_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_WORD = _WORD_START | frozenset("0123456789$")


def mentions_time_keyword(sql: str) -> bool:
    """A cheap pre-check: whether ``sql`` could contain one of the keywords."""
    return "current_" in sql.lower()


@functools.lru_cache(maxsize=4096)
def rewrite_time_keywords(sql: str) -> str:
    """``sql`` with each ``CURRENT_TIMESTAMP``/``_DATE``/``_TIME`` keyword replaced by the
    equivalent parenthesised function call (see the module docstring); other text unchanged.

    In ``CREATE TABLE`` and ``ALTER TABLE`` only column ``DEFAULT`` expressions are rewritten,
    and ``CREATE INDEX`` is left alone: stock SQLite accepts the keywords in a CHECK and rejects
    them in generated columns and indexes, and so must the rewritten schema.
    """
    if not mentions_time_keyword(sql):
        return sql
    head = _HEAD.match(sql)
    mode = "all" if head is None else ("none" if head.group(1).upper().endswith("INDEX")
                                       else "defaults")
    if mode == "none":
        return sql
    out: list[str] = []
    i, n, last = 0, len(sql), 0
    after_default = False  # the previous significant token was DEFAULT
    depth = 0  # > 0: inside the parentheses of a DEFAULT (expression)
    while i < n:
        c = sql[i]
        if c in _CLOSERS:
            i = _skip_quoted(sql, i, _CLOSERS[c])
            after_default = False
        elif c == "-" and sql.startswith("--", i):
            end = sql.find("\n", i)
            i = n if end < 0 else end + 1
        elif c == "/" and sql.startswith("/*", i):
            end = sql.find("*/", i + 2)
            i = n if end < 0 else end + 2
        elif c in _WORD_START:
            start = i
            while i < n and sql[i] in _WORD:
                i += 1
            word = sql[start:i].upper()
            replacement = _REPLACEMENTS.get(word)
            wanted = mode == "all" or after_default or depth > 0
            if replacement is not None and wanted and not _is_qualified(sql, start):
                out.append(sql[last:start])
                out.append(replacement)
                last = i
            after_default = word == "DEFAULT"
        elif c in "(" and (after_default or depth > 0):
            depth += 1
            after_default = False
            i += 1
        elif c == ")" and depth > 0:
            depth -= 1
            i += 1
        elif c.isdigit():
            while i < n and (sql[i] in _WORD or sql[i] == "."):
                i += 1
            after_default = False
        else:
            if not c.isspace():
                after_default = False
            i += 1
    out.append(sql[last:])
    return "".join(out)


def _skip_quoted(sql: str, i: int, closer: str) -> int:
    """Index just past the quoted run opened at ``i`` (a doubled closer is an escape)."""
    j = i + 1
    while True:
        end = sql.find(closer, j)
        if end < 0:
            return len(sql)
        if closer != "]" and sql.startswith(closer * 2, end):
            j = end + 2
            continue
        return end + 1


def _is_qualified(sql: str, start: int) -> bool:
    """Whether the word at ``start`` follows a ``.`` (a column of a table, not the keyword)."""
    j = start - 1
    while j >= 0 and sql[j] in " \t\r\n":
        j -= 1
    return j >= 0 and sql[j] == "."
