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

While it scans, the index notes the *suspect* worlds, those with a line that cannot be a whole
row or with two rows in a file that holds one row per world: a line whose last byte is not
``}`` (a truncated write), a byte that is not UTF-8, or a second ``gen_tasks`` / ``gen_envs`` /
``gen_db`` / ``gen_sample`` / ``gen_spec`` / ``gen_scenario`` row for the same world. A lazily
loaded set parses those worlds at once, so their problems are reported when the set is
registered, not when an env first reaches for the world.

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
    >>> sorted(index.worlds), index.worlds["todo"]["gen_tasks.jsonl"][0]  # line 3
    (['notes_app', 'todo'], 3)
    >>> spans = index.worlds["notes_app"]["gen_tasks.jsonl"]
    >>> [line for line, _ in read_lines(str(d), "gen_tasks.jsonl", spans)]
    [1]
"""

from __future__ import annotations

import codecs
import hashlib
import json
import mmap
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from awm_gym.atomic_io import write_bytes_atomic
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

__all__ = ["Spans", "WorldSetIndex", "index_world_set", "read_lines", "FILES", "name_key_of"]

FILES = (TASKS_FILE, ENVS_FILE, DB_FILE, SCENARIO_FILE, SAMPLE_FILE, SPEC_FILE,
         CODE_VERIFIER_FILE, SQL_VERIFIER_FILE, SOLUTIONS_FILE)
"""Every file of a world set, in the order the loader reads (and reports) them."""

INDEX_FORMAT = 2
"""Bump when what the index records changes, so identities (and what is cached under them)
change too (2: suspect worlds)."""

ONE_ROW_PER_WORLD = (TASKS_FILE, ENVS_FILE, DB_FILE, SCENARIO_FILE, SAMPLE_FILE, SPEC_FILE)
"""Files where a second row for a world is a duplicate (verifier and solution files hold one
row per task)."""

_UTF8_CHUNK = 1 << 24

_SPACE = rb"[ \t\r]*"
_FIRST_KEY = {
    key: re.compile(_SPACE + rb"\{" + _SPACE + b'"' + key.encode() + b'"' + _SPACE + b":" + _SPACE
                    + rb'("(?:[^"\\]|\\.)*")')
    for key in ("scenario", "name")
}


def name_key_of(file: str) -> str:
    """The key that names a row's world in ``file`` (``name`` in gen_scenario.jsonl)."""
    return "name" if file == SCENARIO_FILE else "scenario"


Spans = list[int]
"""Lines of a file, flat: ``[line, offset, length, line, offset, length, ...]`` (1-based line
number, byte offset, length without the newline), in file order. Flat, because an index of
1,000 worlds holds ~80,000 of these numbers and is read back from JSON on every start."""


@dataclass
class WorldSetIndex:
    """Where each world's rows are, per file, and the lines that name no world.

    Attributes:
        root: the world set directory.
        identity: a digest of the files' paths, sizes, modification times and inodes.
        worlds: world name -> file -> the world's lines in that file (:data:`Spans`).
        loose: file -> lines whose world could not be read (the loader reports them).
        suspects: worlds with a truncated or non-UTF-8 line, or two rows in a file of
            :data:`ONE_ROW_PER_WORLD` (sorted; the loader says what is wrong).
    """

    root: str
    identity: str
    worlds: dict[str, dict[str, Spans]] = field(default_factory=dict)
    loose: dict[str, Spans] = field(default_factory=dict)
    suspects: list[str] = field(default_factory=list)

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


def index_world_set(root: str, cache_dir: str | os.PathLike | None = None) -> WorldSetIndex:
    """Index the files of the world set in directory ``root`` (which must exist).

    Each file is mapped into memory and scanned for newlines; only the start of each line is
    looked at (no row is copied or parsed unless it does not start with its world's name).
    With ``cache_dir``, the index is kept there (JSON, under the files' identity) and read
    back while the files are unchanged.
    """
    identity = _identity(root)
    path = (Path(cache_dir) / "world-index" / f"{identity[:32]}.json"
            if cache_dir is not None else None)
    if path is not None:
        try:
            return _from_json(root, identity, json.loads(path.read_bytes()))
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            pass  # absent or unreadable: index again
    index = _scan(root, identity)
    if path is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_bytes_atomic(path, json.dumps(_to_json(index)).encode())
        except OSError:  # a read-only cache only costs a scan next time
            pass
    return index


def _to_json(index: WorldSetIndex) -> dict:
    return {"worlds": index.worlds, "loose": index.loose, "suspects": index.suspects}


