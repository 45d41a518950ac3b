"""``World``: run a policy on many instances, evaluate it, record its rollouts, render transcripts.

A thin manager over the batched vector env (:class:`~awm_gym.envs.vector_env.AWMVectorEnv`) in the
shape of stable-worldmodel's ``World``: attach a policy, then ``step()`` advances every live
instance with it; :meth:`World.evaluate`, :meth:`World.record_dataset` and
:meth:`World.render_transcripts` run whole episodes (see :mod:`awm_gym.manager.rollout` for the
bookkeeping: episode ``k`` always runs with seed ``seed + k``). The instances' episode state is a
:class:`~awm_gym.manager.scheduler.Scheduler` the World owns; runs take it and the policy, and
recording takes the stream of episodes they yield.

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

from awm_gym.envs.protocol import Runtime
from awm_gym.envs.vector_env import AWMVectorEnv
from awm_gym.errors import EnvUsageError
from awm_gym.manager.episode import EPISODE_FIELDS, GENERATION_KEYS, Episode
from awm_gym.manager.evaluation import summarize_episodes
from awm_gym.manager.policy import Policy, check_policy, policy_name
from awm_gym.manager.recording import (
    RecordingMeta,
    dataset_path,
    info_columns,
    load_episodes,
    record,
    replay_settings,
    world_set_dir,
)
from awm_gym.manager.rollout import check_episodes, run_episodes
from awm_gym.manager.scheduler import Scheduler
from awm_gym.manager.transcripts import DEFAULT_TRANSCRIPT_KEYS, write_transcripts

__all__ = ["World"]


def _make_envs(env_name: str | Sequence[str], num_envs: int, max_episode_steps: int,
               kwargs: dict[str, Any]) -> AWMVectorEnv:
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
        self.envs: AWMVectorEnv = _make_envs(env_name, num_envs, max_episode_steps, kwargs)
        self.policy: Policy | None = None
        self._scheduler = Scheduler(self.envs)

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
        return self._scheduler.active

    @property
    def observations(self) -> list[str]:
        """Each instance's latest observation (the task text right after a reset)."""
        return self._scheduler.observations

    @property
    def rewards(self) -> np.ndarray:
        """The last step's rewards (0.0 for instances not stepped)."""
        return self._scheduler.rewards

    @property
    def terminateds(self) -> np.ndarray:
        return self._scheduler.terminateds

    @property
    def truncateds(self) -> np.ndarray:
        return self._scheduler.truncateds

    @property
    def infos(self) -> dict[str, Any]:
        """The vector env's info dict of the last reset or step."""
        return self._scheduler.infos

    @property
    def actions(self) -> list[str | None]:
        """The last step's actions (None for instances not stepped)."""
        return self._scheduler.actions

    @property
    def runtime(self) -> Runtime:
        return self.envs.runtime

    @property
    def policy_name(self) -> str:
        return policy_name(self.policy)

    # -- policy, reset, step ----------------------------------------------------------------------
    def set_policy(self, policy: Policy) -> None:
        """Attach ``policy`` (``get_action(infos)``, ``set_env(env)``, ``set_seed(seed)``: see
        :class:`awm_gym.Policy`)."""
        self.policy = check_policy(policy)
        policy.set_env(self.envs)
        if getattr(policy, "seed", None) is not None:
            policy.set_seed(policy.seed)

    def reset(self, seed: int | Sequence[int | None] | None = None,
              options: dict[str, Any] | None = None) -> None:
        """Start new episodes (all instances, or ``options["reset_mask"]``); int seeds give
        instance ``i`` the seed ``seed + i``."""
        options = dict(options or {})
        mask = options.pop("reset_mask", None)
        self._scheduler.start(mask, self.seed if seed is None else seed, options=options)

    def policy_infos(self) -> dict[str, Any]:
        """What the policy sees: the last env infos plus the World's per-instance keys."""
        return self._scheduler.policy_infos()

    def step(self) -> None:
        """Advance every active instance by one action of the attached policy.

        Afterwards ``observations``, ``rewards``, ``terminateds``, ``truncateds``, ``infos`` and
        ``actions`` hold the step's results; finished instances become inactive.
        """
        self._scheduler.step(self._require_policy("World.step()"))

    def _require_policy(self, what: str) -> Policy:
        if self.policy is None:
            raise EnvUsageError(f"{what} needs a policy: call world.set_policy(policy).")
        return self.policy

    # -- whole episodes -------------------------------------------------------------------------
    def run_episodes(self, episodes: int, seed: int | None = None,
                     options: dict[str, Any] | None = None, info_keys: Sequence[str] = (),
                     capture_db_diff: bool = False, desc: str = "episodes"
                     ) -> Iterator[Episode]:
        """Run exactly ``episodes`` episodes (episode k with seed ``seed + k``) and yield each as
        it finishes; see :func:`awm_gym.manager.rollout.run_episodes`."""
        return run_episodes(self._scheduler, self._require_policy("World.run_episodes()"),
                            episodes, self._seed_or_default(seed), options=options,
                            info_keys=info_keys, capture_db_diff=capture_db_diff, desc=desc,
                            progress=self.verbose > 0)

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
        :mod:`awm_gym.manager.recording` for the schema and the atomic write.

        With a policy that exposes ``last_generations`` (an LLM policy), each step also stores
        the prompt ids the model saw, the ids it sampled and their log-probabilities
        (``prompt_ids``, ``completion_ids``, ``sampler_logprobs`` list columns)."""
        path, keys = dataset_path(dataset_name, cache_dir), info_columns(info_keys)
        if hasattr(self._require_policy("World.record_dataset()"), "last_generations"):
            keys += [key for key in GENERATION_KEYS if key not in keys]
        seed = self._seed_or_default(seed)
        stream = self.run_episodes(episodes, seed, options, info_keys=keys, capture_db_diff=True,
                                   desc=f"record {path.name}")
        meta = RecordingMeta(env=str(self.env_name), policy=self.policy_name, seed=seed,
                             options=options, world_set=world_set_dir(self.envs.runtime),
                             replay=replay_settings(self.envs.config))
        return record(stream, path, meta, info_keys=keys, mode=mode)

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
