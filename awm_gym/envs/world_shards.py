"""One worker process per world: ``isolation="world"`` keeps worlds out of each other's processes.

Instances that share a worker process share its interpreter: world code that walks the
interpreter's objects (``gc.get_objects()``) finds every SQLite connection in it and can write
into them, so in a multi-world env (``AWM/mix-v0``) one world could decide another world's
observations and rewards. :class:`WorldShardedRuntime` runs each world in workers of its own:
one contained :class:`~awm_gym.envs.shards.ShardedRuntime` per world, each holding a slot for
every instance of the env, and routes each instance to the runtime of its current episode's
world. The parent picks that world from the reset's seed with the same rule as the in-process
runtime (:class:`~awm_gym.envs.task_choice.TaskChooser`), so the same seeds and actions give
the same observations, rewards and infos. A step sends every world's part before it reads any
reply, so worlds step in parallel.

What it does not separate: instances of **one** world still share that world's workers (as
with ``isolation="process"``), so a world's hostile handler reaches its own world's other
instances; ``num_workers=num_envs`` gives each instance of a one-world env a worker. The cost
is one worker process (and one verifier process) per world: docs/runtime.md, *Untrusted code*,
and docs/benchmarks/containment.md, *One worker per world*.

Example:
    >>> import gymnasium as gym, awm_gym
    >>> envs = gym.make_vec("AWM/mix-v0", num_envs=2, worlds=["spotify", "notion"],
    ...                     isolation="world")   # doctest: +SKIP
    >>> type(envs.runtime).__name__   # doctest: +SKIP
    'WorldShardedRuntime'
"""

from __future__ import annotations

import dataclasses
import logging
import sqlite3
import warnings
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from awm_gym.envs.config import EnvConfig
from awm_gym.envs.protocol import StepOutcome
from awm_gym.envs.shards import ShardedRuntime
from awm_gym.envs.task_choice import TaskChooser
from awm_gym.errors import (
    EnvUsageError,
    UnknownWorldError,
    WorldLoadError,
    WorldSkippedWarning,
)
from awm_gym.worlds.world_set import WorldSet

logger = logging.getLogger(__name__)

__all__ = ["WorldShardedRuntime", "MAX_PARALLEL_STARTS"]

MAX_PARALLEL_STARTS = 16
"""Worlds whose workers start (or close) at once: each waits on its processes, not on this
one."""