def _from_json(root: str, identity: str, data: dict) -> WorldSetIndex:
    """The index read back; a malformed one raises (the spans themselves are checked as they
    are read, :func:`read_lines`)."""
    worlds, loose, suspects = data["worlds"], data["loose"], data["suspects"]
    known = set(FILES)
    for files in (*worlds.values(), loose):
        if not (isinstance(files, dict) and set(files) <= known):
            raise ValueError("malformed world set index")
    if not (isinstance(suspects, list) and all(isinstance(w, str) for w in suspects)):
        raise ValueError("malformed world set index")
    return WorldSetIndex(root, identity, worlds, loose, suspects)


def _scan(root: str, identity: str) -> WorldSetIndex:
    index = WorldSetIndex(root, identity)
    names: dict[bytes, str | None] = {}  # the quoted name as written -> its world
    suspects: set[str] = set()
    for file in FILES:
        path = os.path.join(root, file)
        if not os.path.isfile(path):
            continue
        name_key = name_key_of(file)
        first_key = _FIRST_KEY[name_key]
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size == 0:
                continue
            with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
                bad_bytes = _invalid_utf8(data, size)  # ascending offsets
                pos, lineno, bad = 0, 0, 0
                while pos < size:
                    end = data.find(b"\n", pos)
                    if end < 0:
                        end = size
                    lineno += 1
                    match = first_key.match(data, pos, end)
                    world = None
                    if match is not None:
                        quoted = match.group(1)
                        world = names.get(quoted, "")
                        if world == "":
                            world = names[quoted] = _decode_name(quoted)
                    if world is None:
                        world = _world_of_line(data[pos:end], name_key)
                    span = (lineno, pos, end - pos)
                    if world:
                        index.worlds.setdefault(world, {}).setdefault(file, []).extend(span)
                        while bad < len(bad_bytes) and bad_bytes[bad] < pos:
                            bad += 1
                        if ((bad < len(bad_bytes) and bad_bytes[bad] < end)
                                or not _ends_an_object(data, pos, end)):
                            suspects.add(world)
                    elif world is None:
                        index.loose.setdefault(file, []).extend(span)
                    pos = end + 1
    for world, files in index.worlds.items():
        if any(len(files.get(file, ())) > 3 for file in ONE_ROW_PER_WORLD):
            suspects.add(world)
    index.suspects = sorted(suspects)
    return index


def _ends_an_object(data: mmap.mmap, pos: int, end: int) -> bool:
    """Whether the line ``data[pos:end]`` ends with ``}`` (trailing blanks aside), as a whole
    row does; a truncated write does not."""
    k = end - 1
    while k >= pos and data[k] in b" \t\r":
        k -= 1
    return k >= pos and data[k] == 0x7D  # "}"


def _invalid_utf8(data: mmap.mmap, size: int) -> list[int]:
    """Offsets of bytes that are not UTF-8 (at most one per line), in ascending order."""
    bad: list[int] = []
    with memoryview(data) as view:  # slices of a memoryview copy nothing
        pos = 0
        while pos < size:
            chunk = view[pos:pos + _UTF8_CHUNK]
            try:
                _, used = codecs.utf_8_decode(chunk, "strict", pos + len(chunk) >= size)
            except UnicodeDecodeError as e:
                bad.append(pos + e.start)
                newline = data.find(b"\n", pos + e.start)  # one per line is enough
                pos = size if newline < 0 else newline + 1
                continue
            finally:
                chunk.release()
            pos += used
    return bad


def _decode_name(quoted: bytes) -> str | None:
    """The normalized world of a quoted JSON string; None when invalid or normalized empty."""
    try:
        name = json.loads(quoted)
    except ValueError:
        return None
    return normalize_scenario_name(name) or None if isinstance(name, str) else None


def _world_of_line(raw: bytes, name_key: str) -> str | None:
    """The world of a line that does not start with its name: "" for a blank line; None when
    it names none readable."""
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


def read_lines(root: str, file: str, spans: Sequence[int]) -> Iterator[tuple[int, bytes]]:
    """Yield ``(line number, raw bytes)`` for ``spans`` of ``file`` (:data:`Spans`, in the
    order given)."""
    if not spans:
        return
    if len(spans) % 3 or not all(type(n) is int and n >= 0 for n in spans):
        raise ValueError(f"malformed line spans for {file} (a stale or damaged world set "
                         "index); delete the cache's world-index folder to rebuild it")
    with open(os.path.join(root, file), "rb") as f:
        for k in range(0, len(spans), 3):
            f.seek(spans[k + 1])
            yield spans[k], f.read(spans[k + 2])
