"""Compose an episode's reward from named parts: code verifier, LLM judge, answer format.

A rubric maps a finished episode (:class:`EpisodeOutcome`) to a score, or to ``None`` when the
score cannot be known (the verifier crashed, the judge failed): a missing score is reported as
unscored (``info["reward_valid"] = False``), never silently turned into 0.0. The containers
follow OpenEnv's rubric semantics (world_openenv_gym.md B.7):

* :class:`WeightedSum` ``(rubrics, weights)``: the weighted sum; the weights must add up to 1.
* :class:`Gate` ``(rubric, threshold=1.0)``: the child's score if it reaches ``threshold``,
  else 0.0.
* :class:`Sequential` ``(*rubrics)``: children in order; the first exact 0.0 ends it with 0.0
  (later children are not consulted, so a failed code check spares a judge call's verdict from
  mattering); otherwise the last child's score.

A container is ``None`` as soon as a child it consults is ``None``. Every node's score is
reported under its dotted path (``info["reward_components"]``), like OpenEnv's ``last_score``.
Leaves declare what the runtime must compute for them (:attr:`Rubric.requires`): ``"code"``
runs the task's code-mode verifier, ``"judge"`` its sql-mode verifier and the LLM judge.

Example:
    >>> rubric = Sequential(Gate(CodeVerifierRubric()), JudgeRubric(), name="reward")
    >>> sorted(rubric.requires)
    ['code', 'judge']
    >>> done = EpisodeOutcome(final_answer="Done.", code_label="complete", judge_label="incomplete")
    >>> rubric.evaluate(done)
    (0.1, {'reward': 0.1, 'reward.gate': 1.0, 'reward.gate.code': 1.0, 'reward.judge': 0.1})
    >>> rubric.evaluate(EpisodeOutcome(final_answer="", code_label="others", judge_label=None))
    (0.0, {'reward': 0.0, 'reward.gate': 0.0, 'reward.gate.code': 0.0})
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from awm_gym.vocab import JUDGE_LABELS, JUDGE_REWARDS, VerifierLabel

__all__ = ["EpisodeOutcome", "Rubric", "CodeVerifierRubric", "JudgeRubric", "AnswerFormatRubric",
           "WeightedSum", "Gate", "Sequential"]

@dataclass(frozen=True, slots=True)
class EpisodeOutcome:
    """What a rubric reads about one finished episode.

    Attributes:
        final_answer: the agent's final answer (reasoning removed).
        code_label: the code-mode verifier's label (``complete`` | ``others`` |
            ``verifier_error``), or None when it was not run or the task has none.
        judge_label: the judge's label (``complete`` | ``incomplete`` | ``agent_error`` |
            ``server_error`` | ``judge_error``), or None when no judgement was made.
        steps: turns the episode took.
    """

    final_answer: str
    code_label: str | None = None
    judge_label: str | None = None
    steps: int = 0


class Rubric:
    """Base of every rubric: a name, what it needs computed, and a score per episode.

    Subclasses implement :meth:`score`; containers override :meth:`evaluate` to report their
    children. One level of subclassing only.
    """

    name: str = "rubric"
    requires: frozenset[str] = frozenset()

    def score(self, episode: EpisodeOutcome) -> float | None:
        """The score of ``episode``, or None when it cannot be scored."""
        raise NotImplementedError(f"{type(self).__name__} must implement score(episode)")

    def evaluate(self, episode: EpisodeOutcome, prefix: str = "") -> tuple[float | None,
                                                                          dict[str, float | None]]:
        """``(score, {dotted path: score})`` for this node and every node it consulted."""
        path = f"{prefix}.{self.name}" if prefix else self.name
        value = self.score(episode)
        return value, {path: value}

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


def _check_name(name: str) -> str:
    if not isinstance(name, str) or not name or "." in name:
        raise ValueError(f"rubric name={name!r}: must be a non-empty string without '.' (dots "
                         "join the paths in info['reward_components']).")
    return name


class CodeVerifierRubric(Rubric):
    """1.0 when the code-mode verifier says ``complete``, 0.0 for ``others``, else unscored.

    Example:
        >>> CodeVerifierRubric().score(EpisodeOutcome("", code_label="verifier_error")) is None
        True
    """

    requires = frozenset({"code"})

    def __init__(self, *, name: str = "code") -> None:
        self.name = _check_name(name)

    def score(self, episode: EpisodeOutcome) -> float | None:
        return _CODE_SCORES.get(episode.code_label or "")


_CODE_SCORES = {VerifierLabel.COMPLETE: 1.0, VerifierLabel.OTHERS: 0.0}


class JudgeRubric(Rubric):
    """The judge's label mapped through ``table`` (default 1.0 / 0.1 / 0.0 / 0.0); unscored when
    the judge failed or did not run.

    Example:
        >>> JudgeRubric(table={"complete": 1.0, "incomplete": 0.5, "agent_error": 0.0,
        ...                    "server_error": 0.0}).score(EpisodeOutcome("", judge_label="incomplete"))
        0.5
    """

    requires = frozenset({"judge"})

    def __init__(self, table: Mapping[str, float] | None = None, *, name: str = "judge") -> None:
        self.name = _check_name(name)
        table = dict(JUDGE_REWARDS if table is None else table)
        missing = [label.value for label in JUDGE_LABELS if label not in table]
        unknown = [label for label in table if label not in JUDGE_LABELS]
        if missing or unknown:
            raise ValueError(f"JudgeRubric(table=...): give a reward for exactly the labels "
                             f"{', '.join(JUDGE_LABELS)}; missing {missing}, unknown {unknown}.")
        for label, value in table.items():
            if not isinstance(value, (int, float)) or not math.isfinite(value):
                raise ValueError(f"JudgeRubric(table=...): {label!r} -> {value!r} is not a "
                                 "finite number.")
        self.table = {k: float(v) for k, v in table.items()}

    def score(self, episode: EpisodeOutcome) -> float | None:
        return self.table.get(episode.judge_label or "")


class AnswerFormatRubric(Rubric):
    """1.0 when the final answer has ``min_chars``..``max_chars`` characters and (if given)
    matches ``pattern`` (``re.search``), else 0.0.

    Example:
        >>> AnswerFormatRubric(pattern=r"\\d").score(EpisodeOutcome("It is 42."))
        1.0
        >>> AnswerFormatRubric(max_chars=3).score(EpisodeOutcome("far too long"))
        0.0
    """

    def __init__(self, pattern: str | None = None, *, min_chars: int = 1,
                 max_chars: int | None = None, name: str = "format") -> None:
        self.name = _check_name(name)
        try:
            self.pattern = None if pattern is None else re.compile(pattern)
        except re.error as e:
            raise ValueError(f"AnswerFormatRubric(pattern={pattern!r}): not a regular "
                             f"expression ({e}).") from e
        if min_chars < 0 or (max_chars is not None and max_chars < min_chars):
            raise ValueError(f"AnswerFormatRubric: min_chars={min_chars}, max_chars={max_chars}"
                             ": need 0 <= min_chars <= max_chars.")
        self.min_chars, self.max_chars = min_chars, max_chars

    def score(self, episode: EpisodeOutcome) -> float | None:
        text = episode.final_answer
        if len(text) < self.min_chars or (self.max_chars is not None
                                          and len(text) > self.max_chars):
            return 0.0
        if self.pattern is not None and not self.pattern.search(text):
            return 0.0
        return 1.0


class _Container(Rubric):
    children: tuple[Rubric, ...]

    def _set_children(self, children: Sequence[Rubric], what: str) -> None:
        children = tuple(children)
        if not children:
            raise ValueError(f"{what} needs at least one rubric.")
        for i, child in enumerate(children):
            if not isinstance(child, Rubric):
                raise TypeError(f"{what}: item {i} is a {type(child).__name__}, not a Rubric "
                                "(use CodeVerifierRubric(), JudgeRubric(), ...).")
        self.children = children
        self.requires = frozenset().union(*(c.requires for c in children))

    def score(self, episode: EpisodeOutcome) -> float | None:
        return self.evaluate(episode)[0]

    def evaluate(self, episode: EpisodeOutcome, prefix: str = "") -> tuple[float | None,
                                                                          dict[str, float | None]]:
        path = f"{prefix}.{self.name}" if prefix else self.name
        scores: dict[str, float | None] = {path: None}
        value = self._combine(episode, path, scores)
        scores[path] = value
        return value, scores

    def _combine(self, episode: EpisodeOutcome, path: str,
                 scores: dict[str, float | None]) -> float | None:
        raise NotImplementedError


class WeightedSum(_Container):
    """The weighted sum of the children's scores; ``weights`` must sum to 1.

    Example:
        >>> r = WeightedSum([CodeVerifierRubric(), AnswerFormatRubric()], [0.8, 0.2])
        >>> r.score(EpisodeOutcome("ok", code_label="others"))
        0.2
    """

    def __init__(self, rubrics: Sequence[Rubric], weights: Sequence[float], *,
                 name: str = "weighted_sum") -> None:
        self.name = _check_name(name)
        self._set_children(rubrics, "WeightedSum")
        weights = [float(w) for w in weights]
        if len(weights) != len(self.children):
            raise ValueError(f"WeightedSum: {len(self.children)} rubrics but {len(weights)} "
                             "weights; give one weight per rubric.")
        if any(not math.isfinite(w) or w < 0 for w in weights) or abs(sum(weights) - 1) > 1e-6:
            raise ValueError(f"WeightedSum(weights={weights}): weights must be >= 0 and sum to "
                             "1.")
        self.weights = tuple(weights)

    def _combine(self, episode, path, scores):  # noqa: ANN001, ANN202 - see _Container
        total = 0.0
        for child, weight in zip(self.children, self.weights, strict=True):
            value, parts = child.evaluate(episode, path)
            scores.update(parts)
            if value is None:
                return None
            total += weight * value
        return total


class Gate(_Container):
    """The child's score when it reaches ``threshold`` (default 1.0: perfect), else 0.0.

    Example:
        >>> Gate(JudgeRubric()).score(EpisodeOutcome("", judge_label="incomplete"))
        0.0
    """

    def __init__(self, rubric: Rubric, threshold: float = 1.0, *, name: str = "gate") -> None:
        self.name = _check_name(name)
        self._set_children([rubric], "Gate")
        if not math.isfinite(threshold):
            raise ValueError(f"Gate(threshold={threshold}): must be a finite number.")
        self.threshold = float(threshold)

    def _combine(self, episode, path, scores):  # noqa: ANN001, ANN202 - see _Container
        value, parts = self.children[0].evaluate(episode, path)
        scores.update(parts)
        if value is None:
            return None
        return value if value >= self.threshold else 0.0


class Sequential(_Container):
    """Children in order: an exact 0.0 stops with 0.0; otherwise the last child's score.

    Example:
        >>> r = Sequential(CodeVerifierRubric(), JudgeRubric())
        >>> r.score(EpisodeOutcome("", code_label="others", judge_label="judge_error"))
        0.0
        >>> r.score(EpisodeOutcome("", code_label="complete", judge_label="judge_error")) is None
        True
    """

    def __init__(self, *rubrics: Rubric, name: str = "sequential") -> None:
        self.name = _check_name(name)
        self._set_children(rubrics, "Sequential")

    def _combine(self, episode, path, scores):  # noqa: ANN001, ANN202 - see _Container
        value: float | None = None
        for child in self.children:
            value, parts = child.evaluate(episode, path)
            scores.update(parts)
            if value is None or value == 0.0:
                return value
        return value

