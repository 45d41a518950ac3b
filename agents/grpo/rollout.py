"""Collect whole episodes with a chat policy on a vector env, keeping every turn's token ids.

One call runs one episode on every instance of the vector env (``num_envs`` episodes, each
pinned to a world, task and seed by an :class:`EpisodeSpec`), stepping all unfinished instances
together: one batched sampling call and one vector-env step per turn. Each turn keeps the
policy's :class:`~agents.policies.sampling.Generation` (the exact prompt ids the sampler saw, the
sampled ids, their log-probabilities, the finish reason); GRPO trains on exactly these.

How an episode ends, recorded in :attr:`Trajectory.truncation`:

* ``None``: a final answer (verified) or a malformed action (reward -1.0, format error);
* ``"max_turns"``: the env's step limit (reward 0.0);
* ``"context"``: the next prompt no longer fits the model's context (finish reason
  ``prompt_too_long``, nothing sampled); the instance is paused (never stepped again) and the
  episode scores 0.0, which evaluation counts as not successful. GRPO leaves it **unscored**
  (:func:`~agents.grpo.batching.trajectory_credit`): an overflow usually comes from long tool
  results, not from the policy, so none of its turns trains, as a failure or otherwise;
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
    def is_context_overflow(self) -> bool:
        """True when the next prompt no longer fit the model's context and stopped the episode."""
        return self.truncation == "context"

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


def _infos(n: int, observations: Sequence[str], specs: Sequence[EpisodeSpec], tasks: Sequence[str],
           active: np.ndarray, restarted: np.ndarray) -> dict[str, Any]:
    def objects(values: Sequence[Any]) -> np.ndarray:
        arr = np.empty(n, dtype=object)
        arr[:] = list(values)
        return arr

    return {K.OBSERVATION: objects(observations), K.WORLD: objects([s.world for s in specs]),
            K.TASK_IDX: np.array([s.task_idx for s in specs], dtype=np.int64),
            K.TASK: objects(tasks), K.ACTIVE: active.copy(), K.EPISODE_RESTARTED: restarted.copy()}


def collect_episodes(envs: Any, policy: Any, specs: Sequence[EpisodeSpec],
                     timings: RolloutTimings | None = None, pipeline: bool = False
                     ) -> list[Trajectory]:
    """Run one episode per instance (``len(specs) == envs.num_envs``) and return them in order.

    Args:
        envs: an :class:`~awm_gym.envs.vector_env.AWMVectorEnv`; its ``max_episode_steps`` bounds
            the turns.
        policy: a :class:`~agents.policies.chat_policy.ChatPolicy` (its ``last_generations``
            are read after every turn); ``set_env(envs)`` is called here.
        specs: one episode per instance.
        timings: accumulates sampling/env seconds when given.
        pipeline: split the instances in two halves and step one half's env in a thread while
            the policy samples the other's turn (see :func:`_collect_pipelined`); False: one
            sampling call and one env step per turn for all instances. Off in ``awm train``:
            on a CPU with the transformers sampler it made the step slower
            (docs/benchmarks/training-steps.md, *Pipelined rollout*).
    """
    n = envs.num_envs
    if len(specs) != n:
        raise ValueError(f"collect_episodes got {len(specs)} episode specs for {n} instances; "
                         "give one per instance.")
    timings = timings if timings is not None else RolloutTimings()
    run = _Run.start(envs, policy, specs, timings)
    if pipeline and n >= 2:
        _collect_pipelined(run, overlap=True)
    else:
        everyone = np.ones(n, dtype=bool)
        while run.active.any():
            send = run.generate(everyone)
            if send is None:
                break
            run.apply_step(send, run.timed_step(send))
    return run.trajectories()


