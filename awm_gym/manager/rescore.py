"""Rescore recorded episodes with the verifiers as they are now: replay, compare, write beside.

:func:`rescore_dataset` reads a dataset (an ``awm record`` dataset or a table of rollouts, see
:mod:`awm_gym.manager.rescore_source`), replays each episode's actions on its world, task and
seed in a vector env over the world set as it is now, and scores the final answer with today's
verifiers. Each episode gets one :class:`EpisodeRescore` with a status:

* ``same``: the replay saw exactly what was recorded, and the outcome (reward, verifier label)
  is unchanged;
* ``changed``: the replay saw what was recorded, and the outcome differs (a verifier changed);
* ``diverged``: the replay did not see what was recorded (the task text, or the observation
  after some action, differs; or the episode ended at another step): the world changed, not
  only its verifier, so the episode is *not* rescored (its new columns stay null) and the
  detail says at which step and how;
* ``unreplayable``: its world or task is not in the world set.

The new values are written beside the old ones as a new dataset (default ``<source>-rescored``
next to the source), atomically, with the writer ``World.record_dataset`` uses: the source's
rows and columns, plus ``rescore_status`` and ``rescore_detail`` and, next to each outcome
column, its ``rescored_`` twin (``rescored_reward`` and ``rescored_verifier_label`` per step,
``rescored_episode_reward`` and ``rescored_episode_success`` per episode; a one-row-per-episode
table gets ``rescored_reward``, ``rescored_verifier_label`` and ``rescored_success``). The
summary goes into the new ``awm_dataset.json`` under ``rescore``.

Replays run under the recording's own settings (``awm_dataset.json``'s ``replay``: step limit,
text limits, clock) when it stored them; else the step limit is the longest episode's length.
The world set is the one given, else the recording's, else the built-in worlds. Within one
process a world set is read once (:func:`~awm_gym.envs.registration.get_world_set`): rescore
after an edit in a fresh process (``awm rescore``), or give the edited copy another directory.

Example:
    >>> import tempfile
    >>> from awm_gym import World
    >>> from agents.policies import OraclePolicy
    >>> world = World("AWM/spotify-v0", num_envs=2, verbose=0)
    >>> world.set_policy(OraclePolicy())
    >>> path = world.record_dataset("oracle", episodes=2, seed=0, cache_dir=tempfile.mkdtemp())
    >>> world.close()
    >>> result = rescore_dataset(path)
    >>> result.counts, result.out.name
    ({'same': 2, 'changed': 0, 'diverged': 0, 'unreplayable': 0}, 'oracle-rescored')
"""

from __future__ import annotations

import math
import os
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from awm_gym import info_keys as K
from awm_gym.errors import EnvUsageError
from awm_gym.manager.rescore_result import (
    EpisodeRescore,
    Replay,
    RescoreResult,
    Status,
    show,
)
from awm_gym.manager.rescore_source import RecordedEpisode, RescoreSource, read_source
from awm_gym.vocab import VerifierLabel

__all__ = ["rescore_dataset", "RescoreResult", "EpisodeRescore", "Status", "replay_episodes",
           "Replay"]

_BEFORE, _SHOWN = 20, 60  # characters of an observation quoted in a divergence detail


def rescore_dataset(dataset: str | os.PathLike, world_set: str | os.PathLike | None = None,
                    out: str | os.PathLike | None = None, mode: str = "error",
                    num_envs: int = 16, write: bool = True, **env_kwargs: Any) -> RescoreResult:
    """Replay every episode of ``dataset`` and score it with the verifiers as they are now.

    Args:
        dataset: an ``awm record`` dataset directory, or a table of rollouts (see
            :mod:`awm_gym.manager.rescore_source` for the columns it needs).
        world_set: the world set to replay on (default: the one the dataset was recorded on,
            as ``awm_dataset.json`` says, else the built-in worlds).
        out: where the rescored dataset goes (default ``<dataset>-rescored`` beside it).
        mode: ``error`` when ``out`` exists, or ``overwrite``.
        num_envs: instances replaying at once.
        write: write the rescored dataset (False: only return the result).
        **env_kwargs: :class:`~awm_gym.envs.config.EnvConfig` fields for the replay env (e.g.
            ``isolation="none"`` for a world set you trust, ``max_episode_steps``); they
            override the recording's replay settings.

    Returns:
        The per-episode statuses and where the rescored dataset was written.

    Raises:
        EnvUsageError: the dataset cannot be read, lacks a required column, or ``out`` exists
            with ``mode="error"``.
    """
    if mode not in ("error", "overwrite"):
        raise EnvUsageError(f"mode={mode!r}: choose 'error' or 'overwrite'.")
    source = read_source(dataset)
    where = None if world_set is None else os.fspath(world_set)
    where = where if where is not None else _recorded(source, "world_set")
    settings = {**_replay_settings(source), **env_kwargs}
    target = _out_path(source.path, out) if write else None
    if target is not None and target.exists() and mode == "error":
        raise EnvUsageError(f"{target} already exists; pass mode='overwrite' (--mode overwrite) "
                            "or another out (--out).")
    results = _rescore(source.episodes, where, num_envs, settings)
    result = RescoreResult(source.path, target, where, tuple(results))
    if target is not None:
        from awm_gym.manager.rescore_write import write_rescored

        write_rescored(source, result, target, mode)
    return result


