"""AWM worlds as a ``verifiers`` environment, for ``vf-eval`` and prime-rl.

:class:`AWMToolEnv` is a ``vf.MultiTurnEnv``: each dataset row is one task of a world, the model
sees the world's tools as native (OpenAI-style) tool definitions taken from its catalogue, each
tool call it makes runs as one turn of an awm-gym episode, and an assistant message without a
tool call is the final answer. When the rollout ends, the episode is finished and scored by the
task's own verifier through the world's reward table; the rubric reports that reward (weight 1)
and, as metrics, ``success``, ``reward_valid`` and ``format_error``. A rollout that stops without
an answer (``max_turns``, the env's step limit) is ``truncated``: reward 0 by default.

``vf-eval`` loads environments by module name and calls their ``load_environment``::

    vf-eval awm_gym.integrations.verifiers -a '{"gym_id": "AWM/spotify-v0"}' \\
        -m my-model -b http://127.0.0.1:8000/v1 -n 10 -r 4

prime-rl's orchestrator takes the same module name and arguments.

Needs the ``verifiers`` extra (``pip install 'awm-gym[verifiers]'``: verifiers 0.3.x, the last
line whose ``mcp`` range admits the runtime's pinned ``mcp`` 1.26).

Example:
    >>> env = load_environment("AWM/spotify-v0", task_indices=[2], tool_names=["search_artists"])
    >>> len(env.eval_dataset), [t.name for t in env.tool_defs]
    (1, ['search_artists'])
    >>> env.host.close()
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Iterable, Sequence
from typing import Any

try:
    import verifiers as vf
except ImportError as e:  # an optional extra: say how to get it
    raise ImportError("awm_gym.integrations.verifiers needs the verifiers package: "
                      "pip install 'awm-gym[verifiers]'") from e

from awm_gym.errors import EnvUsageError
from awm_gym.integrations.episodes import (
    DEFAULT_INSTRUCTIONS,
    EpisodeHost,
    EpisodeResult,
    ToolEpisode,
    function_tools,
)

logger = logging.getLogger(__name__)

__all__ = ["AWMToolEnv", "load_environment", "task_rows"]

OUTCOME_KEY = "awm"
"""The state key where a finished rollout's outcome is stored (plain JSON, read by the rubric)."""


def task_rows(host: EpisodeHost, worlds: Sequence[str] | None = None,
              task_indices: Iterable[int] | None = None, seeds: Iterable[int] = (0,)
              ) -> list[dict[str, Any]]:
    """Dataset rows for ``host``'s worlds: one per (world, task, seed).

    Each row has ``question`` (the task text), ``answer`` (empty: the verifier judges) and
    ``info`` (JSON text with ``world``, ``task_idx``, ``seed``).
    """
    rows = []
    seeds = list(seeds)
    for world in worlds or host.worlds:
        count = host.task_count(world)
        indices = range(count) if task_indices is None else list(task_indices)
        tasks = host.runtime.world_set[world].tasks
        for k in indices:
            if not 0 <= k < count:
                raise EnvUsageError(f"task_indices: {k} is out of range; {world} has tasks "
                                    f"0..{count - 1}.")
            for seed in seeds:
                info = {"world": world, "task_idx": k, "seed": seed}
                rows.append({"question": tasks[k], "answer": "", "info": json.dumps(info)})
    return rows


