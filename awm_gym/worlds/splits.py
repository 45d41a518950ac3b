"""Train and validation splits of a world set: by world, and by task within each world.

AWM trained on a random subset of its worlds with an 80:20 train-validation split of both the
worlds and the tasks of each world, and did not publish which. A :class:`Split` makes that
choice explicit, deterministic and publishable (one small JSON file):

- ``val_worlds`` (a fraction) of the worlds are held out whole: subset ``val_worlds`` holds
  every task of them;
- of each remaining world, ``val_tasks`` (a fraction) of its tasks are held out: subset
  ``val_tasks``;
- everything else is subset ``train``.

**Rounding.** A fraction ``f`` of ``n`` items holds out ``floor(f * n + 0.5)`` of them (halves
round up), but at least 1 when ``f > 0`` and ``n >= 2``, and at most ``n - 1``, so something
always stays in ``train``; ``n < 2`` holds out nothing. The 8 built-in worlds of 10 tasks with
``val_worlds=0.2, val_tasks=0.2`` hold out 2 worlds (1.6 rounds to 2) and 2 tasks of each of
the other 6.

**Determinism.** Worlds are ranked by ``sha256("awm-gym/split/v1", seed, name)`` and tasks by
``sha256(..., seed, world, task index)``, and the lowest ranks are held out. No random number
generator is involved, so the same seed and world set give the same split on any machine and
Python version.

**The set's hash.** :func:`world_set_hash` is a sha256 over the sorted names and bytes of the
set's ``gen_*.jsonl`` files; a split records it, and :meth:`Split.check` (called by
:func:`load_split` and by every env given a split) raises :class:`~awm_gym.errors.SplitError`
naming both hashes when the set changed (``on_mismatch="warn"`` warns instead). Any other file
in the directory (a split saved beside the set, a README) does not count.

Example:
    >>> split = split_worlds(None, val_worlds=0.2, val_tasks=0.2, seed=0)   # the built-ins
    >>> split.sizes["train_worlds"], split.sizes["val_worlds"], split.sizes["val_tasks"]
    (6, 2, 12)
    >>> split.subset_of(*split.pairs("val_tasks")[0]).value
    'val_tasks'
"""

from __future__ import annotations

import enum
import hashlib
import json
import logging
import math
import os
import re
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from awm_gym.atomic_io import write_text_atomic
from awm_gym.errors import SplitError, SplitMismatchWarning
from awm_gym.vocab import coerce_enum
from awm_gym.worlds.records import BUILTIN_WORLDS_DIR
from awm_gym.worlds.set_hash import world_set_hash
from awm_gym.worlds.world_set import WorldSet, load_world_set

__all__ = ["Split", "SplitError", "SplitMismatchWarning", "Subset", "split_worlds",
           "load_split", "resolve_split", "world_set_hash", "held_out_count", "SPLIT_FORMAT"]

logger = logging.getLogger(__name__)

SPLIT_FORMAT = "awm-gym/split/v1"
"""The ``format`` field of a split file; a new layout gets a new version."""
OnMismatch = Literal["error", "warn"]


class Subset(str, enum.Enum):
    """The three parts of a split."""

    TRAIN = "train"
    """Tasks a policy may train on."""
    VAL_TASKS = "val_tasks"
    """Held-out tasks of the training worlds (the world is familiar, the task is not)."""
    VAL_WORLDS = "val_worlds"
    """Every task of the held-out worlds (neither world nor task was seen)."""

    @classmethod
    def coerce(cls, value: str | Subset, name: str = "subset") -> Subset:
        """``value`` as a :class:`Subset`; a :class:`SplitError` lists the valid values."""
        return coerce_enum(cls, value, field=name, error=SplitError)


def held_out_count(fraction: float, n: int) -> int:
    """How many of ``n`` items a ``fraction`` holds out (see the module doc, "Rounding").

    Example:
        >>> [held_out_count(0.2, n) for n in (0, 1, 2, 5, 8, 10)]
        [0, 0, 1, 1, 2, 2]
        >>> held_out_count(0.0, 8), held_out_count(0.99, 8)
        (0, 7)
    """
    if fraction <= 0 or n < 2:
        return 0
    return min(n - 1, max(1, math.floor(fraction * n + 0.5)))


