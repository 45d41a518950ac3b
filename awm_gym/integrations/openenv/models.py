"""The typed wire models of the OpenEnv bridge: :class:`AWMAction`, :class:`AWMObservation`,
:class:`AWMVerdict`, :class:`AWMState` (pydantic models on OpenEnv's ``Action`` /
``Observation`` / ``State``; the same code runs on ``openenv`` 0.10 and ``openenv-core`` 0.3).

An action is the model's raw text, exactly what the in-process env takes, or a structured tool call
that is rendered to the same ``<tool_call>`` text (:func:`awm_gym.tools.actions.format_tool_call`)
so that one parser decides both. An observation is the text the agent reads next plus the episode's
flags and the ``info`` dict of the in-process env (keys: :mod:`awm_gym.info_keys`). openenv-core
0.3 leaves an observation's ``metadata`` off the wire (0.10 keeps it), so nothing travels there:
the infos travel in ``info``, and how the episode came out in the typed ``verdict`` field (an
:class:`AWMVerdict`, set on the step that ends the episode), which both versions' serializers carry
and both clients parse.

Example:
    >>> AWMAction(tool_call=ToolCallSpec(name="get_note", arguments={"note_id": 2})).as_text()
    '<tool_call>{"name": "get_note", "arguments": {"note_id": 2}}</tool_call>'
    >>> AWMAction(text="Done.").as_text()
    'Done.'
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from awm_gym.integrations.openenv.distribution import missing_openenv

try:
    from openenv.core.env_server.types import Action, Observation, State
except ImportError as e:  # the one-line error that names the extra
    raise missing_openenv(e) from e

from awm_gym import info_keys as K
from awm_gym.tools.actions import format_tool_call

__all__ = ["ToolCallSpec", "AWMAction", "AWMObservation", "AWMState", "AWMVerdict"]


class ToolCallSpec(BaseModel):
    """A structured tool call: the tool's name (operation id) and its arguments."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="The tool to call (its operation id, as list_tools shows it).")
    arguments: dict[str, Any] = Field(default_factory=dict,
                                      description="The tool's arguments (its input schema).")


class AWMAction(Action):
    """One turn of the agent: raw model text, or a structured tool call (exactly one)."""

    text: str | None = Field(default=None, description=(
        "The model's raw output, parsed as in-process: <tool_call> blocks, AWM's list_tools / "
        "call_tool, or a final answer when it calls no tool."))
    tool_call: ToolCallSpec | None = Field(default=None, description=(
        "A structured tool call, sent as the equivalent <tool_call> text."))

    @model_validator(mode="after")
    def _exactly_one(self) -> AWMAction:
        if (self.text is None) == (self.tool_call is None):
            raise ValueError("AWMAction: set exactly one of 'text' (the model's raw output) and "
                             "'tool_call' ({'name': ..., 'arguments': {...}}).")
        return self

    def as_text(self) -> str:
        """The raw text the world's action parser reads."""
        if self.tool_call is not None:
            return format_tool_call(self.tool_call.name, self.tool_call.arguments)
        return self.text or ""


class AWMVerdict(BaseModel):
    """How an episode came out: the task's verifier (or the format error, or the step limit).

    Example:
        >>> AWMVerdict(label="complete", reward=1.0, scored=True, success=True).success
        True
    """

    model_config = ConfigDict(extra="forbid")

    label: str = Field(description=(
        "The verifier's label (complete | others | verifier_error | no_verifier | "
        "awaiting_judge), or format_error (a malformed action), or truncated (the step limit)."))
    reward: float = Field(description="The episode's final reward (the step's reward).")
    scored: bool = Field(description=(
        "False when the episode could not be scored (verifier crash or timeout, no verifier, "
        "judge pending): leave it out of statistics instead of counting its reward."))
    success: bool = Field(description="The verifier (or the LLM judge) said complete.")
    judge_label: str | None = Field(default=None, description=(
        "The LLM judge's label when a judge scored the episode (complete | incomplete | "
        "agent_error | server_error | judge_error)."))
    error: str | None = Field(default=None, description=(
        "Why it is unscored or malformed: the verifier's or judge's error, or the format error."))

    @classmethod
    def from_outcome(cls, label: str, reward: float, info: dict[str, Any]) -> AWMVerdict:
        """The verdict of the step whose ``info`` ended the episode with ``label``."""
        error = info.get(K.VERIFIER_ERROR) or info.get(K.JUDGE_ERROR) or (
            info.get(K.ERROR) if info.get(K.FORMAT_ERROR) else None)
        judge = info.get(K.JUDGE_LABEL)
        return cls(label=label, reward=float(reward), scored=bool(info.get(K.REWARD_VALID, True)),
                   success=bool(info.get(K.SUCCESS, False)),
                   judge_label=None if judge is None else str(judge),
                   error=None if error is None else str(error))


class AWMObservation(Observation):
    """What the agent reads after a reset (the task) or a step (the tool result text)."""

    text: str = Field(description="The task after a reset; the tool result or error text after "
                                  "a step (byte-identical to the in-process env).")
    terminated: bool = Field(default=False, description="The episode ended (final answer or "
                                                        "malformed action).")
    truncated: bool = Field(default=False, description="The step limit ended the episode.")
    world: str = Field(default="", description="The world this instance runs.")
    task_idx: int = Field(default=-1, description="The task's index in the world.")
    step: int = Field(default=0, description="Turns taken in this episode.")
    tools_text: str | None = Field(default=None, description=(
        "After a reset: the world's list_tools text (for the system prompt); None after a step."))
    info: dict[str, Any] = Field(default_factory=dict, description=(
        "The in-process env's info dict (verifier label, reward_valid, success, tool outcome, "
        "format_error, reward_components, ...; keys in awm_gym.info_keys)."))
    verdict: AWMVerdict | None = Field(default=None, description=(
        "How the episode came out, on the step that ends it (None before)."))


class AWMState(State):
    """Episode bookkeeping of one session (no side effect to read)."""

    world: str = Field(default="", description="The world served.")
    task_idx: int = Field(default=-1, description="The current episode's task (-1 before reset).")
    seed: int | None = Field(default=None, description="The seed of the current episode.")
    task: str = Field(default="", description="The current episode's task text.")
    episode_active: bool = Field(default=False, description="An episode is running (step allowed).")
    episodes: int = Field(default=0, description="Episodes started in this session.")
    last_reward: float | None = Field(default=None, description="The last step's reward.")
