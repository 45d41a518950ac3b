"""A scripted chat policy whose success per episode is a seeded coin with a per-task bias.

It drives the real vector env: an episode whose coin comes up plays the task's reference
solution (the oracle's turns, so the verifier says ``complete``); otherwise it answers at once
and fails. ``solve_prob[task_idx]`` sets each task's bias (a task missing from it: 0.5). Every
turn reports a :class:`~agents.policies.sampling.Generation` with placeholder token ids, as a
sampler does, so :func:`~agents.grpo.rollout.collect_episodes` records it like a model's turn.
Used by the dynamic-sampling and pass-rate tests and their two-rank worker.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from agents.policies.oracle import OraclePolicy
from agents.policies.sampling import Generation
from awm_gym import info_keys as K

GIVE_UP = "I cannot do this task."


class CoinPolicy(OraclePolicy):
    """Solve each episode with its task's probability (seeded by :meth:`set_seed`)."""

    name = "coin"

    def __init__(self, solve_prob: Mapping[int, float] | None = None) -> None:
        super().__init__()
        self.solve_prob = dict(solve_prob or {})
        self._rng = random.Random(0)
        self._solves: dict[int, bool] = {}
        self.last_generations: list[Generation | None] = []
        self.backend = None

    def set_seed(self, seed: int | None) -> None:
        super().set_seed(seed)
        self._rng = random.Random(seed)

    def get_action(self, infos: dict[str, Any]) -> Sequence[str | None]:
        planned = list(super().get_action(infos))
        actions: list[str | None] = []
        for i, active in enumerate(infos[K.ACTIVE]):
            if not active:
                actions.append(None)
                continue
            if infos[K.EPISODE_RESTARTED][i] or i not in self._solves:
                p = self.solve_prob.get(int(infos[K.TASK_IDX][i]), 0.5)
                self._solves[i] = self._rng.random() < p
            actions.append(planned[i] if self._solves[i] else GIVE_UP)
        self.last_generations = [None if a is None else Generation((1, 2), (3,), (-0.5,), "stop",
                                                                   a) for a in actions]
        return actions
