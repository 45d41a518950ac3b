"""``OraclePolicy``: replay each task's reference solution, then give its final answer.

Reference solutions come from the world set's ``gen_solutions.jsonl`` (our extension of the AWM
format). A task without one gets an honest "cannot solve" answer, so the oracle's score on a world
set also measures how many of its tasks are proved solvable.

Example:
    >>> from awm_gym import World
    >>> world = World("AWM/spotify-v0", num_envs=2, verbose=0)
    >>> world.set_policy(OraclePolicy())
    >>> world.evaluate(episodes=4, seed=0)["success_rate"]
    1.0
    >>> world.close()
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from awm_gym import info_keys as K
from awm_gym.tools import solution_turns

from .base import BasePolicy

__all__ = ["OraclePolicy", "reference_plan"]

NO_SOLUTION_ANSWER = "I cannot solve this task: it has no reference solution."


def reference_plan(world_set: Any, world: str, task_idx: int) -> list[str]:
    """The turns that solve ``task_idx`` of ``world``: each reference call, then the answer."""
    solution = world_set[world].solutions[task_idx]
    return [NO_SOLUTION_ANSWER] if solution is None else solution_turns(solution)


class OraclePolicy(BasePolicy):
    """Replays reference solutions (stateful: one plan and position per instance)."""

    name = "oracle"

    def __init__(self) -> None:
        super().__init__()
        self._plans: dict[int, list[str]] = {}
        self._position: dict[int, int] = {}

    def get_action(self, infos: dict[str, Any]) -> Sequence[str | None]:
        if self.env is None:
            raise RuntimeError("OraclePolicy needs its env: attach it with world.set_policy().")
        world_set = self.env.runtime.world_set
        actions: list[str | None] = []
        for i, active in enumerate(infos[K.ACTIVE]):
            if not active:
                actions.append(None)
                continue
            if infos[K.EPISODE_RESTARTED][i] or i not in self._plans:
                self._plans[i] = reference_plan(world_set, str(infos[K.WORLD][i]),
                                                int(infos[K.TASK_IDX][i]))
                self._position[i] = 0
            plan, pos = self._plans[i], self._position[i]
            actions.append(plan[min(pos, len(plan) - 1)])
            self._position[i] = pos + 1
        return actions
