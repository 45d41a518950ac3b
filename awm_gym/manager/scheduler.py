"""``Scheduler``: the per-instance episode state of a vector env, advanced by a policy's actions.

The :class:`~awm_gym.World` owns one. It knows, for each instance, whether an episode is running,
what it runs (world, task, seed, episode index) and what the last step returned; :meth:`start`
resets chosen instances, :meth:`step` asks a policy for one action per running instance and
steps the env once. :func:`awm_gym.manager.rollout.run_episodes` drives whole episodes through
these public members; nothing here knows about the World, evaluation or datasets.

Example:
    >>> import gymnasium as gym, numpy as np, awm_gym
    >>> from agents.policies import OraclePolicy
    >>> envs = gym.make_vec("AWM/spotify-v0", num_envs=2)
    >>> scheduler, policy = Scheduler(envs), OraclePolicy()
    >>> policy.set_env(envs)
    >>> scheduler.start(np.array([True, False]), [7, None], [0, -1])
    >>> scheduler.active.tolist(), scheduler.episode_of(0)[0]
    ([True, False], 'spotify')
    >>> while scheduler.active.any():
    ...     stepped = scheduler.step(policy)
    >>> float(scheduler.rewards[0]), bool(scheduler.terminateds[0])
    (1.0, True)
    >>> envs.close()
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from awm_gym import info_keys as K
from awm_gym.envs.protocol import Runtime
from awm_gym.envs.vector_env import AWMVectorEnv
from awm_gym.errors import EnvUsageError
from awm_gym.manager.db_diff import DatabaseDiff, diff_databases
from awm_gym.manager.policy import Policy, policy_name

__all__ = ["Scheduler"]


class Scheduler:
    """Which instances of ``envs`` run an episode, what they run, and their last step's results.

    Args:
        envs: the vector env (autoreset disabled: an instance stays ended until started again).

    After :meth:`step`, ``observations``, ``rewards``, ``terminateds``, ``truncateds``,
    ``infos`` and ``actions`` hold that step's results (zero / False / None for instances that
    were not stepped); instances whose episode ended are no longer :attr:`active`.
    """

    envs: AWMVectorEnv
    observations: list[str]
    rewards: np.ndarray  # (num_envs,) float64
    terminateds: np.ndarray  # (num_envs,) bool
    truncateds: np.ndarray  # (num_envs,) bool
    infos: dict[str, Any]
    actions: list[str | None]

    def __init__(self, envs: AWMVectorEnv) -> None:
        self.envs = envs
        n = envs.num_envs
        self.observations = [""] * n
        self.rewards = np.zeros(n, dtype=np.float64)
        self.terminateds = np.zeros(n, dtype=np.bool_)
        self.truncateds = np.zeros(n, dtype=np.bool_)
        self.infos = {}
        self.actions = [None] * n
        self._active = np.zeros(n, dtype=np.bool_)
        self._restarted = np.zeros(n, dtype=np.bool_)
        self._episode_idx = np.full(n, -1, dtype=np.int64)
        self._world = np.full(n, None, dtype=object)
        self._task = np.full(n, None, dtype=object)
        self._task_idx = np.full(n, -1, dtype=np.int64)
        self._seed = np.full(n, -1, dtype=np.int64)

    def __repr__(self) -> str:
        return f"Scheduler({self.envs!r}, active={int(self._active.sum())})"

    @property
    def num_envs(self) -> int:
        return self.envs.num_envs

    @property
    def runtime(self) -> Runtime:
        return self.envs.runtime

    @property
    def active(self) -> np.ndarray:
        """Instances mid-episode (a copy): :meth:`step` acts for exactly these."""
        return self._active.copy()

    def episode_of(self, i: int) -> tuple[str, int, str]:
        """``(world, task_idx, task text)`` of the episode instance ``i`` runs or last ran."""
        return str(self._world[i]), int(self._task_idx[i]), str(self._task[i])

    # -- starting and stopping --------------------------------------------------------------------
    def start(self, mask: np.ndarray | None, seeds: int | Sequence[int | None] | None,
              episode_idx: Sequence[int] | np.ndarray | None = None,
              options: dict[str, Any] | None = None) -> None:
        """Reset the masked instances and mark them running.

        Args:
            mask: which instances start a new episode (bool, one per instance; None: all). The
                vector env checks it (``options['reset_mask']``).
            seeds: an int (instance ``i`` gets ``seed + i``), one seed per instance, or None.
            episode_idx: each instance's episode index (default -1: not part of a run).
            options: further reset options of the vector env (``task_idx``, ``world``: one
                value, or one per instance).
        """
        opts = dict(options or {})
        if mask is not None:
            opts["reset_mask"] = mask
        seeds = list(seeds) if isinstance(seeds, (list, tuple, np.ndarray)) else seeds
        obs, info = self.envs.reset(seed=seeds, options=opts)
        started = np.ones(self.num_envs, dtype=np.bool_) if mask is None else \
            np.asarray(mask, dtype=np.bool_)
        index = np.full(self.num_envs, -1, dtype=np.int64) if episode_idx is None else \
            np.asarray(episode_idx, dtype=np.int64)
        idx = np.flatnonzero(started)
        for i in idx:
            self.observations[i] = obs[i]
            self._task[i] = obs[i]
        self._world[idx] = info[K.WORLD][idx]
        self._task_idx[idx] = info[K.TASK_IDX][idx]
        self._seed[idx] = info[K.SEED][idx]
        self._episode_idx[idx] = index[idx]
        self._active[idx] = True
        self._restarted[idx] = True
        self.rewards[idx] = 0.0
        self.terminateds[idx] = False
        self.truncateds[idx] = False
        self.infos = info

    def stop(self) -> None:
        """Mark every instance idle (a run that hands out its own episodes starts from here)."""
        self._active[:] = False

    # -- stepping ---------------------------------------------------------------------------------
    def policy_infos(self) -> dict[str, Any]:
        """What the policy sees: the last env infos plus the per-instance keys of this state."""
        infos = dict(self.infos)
        n = self.num_envs
        obs = np.empty(n, dtype=object)
        obs[:] = self.observations
        infos.update({K.OBSERVATION: obs, K.TASK: self._task.copy(), K.WORLD: self._world.copy(),
                      K.TASK_IDX: self._task_idx.copy(), K.SEED: self._seed.copy(),
                      K.ACTIVE: self._active.copy(), K.EPISODE_RESTARTED: self._restarted.copy(),
                      K.EPISODE_IDX: self._episode_idx.copy()})
        for key in (K.OBSERVATION, K.TASK, K.WORLD, K.TASK_IDX, K.SEED):
            infos["_" + key] = np.ones(n, dtype=np.bool_)
        return infos

    def step(self, policy: Policy) -> np.ndarray:
        """Advance every active instance by one action of ``policy``; returns the instances
        stepped (a bool mask; those that ended are inactive afterwards)."""
        if not self._active.any():
            raise EnvUsageError("step(): no instance is mid-episode; start episodes first "
                                "(world.reset()).")
        actions = self._actions(policy, policy.get_action(self.policy_infos()))
        self._restarted[:] = False
        obs, rewards, terminated, truncated, info = self.envs.step(actions)
        stepped = self._active.copy()
        self.actions = actions
        for i in np.flatnonzero(stepped):
            self.observations[i] = obs[i]
        self.rewards = np.where(stepped, rewards, 0.0)
        self.terminateds = terminated & stepped
        self.truncateds = truncated & stepped
        self.infos = info
        self._active &= ~(terminated | truncated)
        return stepped

    def _actions(self, policy: Policy, proposed: Any) -> list[str | None]:
        """The policy's proposal checked: one entry per instance, a str for each active one."""
        name = policy_name(policy)
        if isinstance(proposed, str) or len(proposed) != self.num_envs:
            raise EnvUsageError(f"{name}.get_action returned "
                                f"{'a str' if isinstance(proposed, str) else len(proposed)}; it "
                                f"must return one entry per instance ({self.num_envs}).")
        actions: list[str | None] = [None] * self.num_envs
        for i in np.flatnonzero(self._active):
            action = proposed[i]
            if not isinstance(action, str):
                raise EnvUsageError(f"{name}.get_action returned {type(action).__name__} for "
                                    f"active instance {i}; active instances need a str "
                                    "(malformed text is fine: the env scores it).")
            actions[i] = action
        return actions

    # -- databases --------------------------------------------------------------------------------
    def db_diff(self, i: int) -> DatabaseDiff | None:
        """What instance ``i``'s episode changed in its database so far (call it before the
        instance is started again), None where the runtime cannot read the databases (a world
        server keeps them)."""
        runtime = self.runtime
        before, after = runtime.template(str(self._world[i])), runtime.snapshot(i)
        if before is None or after is None:
            return None
        return diff_databases(before, after)
