"""Reward composition: leaves, weighted sum, gate, sequential, and unscored propagation."""

from __future__ import annotations

import re

import pytest

from awm_gym.scoring.rubrics import (
    AnswerFormatRubric,
    CodeVerifierRubric,
    EpisodeOutcome,
    Gate,
    JudgeRubric,
    Sequential,
    WeightedSum,
)


def outcome(code: str | None = None, judge: str | None = None, answer: str = "ok"
            ) -> EpisodeOutcome:
    return EpisodeOutcome(answer, code, judge, 3)


@pytest.mark.parametrize(("label", "score"), [("complete", 1.0), ("others", 0.0),
                                              ("verifier_error", None), (None, None)])
def test_code_verifier_scores_only_its_two_labels(label: str | None, score: float | None) -> None:
    assert CodeVerifierRubric().score(outcome(code=label)) == score


def test_judge_table_defaults_and_custom_values() -> None:
    default = JudgeRubric()
    assert [default.score(outcome(judge=j)) for j in
            ("complete", "incomplete", "agent_error", "server_error", "judge_error")] == \
        [1.0, 0.1, 0.0, 0.0, None]
    custom = JudgeRubric({"complete": 1, "incomplete": 0.5, "agent_error": -0.5,
                          "server_error": 0})
    assert custom.score(outcome(judge="agent_error")) == -0.5
    with pytest.raises(ValueError, match=re.escape("missing ['server_error']")):
        JudgeRubric({"complete": 1, "incomplete": 0.5, "agent_error": 0})
    with pytest.raises(ValueError, match="unknown \\['partial'\\]"):
        JudgeRubric({"complete": 1, "incomplete": 0.5, "agent_error": 0, "server_error": 0,
                     "partial": 0.3})


def test_weighted_sum_needs_weights_summing_to_one_and_propagates_unscored() -> None:
    rubric = WeightedSum([CodeVerifierRubric(), JudgeRubric()], [0.75, 0.25], name="total")
    score, parts = rubric.evaluate(outcome("complete", "incomplete"))
    assert score == pytest.approx(0.775)
    assert parts == {"total": pytest.approx(0.775), "total.code": 1.0, "total.judge": 0.1}
    assert rubric.score(outcome("complete", "judge_error")) is None
    with pytest.raises(ValueError, match="sum to 1"):
        WeightedSum([CodeVerifierRubric(), JudgeRubric()], [0.5, 0.6])
    with pytest.raises(ValueError, match="2 rubrics but 1 weights"):
        WeightedSum([CodeVerifierRubric(), JudgeRubric()], [1.0])


def test_gate_passes_scores_at_or_above_its_threshold() -> None:
    assert Gate(JudgeRubric(), threshold=0.1).score(outcome(judge="incomplete")) == 0.1
    assert Gate(JudgeRubric()).score(outcome(judge="incomplete")) == 0.0
    assert Gate(JudgeRubric()).score(outcome(judge="judge_error")) is None


def test_sequential_stops_at_the_first_zero_without_consulting_the_rest() -> None:
    rubric = Sequential(CodeVerifierRubric(), JudgeRubric(), name="r")
    score, parts = rubric.evaluate(outcome("others", "judge_error"))
    assert score == 0.0 and "r.judge" not in parts
    assert rubric.score(outcome("complete", "incomplete")) == 0.1
    assert rubric.score(outcome("verifier_error", "complete")) is None
    assert rubric.requires == frozenset({"code", "judge"})


def test_answer_format_checks_length_and_pattern() -> None:
    rubric = AnswerFormatRubric(pattern=r"\bBudget review\b", max_chars=80)
    assert rubric.score(outcome(answer="It is 'Budget review'.")) == 1.0
    assert rubric.score(outcome(answer="budget")) == 0.0
    assert rubric.score(outcome(answer="x" * 81)) == 0.0
    assert AnswerFormatRubric().score(outcome(answer="")) == 0.0
    assert AnswerFormatRubric().requires == frozenset()
    with pytest.raises(ValueError, match="not a regular expression"):
        AnswerFormatRubric(pattern="(")


def test_bad_compositions_are_rejected_with_the_fix() -> None:
    with pytest.raises(TypeError, match="not a Rubric"):
        Sequential(CodeVerifierRubric(), "judge")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="without '.'"):
        CodeVerifierRubric(name="a.b")
    with pytest.raises(ValueError, match="at least one rubric"):
        Sequential()
