"""Our scoring as an OpenEnv rubric tree, so trainers can introspect every part of the reward.

The reward of an AWM episode is computed where the verifiers are: the runtime's scorer
(:mod:`awm_gym.scoring.scorer`) runs the task's verifiers in worker processes, the LLM judge if
configured, and the rubric (the default label -> reward table, or ``EnvConfig.rubric``). The tree
built here mirrors that rubric node for node and reads each node's score out of what the scorer
reported for the step, so ``env.rubric.named_rubrics()`` and every node's ``last_score`` describe
the reward the agent got, without running a verifier twice:

* the default table: ``code`` (the code verifier's label through ``RewardConfig.code_table``) and
  ``judge`` (the judge's label through ``RewardConfig.judge_table``); the root takes ``code``
  when it ran, else ``judge``, as :class:`~awm_gym.scoring.rewards.RewardTableRubric` does;
* a configured rubric: one node per node of it, named as it is, scored from
  ``info["reward_components"]``.

The root's score is the step's reward (format errors, truncation and tool turns included); a
node that was not consulted, or could not be scored, has ``last_score`` None.

Example:
    >>> from awm_gym import EnvConfig
    >>> rubric = rubric_for(EnvConfig())
    >>> [name for name, _ in rubric.named_rubrics()]
    ['code', 'judge']
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from awm_gym.integrations.openenv.distribution import missing_openenv

try:
    from openenv.core.rubrics import Rubric as OpenEnvRubric
except ImportError as e:  # the one-line error that names the extra
    raise missing_openenv(e) from e

from awm_gym import info_keys as K
from awm_gym.envs.config import EnvConfig
from awm_gym.scoring.rubrics import Rubric

__all__ = ["AWMRubric", "rubric_for"]


def _info(observation: Any) -> Mapping[str, Any]:
    info = getattr(observation, "info", None)
    return info if isinstance(info, Mapping) else {}


class _LabelTable(OpenEnvRubric):
    """A label (``info[key]``) through a reward table; None when absent or not in the table."""

    def __init__(self, key: str, table: Mapping[str, float]) -> None:
        super().__init__()
        self.key, self.table = key, dict(table)

    def forward(self, action: Any, observation: Any) -> float | None:  # type: ignore[override]
        return self.table.get(_info(observation).get(self.key) or "")


class _Component(OpenEnvRubric):
    """One node of a configured rubric: its score in ``info["reward_components"]``."""

    def __init__(self, node: Rubric, path: str) -> None:
        super().__init__()
        self.path = path
        for child in getattr(node, "children", ()):
            setattr(self, child.name, _Component(child, f"{path}.{child.name}"))

    def forward(self, action: Any, observation: Any) -> float | None:  # type: ignore[override]
        value = _info(observation).get(K.REWARD_COMPONENTS, {}).get(self.path)
        for child in self.children():  # keep every node's last_score in step with this step
            child(action, observation)
        return value


class AWMRubric(OpenEnvRubric):
    """The root: the step's reward, with the scoring's parts as named children.

    Args:
        config: the env config whose rubric (or reward table) scores final answers.
    """

    def __init__(self, config: EnvConfig) -> None:
        super().__init__()
        self.is_table = config.rubric is None
        if self.is_table:
            self.code = _LabelTable(K.VERIFIER_LABEL, config.rewards.code_table)
            self.judge = _LabelTable(K.JUDGE_LABEL, config.rewards.judge_table)
        else:
            node = config.rubric
            setattr(self, node.name, _Component(node, node.name))

    def forward(self, action: Any, observation: Any) -> float:  # type: ignore[override]
        for child in self.children():
            child(action, observation)
        return float(observation.reward or 0.0)

    def __repr__(self) -> str:
        parts = ", ".join(name for name, _ in self.named_children())
        return f"AWMRubric({'table' if self.is_table else 'configured'}: {parts})"


def rubric_for(config: EnvConfig) -> AWMRubric:
    """The OpenEnv rubric tree of ``config``'s scoring."""
    return AWMRubric(config)
