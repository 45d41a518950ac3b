"""Which ``(world, task)`` a reset's seed picks: one rule for every runtime that picks one.

:class:`TaskChooser` holds the ``(world, task_idx)`` pairs an env may draw and the world
weights (:attr:`~awm_gym.envs.config.EnvConfig.world_weights`). The in-process runtime
(:class:`~awm_gym.envs.runtime.WorldRuntime`) picks with it, and so does a runtime that must
know an instance's world before it sends the reset anywhere (one worker per world,
:mod:`awm_gym.envs.world_shards`): the same seed picks the same task in both.

Example:
    >>> chooser = TaskChooser({"a": ["a0", "a1"], "b": ["b0"]}.get,
    ...                       [("a", 0), ("a", 1), ("b", 0)])
    >>> chooser.choose(0, None, None), chooser.choose(0, "b", None)
    (('a', 1), ('b', 0))
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Mapping, Sequence

from awm_gym.errors import EnvUsageError, UnknownWorldError

__all__ = ["TaskChooser"]


class TaskChooser:
    """Picks ``(world, task_idx)`` for a reset.

    Args:
        world_tasks: a world's name -> its task texts (every task, to tell an index out of
            range from one the env's subset leaves out).
        tasks: the ``(world, task_idx)`` pairs resets may draw, in world then task order.
        world_weights: world -> weight (:attr:`EnvConfig.world_weights`), or None: uniform over
            ``tasks``.
        canonical: a world name as a caller may write it -> the name in ``tasks``.
        worlds: the worlds a reset may pin (None: those of ``tasks``; a world without a task
            in the subset is still one of the env's worlds).
    """

    def __init__(self, world_tasks: Callable[[str], Sequence[str]],
                 tasks: Sequence[tuple[str, int]],
                 world_weights: Sequence[tuple[str, float]] | None = None,
                 canonical: Callable[[str], str] = str,
                 worlds: Sequence[str] | None = None) -> None:
        self._all_tasks, self._canonical = world_tasks, canonical
        self._tasks = list(tasks)
        self.worlds: tuple[str, ...] = tuple(
            dict.fromkeys(w for w, _ in self._tasks) if worlds is None else worlds)
        self._world_tasks: dict[str, list[tuple[str, int]]] = {w: [] for w in self.worlds}
        for w, t in self._tasks:
            self._world_tasks[w].append((w, t))
        self._weights = self._cumulative(world_weights)

    def choose(self, seed: int | None, world: str | None, task_idx: int | None
               ) -> tuple[str, int]:
        """The (world, task) ``seed`` picks; ``world``/``task_idx`` pin either."""
        rng = random.Random(seed) if seed is not None else random.Random()
        if world is not None:
            world = self._canonical(world)
            if world not in self._world_tasks:
                raise UnknownWorldError(f"World {world!r} is not one of this env's worlds "
                                        f"({', '.join(self.worlds)}).")
        elif self._weights is not None:  # the world by its weight, then a task within it
            world = rng.choices(self._weights[0], cum_weights=self._weights[1])[0]
        candidates = self._tasks if world is None else self._world_tasks[world]
        if task_idx is not None:
            pinned = [(w, t) for w, t in candidates if t == task_idx]
            if not pinned:
                raise EnvUsageError(self._not_a_task(task_idx, world))
            candidates = pinned
        return candidates[rng.randrange(len(candidates))]

    def _not_a_task(self, task_idx: int, world: str | None) -> str:
        names = [world] if world is not None else list(self.worlds)
        if all(0 <= task_idx < len(self._all_tasks(w)) for w in names):
            allowed = {w: [t for v, t in self._tasks if v == w] for w in names}
            return (f"options['task_idx']={task_idx}: not one of this env's tasks of "
                    f"{world or self.worlds} (its split subset and exclusions allow {allowed}); "
                    "pin one of those, or make the env without the subset or exclude=.")
        return (f"options['task_idx']={task_idx}: out of range for {world or self.worlds}; "
                "tasks are numbered from 0.")

    def _cumulative(self, weights: Sequence[tuple[str, float]] | Mapping[str, float] | None
                    ) -> tuple[list[str], list[float]] | None:
        """The weights over this env's worlds, as (worlds, cumulative weights)."""
        if weights is None:
            return None
        pairs = weights.items() if isinstance(weights, Mapping) else weights
        given = {self._canonical(name): weight for name, weight in pairs}
        worlds = [w for w in self.worlds if given.get(w, 0.0) > 0 and self._world_tasks[w]]
        if not worlds:
            raise EnvUsageError(f"EnvConfig.world_weights gives no positive weight to any world "
                                f"this env runs ({len(self.worlds)} worlds, e.g. "
                                f"{', '.join(self.worlds[:3])}); name at least one of them.")
        return worlds, list(itertools.accumulate(given[w] for w in worlds))
