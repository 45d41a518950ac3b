"""One instance of an AWM world as a ``gymnasium.Env`` (text in, text out).

Example:
    >>> import gymnasium as gym, awm_gym
    >>> env = gym.make("AWM/spotify-v0")
    >>> obs, info = env.reset(seed=3, options={"task_idx": 0})
    >>> info["task_idx"], obs == env.unwrapped.task
    (0, True)
    >>> env.close()
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import gymnasium as gym

from awm_gym.envs.config import env_config_from
from awm_gym.envs.protocol import Runtime
from awm_gym.envs.registration import BUILTIN_WORLDS_DIR
from awm_gym.envs.runtime import WorldRuntime
from awm_gym.envs.selection import select
from awm_gym.envs.shards import ShardedRuntime
from awm_gym.envs.spaces import UnicodeText
from awm_gym.envs.world_shards import WorldShardedRuntime
from awm_gym.errors import EnvUsageError
from awm_gym.worlds.exclusions import Exclusions
from awm_gym.worlds.splits import OnMismatch, Split, Subset

__all__ = ["AWMEnv"]


class AWMEnv(gym.Env[str, str]):
    """A single instance; see :class:`~awm_gym.envs.vector_env.AWMVectorEnv` for the batched form.

    ``reset(seed=..., options={"task_idx": k, "world": name})``: the seed picks the task unless
    ``task_idx`` pins it (among the tasks of ``subset`` when made with a ``split``, as
    :class:`~awm_gym.envs.vector_env.AWMVectorEnv`). ``step(text)`` returns ``(observation,
    reward, terminated, truncated, info)``; the keys of ``info`` are listed in
    :mod:`awm_gym.info_keys`.
    """

    metadata = {"render_modes": []}

    split: Split | None = None
    """The split the env was made with (None: no split)."""
    subset: Subset | None = None
    """The split's subset its resets draw from (None: every task of the split, or no split)."""
    excluded_tasks: int = 0
    """How many tasks ``exclude=`` left out (0 without exclusions)."""

    def __init__(self, world_set: str | None = None, worlds: Sequence[str] | str | None = None,
                 *, split: Split | str | os.PathLike[str] | None = None,
                 subset: str | Subset | None = None, split_mismatch: OnMismatch = "error",
                 exclude: Exclusions | str | os.PathLike[str] | None = None,
                 **config: Any) -> None:
        self.config = env_config_from(config)
        sel = select(world_set, worlds, split, subset, split_mismatch, exclude)
        self.excluded_tasks = sel.excluded
        ws = sel.world_set
        if self.config.sharding.isolation == "world":  # each world in a worker of its own
            self._attach(WorldShardedRuntime(ws, sel.worlds, 1, self.config, tasks=sel.tasks))
        elif self.config.sharding.is_contained(ws.root, BUILTIN_WORLDS_DIR):
            self._attach(ShardedRuntime(ws, sel.worlds, 1, self.config, 1, contained=True,
                                        tasks=sel.tasks))
        else:
            self._attach(WorldRuntime(ws, sel.worlds, 1, self.config, tasks=sel.tasks))
        self.split, self.subset = sel.split, sel.subset

    def _attach(self, runtime: Runtime) -> None:
        """Set up spaces and state over ``runtime`` (the remote client passes its own)."""
        self.runtime = runtime
        self.config = runtime.config
        self.observation_space = UnicodeText(self.config.max_text_length)
        self.action_space = UnicodeText(self.config.max_text_length)
        self.task = ""
        self._done = True

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[str, dict[str, Any]]:
        super().reset(seed=seed)
        options = dict(options or {})
        task_idx, world = options.pop("task_idx", None), options.pop("world", None)
        if options:
            raise EnvUsageError(f"Unknown reset options {sorted(options)}; valid: 'task_idx', "
                                "'world'.")
        if seed is None:  # a fresh seed from the env's generator keeps episodes reproducible
            seed = int(self.np_random.integers(0, 2**31 - 1))
        [(obs, info)] = self.runtime.reset([0], [seed], [task_idx], [world])
        self.task, self._done = obs, False
        return obs, info

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        if self._done:
            raise EnvUsageError("step() after the episode ended (or before reset()): call "
                                "env.reset(...) first.")
        [out] = self.runtime.step([0], [action])
        self._done = out.terminated or out.truncated
        return out.observation, float(out.reward), out.terminated, out.truncated, out.info

    @property
    def tools_text(self) -> str:
        """The ``list_tools`` reply of the current world (before a reset: of the only world)."""
        world = self.runtime.instance_world(0)[0]
        if not world and len(self.runtime.worlds) == 1:
            world = self.runtime.worlds[0]
        if not world:
            raise EnvUsageError("tools_text has no world before the first reset of an env that "
                                "mixes worlds: call env.reset(...) first.")
        return self.runtime.tools_text(world)

    def close(self) -> None:
        self.runtime.close()
        super().close()
