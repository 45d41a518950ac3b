"""Read and validate an AWM world set (the ``gen_*.jsonl`` files) into frozen records.

A *world set* is a directory in the Agent World Model layout: ``gen_tasks.jsonl``,
``gen_db.jsonl`` and ``gen_envs.jsonl`` (required), plus the optional ``gen_scenario.jsonl``,
``gen_sample.jsonl``, ``gen_spec.jsonl``, ``gen_verifier.jsonl`` and
``gen_verifier.pure_code.jsonl`` (verifiers of either mode: each row's mode is told from its code,
see :mod:`awm_gym.worlds.verifier_modes`) and our ``gen_solutions.jsonl``.

How rows are matched, as AWM's own readers do:

- every file is keyed by ``normalize_scenario_name`` of its ``scenario`` field
  (``gen_scenario.jsonl`` uses ``name``); verifiers and solutions by ``(scenario, task_idx)``;
- the FIRST row for a key decides; later rows for the same key are reported as duplicates and
  ignored (AWM appends verifier batches, so duplicates occur in real sets). If that first row is
  malformed, the part it carries is dropped: a later duplicate does not stand in for it.

Bad input never fails the whole set. Each bad row becomes a :class:`WorldProblem` naming the file,
the 1-based line, the dotted key (``db_schema.tables[2].ddl``), what is wrong and the fix. A world
whose tasks, schema or code is missing or malformed is left out of ``WorldSet.worlds``; a bad
optional part (samples, spec, one verifier, one solution) drops only that part. Blank lines are
skipped. ``strict=True`` raises :class:`~awm_gym.errors.WorldSetFormatError` at the first problem.

Each file is read once, line by line, in binary mode (JSON strings cannot hold a raw newline, so
splitting on ``b"\\n"`` is exact). Measured on a synthetic 1,000-world set of 200 MB: 2.8 s, 70% of
it ``json.loads``; the public set is about half that size. Imports neither fastapi nor sqlalchemy.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import logging
import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from awm_gym.errors import UnknownWorldError, WorldSetFormatError
from awm_gym.worlds import records
from awm_gym.worlds.records import (
    CODE_VERIFIER_FILE,
    DB_FILE,
    ENVS_FILE,
    REQUIRED_FILES,
    SAMPLE_FILE,
    SCENARIO_FILE,
    SOLUTIONS_FILE,
    SPEC_FILE,
    SQL_VERIFIER_FILE,
    TASKS_FILE,
    SampleTable,
    Solution,
    SolutionCall,
    TableDef,
    VerifierDef,
    WorldDef,
    WorldProblem,
    normalize_scenario_name,
)
from awm_gym.worlds.rows import (
    ROW_SHAPES,
    Row,
    RowError,
    guess_world,
    parse_db,
    parse_envs,
    parse_sample,
    parse_scenario,
    parse_solution,
    parse_spec,
    parse_tasks,
    show,
    verifier_parser,
)

__all__ = ["WorldSet", "load_world_set", *records.__all__]  # the records are re-exported

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class WorldSet:
    """The worlds of one directory, by normalized name, and the problems found loading it.

    Example:
        >>> ws = _example_world_set()
        >>> ws.names(), len(ws), ws.problems
        (['notes_app'], 1, ())
        >>> ws["notes app"].name
        'notes_app'
    """

    root: str
    worlds: Mapping[str, WorldDef]
    problems: tuple[WorldProblem, ...] = ()

    def __getitem__(self, name: str) -> WorldDef:
        """Return the world called ``name`` (normalized first, so display names work too).

        Raises:
            UnknownWorldError: no such world; the message says why (problems, or a close name).
        """
        key = normalize_scenario_name(name)
        world = self.worlds.get(key)
        if world is not None:
            return world
        own = self.problems_for(key)
        if own:
            raise UnknownWorldError(
                f"World {name!r} in {self.root} was not loaded: {len(own)} problem(s), the first "
                f"being {own[0]}. Fix the file(s) named, or look at WorldSet.problems_for({key!r})."
            )
        close = difflib.get_close_matches(key, self.names(), n=3)
        hint = (
            f" Did you mean {', '.join(map(repr, close))}?"
            if close
            else f" WorldSet.names() (or `awm list`) lists the {len(self)} world(s) it has."
        )
        raise UnknownWorldError(f"No world {name!r} in {self.root}.{hint}")

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and normalize_scenario_name(name) in self.worlds

    def __len__(self) -> int:
        return len(self.worlds)

    def __iter__(self) -> Iterator[WorldDef]:
        for name in self.names():
            yield self.worlds[name]

    def names(self) -> list[str]:
        """Return the normalized names of the loaded worlds, sorted."""
        return sorted(self.worlds)

    def problems_for(self, name: str) -> tuple[WorldProblem, ...]:
        """Return the problems that belong to the world ``name`` (normalized first)."""
        key = normalize_scenario_name(name)
        return tuple(p for p in self.problems if p.world == key)

    def __repr__(self) -> str:
        return f"WorldSet({self.root!r}, worlds={len(self)}, problems={len(self.problems)})"


# ---------------------------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------------------------


def load_world_set(
    path: str | os.PathLike[str], *, strict: bool = False, worlds: Sequence[str] | None = None
) -> WorldSet:
    """Load and validate the world set in directory ``path``.

    Args:
        path: A directory holding at least gen_tasks.jsonl, gen_db.jsonl and gen_envs.jsonl.
        strict: Raise at the first problem instead of collecting problems and skipping the
            broken part.
        worlds: Load only these worlds (names are normalized); rows of other worlds are
            parsed but neither kept nor checked further.

    Returns:
        The loaded :class:`WorldSet`; ``problems`` lists every bad row.

    Raises:
        WorldSetFormatError: ``path`` is not a directory or lacks a required file; or, with
            ``strict=True``, any problem (the message names file, line, key and the fix).
        UnknownWorldError: a name in ``worlds`` has no row in gen_tasks.jsonl or gen_envs.jsonl.

    Example:
        >>> import pathlib, tempfile
        >>> tmp = tempfile.TemporaryDirectory()
        >>> d = pathlib.Path(tmp.name)
        >>> rows = {
        ...     "gen_tasks.jsonl": {"scenario": "Notes App", "tasks": ["List my notes"]},
        ...     "gen_db.jsonl": {"scenario": "notes_app", "db_schema": {"tables": [
        ...         {"name": "notes", "ddl": "CREATE TABLE notes (id INTEGER PRIMARY KEY);"}]}},
        ...     "gen_envs.jsonl": {"scenario": "notes_app", "full_code": "import os"},
        ...     "gen_sample.jsonl": {"scenario": "Atlantis", "sample_data": {"tables": []}},
        ... }
        >>> for name, row in rows.items():
        ...     _ = (d / name).write_text(json.dumps(row) + "\\n")
        >>> ws = load_world_set(d)
        >>> ws.names()
        ['notes_app']
        >>> print(ws.problems[0])  # doctest: +ELLIPSIS
        gen_sample.jsonl:1: key 'scenario': 'Atlantis' (normalized 'atlantis') has no row ...
        >>> tmp.cleanup()
    """
    if isinstance(worlds, str):
        raise TypeError(
            f"load_world_set(worlds={worlds!r}): pass a list of names, e.g. worlds=[{worlds!r}]."
        )
    root = os.path.abspath(os.fspath(path))
    _check_directory(root)
    started = time.perf_counter()
    loader = _Loader(root, strict, None if worlds is None else _wanted(worlds))
    world_set = loader.run(worlds)
    elapsed = time.perf_counter() - started
    n_problems = len(world_set.problems)
    logger.info("loaded %d worlds from %s in %.2fs (%d problems)", len(world_set), root, elapsed,
                n_problems)
    if n_problems:
        logger.warning("%d problem(s) in world set %s; the first: %s", n_problems, root,
                       world_set.problems[0])
    return world_set


def _wanted(worlds: Sequence[str]) -> frozenset[str]:
    return frozenset(normalize_scenario_name(n) for n in worlds)


def _check_directory(root: str) -> None:
    what = (
        f"A world set directory must contain {', '.join(REQUIRED_FILES)} (and optionally "
        f"{SCENARIO_FILE}, {SAMPLE_FILE}, {SPEC_FILE}, {SQL_VERIFIER_FILE}, "
        f"{CODE_VERIFIER_FILE}, {SOLUTIONS_FILE})."
    )
    if not os.path.exists(root):
        raise WorldSetFormatError(f"World set {root} does not exist. {what}")
    if not os.path.isdir(root):
        raise WorldSetFormatError(f"World set {root} is not a directory. {what}")
    missing = [f for f in REQUIRED_FILES if not os.path.isfile(os.path.join(root, f))]
    if missing:
        raise WorldSetFormatError(
            f"World set {root} lacks {', '.join(missing)}. {what} "
            "Point at the directory that holds the gen_*.jsonl files (for the public set, where "
            "`hf download Snowflake/AgentWorldModel-1K --local-dir` put them)."
        )


_Entry = tuple[int, Any]  # (line of the first row for a key, parsed value or None if malformed)


class _Loader:
    """One pass over the files of one world set: rows per world, and the problems found."""

    def __init__(self, root: str, strict: bool, wanted: frozenset[str] | None) -> None:
        self.root = root
        self.strict = strict
        self.wanted = wanted
        self.problems: list[WorldProblem] = []
        self.known: set[str] = set()  # worlds with a gen_tasks or gen_envs row
        self.seen: set[str] = set()  # every readable name, also those worlds= filters out

    def report(
        self, world: str | None, file: str, line: int | None, key: str | None, message: str
    ) -> None:
        problem = WorldProblem(world, file, line, key, message)
        self.problems.append(problem)
        if self.strict:
            raise WorldSetFormatError(
                f"{os.path.join(self.root, str(problem))} (strict=True stops at the first "
                "problem; pass strict=False to skip the broken part and load the rest)"
            )

    def run(self, requested: Sequence[str] | None) -> WorldSet:
        tasks = self.read_per_world(TASKS_FILE, parse_tasks, defines_worlds=True)
        envs = self.read_per_world(ENVS_FILE, parse_envs, defines_worlds=True)
        if requested is not None:
            self.check_requested(requested)
        db = self.read_per_world(DB_FILE, parse_db)
        parts = {
            "description": self.read_per_world(SCENARIO_FILE, parse_scenario, name_key="name"),
            "samples": self.read_per_world(SAMPLE_FILE, parse_sample),
            "api_spec": self.read_per_world(SPEC_FILE, parse_spec),
        }
        task_counts = {w: len(e[1][1]) for w, e in tasks.items() if e[1] is not None}
        code_file = self.read_per_task(CODE_VERIFIER_FILE, verifier_parser("code"), task_counts)
        sql_file = self.read_per_task(SQL_VERIFIER_FILE, verifier_parser("sql"), task_counts)
        code_verifiers, sql_verifiers = self.split_by_mode(code_file, sql_file)
        per_task = {
            "code_verifiers": code_verifiers,
            "sql_verifiers": sql_verifiers,
            "solutions": self.read_per_task(SOLUTIONS_FILE, parse_solution, task_counts),
        }
        worlds = {}
        for name in sorted(self.known):
            world = self.assemble(name, tasks.get(name), envs.get(name), db.get(name), parts,
                                  per_task)
            if world is not None:
                worlds[name] = world
        return WorldSet(self.root, worlds, tuple(self.problems))

    def split_by_mode(
        self, *files: Mapping[tuple[str, int], _Entry]
    ) -> tuple[dict[tuple[str, int], _Entry], dict[tuple[str, int], _Entry]]:
        """Sort each task's verifier rows into code and sql slots by the mode told from their
        code (the file names say nothing reliable: AWM's ``gen all`` writes either mode to
        gen_verifier.jsonl). Files are taken in order; for each task and mode the first wins."""
        by_mode: dict[str, dict[tuple[str, int], _Entry]] = {"code": {}, "sql": {}}
        for rows in files:
            for key, (line, verifier) in rows.items():
                if verifier is None:
                    continue
                by_mode[verifier.mode].setdefault(key, (line, verifier))
        return by_mode["code"], by_mode["sql"]

    # -- reading ---------------------------------------------------------------------------

    def rows(
        self, file: str, name_key: str = "scenario"
    ) -> Iterator[tuple[int, Row | None, str | None]]:
        """Yield (line, row, None) per JSON object line, and (line, None, world) per unparsable
        line whose world could still be read off the raw text (so that part counts as broken)."""
        path = os.path.join(self.root, file)
        if not os.path.isfile(path):
            return
        with open(path, "rb") as f:
            for lineno, raw in enumerate(f, start=1):
                if not raw.strip():
                    continue
                try:
                    obj = json.loads(raw)
                except (json.JSONDecodeError, UnicodeDecodeError) as e:
                    world = guess_world(raw, name_key)
                    if self.wanted is not None and world is not None and world not in self.wanted:
                        continue  # another world's row: not ours to report
                    self.report(world, file, lineno, None, _syntax_message(e))
                    if world is not None:
                        yield lineno, None, world
                    continue
                if not isinstance(obj, dict):
                    self.report(
                        None, file, lineno, None,
                        f"holds {show(obj)}, not a JSON object. {ROW_SHAPES[file]} is the "
                        "expected shape; put one object per line.",
                    )
                    continue
                yield lineno, Row(obj, file), None

    def read_per_world(
        self, file: str, parse: Callable[[Row], Any], *, name_key: str = "scenario",
        defines_worlds: bool = False,
    ) -> dict[str, _Entry]:
        """Read a file with one row per world; the first row for a world decides."""
        store: dict[str, _Entry] = {}
        for line, row, hint in self.rows(file, name_key):
            if row is None:  # unparsable, but we know whose: that world's part is broken
                if defines_worlds:
                    self.known.add(hint)
                if hint in self.known:
                    store.setdefault(hint, (line, None))
                continue
            world = self.world_of(row, file, line, name_key)
            if world is None:
                continue
            if defines_worlds:
                self.known.add(world)
            elif not self.is_known(world, name_key, row, file, line):
                continue
            if self.is_first(store, world, file, line, name_key, repr(world)):
                store[world] = (line, self.parse(parse, row, world, file, line))
        return store

    def read_per_task(
        self, file: str, parse: Callable[[Row, int], Any], task_counts: Mapping[str, int]
    ) -> dict[tuple[str, int], _Entry]:
        """Read a file with one row per (world, task_idx); the first row for a task decides."""
        store: dict[tuple[str, int], _Entry] = {}
        for line, row, _ in self.rows(file):
            if row is None:
                continue
            world = self.world_of(row, file, line)
            if world is None or not self.is_known(world, "scenario", row, file, line):
                continue
            try:
                idx = row.get(row.obj, "task_idx", "task_idx", int)
            except RowError as e:
                self.report(world, file, line, e.key, e.message)
                continue
            n = task_counts.get(world)
            if n is not None and not 0 <= idx < n:
                self.report(
                    world, file, line, "task_idx",
                    f"is {idx} but world {world!r} has {n} task(s) in {TASKS_FILE} (valid: "
                    f"0..{n - 1}). Fix task_idx, or add the task to {TASKS_FILE}.",
                )
                continue
            what = f"{world!r} task {idx}"
            if self.is_first(store, (world, idx), file, line, "task_idx", what):
                store[(world, idx)] = (line, self.parse(parse, row, world, file, line, idx))
        return store

    def parse(
        self, parse: Callable[..., Any], row: Row, world: str, file: str, line: int, *args: Any
    ) -> Any:
        try:
            return parse(row, *args)
        except RowError as e:
            self.report(world, file, line, e.key, e.message)
            return None

    def world_of(self, row: Row, file: str, line: int, key: str = "scenario") -> str | None:
        """Return the row's normalized world name; None if unreadable (reported) or filtered."""
        try:
            raw = row.get(row.obj, key, key, str)
        except RowError as e:
            self.report(None, file, line, e.key, e.message)
            return None
        name = normalize_scenario_name(raw)
        self.seen.add(name)
        if self.wanted is not None and name not in self.wanted:
            return None
        if not name:
            self.report(
                None, file, line, key,
                f"{raw!r} normalizes to an empty name (it has no letters or digits); give the "
                "scenario a name with letters or digits.",
            )
            return None
        return name

    def is_first(
        self, store: Mapping[Any, _Entry], k: Any, file: str, line: int, key: str, what: str
    ) -> bool:
        if k not in store:
            return True
        world = k[0] if isinstance(k, tuple) else k
        self.report(
            world, file, line, key,
            f"duplicate row for {what} (first at line {store[k][0]}). The first row is used and "
            "this one ignored; remove one of them.",
        )
        return False

    def is_known(self, world: str, key: str, row: Row, file: str, line: int) -> bool:
        if world in self.known:
            return True
        close = difflib.get_close_matches(world, sorted(self.known), n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        self.report(
            world, file, line, key,
            f"{row.obj[key]!r} (normalized {world!r}) has no row in {TASKS_FILE} or "
            f"{ENVS_FILE}, so there is no world to attach it to.{hint} Fix the name, add the "
            "world's tasks and code, or remove this row.",
        )
        return False

    def check_requested(self, requested: Sequence[str]) -> None:
        for name in requested:
            key = normalize_scenario_name(name)
            if key in self.known:
                continue
            # `seen` holds gen_tasks and gen_envs names at this point: only they are read yet
            close = difflib.get_close_matches(key, sorted(self.seen - {""}), n=3)
            hint = (
                f" Did you mean {', '.join(map(repr, close))}?"
                if close
                else " Load it without worlds= and call .names() to see what it has."
            )
            raise UnknownWorldError(
                f"load_world_set(worlds=...): no world {name!r} (normalized {key!r}) in "
                f"{TASKS_FILE} or {ENVS_FILE} of {self.root}.{hint}"
            )

    # -- assembly --------------------------------------------------------------------------

    def assemble(
        self, name: str, tasks: _Entry | None, envs: _Entry | None, db: _Entry | None,
        parts: Mapping[str, Mapping[str, _Entry]],
        per_task: Mapping[str, Mapping[tuple[str, int], _Entry]],
    ) -> WorldDef | None:
        """Build one world; None if a required part is missing (reported) or malformed."""
        for entry, file, needs in (
            (tasks, TASKS_FILE, '"tasks": [str, ...]'),
            (envs, ENVS_FILE, '"full_code": str'),
            (db, DB_FILE, '"db_schema": {"tables": [...]}'),
        ):
            if entry is None:
                self.report(
                    name, file, None, None,
                    f"no row for world {name!r}, which other files name. Add "
                    f'{{"scenario": {name!r}, {needs}}} to {file}, or remove the world\'s rows '
                    "from the other files.",
                )
        if tasks is None or envs is None or db is None:
            return None
        if tasks[1] is None or envs[1] is None or db[1] is None:
            return None  # the malformed row was reported when it was read
        display_name, task_texts = tasks[1]
        found = {part: rows[name][1] for part, rows in parts.items() if name in rows}
        samples = found.get("samples") or ()
        slots = {
            part: tuple(rows.get((name, i), (0, None))[1] for i in range(len(task_texts)))
            for part, rows in per_task.items()
        }
        return WorldDef(
            name=name,
            display_name=display_name,
            description=found.get("description") or "",
            tasks=task_texts,
            tables=db[1],
            samples=samples,
            api_spec=found.get("api_spec"),
            full_code=envs[1],
            source_dir=self.root,
            content_hash=_content_hash(db[1], samples, envs[1]),
            **slots,
        )


def _syntax_message(e: ValueError) -> str:
    if isinstance(e, json.JSONDecodeError):
        return (
            f"not valid JSON: {e.msg} at column {e.colno}. Each line must hold one complete JSON "
            "object; fix the syntax there (a truncated line or an unescaped quote or newline are "
            "the usual causes)."
        )
    reason = e.reason if isinstance(e, UnicodeDecodeError) else str(e)
    return (
        f"not valid UTF-8 ({reason}). Re-save the file as UTF-8 (AWM writes "
        "json.dumps(..., ensure_ascii=False) lines)."
    )


def _content_hash(
    tables: Sequence[TableDef], samples: Sequence[SampleTable], full_code: str
) -> str:
    """sha256 over exactly what the template database is built from, in order.

    Each piece is tagged and length-prefixed, so no two different worlds hash the same input.
    """
    h = hashlib.sha256(b"awm-gym/world-content/v1\0")

    def put(tag: bytes, text: str) -> None:
        data = text.encode("utf-8", "surrogatepass")  # JSON may carry lone surrogates
        h.update(tag + len(data).to_bytes(8, "big") + data)

    for t in tables:
        put(b"T", t.name)
        put(b"D", t.ddl)
        for statement in t.indexes:
            put(b"I", statement)
        for statement in t.examples:
            put(b"E", statement)
    for s in samples:
        put(b"S", s.table_name)
        for statement in s.insert_statements:
            put(b"Q", statement)
    put(b"C", full_code)
    return h.hexdigest()


def _example_world_set() -> WorldSet:
    """A one-world set in a temporary directory, for the doctests above (cwd-independent)."""
    import tempfile

    # A fixed path, rewritten on each call, so repeated doctest runs leave no litter behind.
    d = os.path.join(tempfile.gettempdir(), "awm_gym_worldset_example")
    os.makedirs(d, exist_ok=True)
    rows = {
        TASKS_FILE: {"scenario": "Notes App", "tasks": ["List my notes"]},
        DB_FILE: {
            "scenario": "notes_app",
            "db_schema": {"tables": [{"name": "notes", "ddl": "CREATE TABLE notes (id INTEGER);"}]},
        },
        ENVS_FILE: {"scenario": "notes_app", "full_code": "import os\n"},
    }
    for file, row in rows.items():
        with open(os.path.join(d, file), "w", encoding="utf-8") as f:
            f.write(json.dumps(row) + "\n")
    return load_world_set(d)
