"""Collect whole episodes with a chat policy on a vector env, keeping every turn's token ids.

One call runs one episode on every instance of the vector env (``num_envs`` episodes, each
pinned to a world, task and seed by an :class:`EpisodeSpec`), stepping all unfinished instances
together: one batched sampling call and one vector-env step per turn. Each turn keeps the
policy's :class:`~agents.policies.sampling.Generation` (the exact prompt ids the sampler saw, the
sampled ids, their log-probabilities, the finish reason); GRPO trains on exactly these.

How an episode ends, recorded in :attr:`Trajectory.truncation`:

* ``None``: a final answer (verified) or a malformed action (reward -1.0, format error);
* ``"max_turns"``: the env's step limit (reward 0.0);
* ``"context"``: the next prompt no longer fits the model's context; the instance is paused
  (never stepped again) and the episode scores 0.0;
* ``"length"``: the turn hit ``max_new_tokens`` (finish reason ``length``). The cut text is
  **not** sent to the env, where it would parse as a malformed action and its -1.0 would be
  copied to every earlier turn of the trajectory; the instance stops, the cut turn is kept
  (observation ``""``, reward 0.0) and the episode scores 0.0. GRPO then masks the whole
  trajectory or charges the cut turn's own sample a named penalty
  (:class:`~agents.grpo.config.CutTurnMode`).

Example:
    >>> specs = [EpisodeSpec("spotify", 1, seed=0, group=0)] * 2       # doctest: +SKIP
    >>> trajs = collect_episodes(envs, policy, specs)                  # doctest: +SKIP
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from awm_gym import info_keys as K

from ..policies.sampling import Generation

__all__ = ["EpisodeSpec", "TurnSample", "Trajectory", "RolloutTimings", "collect_episodes",
           "list_tasks", "to_episode"]


@dataclass(frozen=True, slots=True)
class EpisodeSpec:
    """Which episode an instance runs: ``world``, ``task_idx``, ``seed``, and its GRPO ``group``."""

    world: str
    task_idx: int
    seed: int
    group: int = 0


@dataclass(frozen=True, slots=True)
class TurnSample:
    """One turn: what the sampler saw and produced, and what the env answered."""

    generation: Generation
    action: str
    observation: str
    reward: float
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def finish_reason(self) -> str:
        return self.generation.finish_reason


@dataclass(frozen=True)
class Trajectory:
    """A finished episode of one instance, turn by turn."""

    spec: EpisodeSpec
    task: str
    turns: tuple[TurnSample, ...]
    reward: float
    """The episode's return (only the final step pays: 1.0 complete, 0.0 otherwise, -1.0 for a
    malformed action)."""
    reward_valid: bool
    """False when the verifier could not score the episode (such episodes get no advantage)."""
    success: bool
    format_error: bool
    truncation: str | None
    """None, ``length``, ``max_turns`` or ``context`` (see the module docstring)."""

    @property
    def is_cut(self) -> bool:
        """True when a turn hit ``max_new_tokens`` and stopped the episode."""
        return self.truncation == "length"

    @property
    def num_turns(self) -> int:
        return len(self.turns)

    @property
    def completion_tokens(self) -> int:
        return sum(len(t.generation.completion_ids) for t in self.turns)


@dataclass
class RolloutTimings:
    """Seconds spent sampling and stepping the env, and how many env steps were taken."""

    generate_s: float = 0.0
    env_s: float = 0.0
    env_steps: int = 0
    generated_tokens: int = 0


def list_tasks(envs: Any) -> list[tuple[str, int]]:
    """Every ``(world, task_idx)`` the vector env can run, in world then task order (made with
    a split, only its subset's tasks)."""
    return list(envs.runtime.tasks)


def _infos(n: int, observations: Sequence[str], worlds: Sequence[str], tasks: Sequence[str],
           active: np.ndarray, restarted: np.ndarray) -> dict[str, Any]:
    def objects(values: Sequence[Any]) -> np.ndarray:
        arr = np.empty(n, dtype=object)
        arr[:] = list(values)
        return arr

    return {K.OBSERVATION: objects(observations), K.WORLD: objects(worlds),
            K.TASK: objects(tasks), K.ACTIVE: active.copy(), K.EPISODE_RESTARTED: restarted.copy()}


def collect_episodes(envs: Any, policy: Any, specs: Sequence[EpisodeSpec],
                     timings: RolloutTimings | None = None) -> list[Trajectory]:
    """Run one episode per instance (``len(specs) == envs.num_envs``) and return them in order.

    Args:
        envs: an :class:`~awm_gym.envs.vector_env.AWMVectorEnv`; its ``max_episode_steps`` bounds
            the turns.
        policy: a :class:`~agents.policies.chat_policy.ChatPolicy` (its ``last_generations``
            are read after every turn); ``set_env(envs)`` is called here.
        specs: one episode per instance.
        timings: accumulates sampling/env seconds when given.
    """
    n = envs.num_envs
    if len(specs) != n:
        raise ValueError(f"collect_episodes got {len(specs)} episode specs for {n} instances; "
                         "give one per instance.")
    timings = timings if timings is not None else RolloutTimings()
    policy.set_env(envs)
    start = time.perf_counter()
    obs, _ = envs.reset(seed=[s.seed for s in specs],
                        options={"task_idx": [s.task_idx for s in specs],
                                 "world": [s.world for s in specs]})
    timings.env_s += time.perf_counter() - start
    tasks = list(obs)
    observations = list(obs)
    turns: list[list[TurnSample]] = [[] for _ in range(n)]
    active = np.ones(n, dtype=bool)
    restarted = np.ones(n, dtype=bool)
    ending: list[dict[str, Any]] = [{} for _ in range(n)]
    while active.any():
        start = time.perf_counter()
        actions = policy.get_action(_infos(n, observations, [s.world for s in specs], tasks,
                                           active, restarted))
        timings.generate_s += time.perf_counter() - start
        restarted[:] = False
        gens: list[Generation | None] = list(policy.last_generations)
        send: list[str | None] = [None] * n
        for i in np.flatnonzero(active):
            gen = gens[i]
            assert gen is not None  # the policy answers every active instance
            timings.generated_tokens += len(gen.completion_ids)
            if gen.finish_reason == "prompt_too_long":
                turns[i].append(TurnSample(gen, "", "", 0.0, {}))
                ending[i] = {"truncation": "context"}
                active[i] = False
                continue
            if gen.finish_reason == "length":  # never scored: see the module docstring
                turns[i].append(TurnSample(gen, str(actions[i]), "", 0.0, {}))
                ending[i] = {"truncation": "length"}
                active[i] = False
                continue
            send[i] = actions[i]
        if not any(a is not None for a in send):
            break
        start = time.perf_counter()
        obs, rewards, terminated, truncated, info = envs.step(send)
        timings.env_s += time.perf_counter() - start
        for i, action in enumerate(send):
            if action is None:
                continue
            timings.env_steps += 1
            step_info = {k: info[k][i] for k in info if not k.startswith("_")
                         and info.get("_" + k, np.ones(n, bool))[i]}
            turns[i].append(TurnSample(gens[i], action, obs[i], float(rewards[i]), step_info))
            observations[i] = obs[i]
            if terminated[i] or truncated[i]:
                active[i] = False
                ending[i] = {"truncation": "max_turns" if truncated[i] else None}
    return [_trajectory(specs[i], tasks[i], turns[i], ending[i].get("truncation"))
            for i in range(n)]


def _trajectory(spec: EpisodeSpec, task: str, turns: list[TurnSample],
                truncation: str | None) -> Trajectory:
    last = turns[-1].info if turns else {}
    valid = bool(last.get(K.REWARD_VALID, True)) if truncation not in ("context", "length") \
        else True
    return Trajectory(spec=spec, task=task, turns=tuple(turns),
                      reward=float(sum(t.reward for t in turns)), reward_valid=valid,
                      success=bool(last.get(K.SUCCESS, False)),
                      format_error=bool(last.get(K.FORMAT_ERROR, False)), truncation=truncation)


def to_episode(traj: Trajectory, episode_idx: int, policy_name: str) -> Any:
    """The trajectory as an :class:`awm_gym.manager.episode.Episode` (for HTML transcripts)."""
    from awm_gym.manager.episode import Episode, Turn

    turns = []
    for k, t in enumerate(traj.turns):
        last = k == len(traj.turns) - 1
        info = dict(t.info)
        info["finish_reason"] = t.finish_reason
        turns.append(Turn(t.action, t.observation, t.reward,
                          last and traj.truncation != "max_turns",
                          last and traj.truncation == "max_turns", info))
    return Episode(episode_idx, traj.spec.seed, traj.spec.world, traj.spec.task_idx, traj.task,
                   policy_name, turns)
