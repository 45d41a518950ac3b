"""Run exactly N episodes of a policy on a vector env's instances: episode k gets seed ``seed + k``.

The bookkeeping stable-worldmodel got wrong twice (indexing results by start order while counting
completions, then keeping the first N completions and discarding the slow episodes) is replaced
by pre-assigned slots: episodes ``0 .. N-1`` are handed out in order to instances as they free
up; each result is filed under its own index whatever order episodes finish in; when all N have
started, freed instances stay idle (the vector env is stepped with ``None`` for them) until the
last episode ends.

Per-episode options: every value of ``options`` is either one value for all episodes or a list
with one entry per episode (``{"task_idx": [0, 1, 2, ...]}``); keys are the vector env's reset
options (``task_idx``, ``world``).

The run drives a :class:`~awm_gym.manager.scheduler.Scheduler` (the instances' episode state)
and a policy through their public members only; :class:`~awm_gym.World` passes its own.

Example:
    >>> import gymnasium as gym, awm_gym
    >>> from agents.policies import OraclePolicy
    >>> envs = gym.make_vec("AWM/spotify-v0", num_envs=3)
    >>> policy = OraclePolicy()
    >>> policy.set_env(envs)
    >>> sorted(e.seed for e in run_episodes(Scheduler(envs), policy, 5, seed=10))
    [10, 11, 12, 13, 14]
    >>> envs.close()
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from awm_gym.errors import EnvUsageError
from awm_gym.manager.episode import GENERATION_KEYS, REQUIRED_INFO_KEYS, Episode, generation_info
from awm_gym.manager.policy import Policy, policy_name
from awm_gym.manager.scheduler import Scheduler
from awm_gym.vocab import Turn

__all__ = ["run_episodes", "episode_options", "check_episodes"]


def check_episodes(episodes: Any) -> int:
    """``episodes`` as an int, or a clear error."""
    if not isinstance(episodes, (int, np.integer)) or isinstance(episodes, bool) or episodes < 0:
        raise EnvUsageError(f"episodes={episodes!r}: give a non-negative int.")
    return int(episodes)


def episode_options(options: dict[str, Any] | None, episodes: int) -> dict[str, list[Any]]:
    """Expand ``options`` to one value per episode (lists must have ``episodes`` entries)."""
    out: dict[str, list[Any]] = {}
    for key, value in (options or {}).items():
        if key == "reset_mask":
            raise EnvUsageError("options['reset_mask'] is not allowed here: the run decides "
                                "which instances start episodes.")
        if isinstance(value, (list, tuple, np.ndarray)):
            if len(value) != episodes:
                raise EnvUsageError(f"options[{key!r}] has {len(value)} entries for {episodes} "
                                    "episodes; give one per episode or a single value for all.")
            out[key] = list(value)
        else:
            out[key] = [value] * episodes
    return out


def _value(array: Any, i: int) -> Any:
    value = array[i]
    return value.item() if isinstance(value, np.generic) else value


def _turn_info(infos: dict[str, Any], i: int, keys: Sequence[str]) -> dict[str, Any]:
    out = {}
    for key in keys:
        mask = infos.get("_" + key)
        if mask is not None and mask[i]:
            value = _value(infos[key], i)
            if value is not None:
                out[key] = value
    return out


def run_episodes(scheduler: Scheduler, policy: Policy, episodes: int, seed: int,
                 options: dict[str, Any] | None = None, info_keys: Sequence[str] = (),
                 capture_db_diff: bool = False, desc: str = "episodes", progress: bool = False
                 ) -> Iterator[Episode]:
    """Run ``episodes`` episodes of ``policy``; yield each :class:`Episode` as it ends.

    Args:
        scheduler: the instances to run them on; the run takes them over (episodes running on
            them are abandoned) and leaves them all idle.
        policy: chooses the actions; ``set_seed(seed)`` is called when the run starts.
        episodes: how many (N); episode k runs with seed ``seed + k``.
        seed: the seed of episode 0.
        options: per-episode reset options (see the module docstring).
        info_keys: info keys each :class:`~awm_gym.vocab.Turn` keeps (the required ones are
            always kept); with :data:`~awm_gym.manager.episode.GENERATION_KEYS` among them, a
            policy exposing ``last_generations`` (an LLM policy) adds each turn's token ids and
            log-probabilities (:func:`~awm_gym.manager.episode.generation_info`).
        capture_db_diff: compute each episode's database diff (rows changed) when it ends
            (None where the runtime cannot read databases, as over a world server).
        desc: progress-bar label.
        progress: show a progress bar.

    Raises:
        EnvUsageError: a bad ``episodes`` or ``options`` (at once, before any episode runs).
    """
    episodes = check_episodes(episodes)
    per_episode = episode_options(options, episodes)
    keys = tuple(dict.fromkeys([*REQUIRED_INFO_KEYS, *info_keys]))
    return _run(scheduler, policy, episodes, seed, per_episode, keys, capture_db_diff,
                desc, progress)


def _run(scheduler: Scheduler, policy: Policy, episodes: int, seed: int,
         per_episode: dict[str, list[Any]], keys: tuple[str, ...], capture_db_diff: bool,
         desc: str, progress: bool) -> Iterator[Episode]:
    from tqdm.auto import tqdm

    n = scheduler.num_envs
    name = policy_name(policy)
    running: list[Episode | None] = [None] * n
    next_k = 0
    policy.set_seed(seed)
    scheduler.stop()  # the run owns the instances from here on

    def start(instances: list[int]) -> None:
        nonlocal next_k
        mask = np.zeros(n, dtype=np.bool_)
        seeds: list[int | None] = [None] * n
        index = np.full(n, -1, dtype=np.int64)
        opts: dict[str, list[Any]] = {key: [None] * n for key in per_episode}
        for i in instances:
            k = next_k
            next_k += 1
            mask[i], seeds[i], index[i] = True, seed + k, k
            for key, values in per_episode.items():
                opts[key][i] = values[k]
        scheduler.start(mask, seeds, index, opts)
        for i in instances:
            world, task_idx, task = scheduler.episode_of(i)
            running[i] = Episode(int(index[i]), int(seeds[i]), world, task_idx, task, name)

    bar = tqdm(total=episodes, desc=desc, disable=not progress, leave=False)
    with_tokens = any(key in keys for key in GENERATION_KEYS)
    try:
        if episodes:
            start(list(range(min(n, episodes))))
        while scheduler.active.any():
            stepped = scheduler.step(policy)
            done = []
            for i in np.flatnonzero(stepped):
                turn = _turn(scheduler, i, keys)
                if with_tokens:
                    turn.info.update(generation_info(policy, int(i)))
                running[i].turns.append(turn)
                if scheduler.terminateds[i] or scheduler.truncateds[i]:
                    done.append(i)
            finished = []
            for i in done:
                episode = running[i]
                if capture_db_diff:
                    episode.db_diff = scheduler.db_diff(i)
                finished.append(episode)
                running[i] = None
            free = done[:max(0, episodes - next_k)]
            if free:
                start(free)
            for episode in finished:
                bar.update(1)
                yield episode
    finally:
        bar.close()
    if next_k != episodes or any(e is not None for e in running):
        raise RuntimeError(f"rollout bookkeeping: started {next_k} of {episodes} episodes")


def _turn(scheduler: Scheduler, i: int, keys: Sequence[str]) -> Turn:
    """Instance ``i``'s last step as a :class:`Turn` keeping the info values of ``keys``."""
    return Turn(scheduler.actions[i], scheduler.observations[i], float(scheduler.rewards[i]),
                bool(scheduler.terminateds[i]), bool(scheduler.truncateds[i]),
                _turn_info(scheduler.infos, i, keys))
