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

Loading is in two steps. The files are first *indexed* (:mod:`awm_gym.worlds.world_index`:
each line's world, offset and length, read off the line's start without parsing it; JSON
strings cannot hold a raw newline, so splitting on ``b"\\n"`` is exact); then each world's rows
are parsed (:mod:`awm_gym.worlds.row_loader`). :func:`load_world_set` parses every world at
once; ``lazy=True`` (what :func:`~awm_gym.envs.registration.get_world_set` and so
``register_worlds`` use) parses a world when it is first asked for, so a set of 1,000 worlds
registers in the time its files take to read, and problems of a world's rows appear in
:attr:`WorldSet.problems` once that world has been used (``load_world_set`` lists them all).
A lazily loaded set keeps at most ``max_loaded`` parsed worlds (least recently used dropped;
they are parsed again when needed). Imports neither fastapi nor sqlalchemy.
"""

from __future__ import annotations

import difflib
import json
import logging
import os
import time
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from awm_gym.atomic_io import write_bytes_atomic
from awm_gym.errors import UnknownWorldError, WorldSetFormatError
from awm_gym.worlds import records
from awm_gym.worlds.records import (  # noqa: F401 - re-exported (records.__all__)
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
from awm_gym.worlds.hub import resolve_world_set
from awm_gym.worlds.row_loader import RowLoader
from awm_gym.worlds.world_index import FILES, WorldSetIndex, index_world_set, read_lines

__all__ = ["WorldSet", "WorldEntry", "load_world_set", *records.__all__]  # records re-exported

logger = logging.getLogger(__name__)

_FILE_ORDER = {file: k for k, file in enumerate(FILES)}


def _problem_order(p: WorldProblem) -> tuple:
    """The order a single pass over the files reports problems in: rows by file and line, then
    the missing rows of each world."""
    if p.line is None:
        return (1, p.world or "", _FILE_ORDER.get(p.file, 99), 0)
    return (0, _FILE_ORDER.get(p.file, 99), p.line, "")


@dataclass(frozen=True, slots=True)
class WorldEntry:
    """What a world's gen_tasks.jsonl row says: enough to pick and show its tasks without
    parsing the rest of its rows."""

    name: str
    display_name: str
    tasks: tuple[str, ...]


class WorldSet:
    """The worlds of one directory, by normalized name, and the problems found loading it.

    Build it with :func:`load_world_set`. A lazily loaded set (``lazy=True``) parses a world's
    rows when the world is first asked for (``ws[name]``); its :meth:`names` are the worlds the
    index finds with tasks, code and schema rows, less those found malformed so far.

    Example:
        >>> ws = _example_world_set()
        >>> ws.names(), len(ws), ws.problems
        (['notes_app'], 1, ())
        >>> ws["notes app"].name
        'notes_app'
        >>> ws.entry("notes_app").tasks
        ('List my notes',)
    """

    def __init__(self, index: WorldSetIndex, *, strict: bool = False,
                 wanted: frozenset[str] | None = None, cache_dir: str | None = None,
                 max_loaded: int | None = None) -> None:
        self.root = index.root
        self._index, self._strict, self._cache_dir = index, strict, cache_dir
        self._max_loaded = max_loaded
        self._loaded: OrderedDict[str, WorldDef] = OrderedDict()
        self._entries: dict[str, WorldEntry] = {}
        self._hashes: dict[str, str] = {}
        self._broken: set[str] = set()
        self._world_problems: dict[str, tuple[WorldProblem, ...]] = {}
        defined = [w for w in index.worlds if index.defines(w)]
        self._candidates = frozenset(
            w for w in defined if (wanted is None or w in wanted)
            and all(f in index.worlds[w] for f in REQUIRED_FILES))
        self._index_problems = self._check_the_rest(defined, wanted)
        incomplete = [w for w in defined if (wanted is None or w in wanted)
                      and w not in self._candidates]
        suspects = [w for w in index.suspects if w in self._candidates]
        for name in sorted({*incomplete, *suspects}):  # their problems are reported now: a
            self._parse(name)  # missing row costs nothing, a suspect line one world's parse

    # -- the Mapping-like surface ------------------------------------------------------------
    @property
    def worlds(self) -> Mapping[str, WorldDef]:
        """The worlds by normalized name (a lazily loaded set parses each when read)."""
        return _WorldsView(self)

    @property
    def problems(self) -> tuple[WorldProblem, ...]:
        """Every problem found so far, in file and line order (a lazily loaded set adds a
        world's row problems when that world is first parsed)."""
        found = [*self._index_problems]
        for problems in self._world_problems.values():
            found.extend(problems)
        return tuple(sorted(found, key=_problem_order))

    def __getitem__(self, name: str) -> WorldDef:
        """Return the world called ``name`` (normalized first, so display names work too).

        Raises:
            UnknownWorldError: no such world; the message says why (problems, or a close name).
            WorldSetFormatError: ``strict=True`` and the world's rows have a problem.
        """
        key = normalize_scenario_name(name)
        world = self._loaded.get(key)
        if world is not None:
            self._loaded.move_to_end(key)
            return world
        if key in self._candidates and key not in self._broken:
            world = self._parse(key)
            if world is not None:
                return world
        own = self.problems_for(key)
        if own:
            raise UnknownWorldError(
                f"World {name!r} in {self.root} was not loaded: {len(own)} problem(s), the first "
                f"being {str(own[0]).rstrip('.')}. Fix the file(s) named, or look at "
                f"WorldSet.problems_for({key!r})."
            )
        close = difflib.get_close_matches(key, self.names(), n=3)
        hint = (
            f" Did you mean {', '.join(map(repr, close))}?"
            if close
            else f" WorldSet.names() (or `awm list`) lists the {len(self)} world(s) it has."
        )
        raise UnknownWorldError(f"No world {name!r} in {self.root}.{hint}")

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        key = normalize_scenario_name(name)
        return key in self._candidates and key not in self._broken

    def __len__(self) -> int:
        return len(self._candidates) - len(self._broken & self._candidates)

    def __iter__(self) -> Iterator[WorldDef]:
        for name in self.names():
            if name in self:  # parsing an earlier world cannot break this one, but be exact
                yield self[name]

    def names(self) -> list[str]:
        """Return the normalized names of the worlds, sorted."""
        return sorted(self._candidates - self._broken)

    def broken_names(self) -> list[str]:
        """Return the normalized names of the worlds the set defines but cannot load (found so
        far: a lazily loaded set finds most when indexed, the rest as worlds are parsed), sorted;
        :meth:`problems_for` says why."""
        return sorted(self._broken)

    def problems_for(self, name: str) -> tuple[WorldProblem, ...]:
        """Return the problems that belong to the world ``name`` (normalized first)."""
        key = normalize_scenario_name(name)
        return tuple(p for p in self.problems if p.world == key)

    def __repr__(self) -> str:
        return f"WorldSet({self.root!r}, worlds={len(self)}, problems={len(self.problems)})"

    # -- light access -----------------------------------------------------------------------
    def entry(self, name: str) -> WorldEntry:
        """The world's tasks and display name, read from its gen_tasks.jsonl row alone.

        Raises:
            UnknownWorldError: as ``ws[name]`` (a malformed tasks row is parsed in full to say
                why).
        """
        key = normalize_scenario_name(name)
        entry = self._entries.get(key) or self.entries([key]).get(key)
        if entry is not None:
            return entry
        world = self[name]  # raises, or (a tasks row other lines fix) returns the world
        return self._entries.setdefault(key, WorldEntry(key, world.display_name, world.tasks))

    def entries(self, names: Sequence[str]) -> dict[str, WorldEntry]:
        """:meth:`entry` for many worlds at once (one pass over gen_tasks.jsonl); worlds whose
        tasks row is malformed are left out (``ws.entry(name)`` says why)."""
        keys = {normalize_scenario_name(n) for n in names}
        todo = sorted(k for k in keys - set(self._entries)
                      if k in self._candidates and k not in self._broken)
        if todo:
            flat = [n for k in todo for n in self._index.worlds[k].get(TASKS_FILE, ())]
            triples = sorted(zip(flat[0::3], flat[1::3], flat[2::3], strict=True))
            spans = [n for triple in triples for n in triple]
            loader = RowLoader(self.root, frozenset(todo), lambda file: read_lines(
                self.root, file, spans if file == TASKS_FILE else ()))
            for key, (_, parsed) in loader.tasks().items():  # its problems come again, and
                if parsed is not None:  # are kept, when the world is parsed in full
                    self._entries[key] = WorldEntry(key, parsed[0], parsed[1])
        return {k: self._entries[k] for k in keys if k in self._entries}

    def content_hash(self, name: str) -> str:
        """The world's :attr:`~awm_gym.worlds.records.WorldDef.content_hash`, from the cache
        when this version of the files was parsed before (no parsing then)."""
        key = normalize_scenario_name(name)
        known = self._hashes.get(key)
        if known is not None:
            return known
        path = self._hash_path(key)
        if path is not None and key in self._candidates:
            try:
                known = path.read_text().strip()
            except OSError:
                known = None
            if known and len(known) == 64:
                self._hashes[key] = known
                return known
        return self[name].content_hash

    # -- parsing ----------------------------------------------------------------------------
    def _hash_path(self, key: str) -> Path | None:
        if self._cache_dir is None:
            return None
        return Path(self._cache_dir) / "world-hash" / self._index.world_key(key)

    def _check_the_rest(self, defined: Sequence[str], wanted: frozenset[str] | None
                        ) -> list[WorldProblem]:
        """Report the lines that name no world, or a world nothing defines."""
        orphans = [w for w in self._index.worlds if not self._index.defines(w)]
        per_file: dict[str, list] = {file: list(spans)
                                     for file, spans in self._index.loose.items()}
        if wanted is None:
            for world in orphans:
                for file, spans in self._index.worlds[world].items():
                    per_file.setdefault(file, []).extend(spans)
        if not per_file:
            return []
        for file, flat in per_file.items():  # in line order, as a pass over the file reads
            triples = sorted(zip(flat[0::3], flat[1::3], flat[2::3], strict=True))
            per_file[file] = [n for triple in triples for n in triple]
        loader = RowLoader(self.root, wanted, lambda file: read_lines(
            self.root, file, per_file.get(file, ())), known=defined)
        loader.check_only()
        return loader.problems

    def _parse(self, key: str) -> WorldDef | None:
        """Parse one world's rows; None when a required part is missing or malformed."""
        spans = self._index.worlds[key]
        loader = RowLoader(self.root, frozenset({key}), lambda file: read_lines(
            self.root, file, spans.get(file, ())))
        world = loader.load().get(key)
        self._world_problems[key] = tuple(loader.problems)
        if self._strict and loader.problems:
            raise _strict_error(self.root, sorted(loader.problems, key=_problem_order)[0])
        if world is None:
            self._broken.add(key)
            return None
        self._loaded[key] = world
        if self._max_loaded is not None and len(self._loaded) > self._max_loaded:
            self._loaded.popitem(last=False)
        self._entries.setdefault(key, WorldEntry(key, world.display_name, world.tasks))
        if self._hashes.get(key) != world.content_hash:
            self._hashes[key] = world.content_hash
            path = self._hash_path(key)
            if path is not None:
                try:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    write_bytes_atomic(path, world.content_hash.encode())
                except OSError:  # a read-only cache only costs a parse next time
                    pass
        return world

    def _load_all(self) -> None:
        for name in sorted(self._candidates):
            if name not in self._loaded and name not in self._broken:
                self._parse(name)


class _WorldsView(Mapping[str, WorldDef]):
    """``WorldSet.worlds``: a read-only mapping that parses worlds as they are read."""

    def __init__(self, world_set: WorldSet) -> None:
        self._ws = world_set

    def __getitem__(self, name: str) -> WorldDef:
        if name not in self._ws or normalize_scenario_name(name) != name:  # keys: normalized
            raise KeyError(name)
        try:
            return self._ws[name]
        except UnknownWorldError as e:
            raise KeyError(name) from e

    def __iter__(self) -> Iterator[str]:
        return iter(self._ws.names())

    def __len__(self) -> int:
        return len(self._ws)


def _strict_error(root: str, problem: WorldProblem) -> WorldSetFormatError:
    return WorldSetFormatError(
        f"{os.path.join(root, str(problem))} (strict=True stops at the first problem; pass "
        "strict=False to skip the broken part and load the rest)")


# ---------------------------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------------------------

def load_world_set(
    path: str | os.PathLike[str], *, strict: bool = False, worlds: Sequence[str] | None = None,
    lazy: bool = False, cache_dir: str | os.PathLike[str] | None = None,
    max_loaded: int | None = None,
) -> WorldSet:
    """Load and validate the world set in directory ``path``.

    Args:
        path: A directory holding at least gen_tasks.jsonl, gen_db.jsonl and gen_envs.jsonl, or
            a Hugging Face dataset id (``org/name[@revision]``, fetched into the Hub cache:
            :mod:`awm_gym.worlds.hub`).
        strict: Raise at the first problem instead of collecting problems and skipping the
            broken part.
        worlds: Load only these worlds (names are normalized); rows of other worlds are
            neither parsed nor checked.
        lazy: Index the files now and parse each world when it is first asked for (problems
            of its rows are then reported, or raised with ``strict``, at that point).
        cache_dir: Where the index and facts learned from a world's rows (its content hash)
            are kept, keyed by the files' identity (path, size, modification time, inode), so a
            later process need neither scan the files nor parse the world to know them; None
            keeps nothing.
        max_loaded: With ``lazy``, keep at most this many parsed worlds (None: all).

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
    root = os.path.abspath(resolve_world_set(path, argument="path"))
    _check_directory(root)
    started = time.perf_counter()
    index = index_world_set(root, cache_dir)
    wanted = None
    if worlds is not None:
        _check_requested(index, worlds)
        wanted = _wanted(worlds)
    world_set = WorldSet(index, strict=strict and lazy, wanted=wanted,
                         cache_dir=None if cache_dir is None else os.fspath(cache_dir),
                         max_loaded=max_loaded if lazy else None)
    if not lazy:
        world_set._load_all()
    if strict and world_set.problems:
        raise _strict_error(root, world_set.problems[0])
    elapsed = time.perf_counter() - started
    problems = world_set.problems
    logger.info("%s %d worlds from %s in %.2fs (%d problems)", "indexed" if lazy else "loaded",
                len(world_set), root, elapsed, len(problems))
    log_problems(root, problems)
    return world_set


LOGGED_PROBLEMS = 20
"""Problems :func:`load_world_set` logs one line each; the rest are counted in one more line."""


def log_problems(root: str, problems: Sequence[WorldProblem]) -> None:
    """Log each problem once, as a WARNING naming the file, line and fix (the first
    :data:`LOGGED_PROBLEMS`; then one line with the count of the rest). This is the one place a
    set's problems are logged, so registering, serving or checking a set says each once."""
    for problem in problems[:LOGGED_PROBLEMS]:
        logger.warning("%s", os.path.join(root, str(problem)))
    if len(problems) > LOGGED_PROBLEMS:
        logger.warning("%s: %d more problem(s); WorldSet.problems (or `awm check %s`) lists "
                       "them all", root, len(problems) - LOGGED_PROBLEMS, root)



def _wanted(worlds: Sequence[str]) -> frozenset[str]:
    return frozenset(normalize_scenario_name(n) for n in worlds)


def _check_directory(root: str) -> None:
    what = (
        f"A world set directory must contain {', '.join(REQUIRED_FILES)} (and optionally "
        f"{SCENARIO_FILE}, {SAMPLE_FILE}, {SPEC_FILE}, {SQL_VERIFIER_FILE}, "
        f"{CODE_VERIFIER_FILE}, {SOLUTIONS_FILE})."
    )
    if not os.path.exists(root):
        raise WorldSetFormatError(f"World set {root} does not exist. {what} Or name a Hugging "
                                  "Face dataset: org/name[@revision], e.g. "
                                  "'Snowflake/AgentWorldModel-1K'.")
    if not os.path.isdir(root):
        raise WorldSetFormatError(f"World set {root} is not a directory. {what}")
    missing = [f for f in REQUIRED_FILES if not os.path.isfile(os.path.join(root, f))]
    if missing:
        raise WorldSetFormatError(
            f"World set {root} lacks {', '.join(missing)}. {what} "
            "Point at the directory that holds the gen_*.jsonl files, or name the public set by "
            "its dataset id: 'Snowflake/AgentWorldModel-1K'."
        )


def _check_requested(index: WorldSetIndex, requested: Sequence[str]) -> None:
    defined = sorted(w for w in index.worlds if index.defines(w))
    for name in requested:
        key = normalize_scenario_name(name)
        if index.defines(key):
            continue
        close = difflib.get_close_matches(key, defined, n=3)
        hint = (
            f" Did you mean {', '.join(map(repr, close))}?"
            if close
            else " Load it without worlds= and call .names() to see what it has."
        )
        raise UnknownWorldError(
            f"load_world_set(worlds=...): no world {name!r} (normalized {key!r}) in "
            f"{TASKS_FILE} or {ENVS_FILE} of {index.root}.{hint}"
        )


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
