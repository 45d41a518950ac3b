"""Scoring: verifiers in a worker pool, the LLM judge, rubrics, the Scorer (episode -> reward)."""

from __future__ import annotations

from awm_gym.scoring.judge import JudgeConfig, JudgeRequest, LLMJudge, criteria_from_raw_response
from awm_gym.scoring.rewards import RewardConfig, StepEnd, StepReward, step_reward
from awm_gym.scoring.rubrics import Rubric
from awm_gym.scoring.scorer import Scorer
from awm_gym.scoring.verifier_pool import VerifierPool, VerifierResult, VerifyJob

__all__ = ["JudgeConfig", "JudgeRequest", "LLMJudge", "criteria_from_raw_response",
           "RewardConfig", "Rubric", "Scorer", "StepEnd", "StepReward", "VerifierPool",
           "VerifierResult", "VerifyJob", "step_reward"]
