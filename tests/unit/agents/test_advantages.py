"""agents/grpo/advantages.py + batching.py: group statistics per trajectory, copied to turns."""

from __future__ import annotations

import numpy as np
import pytest

from agents.errors import AgentConfigError
from agents.grpo.advantages import compute_advantages
from agents.grpo.batching import build_samples, trajectory_credit
from agents.grpo.rollout import EpisodeSpec, Trajectory, TurnSample
from agents.policies.sampling import Generation


def _traj(group: int, reward: float, turns: int, valid: bool = True,
          truncation: str | None = None) -> Trajectory:
    gens = [TurnSample(Generation((1, 2, 3), (4, 5, 2), (-0.1, -0.2, -0.3),
                                  "length" if truncation == "length" and k == turns - 1
                                  else "stop", "x"), "x", "o", 0.0) for k in range(turns)]
    return Trajectory(EpisodeSpec("w", 0, 0, group), "task", tuple(gens), reward, valid,
                      reward == 1.0, False, truncation)


def test_group_statistics_are_per_trajectory_not_per_turn():
    # group 0: a 1-turn success and a 9-turn failure; per-trajectory stats give +-1 exactly,
    # while per-turn stats (verl-agent's default) would shift the mean towards the failure
    trajs = [_traj(0, 1.0, 1), _traj(0, 0.0, 9)]
    adv = compute_advantages([t.reward for t in trajs], [0, 0], [True, True], "group", eps=0.0)
    np.testing.assert_allclose(adv.values, [1.0, -1.0])
    samples = build_samples(trajs, adv.values, adv.trainable)
    assert [s.advantage for s in samples] == [1.0] + [-1.0] * 9  # copied to every turn


@pytest.mark.parametrize("mode, expected", [
    ("group", [1.0, -1.0, 1.0, -1.0]),
    ("mean", [0.5, -0.5, 0.25, -0.25]),
    ("batch", np.array([0.5, -0.5, 0.25, -0.25]) / np.std([1.0, 0.0, 0.75, 0.25])),
])
def test_modes(mode, expected):
    adv = compute_advantages([1.0, 0.0, 0.75, 0.25], [0, 0, 1, 1], [True] * 4, mode, eps=0.0)
    np.testing.assert_allclose(adv.values, expected)
    assert adv.trainable.all()


def test_zero_variance_groups_are_excluded_and_counted():
    adv = compute_advantages([1.0, 1.0, 0.0, 0.0, 1.0, 0.0], [0, 0, 1, 1, 2, 2], [True] * 6)
    assert adv.zero_std_groups == 2 and adv.groups == 3
    assert adv.frac_zero_std_groups == pytest.approx(2 / 3)
    assert adv.trainable.tolist() == [False, False, False, False, True, True]
    assert adv.values[:4].tolist() == [0.0] * 4


def test_unscored_trajectories_leave_the_statistics():
    # the unscored member (reward 0 by convention) must not count as a failure
    adv = compute_advantages([1.0, 0.0, 0.0], [0, 0, 0], [True, True, False], "mean")
    np.testing.assert_allclose(adv.values, [0.5, -0.5, 0.0])
    assert adv.trainable.tolist() == [True, True, False]


def test_a_cut_trajectory_is_masked_whole_by_default():
    # group 0: a success, a failure and a 3-turn episode stopped by a cut turn
    trajs = [_traj(0, 1.0, 1), _traj(0, 0.0, 1), _traj(0, 0.0, 3, truncation="length")]
    rewards, scored = trajectory_credit(trajs, "mask")
    adv = compute_advantages(rewards, [0, 0, 0], scored, "group", eps=0.0)
    samples = build_samples(trajs, adv.values, adv.trainable)
    assert len(samples) == 2  # none of the cut trajectory's 3 turns
    assert [s.advantage for s in samples] == [1.0, -1.0]  # it left the group's statistics too


def _credit(trajs, penalty=-1.0, mode="group"):
    rewards, scored = trajectory_credit(trajs, "penalty")
    adv = compute_advantages(rewards, [t.spec.group for t in trajs], scored, mode, eps=0.0)
    return adv, build_samples(trajs, adv.values, adv.trainable, penalty)


def test_a_cut_turn_is_charged_to_its_own_sample_only():
    # group 0: a success, a failure and a 3-turn episode stopped by a cut turn
    trajs = [_traj(0, 1.0, 1), _traj(0, 0.0, 1), _traj(0, 0.0, 3, truncation="length")]
    adv, samples = _credit(trajs, -0.5)
    # the cut trajectory counts with its env reward (0.0), as unpenalised
    r = np.array([1.0, 0.0, 0.0])
    np.testing.assert_allclose(adv.values, (r - r.mean()) / r.std())
    a_fail = adv.values[1]
    assert [s.advantage for s in samples] == pytest.approx(
        [adv.values[0], a_fail, a_fail, a_fail, a_fail - 0.5])  # only the cut turn pays
    assert [s.trajectory for s in samples] == [0, 1, 2, 2, 2]


def test_failing_quietly_is_not_rewarded_by_a_cut_in_the_group():
    # seven plain failures and one cut: no member did better than another, so nothing but the
    # cut turn trains (a -1.0 on the trajectory gave the seven failures +0.38 each)
    trajs = [_traj(0, 0.0, 2) for _ in range(7)] + [_traj(0, 0.0, 4, truncation="length")]
    adv, samples = _credit(trajs)
    assert adv.zero_std_groups == 1 and not adv.trainable.any()
    assert [(s.trajectory, s.advantage) for s in samples] == [(7, -1.0)]


def test_a_cut_turn_is_never_rewarded():
    # the cut trajectory beats format errors (-1.0): its earlier turns gain, its cut turn not
    trajs = [_traj(0, -1.0, 1), _traj(0, -1.0, 1), _traj(0, 0.0, 2, truncation="length")]
    adv, samples = _credit(trajs, -0.25, mode="mean")
    assert adv.values[2] > 0
    assert [s.advantage for s in samples][-2:] == [pytest.approx(adv.values[2]), -0.25]


def test_a_positive_cut_turn_penalty_is_refused():
    from agents.grpo.config import GRPOConfig

    with pytest.raises(AgentConfigError, match="cut_turn_reward=0.5"):
        GRPOConfig(cut_turn="penalty", cut_turn_reward=0.5)


def test_unknown_mode_lists_the_choices():
    with pytest.raises(AgentConfigError, match="choose one of"):
        compute_advantages([1.0], [0], [True], "median")
