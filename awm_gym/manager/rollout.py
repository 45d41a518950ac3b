"""Run exactly N episodes on a World's instances: episode k always gets seed ``seed + k``.

The bookkeeping stable-worldmodel got wrong twice (indexing results by start order while counting
completions, then keeping the first N completions and discarding the slow episodes) is replaced
by pre-assigned slots: episodes ``0 .. N-1`` are handed out in order to instances as they free
up; each result is filed under its own index whatever order episodes finish in; when all N have
started, freed instances stay idle (the vector env is stepped with ``None`` for them) until the
last episode ends.

Per-episode options: every value of ``options`` is either one value for all episodes or a list
with one entry per episode (``{"task_idx": [0, 1, 2, ...]}``); keys are the vector env's reset
options (``task_idx``, ``world``).

Example:
    >>> from awm_gym import World
    >>> from agents.policies import OraclePolicy
    >>> world = World("AWM/spotify-v0", num_envs=3, verbose=0)
    >>> world.set_policy(OraclePolicy())
    >>> sorted(e.seed for e in run_episodes(world, 5, seed=10))
    [10, 11, 12, 13, 14]
    >>> world.close()
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from awm_gym.errors import EnvUsageError
from awm_gym.manager.db_diff import diff_databases
from awm_gym.manager.episode import REQUIRED_INFO_KEYS, Episode, Turn

if TYPE_CHECKING:  # world.py imports this module to run its episodes
    from awm_gym.manager.world import World

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
            raise EnvUsageError("options['reset_mask'] is not allowed here: the World decides "
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


def run_episodes(world: World, episodes: int, seed: int, options: dict[str, Any] | None = None,
                 info_keys: Sequence[str] = (), capture_db_diff: bool = False,
                 desc: str = "episodes") -> Iterator[Episode]:
    """Run ``episodes`` episodes with ``world``'s policy; yield each :class:`Episode` as it ends.

    Args:
        world: a :class:`~awm_gym.manager.world.World` with a policy attached.
        episodes: how many (N); episode k runs with seed ``seed + k``.
        options: per-episode reset options (see the module docstring).
        info_keys: info keys each :class:`~awm_gym.manager.episode.Turn` keeps (the required ones are
            always kept).
        capture_db_diff: compute each episode's database diff (rows changed) when it ends.
        desc: progress-bar label (shown when ``world.verbose`` > 0).
    """
    episodes = check_episodes(episodes)
    if world.policy is None:
        raise EnvUsageError("No policy attached: call world.set_policy(policy) first.")
    per_episode = episode_options(options, episodes)
    keys = tuple(dict.fromkeys([*REQUIRED_INFO_KEYS, *info_keys]))
    return _run(world, episodes, seed, per_episode, keys, capture_db_diff, desc)


def _run(world: World, episodes: int, seed: int, per_episode: dict[str, list[Any]],
         keys: tuple[str, ...], capture_db_diff: bool, desc: str) -> Iterator[Episode]:
    from tqdm.auto import tqdm

    n = world.num_envs
    running: list[Episode | None] = [None] * n
    next_k = 0
    world.policy.set_seed(seed)
    world._active[:] = False  # a rollout owns the instances from here on

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
        world.start_episodes(mask, seeds, index, opts)
        for i in instances:
            running[i] = Episode(int(index[i]), int(seeds[i]), str(world._world[i]),
                                 int(world._task_idx[i]), world.observations[i], world.policy_name)

    progress = tqdm(total=episodes, desc=desc, disable=not world.verbose, leave=False)
    try:
        if episodes:
            start(list(range(min(n, episodes))))
        while world._active.any():
            stepped = world._active.copy()
            world.step()
            done = []
            for i in np.flatnonzero(stepped):
                episode = running[i]
                episode.turns.append(Turn(world.actions[i], world.observations[i],
                                          float(world.rewards[i]), bool(world.terminateds[i]),
                                          bool(world.truncateds[i]),
                                          _turn_info(world.infos, i, keys)))
                if world.terminateds[i] or world.truncateds[i]:
                    done.append(i)
            finished = []
            for i in done:
                episode = running[i]
                if capture_db_diff:
                    episode.db_diff = diff_databases(world.runtime.template(episode.world),
                                                     world.runtime.snapshot(i))
                finished.append(episode)
                running[i] = None
            free = done[:max(0, episodes - next_k)]
            if free:
                start(free)
            for episode in finished:
                progress.update(1)
                yield episode
    finally:
        progress.close()
    if next_k != episodes or any(e is not None for e in running):
        raise RuntimeError(f"rollout bookkeeping: started {next_k} of {episodes} episodes")
