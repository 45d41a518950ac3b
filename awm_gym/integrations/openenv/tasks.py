"""A world's tasks and splits for OpenEnv's task API (``TaskProvider``, openenv 0.10).

OpenEnv 0.10 lists an environment's tasks under its routes (``GET /{env}/splits``,
``POST /{env}/tasks | /num_tasks | /task | /task_range``) when the ``Environment`` has the
``TaskProvider`` methods, and a trainer or evaluator then starts an episode of one with
``reset(split=..., index=...)``. :class:`WorldTasks` is what
:class:`~awm_gym.integrations.openenv.environment.AWMEnvironment` answers them from: one world's
tasks grouped into splits, so OpenEnv-side tools see the same train / validation partition as
``awm train``:

* ``all``: every task of the world (type ``test``), less the exclusion file's tasks;
* ``train``, ``val_tasks``, ``val_worlds``: this world's tasks in each subset of a
  :class:`~awm_gym.worlds.splits.Split` (types ``train``, ``validation``, ``validation``). With no
  split given, the one ``awm train`` makes by default: :func:`~awm_gym.worlds.splits.split_worlds`
  of the world set with ``val_worlds=0.2, val_tasks=0.2, seed=0``. A subset without tasks of this
  world is not listed (a held-out world has no ``train``).

A task spec is a plain dict: ``id`` (``<world>/<task_idx>``), ``index`` (its place in the split),
``split``, ``world``, ``task_idx``, ``task`` (the text the agent reads) and ``reset`` (the
keyword arguments that start it: ``{"task_idx": ...}``).

Example:
    >>> tasks = WorldTasks.of("spotify")
    >>> [s["name"] for s in tasks.list_splits()]
    ['all', 'train', 'val_tasks']
    >>> tasks.num_tasks("all"), tasks.num_tasks("train") + tasks.num_tasks("val_tasks")
    (10, 10)
    >>> spec = tasks.get_task("val_tasks", 0)
    >>> spec["id"] == f"spotify/{spec['task_idx']}"
    True
    >>> tasks.task_idx("val_tasks", 0) == spec["task_idx"]
    True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from awm_gym.errors import EnvUsageError
from awm_gym.worlds.splits import Split, Subset, split_worlds
from awm_gym.worlds.world_set import WorldSet

__all__ = ["WorldTasks", "ALL_SPLIT"]

ALL_SPLIT = "all"
"""The split that holds every task of the world."""

_SPLIT_TYPES = {ALL_SPLIT: "test", Subset.TRAIN.value: "train",
                Subset.VAL_TASKS.value: "validation", Subset.VAL_WORLDS.value: "validation"}
"""OpenEnv's split type (``train`` | ``validation`` | ``test``) of each of ours."""

_SPLIT_TEXT = {ALL_SPLIT: "every task of the world",
               Subset.TRAIN.value: "the tasks awm train trains on",
               Subset.VAL_TASKS.value: "held-out tasks of a training world",
               Subset.VAL_WORLDS.value: "every task of a held-out world"}


@dataclass(frozen=True)
class WorldTasks:
    """One world's task texts and the task indices of each split (built once per server)."""

    world: str
    """The world (normalized scenario name)."""
    texts: tuple[str, ...]
    """The task texts, by task index."""
    splits: dict[str, tuple[int, ...]]
    """Split name -> task indices, ``all`` first (only splits with tasks of this world)."""

    @classmethod
    def of(cls, world: str, world_set: WorldSet | str | None = None, split: Split | None = None,
           exclude: Any = None) -> WorldTasks:
        """The tasks of ``world`` in ``world_set`` (None: the built-ins), grouped by ``split``.

        Args:
            world: the world.
            world_set: a loaded set, its directory, or None for the built-in worlds.
            split: a :class:`~awm_gym.worlds.splits.Split` of the set; None makes the default
                one (``val_worlds=0.2, val_tasks=0.2, seed=0``, as ``awm train`` does).
            exclude: an exclusion file or :class:`~awm_gym.worlds.exclusions.Exclusions`: its
                tasks are in no split.
        """
        from awm_gym.envs.registration import get_world_set
        from awm_gym.worlds.exclusions import resolve_exclusions

        ws = world_set if isinstance(world_set, WorldSet) else get_world_set(world_set)
        texts = tuple(ws[world].tasks)
        if split is None:
            split = split_worlds(ws, val_worlds=0.2, val_tasks=0.2, seed=0, exclude=exclude)
        else:
            split.check(ws)
        exclusions = resolve_exclusions(exclude, ws)
        left_out = set(exclusions.tasks_of(world)) if exclusions is not None else set()
        splits = {ALL_SPLIT: tuple(t for t in range(len(texts)) if t not in left_out)}
        for subset in Subset:
            idx = tuple(t for t in split.tasks(subset).get(world, ()) if t not in left_out)
            if idx:
                splits[subset.value] = idx
        return cls(world, texts, splits)

    def __repr__(self) -> str:
        sizes = ", ".join(f"{name}={len(idx)}" for name, idx in self.splits.items())
        return f"WorldTasks({self.world!r}: {sizes})"

    # -- OpenEnv's TaskProvider --------------------------------------------------------------
    def list_splits(self) -> list[dict[str, Any]]:
        """``[{"name", "type", "num_tasks", "description"}, ...]``, ``all`` first."""
        return [{"name": name, "type": _SPLIT_TYPES[name], "num_tasks": len(idx),
                 "description": _SPLIT_TEXT[name]} for name, idx in self.splits.items()]

    def list_tasks(self, split: str) -> list[dict[str, Any]]:
        """Every task spec of ``split``, in task order."""
        return [self._spec(split, i, t) for i, t in enumerate(self._indices(split))]

    def num_tasks(self, split: str) -> int:
        """How many tasks ``split`` holds."""
        return len(self._indices(split))

    def get_task(self, split: str, index: int) -> dict[str, Any]:
        """The spec of the ``index``-th task of ``split``.

        Raises:
            IndexError: ``index`` is outside the split (OpenEnv's route answers 400).
        """
        return self._spec(split, index, self.task_idx(split, index))

    def get_task_range(self, split: str, start: int | None = None, stop: int | None = None
                       ) -> list[dict[str, Any]]:
        """The specs of ``split[start:stop]`` (Python slice bounds)."""
        indices = self._indices(split)
        positions = range(len(indices))[slice(start, stop)]
        return [self._spec(split, i, indices[i]) for i in positions]

    # -- selecting ---------------------------------------------------------------------------
    def task_idx(self, split: str, index: int) -> int:
        """The world's task index of the ``index``-th task of ``split`` (what ``reset`` runs).

        Raises:
            EnvUsageError: an unknown split (the valid ones are listed).
            IndexError: ``index`` outside the split.
        """
        indices = self._indices(split)
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(indices):
            raise IndexError(f"index={index!r}: split {split!r} of {self.world!r} has "
                             f"{len(indices)} task(s), so use 0..{len(indices) - 1}.")
        return indices[index]

    def _indices(self, split: str) -> tuple[int, ...]:
        try:
            return self.splits[split]
        except (KeyError, TypeError):
            raise EnvUsageError(f"split={split!r}: world {self.world!r} has the splits "
                                f"{', '.join(map(repr, self.splits))}.") from None

    def _spec(self, split: str, index: int, task_idx: int) -> dict[str, Any]:
        return {"id": f"{self.world}/{task_idx}", "index": index, "split": split,
                "world": self.world, "task_idx": task_idx, "task": self.texts[task_idx],
                "reset": {"task_idx": task_idx}}
