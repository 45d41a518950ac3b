"""agents/grpo/batching.py + metrics.py: an episode stopped by a context overflow never trains.

The overflow (finish reason ``prompt_too_long``, truncation ``context``) usually comes from long
tool results, not from the policy: its 0.0 must not become a negative advantage on every turn of
its trajectory, nor lift the other members of its group.
"""

from __future__ import annotations

import numpy as np
import pytest

from agents.grpo import metrics as M
from agents.grpo.advantages import compute_advantages
from agents.grpo.batching import build_samples, trajectory_credit
from agents.grpo.rollout import EpisodeSpec, Trajectory, TurnSample
from agents.policies.sampling import Generation


def _turn(prompt: tuple[int, ...], finish: str = "stop") -> TurnSample:
    sampled = () if finish == "prompt_too_long" else (4, 5, 2)
    return TurnSample(Generation(prompt, sampled, (-0.1,) * len(sampled), finish, "x"),
                      "" if finish == "prompt_too_long" else "x", "o", 0.0)


def _traj(reward: float, prompts: list[int], truncation: str | None = None) -> Trajectory:
    """One turn per prompt id (each turn's prompt is ``(p,)``, so samples tell their turn);
    a ``context`` trajectory ends with the turn that sampled nothing."""
    turns = [_turn((p,)) for p in prompts]
    if truncation == "context":
        turns.append(_turn((99,) * 8, "prompt_too_long"))
    return Trajectory(EpisodeSpec("w", 0, 0, 0), "task", tuple(turns), reward, True,
                      reward == 1.0, False, truncation)


@pytest.mark.parametrize("cut_turn", ["mask", "penalty"])
def test_context_overflow_is_unscored_and_never_trains(cut_turn):
    # group 0: a success, a plain failure and a 3-turn episode whose 4th prompt overflowed
    trajs = [_traj(1.0, [1]), _traj(0.0, [2]), _traj(0.0, [3, 4, 5], truncation="context")]
    assert trajs[2].truncation == "context" and trajs[2].reward_valid  # as the rollout records it
    rewards, scored = trajectory_credit(trajs, cut_turn)
    assert scored == [True, True, False]
    adv = compute_advantages(rewards, [0, 0, 0], scored, "group", eps=0.0)
    # it left its group's statistics: the other two are +1 / -1 exactly, it gets nothing
    np.testing.assert_allclose(adv.values, [1.0, -1.0, 0.0])
    assert adv.trainable.tolist() == [True, True, False]
    penalty = -1.0 if cut_turn == "penalty" else None
    samples = build_samples(trajs, adv.values, adv.trainable, penalty)
    assert [(s.prompt_ids, s.advantage) for s in samples] == [((1,), 1.0), ((2,), -1.0)]


def test_context_overflow_alone_in_a_group_leaves_no_signal():
    # a group whose only failure is an overflow: the successes have nothing to beat
    trajs = [_traj(1.0, [1]), _traj(1.0, [2]), _traj(0.0, [3], truncation="context")]
    rewards, scored = trajectory_credit(trajs, "mask")
    adv = compute_advantages(rewards, [0, 0, 0], scored)
    assert adv.zero_std_groups == 1 and not adv.trainable.any()
    assert build_samples(trajs, adv.values, adv.trainable) == []


def test_context_overflow_rate_is_logged():
    trajs = [_traj(1.0, [1]), _traj(0.0, [2]), _traj(0.0, [3], truncation="context"),
             _traj(0.0, [4], truncation="max_turns")]
    m = M.rollout_metrics(trajs)
    assert m[M.CONTEXT_OVERFLOW_RATE] == pytest.approx(0.25)
    assert m[M.TRUNC_CONTEXT] == 1
    # still an unsuccessful episode with the env's 0.0 in the reward statistics
    assert m[M.SUCCESS_RATE] == pytest.approx(0.25) and m[M.REWARD_MEAN] == pytest.approx(0.25)
