"""N instances of AWM worlds as one natively batched Gymnasium ``VectorEnv``, autoreset disabled.

Example:
    >>> import gymnasium as gym, awm_gym
    >>> envs = gym.make_vec("AWM/spotify-v0", num_envs=2)
    >>> obs, info = envs.reset(seed=0)          # instance i uses seed 0 + i
    >>> len(obs), info["world"][0]
    (2, 'spotify')
    >>> obs, reward, terminated, truncated, info = envs.step(
    ...     ['<tool_call>{"name": "list_tools", "arguments": {}}</tool_call>', "I give up."])
    >>> bool(terminated[1]), info["verifier_label"][1]
    (True, 'others')
    >>> envs.close()
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv

from awm_gym.envs.config import EnvConfig, env_config_from
from awm_gym.envs.protocol import Runtime
from awm_gym.envs.registration import BUILTIN_WORLDS_DIR
from awm_gym.envs.runtime import WorldRuntime
from awm_gym.envs.selection import select
from awm_gym.envs.shards import ShardedRuntime
from awm_gym.envs.spaces import UnicodeText
from awm_gym.errors import EnvUsageError
from awm_gym.worlds.exclusions import Exclusions
from awm_gym.worlds.splits import OnMismatch, Split, Subset
from awm_gym.worlds.world_set import WorldSet

__all__ = ["AWMVectorEnv", "batch_infos", "make_runtime", "shard_count", "trusted_workers",
           "contained_workers", "cores_per_process"]


def batch_infos(n: int, items: Sequence[tuple[int, dict[str, Any]]]) -> dict[str, Any]:
    """Gymnasium-style batched info: one array per key plus a ``_key`` mask of who reported it.

    Example:
        >>> b = batch_infos(3, [(0, {"n": 1, "s": "a"}), (2, {"n": 2})])
        >>> b["n"].tolist(), b["_n"].tolist(), b["s"].tolist()
        ([1, 0, 2], [True, False, True], ['a', None, None])
    """
    out: dict[str, Any] = {}
    for i, info in items:
        for key, value in info.items():
            if key not in out:
                if isinstance(value, (bool, np.bool_)):
                    arr = np.zeros(n, dtype=np.bool_)
                elif isinstance(value, (int, np.integer)):
                    arr = np.zeros(n, dtype=np.int64)
                elif isinstance(value, (float, np.floating)):
                    arr = np.zeros(n, dtype=np.float64)
                else:
                    arr = np.full(n, None, dtype=object)
                out[key] = arr
                out["_" + key] = np.zeros(n, dtype=np.bool_)
            arr = out[key]
            if arr.dtype != object and not isinstance(value, (bool, int, float, np.generic)):
                arr = out[key] = arr.astype(object)  # mixed types across instances
            arr[i] = value
            out["_" + key][i] = True
    return out



def make_runtime(world_set: WorldSet, worlds: Sequence[str], num_instances: int,
                 config: EnvConfig, tasks: Mapping[str, Sequence[int]] | None = None) -> Runtime:
    """The runtime for ``num_instances`` instances of ``worlds``: in this process, or in
    :func:`shard_count` worker processes (``config.num_workers``; contained world code,
    ``EnvConfig.isolation``, always runs in workers). ``tasks`` limits the task indices resets
    may use per world (a split's subset; None: every task)."""
    sharding = config.sharding
    if sharding.isolation == "world":  # each world in workers of its own
        from awm_gym.envs.world_shards import WorldShardedRuntime

        per_world = 1 if sharding.num_workers in ("auto", 0) else int(sharding.num_workers)
        return WorldShardedRuntime(world_set, worlds, num_instances, config, tasks=tasks,
                                   workers_per_world=per_world)
    contained = sharding.is_contained(world_set.root, BUILTIN_WORLDS_DIR)
    workers = shard_count(sharding.num_workers, num_instances, contained=contained,
                          cores=cores_per_process(sharding.local_processes))
    if workers:
        return ShardedRuntime(world_set, worlds, num_instances, config, workers,
                              contained=contained, tasks=tasks)
    return WorldRuntime(world_set, worlds, num_instances, config, tasks=tasks)


INSTANCES_PER_CONTAINED_WORKER = 32
"""With ``num_workers`` "auto" (or 0) a contained runtime starts one worker per this many
instances, up to one per core: contained calls pay a pipe round trip anyway, so a second worker
runs the batch on a second core (256 spotify calls: 0.67-0.97x the in-process step time with 2
workers on 2 cores, 1.2-1.4x with one; docs/benchmarks/containment.md), while a small env keeps
one worker's start-up."""

INSTANCES_PER_TRUSTED_WORKER = 64
"""With ``num_workers="auto"`` trusted code is sharded once every shard gets this many
instances and there are at least two shards; below that it runs in the caller's process. Two
shard workers on 2 cores step 256 or 1,024 spotify calls in 0.58-0.79x of the in-process time
but 64 in 0.60-0.99x, and starting and closing them costs ~1.3 s (docs/benchmarks/containment.md,
'Worker count against instances')."""


def _usable_cores(cores: int | None) -> int:
    if cores is not None:
        return cores
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else \
        (os.cpu_count() or 1)


def cores_per_process(local_processes: int = 1, cores: int | None = None) -> int:
    """The cores one of ``local_processes`` processes that share this machine may count on
    (:attr:`EnvConfig.local_processes`): this process's usable cores (``cores``: given)
    divided among them, at least 1.

    Example:
        >>> [cores_per_process(n, cores=16) for n in (1, 8, 32)]
        [16, 2, 1]
    """
    return max(1, _usable_cores(cores) // local_processes)


def contained_workers(num_instances: int, cores: int | None = None) -> int:
    """Workers of a contained runtime when ``num_workers`` is "auto" or 0: one per
    :data:`INSTANCES_PER_CONTAINED_WORKER` instances, at least 1, at most one per core.

    Example:
        >>> [contained_workers(n, cores=2) for n in (1, 32, 33, 1024)]
        [1, 1, 2, 2]
    """
    wanted = -(-num_instances // INSTANCES_PER_CONTAINED_WORKER)
    return max(1, min(_usable_cores(cores), wanted))


def trusted_workers(num_instances: int, cores: int | None = None) -> int:
    """Shards for trusted code when ``num_workers="auto"``: one per core, at most one per
    :data:`INSTANCES_PER_TRUSTED_WORKER` instances; 0 (in this process) when that is under two.

    Example:
        >>> [trusted_workers(n, cores=2) for n in (16, 64, 127, 128, 1024)]
        [0, 0, 0, 2, 2]
        >>> trusted_workers(1024, cores=16), trusted_workers(1024, cores=1)
        (16, 0)
    """
    workers = min(_usable_cores(cores), num_instances // INSTANCES_PER_TRUSTED_WORKER)
    return workers if workers >= 2 else 0


def shard_count(num_workers: int | str, num_instances: int, *, contained: bool,
                cores: int | None = None) -> int:
    """Worker processes for ``num_instances`` instances (0: run in this process).

    ``num_workers`` is :attr:`EnvConfig.num_workers`: an int >= 1 is taken as it is; "auto" is
    :func:`contained_workers` for contained code and :func:`trusted_workers` otherwise; 0 is
    this process for trusted code and, since contained code never runs here, the automatic
    count for contained code.

    Example:
        >>> shard_count("auto", 256, contained=False, cores=2), shard_count(0, 256, contained=False)
        (2, 0)
        >>> shard_count(0, 8, contained=True, cores=2), shard_count(3, 8, contained=False)
        (1, 3)
    """
    if num_workers == "auto" or (num_workers == 0 and contained):
        return (contained_workers if contained else trusted_workers)(num_instances, cores)
    return int(num_workers)


class AWMVectorEnv(VectorEnv):
    """``num_envs`` instances over one or more worlds, stepped in one call.

    Args:
        num_envs: number of instances.
        world_set: path of an AWM-format world set (None: the built-in worlds).
        worlds: world names to run (None: every world of the set, as ``AWM/mix-v0``).
        split: a :class:`~awm_gym.worlds.splits.Split` or the path of a split file: resets
            draw only tasks of ``subset`` (see :mod:`awm_gym.envs.selection`).
        subset: ``"train"``, ``"val_tasks"`` or ``"val_worlds"`` (None with a split: all three).
        split_mismatch: ``"error"`` (default) or ``"warn"`` when the split was made for a
            world set whose content hash differs.
        exclude: an exclusion file (``awm check PATH --write-exclusions FILE``) or an
            :class:`~awm_gym.worlds.exclusions.Exclusions`: resets never draw its tasks (see
            :mod:`awm_gym.envs.selection`); ``excluded_tasks`` says how many were left out.
        **config: fields of :class:`~awm_gym.envs.config.EnvConfig` (``max_episode_steps``,
            ``tool_timeout_s``, ``verifier_workers``, ...).

    Reset with ``reset(seed=int | list, options={"reset_mask": bool array, "task_idx": int |
    list, "world": str | list})``: only masked instances reset; without ``task_idx`` the seed
    picks the task. ``step(actions)`` takes one string per instance; ``None`` leaves an instance
    as it is (required for instances whose episode has ended or that were never reset; allowed
    for a mid-episode instance, which then simply waits).
    """

    metadata = {"autoreset_mode": AutoresetMode.DISABLED, "render_modes": []}

    num_envs: int
    runtime: Runtime  # WorldRuntime, ShardedRuntime (num_workers > 0) or RemoteRuntime
    config: EnvConfig
    split: Split | None = None
    """The split the env was made with (None: no split)."""
    subset: Subset | None = None
    """The split's subset its resets draw from (None: every task of the split, or no split)."""
    excluded_tasks: int = 0
    """How many tasks ``exclude=`` left out (0 without exclusions)."""

    def __init__(self, num_envs: int = 1, world_set: str | None = None,
                 worlds: Sequence[str] | str | None = None, *,
                 split: Split | str | os.PathLike[str] | None = None,
                 subset: str | Subset | None = None, split_mismatch: OnMismatch = "error",
                 exclude: Exclusions | str | os.PathLike[str] | None = None,
                 **config: Any) -> None:
        if not isinstance(num_envs, int) or num_envs < 1:
            raise EnvUsageError(f"num_envs={num_envs!r}: must be a positive int.")
        self.config = env_config_from(config)
        sel = select(world_set, worlds, split, subset, split_mismatch, exclude)
        self.excluded_tasks = sel.excluded
        self.split, self.subset = sel.split, sel.subset
        self._attach(make_runtime(sel.world_set, sel.worlds, num_envs, self.config,
                                  tasks=sel.tasks), num_envs)

    def _attach(self, runtime: Runtime, num_envs: int) -> None:
        """Set up spaces and per-instance state over ``runtime`` (the remote client passes its
        own)."""
        self.runtime = runtime
        self.config = runtime.config
        self.num_envs = num_envs
        self.single_observation_space = UnicodeText(self.config.max_text_length)
        self.single_action_space = UnicodeText(self.config.max_text_length)
        # Tuple of the same space object: batch_space would deep-copy it 1,024 times (~180 ms)
        self.observation_space = gym.spaces.Tuple([self.single_observation_space] * num_envs)
        self.action_space = gym.spaces.Tuple([self.single_action_space] * num_envs)
        self._obs: list[str] = [""] * num_envs
        self._done = np.ones(num_envs, dtype=np.bool_)
        self._started = np.zeros(num_envs, dtype=np.bool_)
        self.closed = False

    def __repr__(self) -> str:
        worlds = self.runtime.worlds
        name = worlds[0] if len(worlds) == 1 else f"mix of {len(worlds)} worlds"
        part = f", subset={self.subset.value!r}" if self.subset is not None else ""
        return f"AWMVectorEnv({name}, num_envs={self.num_envs}{part})"

    # -- helpers for policies ------------------------------------------------------------------
    def tools_text(self, i: int) -> str:
        """The ``list_tools`` reply of instance ``i``'s world."""
        return self.runtime.tools_text(self._world_of(i))

    def tools(self, i: int) -> list[dict[str, Any]]:
        """Instance ``i``'s tools as MCP lists them (``name``, ``description``, ``inputSchema``)."""
        return self.runtime.tools(self._world_of(i))

    def _world_of(self, i: int) -> str:
        """Instance ``i``'s world: its current one, or the env's only world before a reset."""
        if not isinstance(i, (int, np.integer)) or not 0 <= i < self.num_envs:
            raise EnvUsageError(f"instance index {i!r}: use an int in 0..{self.num_envs - 1}.")
        world = self.runtime.instance_world(int(i))[0]
        if world:
            return world
        if len(self.runtime.worlds) == 1:
            return self.runtime.worlds[0]
        raise EnvUsageError(f"instance {i} has no world before its first reset (this env mixes "
                            f"{len(self.runtime.worlds)} worlds): call envs.reset(...) first.")

    # -- Gymnasium API ----------------------------------------------------------------------------
    def _per_env(self, value: Any, name: str) -> list[Any]:
        if isinstance(value, (list, tuple, np.ndarray)):
            if len(value) != self.num_envs:
                raise EnvUsageError(f"options[{name!r}] has {len(value)} entries; give one per "
                                    f"instance ({self.num_envs}) or a single value for all.")
            return list(value)
        return [value] * self.num_envs

    def reset(self, *, seed: int | Sequence[int | None] | None = None,
              options: dict[str, Any] | None = None) -> tuple[tuple[str, ...], dict[str, Any]]:
        options = dict(options or {})  # never mutate the caller's dict
        mask = options.pop("reset_mask", None)
        if mask is None:
            mask = np.ones(self.num_envs, dtype=np.bool_)
        else:
            if not isinstance(mask, np.ndarray) or mask.dtype != np.bool_:
                raise EnvUsageError(f"options['reset_mask'] must be a numpy bool array, got "
                                    f"{type(mask).__name__} of {getattr(mask, 'dtype', None)}.")
            if mask.shape != (self.num_envs,):
                raise EnvUsageError(f"options['reset_mask'] has shape {mask.shape}; expected "
                                    f"({self.num_envs},).")
            if not mask.any():
                raise EnvUsageError("options['reset_mask'] has no True entry: nothing to reset.")
        if seed is None:
            seeds: list[int | None] = [None] * self.num_envs
        elif isinstance(seed, (int, np.integer)):
            seeds = [int(seed) + i for i in range(self.num_envs)]
        else:
            seeds = [None if s is None else int(s) for s in seed]
            if len(seeds) != self.num_envs:
                raise EnvUsageError(f"seed has {len(seeds)} entries but num_envs={self.num_envs}; "
                                    "pass one seed per instance or a single int.")
        task_idx = self._per_env(options.pop("task_idx", None), "task_idx")
        worlds = self._per_env(options.pop("world", None), "world")
        if options:
            raise EnvUsageError(f"Unknown reset options {sorted(options)}; valid: 'reset_mask', "
                                "'task_idx', 'world'.")
        idx = np.flatnonzero(mask).tolist()
        results = self.runtime.reset(idx, [seeds[i] for i in idx], [task_idx[i] for i in idx],
                                     [worlds[i] for i in idx])
        items = []
        for i, (obs, info) in zip(idx, results, strict=True):
            self._obs[i] = obs
            items.append((i, info))
        self._done[idx] = False
        self._started[idx] = True
        return tuple(self._obs), batch_infos(self.num_envs, items)

    def step(self, actions: Sequence[str | None]
             ) -> tuple[tuple[str, ...], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        if isinstance(actions, str):
            raise EnvUsageError(f"step() needs one action per instance ({self.num_envs}), got 1 "
                                "(a single str): pass a list or tuple of strings.")
        if not isinstance(actions, (list, tuple, np.ndarray)):
            raise EnvUsageError(f"step() needs a list or tuple of {self.num_envs} actions (one "
                                f"string, or None, per instance); got {type(actions).__name__}.")
        if len(actions) != self.num_envs:
            raise EnvUsageError(f"step() needs one action per instance ({self.num_envs}), got "
                                f"{len(actions)}.")
        idx = []
        for i, action in enumerate(actions):
            if action is None:
                continue  # not stepped this time (finished, or paused by the caller)
            if not self._started[i]:
                raise EnvUsageError(f"actions[{i}] given to instance {i}, which was never reset: "
                                    "call envs.reset(seed=...) first (or pass None for it).")
            if self._done[i]:
                raise EnvUsageError(
                    f"actions[{i}] given to instance {i}, whose episode has ended (autoreset is "
                    "disabled): reset it with options={'reset_mask': mask}, or pass None.")
            idx.append(i)
        rewards = np.zeros(self.num_envs, dtype=np.float64)
        terminated = np.zeros(self.num_envs, dtype=np.bool_)
        truncated = np.zeros(self.num_envs, dtype=np.bool_)
        outcomes = self.runtime.step(idx, [actions[i] for i in idx])
        items = []
        for i, out in zip(idx, outcomes, strict=True):
            self._obs[i] = out.observation
            rewards[i], terminated[i], truncated[i] = out.reward, out.terminated, out.truncated
            items.append((i, out.info))
        self._done |= terminated | truncated
        return tuple(self._obs), rewards, terminated, truncated, batch_infos(self.num_envs, items)

    def close_extras(self, **kwargs: Any) -> None:
        self.runtime.close()