class WorldShardedRuntime:
    """The :class:`~awm_gym.envs.protocol.Runtime` with each world in worker processes of its
    own (``isolation="world"``).

    Args:
        world_set, worlds, num_instances, config, tasks: as for
            :class:`~awm_gym.envs.shards.ShardedRuntime`.
        workers_per_world: worker processes of each world (its instances are split over them).
    """

    def __init__(self, world_set: WorldSet, worlds: Sequence[str], num_instances: int,
                 config: EnvConfig, *, tasks: Mapping[str, Sequence[int]] | None = None,
                 workers_per_world: int = 1) -> None:
        if not worlds:
            raise UnknownWorldError(f"No worlds to run from {world_set.root}.")
        self.world_set, self.config, self.num_instances = world_set, config, num_instances
        # one verifier process per world's worker: 1,000 worlds would otherwise start 2,000
        world_config = dataclasses.replace(config, verifier_workers=1)
        self._runtimes: dict[str, ShardedRuntime] = {}

        def start(world: str) -> ShardedRuntime | None:
            allowed = None if tasks is None else {world: tuple(tasks.get(world, ()))}
            try:
                return ShardedRuntime(world_set, [world], num_instances, world_config,
                                      workers_per_world, contained=True, tasks=allowed)
            except (WorldLoadError, UnknownWorldError) as e:
                if config.strict or len(worlds) == 1:
                    raise
                warnings.warn(f"World {world!r} left out: {e}", WorldSkippedWarning,
                              stacklevel=4)
                return None

        with ThreadPoolExecutor(min(MAX_PARALLEL_STARTS, len(worlds))) as pool:
            started = list(zip(worlds, pool.map(start, worlds), strict=True))
        for world, runtime in started:
            if runtime is not None and runtime.worlds:
                self._runtimes[runtime.worlds[0]] = runtime
        self.worlds: tuple[str, ...] = tuple(self._runtimes)
        self.tasks: tuple[tuple[str, int], ...] = tuple(
            pair for runtime in self._runtimes.values() for pair in runtime.tasks)
        """Every ``(world, task_idx)`` a reset may pick, in world then task order."""
        if not self.tasks:
            self.close()
            raise EnvUsageError(f"No task to run: worlds {list(worlds)} give none (each was "
                                "left out, or the subset gives them no task index).")
        self._chooser = TaskChooser(lambda w: world_set.entry(w).tasks, self.tasks,
                                    config.world_weights, lambda w: world_set.entry(w).name,
                                    self.worlds)
        self._world_of: list[str] = [""] * num_instances  # the world of each instance's episode
        first = next(iter(self._runtimes.values()))
        self.containment: dict[str, dict[str, str]] | None = first.containment
        """Which containment layers are active in the workers (those of the first world's)."""

    def __repr__(self) -> str:
        return (f"WorldShardedRuntime(worlds={len(self.worlds)}, "
                f"num_instances={self.num_instances})")

    def _runtime(self, world: str) -> ShardedRuntime:
        runtime = self._runtimes.get(world)
        if runtime is None:
            raise UnknownWorldError(f"World {world!r} is not one of this env's worlds "
                                    f"({len(self.worlds)}, e.g. {', '.join(self.worlds[:3])}).")
        return runtime

    # -- episodes ------------------------------------------------------------------------------
    def reset(self, indices: Sequence[int], seeds: Sequence[int | None],
              task_idx: Sequence[int | None], worlds: Sequence[str | None]
              ) -> list[tuple[str, dict[str, Any]]]:
        chosen = [self._chooser.choose(seed, w, t)  # check every instance before touching any
                  for seed, t, w in zip(seeds, task_idx, worlds, strict=True)]
        groups: dict[str, list[int]] = {}
        for pos, (world, _) in enumerate(chosen):
            groups.setdefault(world, []).append(pos)
        out: list[Any] = [None] * len(indices)
        for world, positions in groups.items():
            for pos in positions:  # an episode that moves to another world ends in its old one
                old = self._world_of[indices[pos]]
                if old and old != world:
                    self._runtimes[old].forget(indices[pos])
            # pinned to the chosen (world, task): the seed still travels as the episode's seed
            results = self._runtimes[world].reset(
                [indices[p] for p in positions], [seeds[p] for p in positions],
                [chosen[p][1] for p in positions], [world] * len(positions))
            for pos, result in zip(positions, results, strict=True):
                out[pos] = result
                self._world_of[indices[pos]] = world
        return out

    def step(self, indices: Sequence[int], actions: Sequence[Any]) -> list[StepOutcome]:
        groups: dict[str, list[int]] = {}
        for pos, i in enumerate(indices):
            if not self._world_of[i]:
                raise EnvUsageError(f"Instance {i} was stepped before its first reset: call "
                                    "envs.reset(seed=...) first.")
            groups.setdefault(self._world_of[i], []).append(pos)
        pending = [(positions, self._runtimes[world], self._runtimes[world].start_step(
            [indices[p] for p in positions], [actions[p] for p in positions]))
            for world, positions in groups.items()]  # every world's part sent before any reply
        out: list[Any] = [None] * len(indices)
        for positions, runtime, sent in pending:
            for pos, outcome in zip(positions, runtime.finish_step(sent), strict=True):
                out[pos] = outcome
        return out

    # -- the rest of the Runtime protocol ------------------------------------------------------
    def tools_text(self, world: str) -> str:
        return self._runtime(world).tools_text(world)

    def tools(self, world: str) -> list[dict[str, Any]]:
        return self._runtime(world).tools(world)

    def instance_world(self, i: int) -> tuple[str, int]:
        world = self._world_of[i]
        return self._runtimes[world].instance_world(i) if world else ("", -1)

    def snapshot(self, i: int) -> bytes | None:
        world = self._world_of[i]
        return self._runtimes[world].snapshot(i) if world else None

    def database(self, i: int) -> sqlite3.Connection | None:
        """A copy of instance ``i``'s database as it is now (see
        :meth:`ShardedRuntime.database`); None before its first reset."""
        world = self._world_of[i]
        return self._runtimes[world].database(i) if world else None

    def template(self, world: str) -> bytes:
        return self._runtime(world).template(world)

    def title(self, world: str) -> str:
        return self._runtime(world).title(world)

    def call_tool(self, key: int, world: str, name: str, arguments: Any) -> tuple[str, bool]:
        """:meth:`ShardedRuntime.call_tool` in ``world``'s workers."""
        return self._runtime(world).call_tool(key, world, name, arguments)

    def end_tool_session(self, key: int) -> None:
        for runtime in self._runtimes.values():
            runtime.end_tool_session(key)

    def close(self) -> None:
        """Close every world's runtime, many at once (each waits on its workers' exits)."""
        runtimes, self._runtimes = list(self._runtimes.values()), {}
        if runtimes:
            with ThreadPoolExecutor(min(MAX_PARALLEL_STARTS, len(runtimes))) as pool:
                list(pool.map(ShardedRuntime.close, runtimes))
