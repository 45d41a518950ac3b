"""Summarize ``World.evaluate``'s N episodes (seeds ``seed .. seed+N-1``), indexed by episode.

Success is the verifier labelling the final answer ``complete`` (:attr:`Episode.success`); an
episode whose reward could not be scored (verifier error, awaiting an LLM judge) counts as not
successful and is counted in ``unscored``.

Example:
    >>> from awm_gym import World
    >>> from agents.policies import OraclePolicy
    >>> world = World("AWM/spotify-v0", num_envs=2, verbose=0)
    >>> world.set_policy(OraclePolicy())
    >>> result = world.evaluate(3, eval_keys=["num_turns"], seed=5)
    >>> result["seeds"], result["success_rate"], len(result["num_turns"])
    ([5, 6, 7], 1.0, 3)
    >>> world.close()
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from awm_gym import info_keys as K
from awm_gym.manager.episode import Episode
from awm_gym.worlds.splits import Split, Subset

__all__ = ["summarize_episodes"]


def summarize_episodes(stream: Iterable[Episode], episodes: int,
                       eval_keys: Sequence[str] = (), split: Split | None = None
                       ) -> dict[str, Any]:
    """Summarize ``episodes`` finished episodes, indexed by ``episode_idx`` (see module doc).

    ``stream`` yields each episode once, in any order (``World.run_episodes`` yields them as
    they finish); every index ``0..episodes-1`` must come.

    Returns a dict: ``episodes``, ``seeds`` (list, seed + k at index k), ``success_rate``
    (fraction in [0, 1]), ``episode_successes`` (bool array), ``mean_reward``, ``rewards``
    (float array), ``unscored`` (int), ``worlds`` and ``task_idx`` (lists), ``per_world``
    ({world: {episodes, success_rate, mean_reward}}), and one list per ``eval_keys`` entry
    (episode statistics of :data:`~awm_gym.manager.episode.EPISODE_FIELDS`, else the last step's info).
    With a ``split`` (:mod:`awm_gym.worlds.splits`) also ``subsets`` (each episode's subset
    name, None for a task in no subset) and ``per_subset`` ({subset: {episodes, success_rate,
    mean_reward}}, the subsets that ran, in the order train, val_tasks, val_worlds).
    """
    successes = np.zeros(episodes, dtype=np.bool_)
    rewards = np.zeros(episodes, dtype=np.float64)
    seen = np.zeros(episodes, dtype=np.bool_)
    seeds: list[int] = [0] * episodes
    worlds: list[str] = [""] * episodes
    tasks: list[int] = [0] * episodes
    values: dict[str, list[Any]] = {key: [None] * episodes for key in eval_keys}
    unscored = 0
    for ep in stream:
        k = ep.episode_idx
        if seen[k]:
            raise RuntimeError(f"episode {k} was evaluated twice")
        seen[k] = True
        successes[k], rewards[k], seeds[k] = ep.success, ep.reward, ep.seed
        worlds[k], tasks[k] = ep.world, ep.task_idx
        unscored += ep.final_info.get(K.REWARD_VALID) is False
        for key in eval_keys:
            values[key][k] = ep.value(key)
    if not seen.all():
        raise RuntimeError(f"episodes {np.flatnonzero(~seen).tolist()} were never evaluated")
    per_world = _per_group(worlds, sorted(set(worlds)), successes, rewards)
    by_subset: dict[str, Any] = {}
    if split is not None:
        subsets = [None if (s := split.subset_of(w, t)) is None else s.value
                   for w, t in zip(worlds, tasks, strict=True)]
        order = [s.value for s in Subset if s.value in subsets]
        by_subset = {"subsets": subsets,
                     "per_subset": _per_group(subsets, order, successes, rewards)}
    return {
        "episodes": episodes,
        "seeds": seeds,
        "success_rate": float(successes.mean()) if episodes else 0.0,
        "episode_successes": successes,
        "mean_reward": float(rewards.mean()) if episodes else 0.0,
        "rewards": rewards,
        "unscored": int(unscored),
        "worlds": worlds,
        "task_idx": tasks,
        "per_world": per_world,
        **by_subset,
        **values,
    }


def _per_group(labels: Sequence[Any], groups: Sequence[Any], successes: np.ndarray,
               rewards: np.ndarray) -> dict[Any, dict[str, Any]]:
    """``{group: {episodes, success_rate, mean_reward}}`` over the episodes labelled ``group``."""
    out: dict[Any, dict[str, Any]] = {}
    for group in groups:
        sel = np.array([label == group for label in labels], dtype=np.bool_)
        out[group] = {"episodes": int(sel.sum()),
                      "success_rate": float(successes[sel].mean()),
                      "mean_reward": float(rewards[sel].mean())}
    return out