class AWMToolEnv(vf.MultiTurnEnv):
    """A world's tasks as a multi-turn tool-use environment scored by the world's verifiers.

    Args:
        host: the runtime that plays the episodes (:class:`EpisodeHost`).
        rows: the dataset rows (:func:`task_rows`).
        tool_names: offer only these tools (None: all of the world's tools).
        description_lines: lines of each tool description to keep (None: all).
        system_prompt: the instructions before each task.
        max_turns: model turns per rollout (default: the env's step limit + 1 for the answer).
        **kwargs: passed to ``vf.MultiTurnEnv`` (``sampling_args``, ``timeout_seconds``, ...).
    """

    def __init__(self, host: EpisodeHost, rows: Sequence[dict[str, Any]],
                 tool_names: Sequence[str] | None = None, description_lines: int | None = None,
                 system_prompt: str = DEFAULT_INSTRUCTIONS, max_turns: int | None = None,
                 **kwargs: Any) -> None:
        from datasets import Dataset

        rows = [dict(r) for r in rows]  # the multi-world case adds each row's tools
        worlds = sorted({json.loads(r["info"])["world"] for r in rows})
        if len(worlds) != 1:  # each row carries its own world's tools
            for r in rows:
                info = json.loads(r["info"])
                info["tool_defs"] = _tool_defs(host, info["world"], tool_names,
                                               description_lines)
                r["info"] = json.dumps(info)
        tool_defs = (_tool_defs(host, worlds[0], tool_names, description_lines)
                     if len(worlds) == 1 else None)
        self.host = host
        self._episodes: dict[str, ToolEpisode] = {}
        rubric = vf.Rubric(funcs=[self.awm_reward], weights=[1.0])
        for metric in (self.success, self.reward_valid, self.format_error):
            rubric.add_metric(metric)
        super().__init__(eval_dataset=Dataset.from_list(list(rows)), system_prompt=system_prompt,
                         tool_defs=tool_defs, rubric=rubric,
                         max_turns=max_turns or host.config.max_episode_steps + 1, **kwargs)

    # -- the rollout -----------------------------------------------------------------------
    async def setup_state(self, state: vf.State) -> vf.State:
        info = state["info"]
        while not self.host.free:  # more rollouts in flight than instances: wait for one
            await asyncio.sleep(0.02)
        episode = self.host.open(task_idx=int(info["task_idx"]), seed=info.get("seed"),
                                 world=info["world"])
        self._episodes[state["trajectory_id"]] = episode
        return state

    async def env_response(self, messages: vf.Messages, state: vf.State,
                           **kwargs: Any) -> vf.Messages:
        episode = self._episodes[state["trajectory_id"]]
        tool_calls = getattr(messages[-1], "tool_calls", None) or []
        replies = []
        for call in tool_calls:
            text = episode.call(call.name, call.arguments)  # raw JSON text: the world parses it
            replies.append(vf.ToolMessage(role="tool", content=text, tool_call_id=call.id))
        if episode.is_done:  # a format error or the step limit: the model gets no more turns
            state["final_env_response"] = replies
        return replies

    @vf.stop
    async def answered(self, state: vf.State) -> bool:
        """The model replied without a tool call: that reply is the final answer."""
        if not state["trajectory"]:
            return False
        last = state["trajectory"][-1]["completion"][-1]
        return last.role == "assistant" and not getattr(last, "tool_calls", None)

    @vf.cleanup
    async def finish_episode(self, state: vf.State) -> None:
        """Score the episode with the task's verifier and give its instance back."""
        episode = self._episodes.pop(state["trajectory_id"], None)
        if episode is None:  # setup failed: nothing ran
            return
        try:
            result = episode.finish(_final_answer(state))
        finally:
            episode.close()
        state[OUTCOME_KEY] = {"reward": result.reward, "reward_valid": result.reward_valid,
                              "success": result.success, "label": result.label,
                              "turns": episode.turns}

    @vf.teardown
    async def close_host(self) -> None:
        self.host.close()

    # -- the rubric: reads what finish_episode stored --------------------------------------
    @staticmethod
    def _outcome(state: vf.State) -> EpisodeResult | None:
        o = state.get(OUTCOME_KEY)
        return None if o is None else EpisodeResult(o["reward"], o["reward_valid"],
                                                     o["success"], o["label"])

    async def awm_reward(self, state: vf.State) -> float:
        """The env's reward for the episode (the verifier's label through the reward table)."""
        result = self._outcome(state)
        return 0.0 if result is None else result.reward

    async def success(self, state: vf.State) -> float:
        """1.0 when the task's verifier said complete."""
        result = self._outcome(state)
        return float(result is not None and result.success)

    async def reward_valid(self, state: vf.State) -> float:
        """0.0 when the episode could not be scored (leave it out of statistics)."""
        result = self._outcome(state)
        return float(result is not None and result.reward_valid)

    async def format_error(self, state: vf.State) -> float:
        """1.0 when the episode ended on a malformed tool call."""
        result = self._outcome(state)
        return float(result is not None and result.label == "format_error")


def _tool_defs(host: EpisodeHost, world: str, names: Sequence[str] | None,
               description_lines: int | None) -> list[dict[str, Any]]:
    return [t["function"] for t in function_tools(host.tools(world), names, description_lines)]


def _final_answer(state: vf.State) -> str | None:
    """The last assistant message when it has no tool call; None otherwise (truncated)."""
    completion = state.get("completion") or []
    if not completion:
        return None
    last = completion[-1]
    if getattr(last, "role", None) != "assistant" or getattr(last, "tool_calls", None):
        return None
    content = getattr(last, "content", None)
    if isinstance(content, list):
        content = "".join(getattr(p, "text", "") or "" for p in content)
    return content or ""


def load_environment(gym_id: str = "AWM/spotify-v0", worlds: Sequence[str] | None = None,
                     task_indices: Sequence[int] | None = None, seeds: Sequence[int] = (0,),
                     tool_names: Sequence[str] | None = None,
                     description_lines: int | None = None, capacity: int = 64,
                     env_kwargs: dict[str, Any] | None = None, **kwargs: Any) -> AWMToolEnv:
    """The entry point ``vf-eval`` and prime-rl call: an :class:`AWMToolEnv` for ``env_id``.

    Args:
        gym_id: a registered Gymnasium id (``AWM/<world>-v0``, ``AWM/mix-v0``...); not
            ``env_id``, which verifiers' own loader takes for the module name.
        worlds: which of the id's worlds to use (None: all).
        task_indices: which tasks of each world (None: all).
        seeds: one row per seed per task (the seed moves the world's clock, not the task).
        tool_names: offer only these tools (None: every tool of the world).
        description_lines: lines of each tool description to keep (None: all).
        capacity: instances of the world; more concurrent rollouts wait for a free one.
        env_kwargs: :class:`awm_gym.EnvConfig` fields (``max_episode_steps``, ``rewards``...).
        **kwargs: passed to :class:`AWMToolEnv` (``system_prompt``, ``max_turns``...).
    """
    host = EpisodeHost(gym_id, capacity=capacity, **(env_kwargs or {}))
    rows = task_rows(host, worlds, task_indices, seeds)
    return AWMToolEnv(host, rows, tool_names=tool_names, description_lines=description_lines,
                      **kwargs)
