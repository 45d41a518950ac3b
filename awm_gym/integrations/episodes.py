"""Episodes of a world driven by native tool calls, as the bridges to TRL and verifiers need them.

Tool-calling loops that parse the model's native tool calls (TRL's ``environment_factory``, the
verifiers harness in :mod:`awm_gym.integrations.verifiers`) hand over a name and arguments.
:class:`EpisodeHost` keeps one batched runtime of a world (one template, one verifier pool) and
lends its instances to :class:`ToolEpisode` s, one per rollout. An episode turns each call into the
same ``<tool_call>`` action text an in-repo policy would write, so the world's own parser, tool
layer, step limit and verifier decide everything: an unknown tool is AWM's error text, malformed
arguments are a format error (reward -1), the step limit truncates (reward 0), and a final answer
is scored by the task's verifier.

Several tool calls in one assistant message (allowed by native tool calling) run one after the
other, each as one turn of the episode; AWM's text format runs only the first.

Example:
    >>> host = EpisodeHost("AWM/spotify-v0", capacity=2)
    >>> episode = host.open(task_idx=2, seed=0)
    >>> episode.task.startswith("Among the artists I follow")
    True
    >>> '"Kiro Nakamura"' in episode.call("list_followed_artists", {})
    True
    >>> result = episode.finish("Kiro Nakamura, with 5,410,000 monthly listeners.")
    >>> result.reward, result.label, result.success
    (1.0, 'complete', True)
    >>> episode.close(); host.close()
"""

from __future__ import annotations

import atexit
import difflib
import json
import logging
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym

from awm_gym import info_keys as K
from awm_gym.boundary import closing_on_error
from awm_gym.envs.protocol import Runtime, StepOutcome
from awm_gym.errors import EnvUsageError
from awm_gym.scoring import StepEnd, step_reward

logger = logging.getLogger(__name__)

__all__ = ["DEFAULT_INSTRUCTIONS", "EpisodeHost", "EpisodeResult", "ToolEpisode",
           "close_shared_hosts", "episode_result", "function_tools", "shared_host"]

DEFAULT_INSTRUCTIONS = (
    "You complete the user's task inside an app by calling its tools. The user is logged in; "
    "their user id is 1. Each tool's result comes back in the next message. When the task is "
    "done, reply with the final answer and no tool call.")
"""The system prompt the bridges put before each task (the tools come from the chat template)."""

TRUNCATED_LABEL = "truncated"
""":attr:`EpisodeResult.label` of an episode that ended without a final answer."""


def function_tools(tools: Sequence[Mapping[str, Any]], names: Sequence[str] | None = None,
                   description_lines: int | None = None) -> list[dict[str, Any]]:
    """A world's tools (as MCP lists them) as OpenAI function tools.

    Args:
        tools: ``{"name", "description", "inputSchema"}`` per tool (``Runtime.tools(world)``).
        names: keep only these tools, in this order (None: all of them). Small models need a
            short list: the spotify world's 63 tools take ~12k tokens of schema.
        description_lines: keep this many non-blank lines of each description (None: all; AWM's
            descriptions end with a response example, 1 keeps the summary line).

    Returns:
        ``[{"type": "function", "function": {"name", "description", "parameters"}}, ...]``,
        the input schema unchanged as ``parameters``.

    Raises:
        EnvUsageError: a name in ``names`` is not one of the world's tools.

    Example:
        >>> tools = [{"name": "ping", "description": "Ping it\\n\\nMore.",
        ...           "inputSchema": {"type": "object", "properties": {}}}]
        >>> function_tools(tools, description_lines=1)[0]["function"]["description"]
        'Ping it'
    """
    by_name = {t["name"]: t for t in tools}
    chosen = list(by_name) if names is None else list(names)
    for name in chosen:
        if name not in by_name:
            close = difflib.get_close_matches(name, list(by_name), n=1)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise EnvUsageError(f"tool_names: {name!r} is not a tool of this world.{hint} "
                                f"Its tools: {', '.join(sorted(by_name))}.")
    out = []
    for name in chosen:
        tool = by_name[name]
        description = tool.get("description") or ""
        if description_lines is not None:
            lines = [ln.strip() for ln in description.splitlines() if ln.strip()]
            description = "\n".join(lines[:description_lines])
        parameters = dict(tool.get("inputSchema") or {"type": "object", "properties": {}})
        parameters.setdefault("properties", {})
        out.append({"type": "function", "function": {
            "name": name, "description": description, "parameters": parameters}})
    return out


