"""Score finished episodes: pick each task's verifiers, run them, judge, and apply the rubric.

One path from a finished episode to ``(reward, valid, success, info)``:

1. :meth:`Scorer.verifiers_for` picks the verifiers a task runs: the configured rubric's needs
   (``"code"``, ``"judge"``), or, for the default rubric, the one
   :class:`~awm_gym.vocab.VerifierMode` selects.
2. All verifiers of a batch run in one :class:`~awm_gym.scoring.verifier_pool.VerifierPool` call
   (worker processes, a timeout each, read-only database copies).
3. Episodes whose sql-mode verifier produced evidence go to the LLM judge in one batch (when
   ``judge`` is configured; otherwise they stay ``awaiting_judge``, unscored).
4. The rubric turns the labels into a reward; None means unscored: ``reward_valid`` is False and
   the reward is ``rewards.unscored``.

Example:
    >>> from awm_gym.worlds.world_set import load_world_set
    >>> from awm_gym.envs.registration import BUILTIN_WORLDS_DIR
    >>> spotify = load_world_set(BUILTIN_WORLDS_DIR)["spotify"]
    >>> scorer = Scorer(ScoringConfig(verifier_mode=VerifierMode.AUTO))
    >>> [v.mode for v in scorer.verifiers_for(spotify, 0)]
    ['code']
    >>> scorer.close()
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from awm_gym import info_keys as K
from awm_gym.scoring.judge import (
    JudgeConfig,
    JudgeRequest,
    JudgeVerdict,
    LLMJudge,
    criteria_from_raw_response,
)
from awm_gym.scoring.rewards import RewardConfig, RewardTableRubric
from awm_gym.scoring.rubrics import EpisodeOutcome, Rubric
from awm_gym.scoring.verifier_pool import VerifierPool, VerifierResult, VerifyJob
from awm_gym.vocab import Turn, VerifierLabel, VerifierMode
from awm_gym.worlds.records import VerifierDef, WorldDef

__all__ = ["FinishedEpisode", "Score", "Scorer", "ScoringConfig"]


@dataclass(frozen=True)
class ScoringConfig:
    """What scoring needs from :class:`~awm_gym.envs.config.EnvConfig` (built by its
    ``scoring`` property)."""

    verifier_mode: VerifierMode = VerifierMode.AUTO
    """Which verifier the default rubric runs."""
    rewards: RewardConfig = field(default_factory=RewardConfig)
    """Reward per label (the default rubric's tables, and the unscored reward)."""
    rubric: Rubric | None = None
    """A custom reward composition; None means :class:`RewardTableRubric` of ``rewards``."""
    judge: JudgeConfig | None = None
    """The LLM judge for sql-mode evidence; None leaves it ``awaiting_judge``."""
    verifier_workers: int = 2
    """Worker processes of the scorer's own pool (started on first use)."""
    verifier_timeout_s: float = 10.0
    """Wall-clock limit of one verifier run."""
    record_timings: bool = False
    """Add ``verify_time_s`` to the scored info."""


@dataclass(frozen=True, slots=True)
class FinishedEpisode:
    """What scoring reads about one episode that ended with a final answer."""

    world: WorldDef
    task_idx: int
    final_answer: str
    initial_db: bytes = field(repr=False)
    final_db: bytes = field(repr=False)
    initial_key: str = ""
    """A cache key naming ``initial_db``'s content (workers keep that file per key)."""
    turns: tuple[Turn, ...] = ()
    """The tool-using turns (only the judge reads them)."""
    steps: int = 0


@dataclass(frozen=True, slots=True)
class Score:
    """A scored episode: its reward, whether it is valid and a success, and the info keys."""

    reward: float
    valid: bool
    success: bool
    info: dict[str, Any]


class Scorer:
    """Turns finished episodes into scores, in batches (one pool call and one judge batch each).

    Args:
        config: modes, rewards, rubric, judge, pool size.
        verifier_pool: a shared pool; by default the scorer starts its own on first use and
            closes it in :meth:`close`.
    """

    def __init__(self, config: ScoringConfig, verifier_pool: VerifierPool | None = None) -> None:
        self.config = config
        self.rubric: Rubric = config.rubric or RewardTableRubric(config.rewards)
        self._is_default_rubric = config.rubric is None
        self._pool = verifier_pool
        self._owns_pool = verifier_pool is None
        self._judge = LLMJudge(config.judge) if config.judge is not None else None

    def __repr__(self) -> str:
        return f"Scorer(mode={self.config.verifier_mode.value!r}, rubric={self.rubric!r})"

    @property
    def keeps_turns(self) -> bool:
        """Whether episodes must carry their turns (only the LLM judge reads them)."""
        return self._judge is not None

    def pool(self) -> VerifierPool:
        """The verifier pool (the one passed in, or the scorer's own, started on first use)."""
        if self._pool is None:
            self._pool = VerifierPool(num_workers=self.config.verifier_workers,
                                      timeout_s=self.config.verifier_timeout_s)
        return self._pool

    def verifier_for(self, world: WorldDef, task_idx: int) -> VerifierDef | None:
        """The verifier :class:`VerifierMode` selects for a task, or None (no usable one)."""
        mode = self.config.verifier_mode
        code = _usable(world.code_verifiers[task_idx]) if mode != VerifierMode.SQL else None
        sql = _usable(world.sql_verifiers[task_idx]) if mode != VerifierMode.CODE else None
        return code if code is not None else sql

    def verifiers_for(self, world: WorldDef, task_idx: int) -> list[VerifierDef]:
        """The verifiers a final answer on this task runs: the rubric's needs, else the mode's."""
        if self._is_default_rubric:
            chosen = self.verifier_for(world, task_idx)
            return [] if chosen is None else [chosen]
        needs = self.rubric.requires
        out = []
        if "code" in needs and (v := _usable(world.code_verifiers[task_idx])) is not None:
            out.append(v)
        if "judge" in needs and (v := _usable(world.sql_verifiers[task_idx])) is not None:
            out.append(v)
        return out

    def score(self, episodes: Sequence[FinishedEpisode]) -> list[Score]:
        """Score a batch of finished episodes, in order."""
        if not episodes:
            return []
        start = time.perf_counter()
        results = self._run_verifiers(episodes)
        verdicts = self._judge_batch(episodes, results)
        elapsed = time.perf_counter() - start
        return [self._score_one(ep, results[n], verdicts.get(n), elapsed)
                for n, ep in enumerate(episodes)]

    def _run_verifiers(self, episodes: Sequence[FinishedEpisode]
                       ) -> list[dict[VerifierMode, VerifierResult]]:
        jobs, owners = [], []
        for n, ep in enumerate(episodes):
            for verifier in self.verifiers_for(ep.world, ep.task_idx):
                jobs.append(VerifyJob(
                    verifier.code, verifier.function_name, verifier.mode, ep.initial_db,
                    ep.final_db,
                    ep.final_answer if verifier.mode == VerifierMode.CODE else None,
                    initial_key=ep.initial_key))
                owners.append(n)
        by_episode: list[dict[VerifierMode, VerifierResult]] = [{} for _ in episodes]
        for n, job, result in zip(owners, jobs, self.pool().run(jobs) if jobs else [],
                                  strict=True):
            by_episode[n][job.mode] = result
        return by_episode

    def _judge_batch(self, episodes: Sequence[FinishedEpisode],
                     results: list[dict[VerifierMode, VerifierResult]]) -> dict[int, JudgeVerdict]:
        """Judge, in one batch, every episode whose sql-mode verifier produced evidence."""
        if self._judge is None:
            return {}
        requests, owners = [], []
        for n, ep in enumerate(episodes):
            sql = results[n].get(VerifierMode.SQL)
            if sql is None or sql.label != VerifierLabel.AWAITING_JUDGE:
                continue
            verifier = ep.world.sql_verifiers[ep.task_idx]
            requests.append(JudgeRequest(
                ep.world.tasks[ep.task_idx], ep.turns, ep.final_answer, sql.output,
                criteria_from_raw_response(verifier.raw_response if verifier else None)))
            owners.append(n)
        return dict(zip(owners, self._judge.judge(requests), strict=True))

    def _score_one(self, ep: FinishedEpisode, results: dict[VerifierMode, VerifierResult],
                   verdict: JudgeVerdict | None, verify_s: float) -> Score:
        info: dict[str, Any] = {}
        if self.config.record_timings:
            info[K.VERIFY_TIME_S] = verify_s
        code, sql = results.get(VerifierMode.CODE), results.get(VerifierMode.SQL)
        shown = code if code is not None else sql
        info[K.VERIFIER_LABEL] = VerifierLabel.NO_VERIFIER if shown is None else shown.label
        for result in results.values():
            if result.error_kind is not None:
                info[K.VERIFIER_ERROR] = f"{result.error_kind}: {result.error}"
        if sql is not None and sql.label == VerifierLabel.AWAITING_JUDGE:
            if sql.output is not None:
                info[K.VERIFIER_OUTPUT] = sql.output
            if verdict is None:
                info[K.AWAITING_JUDGE] = True
        if verdict is not None:
            info[K.JUDGE_LABEL] = verdict.label
            if verdict.error_kind is not None:
                info[K.JUDGE_ERROR] = f"{verdict.error_kind}: {verdict.error}"
        outcome = EpisodeOutcome(ep.final_answer, None if code is None else code.label,
                                 None if verdict is None else verdict.label, ep.steps)
        reward, components = self.rubric.evaluate(outcome)
        if self._is_default_rubric:
            success = RewardTableRubric.deciding_label(outcome) == VerifierLabel.COMPLETE
        else:
            info[K.REWARD_COMPONENTS] = components
            success = reward is not None and reward >= 1.0
        valid = reward is not None
        info[K.REWARD_VALID], info[K.SUCCESS] = valid, valid and success
        return Score(self.config.rewards.unscored if reward is None else reward, valid,
                     valid and success, info)

    def close(self) -> None:
        """Stop the scorer's own pool and the judge's client. Safe to call twice."""
        if self._owns_pool and self._pool is not None:
            self._pool.close()
        self._pool = None if self._owns_pool else self._pool
        if self._judge is not None:
            self._judge.close()
            self._judge = None


def _usable(verifier: VerifierDef | None) -> VerifierDef | None:
    return verifier if verifier is not None and verifier.code else None