def _rank(seed: int, *parts: str | int) -> str:
    text = "\0".join([SPLIT_FORMAT, str(seed), *map(str, parts)])
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


TaskMap = Mapping[str, tuple[int, ...]]


@dataclass(frozen=True)
class Split:
    """Which worlds and task indices of a world set are ``train``, ``val_tasks`` and ``val_worlds``.

    Build one with :func:`split_worlds`, save it with :meth:`save`, read it with
    :func:`load_split`. Hand-written splits are fine too: any three disjoint maps of world
    name -> task indices (each world's indices sorted and unique; a held-out world is in no
    other subset).

    Example:
        >>> s = Split("sha256:" + "0" * 64, seed=0, val_worlds_fraction=0.5,
        ...           val_tasks_fraction=0.5, train={"a": (0,)}, val_tasks={"a": (1,)},
        ...           val_worlds={"b": (0, 1)})
        >>> s.subset_of("a", 1), s.pairs("val_worlds")
        (<Subset.VAL_TASKS: 'val_tasks'>, [('b', 0), ('b', 1)])
        >>> Split.from_dict(s.to_dict()) == s
        True
    """

    world_set_hash: str
    """``sha256:<hex>`` of the world set the split was made for (:func:`world_set_hash`)."""
    seed: int
    """The seed that ranked worlds and tasks."""
    val_worlds_fraction: float
    """The fraction of worlds held out whole."""
    val_tasks_fraction: float
    """The fraction of each training world's tasks held out."""
    train: TaskMap
    """World -> task indices to train on."""
    val_tasks: TaskMap
    """World -> held-out task indices of the training worlds."""
    val_worlds: TaskMap
    """Held-out world -> all its task indices."""
    world_set_name: str = ""
    """The set's directory name when the split was made (a hint for readers; the hash decides)."""

    def __post_init__(self) -> None:
        for subset in Subset:
            tasks = getattr(self, subset.value)
            if not isinstance(tasks, Mapping):
                raise SplitError(f"Split.{subset.value}: expected a map of world name -> task "
                                 f"indices, got {type(tasks).__name__}.")
            clean = {}
            for world, idx in tasks.items():
                clean[str(world)] = _indices(idx, f"subsets.{subset.value}.{world}")
            object.__setattr__(self, subset.value, dict(sorted(clean.items())))
        for world in self.val_worlds:
            if world in self.train or world in self.val_tasks:
                raise SplitError(f"subsets.val_worlds.{world}: world {world!r} is held out but "
                                 "also appears in train or val_tasks; a held-out world belongs "
                                 "to val_worlds alone. Remove it from the other subsets.")
        for world, idx in self.val_tasks.items():
            shared = sorted(set(idx) & set(self.train.get(world, ())))
            if shared:
                raise SplitError(f"subsets.val_tasks.{world}: task(s) {shared} of {world!r} are "
                                 "also in train; a task belongs to one subset. Remove them from "
                                 "one of the two.")

    # -- reading ----------------------------------------------------------------------------
    def tasks(self, subset: str | Subset | None = None) -> dict[str, tuple[int, ...]]:
        """World -> task indices of ``subset`` (None: of all three), worlds sorted.

        Example:
            >>> s = Split("sha256:x", 0, 0.5, 0.5, {"a": (0,)}, {"a": (1,)}, {})
            >>> s.tasks(), s.tasks("train")
            ({'a': (0, 1)}, {'a': (0,)})
        """
        if subset is not None:
            return dict(getattr(self, Subset.coerce(subset).value))
        merged: dict[str, set[int]] = {}
        for s in Subset:
            for world, idx in getattr(self, s.value).items():
                merged.setdefault(world, set()).update(idx)
        return {w: tuple(sorted(v)) for w, v in sorted(merged.items())}

    def pairs(self, subset: str | Subset | None = None) -> list[tuple[str, int]]:
        """The ``(world, task_idx)`` pairs of ``subset`` (None: all), in world then task order."""
        return [(w, t) for w, idx in self.tasks(subset).items() for t in idx]

    def subset_of(self, world: str, task_idx: int) -> Subset | None:
        """The subset holding task ``task_idx`` of ``world`` (None: in no subset)."""
        for s in Subset:
            if task_idx in getattr(self, s.value).get(world, ()):
                return s
        return None

    @property
    def sizes(self) -> dict[str, int]:
        """Counts of worlds and tasks per subset (written to the JSON for readers)."""
        return {
            "worlds": len(set(self.train) | set(self.val_tasks) | set(self.val_worlds)),
            "train_worlds": len(set(self.train) | set(self.val_tasks)),
            "val_worlds": len(self.val_worlds),
            "train_tasks": sum(map(len, self.train.values())),
            "val_tasks": sum(map(len, self.val_tasks.values())),
            "val_world_tasks": sum(map(len, self.val_worlds.values())),
        }

    def __repr__(self) -> str:
        z = self.sizes
        return (f"Split(seed={self.seed}, train={z['train_worlds']} worlds/{z['train_tasks']} "
                f"tasks, val_tasks={z['val_tasks']} tasks, val_worlds={z['val_worlds']} worlds/"
                f"{z['val_world_tasks']} tasks, set {self.world_set_hash[:15]}...)")

    # -- checking against a world set ------------------------------------------------------
    def check(self, world_set: WorldSet, on_mismatch: OnMismatch = "error") -> None:
        """Check that this split fits ``world_set``.

        Raises:
            SplitError: the set's content hash differs (both named; ``on_mismatch="warn"``
                warns with :class:`SplitMismatchWarning` instead), or a world or task index of
                the split is not in the set (always: such a split cannot run).
        """
        if on_mismatch not in ("error", "warn"):
            raise SplitError(f"on_mismatch={on_mismatch!r}: choose 'error' or 'warn'.")
        actual = world_set_hash(world_set)
        if actual != self.world_set_hash:
            message = (f"this split was made for world set {self.world_set_hash} "
                       f"({self.world_set_name or 'unnamed'}) but {world_set.root} hashes to "
                       f"{actual}: its gen_*.jsonl files differ (a world was added, removed or "
                       "edited). Make a new split (`awm split PATH`), or pass "
                       "split_mismatch='warn' (on_mismatch='warn') to use it anyway.")
            if on_mismatch == "error":
                raise SplitError(message)
            warnings.warn(message, SplitMismatchWarning, stacklevel=3)
        for world, idx in self.tasks().items():
            if world not in world_set.worlds:
                raise SplitError(f"the split names world {world!r}, which {world_set.root} does "
                                 f"not have (it has {len(world_set)}: see `awm list`). Use the "
                                 "world set the split was made for, or make a new split.")
            n = len(world_set.worlds[world].tasks)
            if idx and idx[-1] >= n:
                raise SplitError(f"the split names task {idx[-1]} of {world!r}, which has {n} "
                                 f"task(s) in {world_set.root} (0..{n - 1}). Use the world set "
                                 "the split was made for, or make a new split.")

    # -- JSON -------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The JSON form (see docs/world.md, "Train and validation splits")."""
        return {
            "format": SPLIT_FORMAT,
            "world_set": self.world_set_name,
            "world_set_hash": self.world_set_hash,
            "seed": self.seed,
            "fractions": {"val_worlds": self.val_worlds_fraction,
                          "val_tasks": self.val_tasks_fraction},
            "sizes": self.sizes,
            "subsets": {s.value: {w: list(i) for w, i in getattr(self, s.value).items()}
                        for s in Subset},
        }

    def to_json(self) -> str:
        """:meth:`to_dict` as text, one line per world's task list."""
        text = json.dumps(self.to_dict(), indent=2, ensure_ascii=False)
        # task lists on one line each: json's indent would give every index its own line
        return re.sub(r"\[\s+([\d,\s]*?)\s+\]",
                      lambda m: "[" + ", ".join(m.group(1).replace(",", " ").split()) + "]",
                      text) + "\n"

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the split to ``path`` (atomically); returns the path."""
        path = Path(path)
        write_text_atomic(path, self.to_json())
        return path

    @classmethod
    def from_dict(cls, data: Any, source: str = "split") -> Split:
        """Rebuild a split from :meth:`to_dict` output.

        Raises:
            SplitError: a field is missing or malformed (named as ``<source>: <field>``).
        """
        if not isinstance(data, dict):
            raise SplitError(f"{source}: expected a JSON object, got {type(data).__name__}.")
        fmt = data.get("format")
        if fmt != SPLIT_FORMAT:
            raise SplitError(f"{source}: field 'format' is {fmt!r}, expected {SPLIT_FORMAT!r}. "
                             "Is this a split file? Write one with `awm split PATH`.")
        digest = data.get("world_set_hash")
        if not isinstance(digest, str) or not digest.startswith("sha256:"):
            raise SplitError(f"{source}: field 'world_set_hash' is {digest!r}; expected "
                             "'sha256:<hex>' as awm_gym.world_set_hash(path) gives.")
        seed = data.get("seed")
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise SplitError(f"{source}: field 'seed' is {seed!r}; expected an int.")
        fractions = _field(data, "fractions", dict, source)
        subsets = _field(data, "subsets", dict, source)
        unknown = sorted(set(subsets) - {s.value for s in Subset})
        if unknown:
            raise SplitError(f"{source}: field 'subsets' has unknown key(s) {unknown}; the "
                             f"subsets are {', '.join(s.value for s in Subset)}.")
        maps = {s.value: _field(subsets, s.value, dict, source, "subsets.") for s in Subset}
        try:
            split = cls(digest, seed,
                        _fraction(fractions.get("val_worlds"), "fractions.val_worlds", source),
                        _fraction(fractions.get("val_tasks"), "fractions.val_tasks", source),
                        world_set_name=str(data.get("world_set") or ""), **maps)
        except SplitError as e:
            raise SplitError(f"{source}: {e}") from None
        sizes = data.get("sizes")
        if sizes is not None and sizes != split.sizes:
            raise SplitError(f"{source}: field 'sizes' is {sizes} but the subsets give "
                             f"{split.sizes}; fix the counts, or drop 'sizes' (it is derived).")
        return split


def _field(data: Mapping[str, Any], key: str, kind: type, source: str, prefix: str = "") -> Any:
    value = data.get(key)
    if not isinstance(value, kind):
        raise SplitError(f"{source}: field '{prefix}{key}' is {value!r}; expected a JSON "
                         f"{'object' if kind is dict else kind.__name__} (see docs/world.md, "
                         "'Train and validation splits').")
    return value


def _fraction(value: Any, name: str, source: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < 1:
        raise SplitError(f"{source}: field '{name}' is {value!r}; expected a number in [0, 1).")
    return float(value)


def _indices(value: Any, name: str) -> tuple[int, ...]:
    if not isinstance(value, (list, tuple)) or not all(
            isinstance(i, int) and not isinstance(i, bool) and i >= 0 for i in value):
        raise SplitError(f"{name}: {value!r} is not a list of task indices (ints >= 0).")
    if list(value) != sorted(set(value)):
        raise SplitError(f"{name}: task indices {list(value)} must be sorted and unique.")
    return tuple(value)


# -- making, loading, resolving ----------------------------------------------------------------


def split_worlds(path: str | os.PathLike[str] | WorldSet | None = None, val_worlds: float = 0.2,
                 val_tasks: float = 0.2, seed: int = 0,
                 exclude: Any = None) -> Split:
    """Split the worlds of a world set into ``train``, ``val_tasks`` and ``val_worlds``.

    Args:
        path: the world set directory, or a loaded :class:`WorldSet` (None: the built-ins).
            Only worlds that load are split (see ``WorldSet.problems`` for the others).
        val_worlds: fraction of worlds held out whole, in [0, 1).
        val_tasks: fraction of each training world's tasks held out, in [0, 1).
        seed: ranks worlds and tasks (module doc, "Determinism").
        exclude: an exclusion file (``awm check PATH --write-exclusions FILE``) or an
            :class:`~awm_gym.worlds.exclusions.Exclusions`: its tasks are in no subset (a world
            left without tasks is in none). Worlds and tasks are ranked as without it, so every
            other task keeps its subset; the count left out is logged.

    Returns:
        The :class:`Split`; ``split.save(path)`` writes it as JSON.

    Raises:
        SplitError: a fraction outside [0, 1), or a set without worlds.
        ExclusionsError: a malformed exclusion file, or one stale for this set.

    Example:
        >>> a = split_worlds(val_worlds=0.2, val_tasks=0.2, seed=1)
        >>> a == split_worlds(val_worlds=0.2, val_tasks=0.2, seed=1), a.sizes["val_worlds"]
        (True, 2)
    """
    for name, value in (("val_worlds", val_worlds), ("val_tasks", val_tasks)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < 1:
            raise SplitError(f"split_worlds({name}={value!r}): use a fraction in [0, 1) (0.2 "
                             "holds out a fifth; 0 holds out nothing).")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise SplitError(f"split_worlds(seed={seed!r}): use an int.")
    world_set = path if isinstance(path, WorldSet) else load_world_set(path or BUILTIN_WORLDS_DIR)
    names = world_set.names()
    if not names:
        raise SplitError(f"world set {world_set.root} has no world that loads; nothing to "
                         "split (see `awm check` for its problems).")
    ranked = sorted(names, key=lambda w: _rank(seed, w))
    held = set(ranked[:held_out_count(val_worlds, len(names))])
    train, val_t, val_w = {}, {}, {}
    for world in names:
        n = len(world_set.worlds[world].tasks)
        if world in held:
            val_w[world] = tuple(range(n))
            continue
        order = sorted(range(n), key=lambda t: _rank(seed, world, t))
        out = set(order[:held_out_count(val_tasks, n)])
        train[world] = tuple(t for t in range(n) if t not in out)
        if out:
            val_t[world] = tuple(sorted(out))
    if exclude is not None:
        train, val_t, val_w = _without(exclude, world_set, train, val_t, val_w)
    split = Split(world_set_hash(world_set), seed, float(val_worlds), float(val_tasks),
                  train, val_t, val_w, world_set_name=os.path.basename(world_set.root))
    logger.info("split of %s: %r", world_set.root, split)
    return split


def _without(exclude: Any, world_set: WorldSet, *maps: dict[str, tuple[int, ...]]
             ) -> list[dict[str, tuple[int, ...]]]:
    """``maps`` without the tasks of ``exclude``, worlds left empty dropped."""
    from awm_gym.worlds.exclusions import remaining, resolve_exclusions  # it imports this module

    exclusions = resolve_exclusions(exclude, world_set)
    assert exclusions is not None  # exclude is not None
    out, left_out = [], 0
    for tasks in maps:
        kept, n = remaining(tasks, exclusions)
        out.append({w: t for w, t in kept.items() if t})
        left_out += n
    logger.info("split of %s: exclusions left out %d task(s)", world_set.root, left_out)
    return out


def load_split(path: str | os.PathLike[str], world_set: WorldSet | str | os.PathLike[str] | None
               = None, *, on_mismatch: OnMismatch = "error") -> Split:
    """Read a split file; with ``world_set``, also check it fits that set (:meth:`Split.check`).

    Raises:
        SplitError: the file is not a split, a field is malformed, or (with ``world_set``) the
            set's content hash differs (both named) or lacks a world or task of the split.

    Example:
        >>> import tempfile
        >>> path = split_worlds(seed=3).save(os.path.join(tempfile.mkdtemp(), "split.json"))
        >>> load_split(path, None).seed
        3
    """
    source = os.fspath(path)
    try:
        text = Path(source).read_text(encoding="utf-8")
    except OSError as e:
        raise SplitError(f"split file {source}: cannot read it ({e.strerror or e}); write one "
                         "with `awm split PATH --out FILE`.") from e
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise SplitError(f"split file {source}: not valid JSON ({e.msg} at line {e.lineno}).") \
            from e
    split = Split.from_dict(data, source)
    if world_set is not None:
        ws = world_set if isinstance(world_set, WorldSet) else load_world_set(world_set)
        split.check(ws, on_mismatch)
    return split


def resolve_split(split: Split | str | os.PathLike[str], world_set: WorldSet,
                  on_mismatch: OnMismatch = "error") -> Split:
    """A :class:`Split` (or the path of one) checked against ``world_set``: what an env does
    with its ``split=`` argument."""
    if isinstance(split, (str, os.PathLike)):
        return load_split(split, world_set, on_mismatch=on_mismatch)
    if not isinstance(split, Split):
        raise SplitError(f"split={split!r}: give a Split (awm_gym.split_worlds(...)) or the path "
                         "of a split file (`awm split PATH`).")
    split.check(world_set, on_mismatch)
    return split