@dataclass(frozen=True, slots=True)
class EpisodeResult:
    """How an episode ended.

    Attributes:
        reward: the env's reward for the episode's last step (the reward table's ``unscored``
            value when ``reward_valid`` is False).
        reward_valid: False when the verifier could not score the episode (crash, timeout, no
            verifier): leave it out of statistics rather than count it as 0.
        success: the verifier (or judge) said the task is complete.
        label: the verifier's label, ``format_error``, or ``truncated`` (no final answer).
        info: the env's ``info`` of the last step.
    """

    reward: float
    reward_valid: bool
    success: bool
    label: str
    info: dict[str, Any] = field(default_factory=dict)


def episode_result(outcome: StepOutcome) -> EpisodeResult:
    """How the episode that ``outcome`` ended came out (its label, reward and scoring)."""
    info = outcome.info
    if info.get(K.FORMAT_ERROR):
        label = "format_error"
    elif K.VERIFIER_LABEL in info:
        label = str(info[K.VERIFIER_LABEL])
    else:
        label = TRUNCATED_LABEL if outcome.truncated else str(info.get(K.ACTION_KIND, "error"))
    return EpisodeResult(float(outcome.reward), bool(info.get(K.REWARD_VALID, True)),
                         bool(info.get(K.SUCCESS, False)), label, dict(info))


class ToolEpisode:
    """One rollout on one instance of an :class:`EpisodeHost`; see the module example.

    ``call`` runs a tool call and returns its observation text; ``finish`` gives the final answer
    (None when the rollout ended without one) and returns the :class:`EpisodeResult`. After the
    episode ended (a format error, the step limit, ``finish``), ``call`` answers with a note and
    runs nothing, and ``finish`` returns the same result again. ``close`` gives the instance back.
    """

    world: str
    task_idx: int
    seed: int | None
    task: str
    result: EpisodeResult | None

    def __init__(self, host: EpisodeHost, index: int, world: str, task_idx: int,
                 seed: int | None, task: str) -> None:
        self._host, self._index = host, index
        self.world, self.task_idx, self.seed, self.task = world, task_idx, seed, task
        self.result = None
        self.turns = 0

    def __repr__(self) -> str:
        state = "open" if self.result is None else self.result.label
        return f"ToolEpisode({self.world}, task_idx={self.task_idx}, turns={self.turns}, {state})"

    @property
    def is_done(self) -> bool:
        """True once the episode ended (no more tool calls run)."""
        return self.result is not None

    def call(self, tool: str, arguments: Mapping[str, Any] | str | None) -> str:
        """Run one tool call; returns the observation the model reads next.

        Args:
            tool: the tool name as the model wrote it.
            arguments: a JSON object, or the raw JSON text of one (what OpenAI-style tool calls
                carry); text that is not an object is the world parser's format error.
        """
        if self.result is not None:
            return (f"The episode has ended ({self.result.label}); no tool runs. Reply with "
                    "your final answer.")
        if arguments is None:
            arguments = {}
        raw = arguments if isinstance(arguments, str) else json.dumps(dict(arguments),
                                                                      ensure_ascii=False)
        action = f'<tool_call>{{"name": {json.dumps(tool)}, "arguments": {raw}}}</tool_call>'
        outcome = self._step(action)
        return outcome.observation

    def act(self, action: str) -> StepOutcome:
        """Run one turn of raw model text, as the in-process env takes it (``<tool_call>``
        blocks, AWM's ``list_tools`` / ``call_tool``, or a final answer when it calls no tool);
        text-in, text-out bridges (SkyRL) use this instead of :meth:`call`.

        Raises:
            EnvUsageError: the episode has already ended.
        """
        if self.result is not None:
            raise EnvUsageError(f"act() after the episode ended ({self.result.label}): open a "
                                "new episode.")
        return self._step(action)

    def finish(self, answer: str | None) -> EpisodeResult:
        """End the episode with ``answer`` as the final answer and score it.

        ``None`` (the rollout stopped without a final answer: a turn or token limit) ends it as
        truncated with the reward table's ``truncated`` reward. An answer the world reads as a
        tool call (a ``<tool_call>`` block the trainer's parser did not take) runs that call and
        then ends the episode as truncated: the rollout is over either way.
        """
        if self.result is None and answer is not None:
            self._step(answer)
        if self.result is None:
            end = step_reward(StepEnd.TRUNCATED, self._host.config.rewards)
            self.result = EpisodeResult(end.reward, bool(end.valid), False, TRUNCATED_LABEL,
                                        {K.WORLD: self.world, K.TASK_IDX: self.task_idx})
        return self.result

    def _step(self, action: str) -> StepOutcome:
        [outcome] = self._host.runtime.step([self._index], [action])
        self.turns += 1
        if outcome.terminated or outcome.truncated:
            self.result = episode_result(outcome)
        return outcome

    def close(self) -> None:
        """Give the instance back to the host (safe to call twice)."""
        if self._index >= 0:
            self._host._release(self._index)
            self._index = -1