def _out_path(source: Path, out: str | os.PathLike | None) -> Path:
    if out is not None:
        return Path(out)
    stem = source.name[: -len(source.suffix)] if source.is_file() and source.suffix else \
        source.name
    return source.parent / f"{stem}-rescored"


def _recorded(source: RescoreSource, key: str) -> Any:
    """The value every recording of the source agrees on (None when they differ or lack it)."""
    values = {repr(rec.get(key)): rec.get(key) for rec in source.recordings}
    return next(iter(values.values())) if len(values) == 1 else None


def _replay_settings(source: RescoreSource) -> dict[str, Any]:
    settings = dict(_recorded(source, "replay") or {})
    if "max_episode_steps" not in settings:
        longest = max((len(e.actions) for e in source.episodes), default=1)
        settings["max_episode_steps"] = max(1, longest)
    return settings


# -- replay -----------------------------------------------------------------------------------
def _rescore(episodes: Sequence[RecordedEpisode], world_set: str | None, num_envs: int,
             settings: Mapping[str, Any]) -> list[EpisodeRescore]:
    from awm_gym.envs.registration import get_world_set

    results: list[EpisodeRescore | None] = [None] * len(episodes)
    loaded = get_world_set(world_set)
    todo = []
    for k, ep in enumerate(episodes):
        problem = _unreplayable(loaded, ep)
        if problem is not None:
            results[k] = EpisodeRescore(ep, "unreplayable", problem)
        else:
            todo.append(k)
    if todo:
        from awm_gym.envs.vector_env import AWMVectorEnv

        worlds = sorted({loaded.entry(episodes[k].world).name for k in todo})
        envs = AWMVectorEnv(num_envs=max(1, min(num_envs, len(todo))), world_set=world_set,
                            worlds=worlds, **settings)
        try:
            running = set(envs.runtime.worlds)
            for k in todo:
                if loaded.entry(episodes[k].world).name not in running:
                    results[k] = EpisodeRescore(episodes[k], "unreplayable", "its world cannot "
                                                "be loaded from the world set")
            todo = [k for k in todo if results[k] is None]
            for k, replay in replay_episodes(envs, [episodes[k] for k in todo]):
                results[todo[k]] = _compare(episodes[todo[k]], replay)
        finally:
            envs.close()
    return [r for r in results if r is not None]


def _unreplayable(world_set: Any, ep: RecordedEpisode) -> str | None:
    if ep.world not in world_set:
        return f"world {ep.world!r} is not in the world set"
    tasks = world_set.entry(ep.world).tasks
    if not 0 <= ep.task_idx < len(tasks):
        return f"task {ep.task_idx} is not a task of {ep.world} (it has 0..{len(tasks) - 1})"
    if not ep.actions:
        return "no actions recorded"
    return None


