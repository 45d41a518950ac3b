"""Replay every task's reference solution through a batched vector env: the runtime end to end.

This is what ``awm demo`` (and the README's main job) runs: ``num_envs`` instances, seeds
``0..num_envs-1`` with task ``seed % 10``, each instance replays its task's reference tool calls
as ``<tool_call>`` text and then answers; rewards come from the verifiers.

Example:
    >>> result = run_oracle_demo(None, "spotify", num_envs=4)
    >>> result.success_rate
    1.0
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from awm_gym.tools.actions import solution_turns

__all__ = ["run_oracle_demo", "DemoResult"]


@dataclass(frozen=True)
class DemoResult:
    world: str
    num_envs: int
    episodes: int
    success_rate: float
    mean_reward: float
    steps: int
    seconds: float

    def __str__(self) -> str:
        return (f"{self.world}: {self.episodes} episodes on {self.num_envs} instances | success "
                f"{self.success_rate:.2f} | reward {self.mean_reward:.2f} | {self.steps} vector "
                f"steps | {self.seconds:.2f} s")


def run_oracle_demo(path: str | None, world: str, *, num_envs: int = 64) -> DemoResult:
    """Run the reference solutions of ``world`` on ``num_envs`` instances; one episode each."""
    from awm_gym.envs.vector_env import AWMVectorEnv

    start = time.perf_counter()
    envs = AWMVectorEnv(num_envs=num_envs, world_set=path, worlds=[world])
    try:
        wdef = envs.runtime.world_set[world]
        n_tasks = len(wdef.tasks)
        tasks = [i % n_tasks for i in range(num_envs)]
        envs.reset(seed=list(range(num_envs)), options={"task_idx": tasks})
        plans = [["Done."] if wdef.solutions[t] is None else solution_turns(wdef.solutions[t])
                 for t in tasks]
        rewards = np.zeros(num_envs)
        successes = np.zeros(num_envs, dtype=bool)
        done = np.zeros(num_envs, dtype=bool)
        steps = 0
        while not done.all():
            actions = [None if done[i] else plans[i][steps] for i in range(num_envs)]
            _, reward, terminated, truncated, info = envs.step(actions)
            finished = (terminated | truncated) & ~done
            rewards[finished] = reward[finished]
            if "success" in info:
                successes |= info["success"] & info["_success"]
            done |= finished
            steps += 1
    finally:
        envs.close()
    return DemoResult(world, num_envs, num_envs, float(successes.mean()), float(rewards.mean()),
                      steps, time.perf_counter() - start)
