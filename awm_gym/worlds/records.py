"""The records a world set is read into: worlds, tables, samples, verifiers, solutions, problems.

Frozen dataclasses with no behaviour beyond small helpers, plus the AWM file names and the
scenario-name normalization every reader shares.

Example:
    >>> normalize_scenario_name("Spotify Music-Streaming ")
    'spotify_music_streaming'
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from awm_gym.vocab import VERIFIER_KINDS, VerifierMode, coerce_enum
from awm_gym.worlds.verifier_modes import ENTRY_FUNCTIONS, entry_function_name

__all__ = [
    "SCENARIO_FILE",
    "TASKS_FILE",
    "DB_FILE",
    "SAMPLE_FILE",
    "SPEC_FILE",
    "ENVS_FILE",
    "SQL_VERIFIER_FILE",
    "CODE_VERIFIER_FILE",
    "SOLUTIONS_FILE",
    "REQUIRED_FILES",
    "normalize_scenario_name",
    "TableDef",
    "SampleTable",
    "VerifierDef",
    "SolutionCall",
    "Solution",
    "WorldDef",
    "WorldProblem",
]

logger = logging.getLogger(__name__)

SCENARIO_FILE = "gen_scenario.jsonl"
TASKS_FILE = "gen_tasks.jsonl"
DB_FILE = "gen_db.jsonl"
SAMPLE_FILE = "gen_sample.jsonl"
SPEC_FILE = "gen_spec.jsonl"
ENVS_FILE = "gen_envs.jsonl"
SQL_VERIFIER_FILE = "gen_verifier.jsonl"
CODE_VERIFIER_FILE = "gen_verifier.pure_code.jsonl"
SOLUTIONS_FILE = "gen_solutions.jsonl"
REQUIRED_FILES = (TASKS_FILE, DB_FILE, ENVS_FILE)
BUILTIN_WORLDS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "builtin")
"""The world set shipped with the package (``spotify`` first)."""


_NOT_NAME_CHAR = re.compile(r"[^a-z0-9_]")
_UNDERSCORE_RUN = re.compile(r"_+")


def normalize_scenario_name(name: str) -> str:
    """Return AWM's normalized form of a scenario name, the id of a world.

    Lowercase, every character outside ``[a-z0-9_]`` becomes ``_``, runs of ``_`` collapse to
    one and ``_`` is stripped from both ends.

    Args:
        name: A scenario name as written in any AWM file.

    Returns:
        The normalized name (may be empty if ``name`` has no letters or digits).

    Example:
        >>> normalize_scenario_name("Twitter/X")
        'twitter_x'
        >>> normalize_scenario_name("Microsoft 365 (Office)")
        'microsoft_365_office'
        >>> normalize_scenario_name("e_commerce_33")
        'e_commerce_33'
    """
    return _UNDERSCORE_RUN.sub("_", _NOT_NAME_CHAR.sub("_", name.lower())).strip("_")


# ---------------------------------------------------------------------------------------------
# Records
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TableDef:
    """One table of a world's schema (a ``gen_db.jsonl`` ``db_schema.tables`` entry).

    Example:
        >>> TableDef("users", "CREATE TABLE users (id INTEGER PRIMARY KEY);", (), ()).name
        'users'
    """

    name: str
    ddl: str
    """The CREATE TABLE statement."""
    indexes: tuple[str, ...]
    """CREATE INDEX statements, run after the DDL."""
    examples: tuple[str, ...]
    """Optional per-table SQL that AWM's builder also executes (the prompt never asks for it)."""


@dataclass(frozen=True, slots=True)
class SampleTable:
    """The seed INSERTs for one table (a ``gen_sample.jsonl`` ``sample_data.tables`` entry).

    Example:
        >>> SampleTable("users", ("INSERT INTO users (id) VALUES (1);",)).table_name
        'users'
    """

    table_name: str
    insert_statements: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class VerifierDef:
    """One task's stored verifier; its ``mode`` is told from its code, not from the file that
    holds it (see :mod:`awm_gym.worlds.verifier_modes`).

    ``function_name`` is chosen exactly as AWM's ``verify.py`` does: the name on the first line of
    ``code`` whose stripped text starts with ``def verify_``; the mode's default
    (``verify_task_completion`` / ``verify_task``) when no line does; None when ``code`` is None.

    Example:
        >>> code = "def helper():\\n    pass\\ndef verify_task(a, b):\\n    return {}"
        >>> VerifierDef.from_row(0, "sql", code, None).function_name
        'verify_task'
        >>> VerifierDef.from_row(0, "code", "def check(a, b): ...", None).function_name
        'verify_task_completion'
    """

    task_idx: int
    mode: VerifierMode
    """``CODE`` or ``SQL`` (:meth:`from_row` coerces the strings ``"code"`` / ``"sql"``)."""
    code: str | None
    """The verifier source, or None when all of AWM's generation attempts failed."""
    function_name: str | None
    raw_response: str | None
    """The LLM's raw JSON answer (reasoning, success/failure criteria, ...), if stored."""

    @staticmethod
    def from_row(
        task_idx: int, mode: VerifierMode | str, code: str | None, raw_response: str | None
    ) -> VerifierDef:
        """Build a record, deriving ``function_name`` from ``code`` as AWM does."""
        mode = coerce_enum(VerifierMode, mode, field="VerifierDef.mode", allowed=VERIFIER_KINDS)
        return VerifierDef(task_idx, mode, code, _verifier_function_name(code, mode), raw_response)