def replay_episodes(envs: Any, episodes: Sequence[RecordedEpisode]
                    ) -> Iterator[tuple[int, Replay]]:
    """Replay ``episodes`` on the instances of ``envs`` (an :class:`AWMVectorEnv` whose worlds
    hold them); yield ``(index into episodes, Replay)`` as each ends or diverges.

    Each instance runs one episode at a time: reset with the episode's seed, world and task, then
    its recorded actions one per step; the observation after each action is checked against
    the recorded one, and a mismatch stops that replay at once (its instance takes the next).
    """
    import numpy as np

    n = envs.num_envs
    queue = deque(range(len(episodes)))
    slots: list[int | None] = [None] * n
    replays: dict[int, Replay] = {}
    done: list[int] = []

    def start(free: list[int]) -> None:
        while free and queue:
            mask = np.zeros(n, dtype=np.bool_)
            seeds: list[int | None] = [None] * n
            tasks: list[int | None] = [None] * n
            worlds: list[str | None] = [None] * n
            for i in free[:len(queue)]:
                k = slots[i] = queue.popleft()
                mask[i], seeds[i] = True, episodes[k].seed
                tasks[i], worlds[i] = episodes[k].task_idx, episodes[k].world
            obs, _ = envs.reset(seed=seeds, options={"reset_mask": mask, "task_idx": tasks,
                                                     "world": worlds})
            free = []
            for i in np.flatnonzero(mask):
                k = slots[i]
                replays[k] = Replay()
                recorded = episodes[k].task
                if recorded is not None and obs[i] != recorded:
                    replays[k].diverged = "the task text differs: " + _difference(recorded, obs[i])
                    done.append(k)
                    slots[i] = None
                    free.append(int(i))

    start(list(range(n)))
    yield from _drain(done, replays)
    while any(k is not None for k in slots):
        actions = [None if k is None else episodes[k].actions[len(replays[k].rewards)]
                   for k in slots]
        obs, rewards, terminated, truncated, info = envs.step(actions)
        free = []
        for i, k in enumerate(slots):
            if k is None:
                continue
            if _advance(episodes[k], replays[k], obs[i], float(rewards[i]),
                        bool(terminated[i] or truncated[i]), _info(info, i)):
                done.append(k)
                slots[i] = None
                free.append(i)
        start(free)
        yield from _drain(done, replays)


def _drain(done: list[int], replays: dict[int, Replay]) -> Iterator[tuple[int, Replay]]:
    while done:
        k = done.pop(0)
        yield k, replays.pop(k)


def _info(info: Mapping[str, Any], i: int) -> dict[str, Any]:
    out = {}
    for key in (K.VERIFIER_LABEL, K.SUCCESS):
        mask = info.get("_" + key)
        if mask is not None and mask[i]:
            value = info[key][i]
            out[key] = value.item() if hasattr(value, "item") else value
    return out


def _advance(ep: RecordedEpisode, replay: Replay, observation: str, reward: float, ended: bool,
             info: Mapping[str, Any]) -> bool:
    """Add one replayed step; True when this episode's replay is over (ended or diverged)."""
    t = len(replay.rewards)
    replay.observations.append(observation)
    replay.rewards.append(reward)
    replay.labels.append(info.get(K.VERIFIER_LABEL))
    if K.SUCCESS in info:
        replay.success = bool(info[K.SUCCESS])
    replay.ended = ended
    last = t == len(ep.actions) - 1
    if ep.observations is not None and observation != ep.observations[t]:
        replay.diverged = (f"step {t}: the observation differs: "
                           + _difference(ep.observations[t], observation))
    elif ended and not last:
        replay.diverged = (f"step {t}: the replay ended there (label "
                           f"{show(replay.labels[-1])}); the recording went on to step "
                           f"{len(ep.actions) - 1}")
    elif last and ep.ended is True and not ended:
        replay.diverged = f"step {t}: the recording ended there, the replay did not"
    return last or replay.diverged is not None


def _difference(recorded: str, replayed: str) -> str:
    """Where two texts first differ, quoted around that point."""
    at = next((j for j, (a, b) in enumerate(zip(recorded, replayed)) if a != b),
              min(len(recorded), len(replayed)))
    lo = max(0, at - _BEFORE)

    def quote(text: str) -> str:
        part = text[lo:lo + _SHOWN]
        return repr(("..." if lo else "") + part + ("..." if len(text) > lo + _SHOWN else ""))

    return f"at character {at}: recorded {quote(recorded)}, replayed {quote(replayed)}"


def _compare(ep: RecordedEpisode, replay: Replay) -> EpisodeRescore:
    if replay.diverged is not None:
        return EpisodeRescore(ep, "diverged", replay.diverged, replay=replay)
    reward = float(sum(replay.rewards))
    label = replay.labels[-1] if replay.labels else None
    success = replay.success if replay.success is not None else \
        label == VerifierLabel.COMPLETE
    old_label, old_reward = ep.verifier_label, ep.reward
    why = f"verifier {show(old_label)} -> {show(label)}"
    reward_moved = old_reward is not None and not math.isclose(old_reward, reward,
                                                               abs_tol=1e-9)
    # a table without labels (None, and nothing known of its end) is compared on rewards only
    label_moved = old_label != label and (old_label is not None or ep.ended is not None)
    if reward_moved:
        why += f", reward {show(old_reward)} -> {show(reward)}"
    status: Status = "changed" if reward_moved or label_moved else "same"
    return EpisodeRescore(ep, status, why, reward, label, success, replay)
