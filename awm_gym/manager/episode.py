"""One finished episode as plain data: what the agent saw and did, and how it ended.

The :class:`~awm_gym.manager.world.World` builds these while it runs episodes; evaluation summarizes
them, :mod:`awm_gym.manager.recording` turns each into dataset rows (and back), and
:mod:`awm_gym.manager.transcripts` renders them as HTML. Turn ``t`` pairs the action taken at step ``t``
with what it produced (the next observation, the reward, the end flags, chosen info values).

Example:
    >>> ep = Episode(episode_idx=0, seed=7, world="notes_app", task_idx=1, task="Add a note.",
    ...              policy="oracle", turns=[Turn("<tool_call>...</tool_call>", "{}", 0.0,
    ...              False, False, {}), Turn("Done.", "", 1.0, True, False,
    ...              {"verifier_label": "complete", "success": True})])
    >>> ep.num_turns, ep.reward, ep.success, ep.verifier_label
    (2, 1.0, True, 'complete')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from awm_gym import info_keys as K
from awm_gym.manager.db_diff import DatabaseDiff
from awm_gym.vocab import Turn, VerifierLabel

__all__ = ["Turn", "Episode", "EPISODE_FIELDS", "REQUIRED_INFO_KEYS", "DEFAULT_INFO_KEYS",
           "GENERATION_KEYS", "generation_info"]

REQUIRED_INFO_KEYS = (K.ACTION_KIND, K.TOOL, K.VERIFIER_LABEL, K.SUCCESS, K.FORMAT_ERROR,
                      K.REWARD_VALID)
"""Info keys every recorded turn keeps: transcripts, success and the episode fields need them."""
DEFAULT_INFO_KEYS = REQUIRED_INFO_KEYS + (K.TOOL_OUTCOME, K.TOOL_STATUS, K.ERROR)
"""Info keys kept per turn unless the caller chooses others (required ones are always added)."""
GENERATION_KEYS = ("prompt_ids", "completion_ids", "sampler_logprobs")
"""What an LLM policy sampled for a turn, kept beside the env's info when it is recorded: the
prompt ids the model saw, the ids it sampled and their log-probabilities (see
:func:`generation_info`)."""


def generation_info(policy: Any, i: int) -> dict[str, Any]:
    """The :data:`GENERATION_KEYS` of instance ``i``'s last turn, from the policy's
    ``last_generations`` (an LLM policy's, such as ``agents``' ChatPolicy: one entry per
    instance with ``prompt_ids``, ``completion_ids`` and ``logprobs``, None for an instance it
    did not act for); ``{}`` when the policy exposes none. Read by attribute, so awm_gym needs
    no policy class.

    Example:
        >>> from types import SimpleNamespace as NS
        >>> gen = NS(prompt_ids=(1, 2), completion_ids=(3,), logprobs=(-0.5,))
        >>> generation_info(NS(last_generations=[None, gen]), 1)
        {'prompt_ids': [1, 2], 'completion_ids': [3], 'sampler_logprobs': [-0.5]}
        >>> generation_info(NS(last_generations=[None, gen]), 0), generation_info(object(), 0)
        ({}, {})
    """
    generations = getattr(policy, "last_generations", None)
    if generations is None or not 0 <= i < len(generations) or generations[i] is None:
        return {}
    gen = generations[i]
    values = (getattr(gen, "prompt_ids", None), getattr(gen, "completion_ids", None),
              getattr(gen, "logprobs", None))
    return {key: None if value is None else list(value)
            for key, value in zip(GENERATION_KEYS, values, strict=True)}


@dataclass
class Episode:
    """A finished episode. ``episode_idx`` k ran with seed ``seed0 + k`` in evaluate/record."""

    episode_idx: int
    seed: int
    world: str
    task_idx: int
    task: str
    """The first observation (the task text)."""
    policy: str
    turns: list[Turn] = field(default_factory=list)
    db_diff: DatabaseDiff | None = None
    """Rows changed between the initial and final database (None when not captured)."""

    @property
    def num_turns(self) -> int:
        return len(self.turns)

    @property
    def reward(self) -> float:
        """The episode's return (the sum of its rewards; only the last step is non-zero)."""
        return float(sum(t.reward for t in self.turns))

    @property
    def final_info(self) -> dict[str, Any]:
        return self.turns[-1].info if self.turns else {}

    @property
    def verifier_label(self) -> str | None:
        return self.final_info.get(K.VERIFIER_LABEL)

    @property
    def success(self) -> bool:
        """Defined as: the episode ended with a final answer that was scored ``complete`` (by
        its code verifier, or by the LLM judge / rubric when one is configured).

        Not the same as ``terminated``: a wrong final answer and a malformed action terminate too.
        """
        info = self.final_info
        if K.SUCCESS in info:
            return bool(info[K.SUCCESS])
        return self.verifier_label == VerifierLabel.COMPLETE

    @property
    def terminated(self) -> bool:
        return bool(self.turns and self.turns[-1].terminated)

    @property
    def truncated(self) -> bool:
        return bool(self.turns and self.turns[-1].truncated)

    @property
    def format_error(self) -> bool:
        return bool(self.final_info.get(K.FORMAT_ERROR, False))

    def value(self, key: str) -> Any:
        """An episode statistic by name (see :data:`EPISODE_FIELDS`), else the last step's info."""
        getter = EPISODE_FIELDS.get(key)
        if getter is not None:
            return getter(self)
        return self.final_info.get(key)


EPISODE_FIELDS = {
    "reward": lambda e: e.reward,
    "num_turns": lambda e: e.num_turns,
    "success": lambda e: e.success,
    "verifier_label": lambda e: e.verifier_label,
    "terminated": lambda e: e.terminated,
    "truncated": lambda e: e.truncated,
    "format_error": lambda e: e.format_error,
    "world": lambda e: e.world,
    "task_idx": lambda e: e.task_idx,
    "seed": lambda e: e.seed,
}
"""Episode-level values ``evaluate(eval_keys=[...])`` can report; any other key is read from the
info of the episode's last step."""
