"""Every reward decision: a finished episode's labels (the reward table, its rubric) and the
rewards of steps that end an episode without a final answer (:func:`step_reward`).

The default reward is a rubric like any other (:class:`RewardTableRubric`): a code-mode verifier's
``complete`` / ``others`` and the LLM judge's four labels map through :class:`RewardConfig`; any
other label (a crashed verifier, no verifier, a failed judge) is unscored. Which verifier a task
runs is chosen by :class:`~awm_gym.vocab.VerifierMode`.

Example:
    >>> rubric = RewardTableRubric(RewardConfig())
    >>> rubric.score(EpisodeOutcome("done", code_label="complete"))
    1.0
    >>> rubric.score(EpisodeOutcome("done", judge_label="incomplete"))
    0.1
    >>> rubric.score(EpisodeOutcome("done", code_label="verifier_error")) is None
    True
    >>> step_reward(StepEnd.FORMAT_ERROR, RewardConfig())
    StepReward(reward=-1.0, valid=True)
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from awm_gym import info_keys as K
from awm_gym.scoring.rubrics import EpisodeOutcome, Rubric
from awm_gym.vocab import JudgeLabel, VerifierLabel

__all__ = ["RewardConfig", "RewardTableRubric", "StepEnd", "StepReward", "step_reward"]


@dataclass(frozen=True)
class RewardConfig:
    """Reward per outcome (OpenEnv's AWM preset; awm.md 4.4)."""

    complete: float = 1.0
    """A verifier (or the judge) says the task is complete."""
    incomplete: float = 0.1
    """The LLM judge's partial credit (sql mode only; code verifiers have no partial label)."""
    others: float = 0.0
    """A code verifier says anything but complete."""
    agent_error: float = 0.0
    """The LLM judge says the agent went wrong and did not recover."""
    server_error: float = 0.0
    """The LLM judge says the world's tools failed the agent."""
    format_error: float = -1.0
    """A malformed action; the episode terminates."""
    truncated: float = 0.0
    """The step limit was reached before a final answer."""
    unscored: float = 0.0
    """Reward given while a result cannot be scored (verifier error, no verifier, awaiting
    judgement). ``info["reward_valid"]`` is False then: leave such episodes out of statistics."""

    @property
    def judge_table(self) -> dict[str, float]:
        """The judge label -> reward table (complete / incomplete / agent_error / server_error)."""
        return {JudgeLabel.COMPLETE: self.complete, JudgeLabel.INCOMPLETE: self.incomplete,
                JudgeLabel.AGENT_ERROR: self.agent_error,
                JudgeLabel.SERVER_ERROR: self.server_error}

    @property
    def code_table(self) -> dict[str, float]:
        """The code-verifier label -> reward table (complete / others)."""
        return {VerifierLabel.COMPLETE: self.complete, VerifierLabel.OTHERS: self.others}


class RewardTableRubric(Rubric):
    """The default rubric: the code verifier's label if it ran, else the judge's, through
    :class:`RewardConfig`; unscored (None) for any label outside the tables."""

    def __init__(self, rewards: RewardConfig, *, name: str = "reward") -> None:
        self.rewards = rewards
        self.name = name

    def score(self, episode: EpisodeOutcome) -> float | None:
        if episode.code_label is not None:
            return self.rewards.code_table.get(episode.code_label)
        if episode.judge_label is not None:
            return self.rewards.judge_table.get(episode.judge_label)
        return None

    @staticmethod
    def deciding_label(episode: EpisodeOutcome) -> str | None:
        """The label the table read: the code verifier's, else the judge's."""
        return episode.code_label if episode.code_label is not None else episode.judge_label


class StepEnd(enum.StrEnum):
    """How a step that is not a final answer stands for its reward."""

    ONGOING = "ongoing"
    """The episode goes on: reward 0, no verdict yet."""
    TRUNCATED = "truncated"
    """The step limit ended the episode: ``rewards.truncated``, a valid reward."""
    FORMAT_ERROR = "format_error"
    """A malformed action ended the episode: ``rewards.format_error``, a valid reward."""
    UNSCORED = "unscored"
    """The episode ended without anything to score (the action could not be handled, a worker
    or session was lost): ``rewards.unscored``, not a valid reward."""


@dataclass(frozen=True, slots=True)
class StepReward:
    """A step's reward and whether it counts (None: no verdict yet, the episode goes on)."""

    reward: float
    valid: bool | None

    @property
    def info(self) -> dict[str, Any]:
        """The info keys this reward adds: ``reward_valid`` once there is a verdict."""
        return {} if self.valid is None else {K.REWARD_VALID: self.valid}


def step_reward(end: StepEnd, rewards: RewardConfig) -> StepReward:
    """The reward of a step that is not a final answer (final answers go to the
    :class:`~awm_gym.scoring.scorer.Scorer`).

    Example:
        >>> step_reward(StepEnd.ONGOING, RewardConfig()).info
        {}
        >>> step_reward(StepEnd.UNSCORED, RewardConfig()).info
        {'reward_valid': False}
    """
    if end is StepEnd.ONGOING:
        return StepReward(0.0, None)
    reward, valid = _STEP_TABLE[end]
    return StepReward(getattr(rewards, reward), valid)


_STEP_TABLE: dict[StepEnd, tuple[str, bool]] = {
    StepEnd.TRUNCATED: ("truncated", True),
    StepEnd.FORMAT_ERROR: ("format_error", True),
    StepEnd.UNSCORED: ("unscored", False),
}
