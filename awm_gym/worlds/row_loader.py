"""Turn a world set's rows into validated :class:`~awm_gym.worlds.records.WorldDef` records.

:class:`RowLoader` reads the lines it is given (all of a file, or one world's lines found by
:mod:`awm_gym.worlds.world_index`), validates each row (:mod:`awm_gym.worlds.rows`), matches
rows as AWM's readers do and reports every bad row as a
:class:`~awm_gym.worlds.records.WorldProblem`; :mod:`awm_gym.worlds.world_set` decides which
lines to read and when. The rules are described in that module's docstring.
"""

from __future__ import annotations

import difflib
import hashlib
import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from awm_gym.vocab import VerifierMode
from awm_gym.worlds.records import (
    CODE_VERIFIER_FILE,
    DB_FILE,
    ENVS_FILE,
    SAMPLE_FILE,
    SCENARIO_FILE,
    SOLUTIONS_FILE,
    SPEC_FILE,
    SQL_VERIFIER_FILE,
    TASKS_FILE,
    SampleTable,
    TableDef,
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

__all__ = ["RowLoader", "content_hash"]

_Entry = tuple[int, Any]  # (line of the first row for a key, parsed value or None if malformed)


class RowLoader:
    """One pass over some lines of a world set's files: rows per world, and the problems found.

    Args:
        root: the world set directory (problems name files relative to it).
        wanted: worlds whose rows are kept (None: all); rows of other worlds are skipped
            without a report.
        lines: ``lines(file)`` yields the ``(line number, raw bytes)`` to read from ``file``.
        known: worlds other lines define (their rows are not orphans), besides those these
            lines define.
    """

    def __init__(self, root: str, wanted: frozenset[str] | None,
                 lines: Callable[[str], Iterable[tuple[int, bytes]]],
                 known: Iterable[str] = ()) -> None:
        self.root = root
        self.wanted = wanted
        self.lines = lines
        self.problems: list[WorldProblem] = []
        self.known: set[str] = set(known)  # worlds with a gen_tasks or gen_envs row
        self.seen: set[str] = set()  # every readable name, also those worlds= filters out

    def report(
        self, world: str | None, file: str, line: int | None, key: str | None, message: str
    ) -> None:
        self.problems.append(WorldProblem(world, file, line, key, message))

    def check_only(self) -> None:
        """Read every file and report what is wrong; assemble nothing (for lines that name no
        world, or a world no gen_tasks or gen_envs row defines)."""
        self.read_per_world(TASKS_FILE, parse_tasks, defines_worlds=True)
        self.read_per_world(ENVS_FILE, parse_envs, defines_worlds=True)
        for file, parse in ((DB_FILE, parse_db), (SAMPLE_FILE, parse_sample),
                            (SPEC_FILE, parse_spec)):
            self.read_per_world(file, parse)
        self.read_per_world(SCENARIO_FILE, parse_scenario, name_key="name")
        self.read_per_task(CODE_VERIFIER_FILE, verifier_parser(VerifierMode.CODE), {})
        self.read_per_task(SQL_VERIFIER_FILE, verifier_parser(VerifierMode.SQL), {})
        self.read_per_task(SOLUTIONS_FILE, parse_solution, {})

    def tasks(self) -> dict[str, _Entry]:
        """Only the gen_tasks.jsonl rows: ``world -> (line, (display name, tasks) or None)``."""
        return self.read_per_world(TASKS_FILE, parse_tasks, defines_worlds=True)

    def load(self) -> dict[str, WorldDef]:
        """Read every file and assemble the worlds these lines define (problems in
        :attr:`problems`)."""
        tasks = self.read_per_world(TASKS_FILE, parse_tasks, defines_worlds=True)
        envs = self.read_per_world(ENVS_FILE, parse_envs, defines_worlds=True)
        db = self.read_per_world(DB_FILE, parse_db)
        parts = {
            "description": self.read_per_world(SCENARIO_FILE, parse_scenario, name_key="name"),
            "samples": self.read_per_world(SAMPLE_FILE, parse_sample),
            "api_spec": self.read_per_world(SPEC_FILE, parse_spec),
        }
        task_counts = {w: len(e[1][1]) for w, e in tasks.items() if e[1] is not None}
        code_file = self.read_per_task(CODE_VERIFIER_FILE, verifier_parser(VerifierMode.CODE),
                                       task_counts)
        sql_file = self.read_per_task(SQL_VERIFIER_FILE, verifier_parser(VerifierMode.SQL),
                                      task_counts)
        code_verifiers, sql_verifiers = self.split_by_mode(code_file, sql_file)
        per_task = {
            "code_verifiers": code_verifiers,
            "sql_verifiers": sql_verifiers,
            "solutions": self.read_per_task(SOLUTIONS_FILE, parse_solution, task_counts),
        }
        worlds = {}
        for name in sorted(self.known):
            if self.wanted is not None and name not in self.wanted:
                continue
            world = self.assemble(name, tasks.get(name), envs.get(name), db.get(name), parts,
                                  per_task)
            if world is not None:
                worlds[name] = world
        return worlds

    def split_by_mode(
        self, *files: Mapping[tuple[str, int], _Entry]
    ) -> tuple[dict[tuple[str, int], _Entry], dict[tuple[str, int], _Entry]]:
        """Sort each task's verifier rows into code and sql slots by the mode told from their
        code (the file names say nothing reliable: AWM's ``gen all`` writes either mode to
        gen_verifier.jsonl). Files are taken in order; for each task and mode the first wins."""
        by_mode: dict[VerifierMode, dict[tuple[str, int], _Entry]] = {
            VerifierMode.CODE: {}, VerifierMode.SQL: {}}
        for rows in files:
            for key, (line, verifier) in rows.items():
                if verifier is None:
                    continue
                by_mode[verifier.mode].setdefault(key, (line, verifier))
        return by_mode[VerifierMode.CODE], by_mode[VerifierMode.SQL]

    # -- reading ---------------------------------------------------------------------------

    def rows(
        self, file: str, name_key: str = "scenario"
    ) -> Iterator[tuple[int, Row | None, str | None]]:
        """Yield (line, row, None) per JSON object line, and (line, None, world) per unparsable
        line whose world could still be read off the raw text (so that part counts as broken)."""
        for lineno, raw in self.lines(file):
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
            content_hash=content_hash(db[1], samples, envs[1]),
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


def content_hash(
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


