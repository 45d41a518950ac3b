"""``World``: run a policy on many instances, evaluate it, record its rollouts, render transcripts.

A thin manager over the batched vector env (:class:`~awm_gym.envs.vector_env.AWMVectorEnv`) in the
shape of stable-worldmodel's ``World``: attach a policy, then ``step()`` advances every live
instance with it; :meth:`World.evaluate`, :meth:`World.record_dataset` and
:meth:`World.render_transcripts` run whole episodes (see :mod:`awm_gym.manager.rollout` for the
bookkeeping: episode ``k`` always runs with seed ``seed + k``).

Example:
    >>> from awm_gym import World
    >>> from agents.policies import OraclePolicy
    >>> world = World("AWM/spotify-v0", num_envs=4, verbose=0)
    >>> world.set_policy(OraclePolicy())
    >>> metrics = world.evaluate(episodes=10, seed=0, eval_keys=["num_turns"])
    >>> metrics["success_rate"], metrics["seeds"][:3]
    (1.0, [0, 1, 2])
    >>> world.close()
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from awm_gym import info_keys as K
from awm_gym.envs.vector_env import AWMVectorEnv
from awm_gym.errors import EnvUsageError
from awm_gym.manager.episode import EPISODE_FIELDS, Episode
from awm_gym.manager.evaluation import summarize_episodes
from awm_gym.manager.recording import dataset_path, load_episodes, record
from awm_gym.manager.rollout import check_episodes, run_episodes
from awm_gym.manager.transcripts import DEFAULT_TRANSCRIPT_KEYS, write_transcripts

__all__ = ["World"]


def _make_envs(env_name: str | Sequence[str], num_envs: int, max_episode_steps: int,
               kwargs: dict[str, Any]) -> Any:
    """``gym.make_vec`` for one id; several ids of one world set become one mixed vector env."""
    if isinstance(env_name, str):
        return gym.make_vec(env_name, num_envs=num_envs, max_episode_steps=max_episode_steps,
                            **kwargs)
    ids = list(env_name)
    if not ids:
        raise EnvUsageError("env_name is an empty list; give one id (e.g. 'AWM/spotify-v0') or "
                            "several ids of the same world set.")
    world_sets, worlds = set(), []
    for gid in ids:
        try:
            spec = gym.spec(gid)
        except gym.error.Error as e:
            raise EnvUsageError(f"env_name entry {gid!r} is not a registered id ({e}).") from e
        if spec.vector_entry_point != "awm_gym.envs.vector_env:AWMVectorEnv" or not spec.kwargs.get(
                "worlds"):
            raise EnvUsageError(f"env_name entry {gid!r} is not a single AWM world id; a list "
                                "may only hold ids like 'AWM/<world>-v0'.")
        world_sets.add(spec.kwargs.get("world_set"))
        worlds.extend(spec.kwargs["worlds"])
    if len(world_sets) != 1:
        raise EnvUsageError(f"env_name ids come from {len(world_sets)} different world sets; one "
                            "vector env runs worlds of one set (register them in one directory).")
    kwargs = dict(kwargs)
    kwargs.setdefault("world_set", world_sets.pop())
    return AWMVectorEnv(num_envs=num_envs, worlds=worlds, max_episode_steps=max_episode_steps,
                        **kwargs)


class World:
    """``num_envs`` instances of one or more AWM worlds, driven by one policy.

    Args:
        env_name: a registered id (``"AWM/spotify-v0"``, ``"AWM/mix-v0"`` with ``worlds=[...]``
            in ``kwargs``), or a list of single-world ids of one world set.
        num_envs: instances stepped together.
        seed: default seed of :meth:`reset`, :meth:`evaluate` and :meth:`record_dataset`.
        max_episode_steps: turns before an episode is truncated.
        verbose: 0 is silent; 1 shows progress bars on long runs.
        **kwargs: passed to the env (fields of :class:`~awm_gym.envs.config.EnvConfig`, ``worlds``,
            ``world_set``, ``split``, ``subset`` and ``exclude``: see
            :mod:`awm_gym.envs.selection`), e.g.
            ``num_workers=8, backend="ray", ray_address="head:6379"`` to run the instances as 8
            Ray actors in a cluster (docs/runtime.md, "Ray").
    """

    def __init__(self, env_name: str | Sequence[str], num_envs: int = 1, seed: int | None = None,
                 max_episode_steps: int = 30, verbose: int = 1, **kwargs: Any) -> None:
        self.env_name = env_name
        self.seed = seed
        self.verbose = verbose
        self.envs = _make_envs(env_name, num_envs, max_episode_steps, kwargs)
        self.policy: Any = None
        n = self.num_envs
        self.observations: list[str] = [""] * n
        self.rewards = np.zeros(n, dtype=np.float64)
        self.terminateds = np.zeros(n, dtype=np.bool_)
        self.truncateds = np.zeros(n, dtype=np.bool_)
        self.infos: dict[str, Any] = {}
        self.actions: list[str | None] = [None] * n
        self._active = np.zeros(n, dtype=np.bool_)
        self._restarted = np.zeros(n, dtype=np.bool_)
        self._episode_idx = np.full(n, -1, dtype=np.int64)
        self._world = np.full(n, None, dtype=object)
        self._task = np.full(n, None, dtype=object)
        self._task_idx = np.full(n, -1, dtype=np.int64)
        self._seed = np.full(n, -1, dtype=np.int64)

    def __repr__(self) -> str:
        return f"World({self.env_name!r}, num_envs={self.num_envs}, policy={self.policy!r})"

    # -- properties -------------------------------------------------------------------------------
    @property
    def num_envs(self) -> int:
        return self.envs.num_envs

    @property
    def observation_space(self) -> gym.Space:
        return self.envs.observation_space

    @property
    def action_space(self) -> gym.Space:
        return self.envs.action_space

    @property
    def single_observation_space(self) -> gym.Space:
        return self.envs.single_observation_space

    @property
    def single_action_space(self) -> gym.Space:
        return self.envs.single_action_space

    @property
    def active(self) -> np.ndarray:
        """Instances mid-episode (a copy): ``step()`` acts for exactly these."""
        return self._active.copy()

    @property
    def runtime(self) -> Any:
        return self.envs.runtime

    @property
    def policy_name(self) -> str:
        return str(getattr(self.policy, "name", type(self.policy).__name__))

    # -- policy, reset, step ----------------------------------------------------------------------
    def set_policy(self, policy: Any) -> None:
        """Attach ``policy`` (``get_action(infos)``, ``set_env(env)``, ``set_seed(seed)``)."""
        missing = [m for m in ("get_action", "set_env", "set_seed") if not callable(
            getattr(policy, m, None))]
        if missing:
            raise EnvUsageError(f"{type(policy).__name__} lacks {', '.join(missing)}: a policy "
                                "needs get_action(infos), set_env(env) and set_seed(seed) (see "
                                "agents.policies.BasePolicy).")
        self.policy = policy
        policy.set_env(self.envs)
        if getattr(policy, "seed", None) is not None:
            policy.set_seed(policy.seed)

    def reset(self, seed: int | Sequence[int | None] | None = None,
              options: dict[str, Any] | None = None) -> None:
        """Start new episodes (all instances, or ``options["reset_mask"]``); int seeds give
        instance ``i`` the seed ``seed + i``."""
        seed = self.seed if seed is None else seed
        options = dict(options or {})
        mask = options.get("reset_mask")
        mask = np.ones(self.num_envs, dtype=np.bool_) if mask is None else mask
        obs, info = self.envs.reset(seed=seed, options=options)
        self._mark_started(mask, obs, info, np.full(self.num_envs, -1, dtype=np.int64))

    def _mark_started(self, mask: np.ndarray, obs: Sequence[str], info: dict[str, Any],
                 episode_idx: np.ndarray) -> None:
        idx = np.flatnonzero(mask)
        for i in idx:
            self.observations[i] = obs[i]
            self._task[i] = obs[i]
        self._world[idx] = info[K.WORLD][idx]
        self._task_idx[idx] = info[K.TASK_IDX][idx]
        self._seed[idx] = info[K.SEED][idx]
        self._episode_idx[idx] = episode_idx[idx]
        self._active[idx] = True
        self._restarted[idx] = True
        self.rewards[idx] = 0.0
        self.terminateds[idx] = False
        self.truncateds[idx] = False
        self.infos = info

    def start_episodes(self, mask: np.ndarray, seeds: Sequence[int | None],
                       episode_idx: Sequence[int], options: dict[str, list[Any]] | None = None
                       ) -> None:
        """Reset the masked instances with per-instance seeds, options and episode indices."""
        opts: dict[str, Any] = {"reset_mask": mask, **(options or {})}
        obs, info = self.envs.reset(seed=list(seeds), options=opts)
        self._mark_started(mask, obs, info, np.asarray(episode_idx, dtype=np.int64))

    def policy_infos(self) -> dict[str, Any]:
        """What the policy sees: the last env infos plus the World's per-instance keys."""
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

    def step(self) -> None:
        """Advance every active instance by one action of the attached policy.

        Afterwards ``observations``, ``rewards``, ``terminateds``, ``truncateds``, ``infos`` and
        ``actions`` hold the step's results; finished instances become inactive.
        """
        if self.policy is None:
            raise EnvUsageError("World.step() needs a policy: call world.set_policy(policy).")
        if not self._active.any():
            raise EnvUsageError("World.step(): no instance is mid-episode; call world.reset().")
        proposed = self.policy.get_action(self.policy_infos())
        if isinstance(proposed, str) or len(proposed) != self.num_envs:
            raise EnvUsageError(f"{self.policy_name}.get_action returned "
                                f"{'a str' if isinstance(proposed, str) else len(proposed)}; it "
                                f"must return one entry per instance ({self.num_envs}).")
        actions: list[str | None] = [None] * self.num_envs
        for i in np.flatnonzero(self._active):
            action = proposed[i]
            if not isinstance(action, str):
                raise EnvUsageError(f"{self.policy_name}.get_action returned "
                                    f"{type(action).__name__} for active instance {i}; active "
                                    "instances need a str (malformed text is fine: the env "
                                    "scores it).")
            actions[i] = action
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

    # -- whole episodes -------------------------------------------------------------------------
    def run_episodes(self, episodes: int, seed: int | None = None,
                     options: dict[str, Any] | None = None, info_keys: Sequence[str] = (),
                     capture_db_diff: bool = False, desc: str = "episodes"
                     ) -> Iterator[Episode]:
        """Run exactly ``episodes`` episodes (episode k with seed ``seed + k``) and yield each as
        it finishes; see :func:`awm_gym.manager.rollout.run_episodes`."""
        return run_episodes(self, episodes, self._seed_or_default(seed), options=options,
                            info_keys=info_keys, capture_db_diff=capture_db_diff, desc=desc)

    def _seed_or_default(self, seed: int | None) -> int:
        if seed is None:
            seed = self.seed if self.seed is not None else 0
        if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
            raise EnvUsageError(f"seed={seed!r}: give an int (episode k gets seed + k).")
        return int(seed)

    def evaluate(self, episodes: int = 10, eval_keys: Sequence[str] | None = None,
                 seed: int | None = None, options: dict[str, Any] | None = None
                 ) -> dict[str, Any]:
        """Evaluate the policy on exactly ``episodes`` episodes, seeds ``seed .. seed+episodes-1``.

        Success is defined as the verifier labelling the final answer ``complete`` (not
        ``terminated``, which a wrong answer or a malformed action also sets). Returns
        ``episodes``, ``seeds``, ``success_rate`` (a fraction), ``episode_successes``,
        ``mean_reward``, ``rewards``, ``unscored`` (episodes whose reward was not valid),
        ``per_world`` and one list per ``eval_keys`` entry, all indexed by episode (see
        :func:`awm_gym.manager.evaluation.summarize_episodes`). A World made with a ``split``
        also reports ``per_subset`` (``train`` / ``val_tasks`` / ``val_worlds``: episodes,
        success rate, mean reward) and each episode's subset in ``subsets``. A World made with
        ``exclude=FILE`` (``awm check --write-exclusions``) never runs an excluded task and
        reports how many it left out as ``excluded_tasks``.
        """
        n, keys = check_episodes(episodes), list(eval_keys or [])
        stream = self.run_episodes(n, seed, options, desc="evaluate",
                                   info_keys=[k for k in keys if k not in EPISODE_FIELDS])
        result = summarize_episodes(stream, n, keys, split=getattr(self.envs, "split", None))
        excluded = getattr(self.envs, "excluded_tasks", 0)
        return {**result, "excluded_tasks": excluded} if excluded else result

    def record_dataset(self, dataset_name: str, episodes: int = 10, seed: int | None = None,
                       cache_dir: str | os.PathLike | None = None,
                       options: dict[str, Any] | None = None,
                       info_keys: Sequence[str] | None = None, mode: str = "error") -> Path:
        """Record ``episodes`` rollouts as a Hugging Face dataset (one row per step); returns its
        directory. ``mode``: ``error`` if it exists, ``append``, or ``overwrite``. See
        :mod:`awm_gym.manager.recording` for the schema and the atomic write."""
        return record(self, dataset_name, episodes, seed=self._seed_or_default(seed),
                      cache_dir=cache_dir, options=options, info_keys=info_keys, mode=mode)

    def render_transcripts(self, out_dir: str | os.PathLike, max_episodes: int = 10,
                           seed: int | None = None, options: dict[str, Any] | None = None,
                           dataset_name: str | os.PathLike | None = None,
                           episode_idx: Sequence[int] | None = None,
                           cache_dir: str | os.PathLike | None = None) -> list[Path]:
        """Write self-contained HTML transcripts; returns the files (``index.html`` last).

        With ``dataset_name``, render recorded episodes (``episode_idx``, default the first
        ``max_episodes``); otherwise run ``max_episodes`` fresh episodes with the policy.
        """
        if dataset_name is not None:
            path = dataset_path(dataset_name, cache_dir)
            eps = load_episodes(path, episode_idx=episode_idx,
                                limit=None if episode_idx is not None else max_episodes)
            return write_transcripts(eps, out_dir, title=f"{Path(path).name} (recorded)")
        eps = sorted(self.run_episodes(max_episodes, seed, options,
                                       info_keys=DEFAULT_TRANSCRIPT_KEYS, capture_db_diff=True,
                                       desc="transcripts"), key=lambda e: e.episode_idx)
        return write_transcripts(eps, out_dir, title=f"{self.env_name} ({self.policy_name})")

    def close(self) -> None:
        self.envs.close()

    def __enter__(self) -> World:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