def _verifier_function_name(code: str | None, mode: VerifierMode) -> str | None:
    if code is None:
        return None
    return entry_function_name(code) or ENTRY_FUNCTIONS[mode]


@dataclass(frozen=True, slots=True)
class SolutionCall:
    """One tool call of a reference solution: the tool's ``operation_id`` and its arguments.

    Example:
        >>> SolutionCall("get_note", {"note_id": 1}).arguments["note_id"]
        1
    """

    tool: str
    arguments: Mapping[str, Any] = field(hash=False)
    """A plain dict, as parsed from JSON (excluded from ``hash``)."""


@dataclass(frozen=True, slots=True)
class Solution:
    """A task's reference solution from ``gen_solutions.jsonl`` (our extension to AWM).

    Example:
        >>> Solution(0, (SolutionCall("list_notebooks", {}),), "2 notebooks").final_answer
        '2 notebooks'
    """

    task_idx: int
    calls: tuple[SolutionCall, ...]
    final_answer: str | None


@dataclass(frozen=True, slots=True)
class WorldDef:
    """Everything the files say about one world (an AWM scenario), validated.

    The per-task tuples (``code_verifiers``, ``sql_verifiers``, ``solutions``) have one slot per
    task; a slot is None when the set has no usable row for that task.

    Example:
        >>> from awm_gym.worlds.world_set import _example_world_set
        >>> w = _example_world_set()["Notes App"]
        >>> (w.name, w.display_name, len(w.tasks), [t.name for t in w.tables])
        ('notes_app', 'Notes App', 1, ['notes'])
    """

    name: str
    """The normalized scenario name: the world's id."""
    display_name: str
    """The scenario name as written in gen_tasks.jsonl."""
    description: str
    """From gen_scenario.jsonl; "" when absent."""
    tasks: tuple[str, ...]
    tables: tuple[TableDef, ...]
    samples: tuple[SampleTable, ...]
    api_spec: Mapping[str, Any] | None = field(hash=False)
    """The gen_spec.jsonl ``api_spec`` (a plain dict; guidance only, tools come from the code)."""
    full_code: str
    code_verifiers: tuple[VerifierDef | None, ...]
    sql_verifiers: tuple[VerifierDef | None, ...]
    solutions: tuple[Solution | None, ...]
    source_dir: str
    content_hash: str
    """sha256 over tables, samples and full_code: all the template database depends on."""

    def __repr__(self) -> str:  # the generated repr would print the whole module source
        return (
            f"WorldDef({self.name!r}, tasks={len(self.tasks)}, tables={len(self.tables)}, "
            f"hash={self.content_hash[:12]})"
        )


@dataclass(frozen=True, slots=True)
class WorldProblem:
    """One problem found while loading: where it is, what is wrong and how to fix it.

    Example:
        >>> str(WorldProblem("notes_app", "gen_tasks.jsonl", 3, "tasks", "must be a list"))
        "gen_tasks.jsonl:3: key 'tasks': must be a list"
        >>> str(WorldProblem("notes_app", "gen_db.jsonl", None, None, "no row for 'notes_app'"))
        "gen_db.jsonl: no row for 'notes_app'"
    """

    world: str | None
    """Normalized name of the world the problem belongs to; None if the row names none."""
    file: str
    """File name inside the world set directory."""
    line: int | None
    """1-based line number; None for a problem about a row that is missing."""
    key: str | None
    """Dotted path of the offending key (``db_schema.tables[2].ddl``), if one."""
    message: str

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        key = "" if self.key is None else f" key {self.key!r}:"
        return f"{where}:{key} {self.message}"