@dataclass
class _Run:
    """The state of one :func:`collect_episodes` call: every instance's turns so far."""

    envs: Any
    policy: Any
    specs: Sequence[EpisodeSpec]
    timings: RolloutTimings
    tasks: list[str]
    observations: list[str]
    turns: list[list[TurnSample]]
    active: np.ndarray
    restarted: np.ndarray
    ending: list[dict[str, Any]]
    pending: dict[int, Generation] = field(default_factory=dict)
    """Each sent action's generation, until the env answers it."""

    @classmethod
    def start(cls, envs: Any, policy: Any, specs: Sequence[EpisodeSpec],
              timings: RolloutTimings) -> _Run:
        n = envs.num_envs
        policy.set_env(envs)
        start = time.perf_counter()
        obs, _ = envs.reset(seed=[s.seed for s in specs],
                            options={"task_idx": [s.task_idx for s in specs],
                                     "world": [s.world for s in specs]})
        timings.env_s += time.perf_counter() - start
        return cls(envs, policy, specs, timings, list(obs), list(obs), [[] for _ in range(n)],
                   np.ones(n, dtype=bool), np.ones(n, dtype=bool), [{} for _ in range(n)])

    def generate(self, part: np.ndarray) -> list[str | None] | None:
        """Sample the next turn of the active instances in ``part`` (one policy call); returns
        the actions to step (None for every other instance), or None when there is none."""
        n = len(self.active)
        asked = self.active & part
        start = time.perf_counter()
        actions = self.policy.get_action(_infos(n, self.observations, self.specs, self.tasks,
                                                asked, self.restarted))
        self.timings.generate_s += time.perf_counter() - start
        self.restarted[asked] = False
        gens: list[Generation | None] = list(self.policy.last_generations)
        send: list[str | None] = [None] * n
        for i in np.flatnonzero(asked):
            gen = gens[i]
            assert gen is not None  # the policy answers every active instance
            self.timings.generated_tokens += len(gen.completion_ids)
            if gen.finish_reason == "prompt_too_long":
                self.turns[i].append(TurnSample(gen, "", "", 0.0, {}))
                self._stop(i, "context")
                continue
            if gen.finish_reason == "length":  # never scored: see the module docstring
                self.turns[i].append(TurnSample(gen, str(actions[i]), "", 0.0, {}))
                self._stop(i, "length")
                continue
            send[i] = actions[i]
            self.pending[i] = gen
        return send if any(a is not None for a in send) else None

    def timed_step(self, send: list[str | None]) -> tuple[Any, float]:
        """``envs.step(send)`` and its seconds (safe to run in a thread: it touches no state
        of the run)."""
        start = time.perf_counter()
        result = self.envs.step(send)
        return result, time.perf_counter() - start

    def apply_step(self, send: list[str | None], stepped: tuple[Any, float]) -> None:
        """Record the env's answers to ``send`` (from :meth:`timed_step`)."""
        (obs, rewards, terminated, truncated, info), seconds = stepped
        self.timings.env_s += seconds
        n = len(self.active)
        for i, action in enumerate(send):
            if action is None:
                continue
            self.timings.env_steps += 1
            step_info = {k: info[k][i] for k in info if not k.startswith("_")
                         and info.get("_" + k, np.ones(n, bool))[i]}
            gen = self.pending.pop(i)
            self.turns[i].append(TurnSample(gen, action, obs[i], float(rewards[i]), step_info))
            self.observations[i] = obs[i]
            if terminated[i] or truncated[i]:
                self._stop(i, "max_turns" if truncated[i] else None)

    def trajectories(self) -> list[Trajectory]:
        return [_trajectory(self.specs[i], self.tasks[i], self.turns[i],
                            self.ending[i].get("truncation")) for i in range(len(self.specs))]

    def _stop(self, i: int, truncation: str | None) -> None:
        self.active[i] = False
        self.ending[i] = {"truncation": truncation}


def _collect_pipelined(run: _Run, overlap: bool = True) -> None:
    """Alternate the two halves of the instances: while half ``k``'s actions step in the env
    (in a worker thread), the policy samples half ``1 - k``'s next turn.

    The policy is called in a fixed order (half 0, then 1, then 0, ... each time with the
    answers of that half's previous step), whatever the threads' timing, so a seeded policy
    gives the same trajectories run after run, with or without ``overlap`` (False: the same
    schedule, the step run before the sampling). They are not those of the plain loop: every
    turn is sampled in two calls of half the batch, each with its own sampling seed.
    """
    from concurrent.futures import ThreadPoolExecutor

    n = len(run.active)
    first = np.arange(n) < n // 2
    parts = (first, ~first)
    pending: list[list[str | None] | None] = [None, None]
    k = 0
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="env-step") as pool:
        while True:
            step_j = k if pending[k] is not None else (1 - k if pending[1 - k] is not None
                                                         else None)
            gen_j = next((j for j in (0, 1) if j != step_j and pending[j] is None
                          and (run.active & parts[j]).any()), None)
            if step_j is None and gen_j is None:
                return
            if step_j is None:
                pending[gen_j] = run.generate(parts[gen_j])
                continue
            send = pending[step_j]
            assert send is not None
            if overlap:
                future = pool.submit(run.timed_step, send)
                if gen_j is not None:
                    pending[gen_j] = run.generate(parts[gen_j])
                stepped = future.result()
            else:
                stepped = run.timed_step(send)
                if gen_j is not None:
                    pending[gen_j] = run.generate(parts[gen_j])
            run.apply_step(send, stepped)
            pending[step_j] = None
            k = 1 - step_j


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
    from awm_gym.manager import Episode
    from awm_gym.vocab import Turn

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
