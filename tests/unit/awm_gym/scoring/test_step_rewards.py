"""Every reward of a step that is not a final answer comes from scoring's table."""

from __future__ import annotations

import pytest

from awm_gym.scoring import RewardConfig, StepEnd, StepReward, step_reward

REWARDS = RewardConfig(format_error=-2.0, truncated=-0.25, unscored=0.5)


@pytest.mark.parametrize(("end", "expected", "info"), [
    (StepEnd.ONGOING, StepReward(0.0, None), {}),
    (StepEnd.TRUNCATED, StepReward(-0.25, True), {"reward_valid": True}),
    (StepEnd.FORMAT_ERROR, StepReward(-2.0, True), {"reward_valid": True}),
    (StepEnd.UNSCORED, StepReward(0.5, False), {"reward_valid": False}),
])
def test_each_step_end_reads_its_row_of_the_reward_config(end: StepEnd, expected: StepReward,
                                                          info: dict) -> None:
    assert step_reward(end, REWARDS) == expected
    assert step_reward(end, REWARDS).info == info


def test_every_step_end_has_a_reward() -> None:
    assert {step_reward(end, RewardConfig()).reward for end in StepEnd} == {0.0, -1.0}
