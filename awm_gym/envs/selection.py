"""Which worlds and tasks an env runs: its world set, ``worlds=[...]``, and a split's subset.

An env given ``split=`` (a :class:`~awm_gym.worlds.splits.Split` or the path of a split file)
and ``subset="train" | "val_tasks" | "val_worlds"`` draws tasks of that subset only: a reset
without ``task_idx`` picks among them, and a ``task_idx`` outside them is refused. With a split
and no subset the env runs every task of the split (all three subsets; ``World.evaluate`` then
reports each subset apart). ``worlds=[...]`` narrows further; a named world without a task in
the subset is an error naming the subset it belongs to.

``exclude=`` (an exclusion file from ``awm check --write-exclusions``, or an
:class:`~awm_gym.worlds.exclusions.Exclusions`) narrows the allowed tasks the same way: an
excluded task is never drawn and cannot be pinned; a world whose every task is excluded is left
out (an error when it leaves no world). How many tasks were left out
is logged (INFO) and kept in :attr:`Selection.excluded`.

Example:
    >>> from awm_gym.worlds.splits import split_worlds
    >>> split = split_worlds(val_worlds=0.2, val_tasks=0.2, seed=0)
    >>> sel = select(None, ["spotify"], split, "val_tasks")
    >>> sel.worlds, sel.tasks
    (['spotify'], {'spotify': (4, 5)})
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from awm_gym.envs.registration import get_world_set, resolve_worlds
from awm_gym.errors import EnvUsageError
from awm_gym.worlds.exclusions import Exclusions, remaining, resolve_exclusions
from awm_gym.worlds.splits import OnMismatch, Split, Subset, resolve_split
from awm_gym.worlds.world_set import WorldSet

__all__ = ["Selection", "select", "tasks_of"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Selection:
    """An env's worlds and, when a split narrows them, the task indices allowed per world."""

    world_set: WorldSet
    worlds: list[str]
    """World names, in the order given (all worlds of the set or subset when none were)."""
    tasks: dict[str, tuple[int, ...]] | None = None
    """World -> allowed task indices (None: every task of each world)."""
    split: Split | None = None
    subset: Subset | None = None
    exclusions: Exclusions | None = None
    excluded: int = 0
    """How many tasks the exclusions left out of what the worlds (and subset) would hold."""


def select(world_set: str | os.PathLike[str] | None, worlds: Any,
           split: Split | str | os.PathLike[str] | None = None, subset: str | Subset | None = None,
           split_mismatch: OnMismatch = "error",
           exclude: Exclusions | str | os.PathLike[str] | None = None) -> Selection:
    """Resolve an env's ``world_set``, ``worlds``, ``split``, ``subset``, ``exclude`` arguments.

    Raises:
        EnvUsageError: ``subset`` without ``split``, a named world with no task in the subset,
            or exclusions that leave no task.
        SplitError: a malformed split, a subset name that is not one of the three, or a split
            made for a world set with other content (``split_mismatch="warn"``: a warning).
        ExclusionsError: a malformed exclusion file, or one stale for this set (names the world).
        UnknownWorldError: a world name the set does not have.
    """
    sel = _select(world_set, worlds, split, subset, split_mismatch)
    return sel if exclude is None else _exclude(sel, exclude)


def _exclude(sel: Selection, exclude: Exclusions | str | os.PathLike[str]) -> Selection:
    """``sel`` without the tasks of ``exclude``."""
    ws = sel.world_set
    exclusions = resolve_exclusions(exclude, ws)
    assert exclusions is not None  # exclude is not None
    if sel.tasks is not None:
        tasks = sel.tasks
    else:
        entries = ws.entries(sel.worlds)  # every world's tasks in one pass
        tasks = {w: tuple(range(len(entries[w].tasks))) for w in sel.worlds if w in entries}
    kept, left_out = remaining(tasks, exclusions)
    empty = [w for w in sel.worlds if tasks.get(w) and not kept.get(w)]
    names = [w for w in sel.worlds if w not in empty]
    if empty and not names:
        first = exclusions.reasons[(empty[0], tasks[empty[0]][0])][:1]
        why = "; ".join(f"{r.get('kind')}: {r.get('message')}" if isinstance(r, dict) else str(r)
                        for r in first)
        raise EnvUsageError(f"World {empty[0]!r}: every task of it is excluded by the exclusion "
                            f"file (e.g. {why}); pick other worlds or drop exclude=.")
    logger.info("exclusions left out %d task(s) of %s (%d world(s) whole%s)", left_out, ws.root,
                len(empty), f": {', '.join(empty[:5])}" if empty else "")
    return Selection(ws, names, {w: kept.get(w, ()) for w in names}, sel.split, sel.subset, exclusions,
                     left_out)


def _select(world_set: str | os.PathLike[str] | None, worlds: Any,
            split: Split | str | os.PathLike[str] | None, subset: str | Subset | None,
            split_mismatch: OnMismatch) -> Selection:
    if split is None:
        if subset is not None:
            raise EnvUsageError(f"subset={subset!r} needs split=...: pass a Split "
                                "(awm_gym.split_worlds(path)) or a split file (`awm split PATH`).")
        ws, names = resolve_worlds(world_set, worlds)
        return Selection(ws, names)
    ws = get_world_set(world_set)
    resolved = resolve_split(split, ws, split_mismatch)
    part = None if subset is None else Subset.coerce(subset)
    allowed = resolved.tasks(part)
    if worlds is None:
        names = list(allowed)
    else:
        _, names = resolve_worlds(world_set, worlds)
        for name in names:
            if name not in allowed:
                raise EnvUsageError(_not_in_subset(name, resolved, part))
    return Selection(ws, names, {w: allowed[w] for w in names}, resolved, part)


def _not_in_subset(world: str, split: Split, subset: Subset | None) -> str:
    owner = [s.value for s in Subset if world in split.tasks(s)]
    where = f"it is in {' and '.join(owner)}" if owner else "the split does not name it"
    return (f"World {world!r} has no task in subset {subset.value if subset else 'any'!r} of this "
            f"split ({where}); leave it out of worlds=[...] or pick another subset.")


def tasks_of(worlds: Sequence[str], world_set: WorldSet,
             allowed: dict[str, tuple[int, ...]] | None) -> list[tuple[str, int]]:
    """The ``(world, task_idx)`` pairs an env over ``worlds`` draws from, in order."""
    if allowed is None:
        world_set.entries(worlds)  # every world's tasks row in one pass, not one pass each
        return [(w, t) for w in worlds for t in range(len(world_set.entry(w).tasks))]
    return [(w, t) for w in worlds for t in allowed.get(w, ())]
