"""``Turn``: one step of an episode, the action taken and what it produced.

The one record of a step that every part shares: the World files an episode's turns
(:class:`~awm_gym.manager.episode.Episode`), the LLM judge reads them
(:class:`~awm_gym.scoring.judge.JudgeRequest`), and chat formatting renders them as the sliding
window (``agents.chat_format.build_messages``). A reader that only needs the text uses
``action`` and ``observation``; the reward, end flags and info values default to "nothing
happened yet", so ``Turn(action, observation)`` is a complete turn for the judge and the prompt.

Example:
    >>> t = Turn("<tool_call>{...}</tool_call>", '{"ok": true}')
    >>> t.reward, t.terminated, t.info
    (0.0, False, {})
    >>> Turn("Done.", "", 1.0, True, False, {"verifier_label": "complete"}).info["verifier_label"]
    'complete'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Turn"]


@dataclass(frozen=True, slots=True)
class Turn:
    """One step: the agent's raw action and what it produced."""

    action: str
    """The model's raw text for this step (a tool call, a final answer, or malformed text)."""
    observation: str
    """The observation returned after the action (the tool's response; empty after a final
    answer)."""
    reward: float = 0.0
    terminated: bool = False
    truncated: bool = False
    info: dict[str, Any] = field(default_factory=dict)
    """The step's info values for the keys the run keeps (always the verifier label and
    ``success`` when the episode ended with a verified answer)."""
