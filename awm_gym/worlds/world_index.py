"""Index a world set's files: which lines belong to which world, without parsing the rows.

A world set of 1,000 worlds is hundreds of megabytes of JSON, but an env uses its worlds one at a
time. :func:`index_world_set` reads each ``gen_*.jsonl`` file once and records, for every line,
its number, byte offset and length under the world it names, so a world's rows can later be read
back alone (:func:`read_lines`) and parsed only when the world is first used.

The world of a line is read off its start: AWM writes ``{"scenario": "<name>", ...}`` (``name``
in gen_scenario.jsonl) as the first key, and that key, when it is first, is a top-level key of
the object, so the match is exact. A line that does not start that way (another key first, a
syntax error, not an object) is parsed in full (or, when it is not JSON, its name is looked for
anywhere in the text, as the loader does): such lines are rare, and where they name no world
they are handed back as *loose* lines for the loader to report.

The index also carries the files' identity (path, size, modification time, inode): a world's
rows are the same bytes as long as that identity holds, which lets facts learned from them (the
world's content hash) be cached across processes without hashing the rows again.

Example:
    >>> import json, pathlib, tempfile
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "gen_tasks.jsonl").write_text(
    ...     json.dumps({"scenario": "Notes App", "tasks": ["a"]}) + "\\n\\n"
    ...     + json.dumps({"tasks": ["b"], "scenario": "todo"}) + "\\n")
    >>> index = index_world_set(str(d))
    >>> sorted(index.worlds), [s.line for s in index.worlds["todo"]["gen_tasks.jsonl"]]
    (['notes_app', 'todo'], [3])
    >>> [line for line, _ in read_lines(str(d), "gen_tasks.jsonl", index.worlds["notes_app"]["gen_tasks.jsonl"])]
    [1]
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

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
    normalize_scenario_name,
)
from awm_gym.worlds.rows import guess_world

__all__ = ["LineSpan", "WorldSetIndex", "index_world_set", "read_lines", "FILES", "name_key_of"]

FILES = (TASKS_FILE, ENVS_FILE, DB_FILE, SCENARIO_FILE, SAMPLE_FILE, SPEC_FILE,
         CODE_VERIFIER_FILE, SQL_VERIFIER_FILE, SOLUTIONS_FILE)
"""Every file of a world set, in the order the loader reads (and reports) them."""

INDEX_FORMAT = 1
"""Bump when what the index records changes, so identities (and what is cached under them)
change too."""

_FIRST_KEY = {
    key: re.compile(rb'[ \t\r]*\{[ \t\r]*"' + key.encode() + rb'"[ \t\r]*:[ \t\r]*("(?:[^"\\]|\\.)*")')
    for key in ("scenario", "name")
}


def name_key_of(file: str) -> str:
    """The key that names a row's world in ``file`` (``name`` in gen_scenario.jsonl)."""
    return "name" if file == SCENARIO_FILE else "scenario"


@dataclass(frozen=True, slots=True)
class LineSpan:
    """One line of a file: its 1-based number, byte offset and length (newline excluded)."""

    line: int
    offset: int
    length: int


@dataclass
class WorldSetIndex:
    """Where each world's rows are, per file, and the lines that name no world.

    Attributes:
        root: the world set directory.
        identity: a digest of the files' paths, sizes, modification times and inodes.
        worlds: world name -> file -> the world's lines in that file, in file order.
        loose: file -> lines whose world could not be read (the loader reports them).
    """

    root: str
    identity: str
    worlds: dict[str, dict[str, list[LineSpan]]] = field(default_factory=dict)
    loose: dict[str, list[LineSpan]] = field(default_factory=dict)

    def defines(self, world: str) -> bool:
        """Whether ``world`` has a gen_tasks or gen_envs line (so other files may name it)."""
        files = self.worlds.get(world, {})
        return TASKS_FILE in files or ENVS_FILE in files

    def world_key(self, world: str) -> str:
        """A key for facts about ``world``'s rows: it changes whenever a file changes."""
        return hashlib.sha256(f"{self.identity}|{world}".encode()).hexdigest()[:32]


def _identity(root: str) -> str:
    h = hashlib.sha256(f"awm-gym/world-index/v{INDEX_FORMAT}\0{root}".encode())
    for file in FILES:
        try:
            st = os.stat(os.path.join(root, file))
        except OSError:
            continue
        h.update(f"|{file}:{st.st_size}:{st.st_mtime_ns}:{st.st_ino}:{st.st_dev}".encode())
    return h.hexdigest()


def index_world_set(root: str) -> WorldSetIndex:
    """Index the files of the world set in directory ``root`` (which must exist)."""
    index = WorldSetIndex(root, _identity(root))
    for file in FILES:
        path = os.path.join(root, file)
        if not os.path.isfile(path):
            continue
        first_key = _FIRST_KEY[name_key_of(file)]
        offset = 0
        with open(path, "rb") as f:
            for lineno, raw in enumerate(f, start=1):
                span = LineSpan(lineno, offset, len(raw.rstrip(b"\n")))
                offset += len(raw)
                world = _world_of_line(raw, first_key, name_key_of(file))
                if world:
                    index.worlds.setdefault(world, {}).setdefault(file, []).append(span)
                elif world is None:
                    index.loose.setdefault(file, []).append(span)
    return index


def _world_of_line(raw: bytes, first_key: re.Pattern[bytes], name_key: str) -> str | None:
    """The world a line belongs to; "" for a blank line; None when it names none readable."""
    match = first_key.match(raw)
    if match is not None:
        try:
            name = json.loads(match.group(1))
        except ValueError:
            name = None
        if isinstance(name, str) and normalize_scenario_name(name):
            return normalize_scenario_name(name)
    if not raw.strip():
        return ""
    try:  # the rare line in another shape: parse it in full, as the loader will
        obj = json.loads(raw)
    except ValueError:  # syntax or UTF-8: the loader attributes it by its text, as here
        return guess_world(raw, name_key)
    value = obj.get(name_key) if isinstance(obj, dict) else None
    if isinstance(value, str) and normalize_scenario_name(value):
        return normalize_scenario_name(value)
    return None


def read_lines(root: str, file: str, spans: Sequence[LineSpan]) -> Iterator[tuple[int, bytes]]:
    """Yield ``(line number, raw bytes)`` for ``spans`` of ``file`` (in the order given)."""
    if not spans:
        return
    with open(os.path.join(root, file), "rb") as f:
        for span in spans:
            f.seek(span.offset)
            yield span.line, f.read(span.length)