class EpisodeHost:
    """A world's runtime with ``capacity`` instances, lent to episodes one at a time.

    Args:
        env_id: a registered id (``AWM/<world>-v0``, ``AWM/mix-v0``, or one of
            :func:`awm_gym.register_worlds`).
        capacity: the most episodes open at once (an instance is a small in-memory database).
        **env_kwargs: :class:`awm_gym.EnvConfig` fields, as ``gym.make`` takes them
            (``max_episode_steps``, ``rewards``, ...).
    """

    runtime: Runtime
    capacity: int

    def __init__(self, env_id: str = "AWM/spotify-v0", capacity: int = 64,
                 **env_kwargs: Any) -> None:
        if not isinstance(capacity, int) or capacity < 1:
            raise EnvUsageError(f"EpisodeHost(capacity={capacity!r}): need an int >= 1.")
        self.env_id, self.capacity = env_id, capacity
        self._envs = gym.make_vec(env_id, num_envs=capacity, **env_kwargs)
        self.runtime = self._envs.runtime
        self._free = list(range(capacity - 1, -1, -1))
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return (f"EpisodeHost({self.env_id}, capacity={self.capacity}, "
                f"open={self.capacity - len(self._free)})")

    @property
    def free(self) -> int:
        """How many instances are free for :meth:`open` now."""
        with self._lock:
            return len(self._free)

    @property
    def config(self) -> Any:
        """The :class:`awm_gym.EnvConfig` the instances run with."""
        return self.runtime.config

    @property
    def worlds(self) -> tuple[str, ...]:
        """The worlds this host's env id covers."""
        return tuple(self.runtime.worlds)

    def tools(self, world: str | None = None) -> list[dict[str, Any]]:
        """``world``'s tools as MCP lists them (the only world when None)."""
        return self.runtime.tools(world or self._only_world())

    def task_count(self, world: str | None = None) -> int:
        """How many tasks ``world`` has (the only world when None)."""
        return len(self.runtime.world_set[world or self._only_world()].tasks)

    def task_indices(self, world: str | None = None) -> tuple[int, ...]:
        """The task indices of ``world`` (the only world when None) this host may open: every
        task, less those outside its split subset and those its ``exclude=`` file excludes."""
        name = world or self._only_world()
        return tuple(t for w, t in self.runtime.tasks if w == name)

    def _only_world(self) -> str:
        if len(self.worlds) != 1:
            raise EnvUsageError(f"{self.env_id} has {len(self.worlds)} worlds; name one of "
                                f"{', '.join(self.worlds)}.")
        return self.worlds[0]

    def open(self, task_idx: int | None = None, seed: int | None = None,
             world: str | None = None) -> ToolEpisode:
        """Start an episode: the seed picks the task unless ``task_idx`` (and ``world``) pin it.

        Raises:
            EnvUsageError: every instance holds an open episode, or the task does not exist.
        """
        with self._lock:
            if not self._free:
                raise EnvUsageError(
                    f"EpisodeHost(capacity={self.capacity}): all instances hold open episodes. "
                    "Close finished ones (episode.close()) or create the host with a larger "
                    "capacity.")
            index = self._free.pop()
        with closing_on_error(lambda: self._release(index)):
            [(task, info)] = self.runtime.reset([index], [seed], [task_idx], [world])
        return ToolEpisode(self, index, str(info[K.WORLD]), int(info[K.TASK_IDX]), seed, task)

    def _release(self, index: int) -> None:
        with self._lock:
            if index not in self._free:
                self._free.append(index)

    def close(self) -> None:
        """Close the runtime and its verifier pool (safe to call twice)."""
        self._envs.close()


_SHARED: dict[str, EpisodeHost] = {}
"""One host per (env id, capacity, env kwargs) in this process, for bridges whose rollouts are
built from plain data (a SkyRL dataset row, an Inspect sample) and must find their runtime."""
_SHARED_LOCK = threading.Lock()


def shared_host(env_id: str = "AWM/spotify-v0", capacity: int = 64,
                env_kwargs: Mapping[str, Any] | None = None) -> EpisodeHost:
    """The process's :class:`EpisodeHost` for these settings, built on first use and closed at
    exit (:func:`close_shared_hosts`).

    Example:
        >>> shared_host("AWM/spotify-v0", 2) is shared_host("AWM/spotify-v0", 2)
        True
    """
    key = json.dumps([env_id, capacity, dict(env_kwargs or {})], sort_keys=True, default=str)
    with _SHARED_LOCK:
        if key not in _SHARED:
            _SHARED[key] = EpisodeHost(env_id, capacity=capacity, **dict(env_kwargs or {}))
        return _SHARED[key]


@atexit.register
def close_shared_hosts() -> None:
    """Close every host :func:`shared_host` built (their verifier workers); safe to repeat."""
    while _SHARED:
        _SHARED.popitem()[1].close()
