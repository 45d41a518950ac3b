"""AWM worlds as a ``verifiers`` (0.4, ``verifiers.v1``) taskset, for ``vf-eval`` and prime-rl.

verifiers 0.4 splits an environment into a *taskset* (tasks and their scoring), a *harness*
(the program that runs the model's loop) and an *env* (how agents meet a task; the plain case is
``SingleAgentEnv``). This module holds AWM's taskset and harness; verifiers finds them by the
taskset id ``awm-gym-verifiers`` (the top-level package ``awm_gym_verifiers`` re-exports them):

- :class:`AWMTaskset` yields one :class:`AWMTask` per (world, task, seed) of a Gymnasium id.
- :class:`AWMHarness` runs the tool loop in-process (verifiers allows that as long as every model
  call goes through the rollout's interception endpoint): the model sees the world's tools as
  native OpenAI function tools from its catalogue, each tool call it makes runs as one turn of an
  awm-gym episode, an assistant message without a tool call is the final answer. The episode is
  then finished and scored by the task's own verifier through the world's reward table, and its
  outcome is kept in ``trace.info["awm"]``.
- :class:`AWMTask` scores from that outcome: the reward ``awm_reward`` (the env's reward, weight
  1) and the metrics ``success``, ``reward_valid`` and ``format_error``. A rollout that stops
  without an answer (the step limit, ``max_turns``) is ``truncated``: reward 0 by default.

``vf-eval`` takes the taskset id and the taskset's fields as flags::

    vf-eval awm-gym-verifiers --env.taskset.gym-id AWM/spotify-v0 \\
        --env.agent.runtime.type subprocess -m my-model \\
        --client.base-url http://127.0.0.1:8000/v1 --client.api-key-var OPENAI_API_KEY --no-push

(``subprocess``: verifiers' default runtime is a remote sandbox, and this harness needs none.)

prime-rl's orchestrator takes the same taskset id and config.

Needs the ``verifiers`` extra (``pip install 'awm-gym[verifiers]'``: verifiers 0.4.x).

Example:
    >>> taskset = AWMTaskset(AWMTasksetConfig(id=TASKSET_ID, task_indices=[2]))
    >>> [(t.data.world, t.data.task_idx, t.data.seed) for t in taskset]
    [('spotify', 2, 0)]
    >>> close_hosts()
"""

from __future__ import annotations

import asyncio
import atexit
import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import Field

try:
    import verifiers.v1 as vf
except ImportError as e:  # an optional extra (0.4's API lives in verifiers.v1): say how to get it
    raise ImportError("awm_gym.integrations.verifiers needs verifiers 0.4.x: "
                      "pip install 'awm-gym[verifiers]'") from e

from verifiers.v1.configs.cli.eval import EvalConfig

from awm_gym.errors import EnvUsageError
from awm_gym.integrations.episodes import (
    DEFAULT_INSTRUCTIONS,
    EpisodeHost,
    EpisodeResult,
    function_tools,
)

logger = logging.getLogger(__name__)

__all__ = ["AWMHarness", "AWMHarnessConfig", "AWMTask", "AWMTaskData", "AWMTaskset",
           "AWMTasksetConfig", "close_hosts", "eval_config", "host_for"]

TASKSET_ID = "awm-gym-verifiers"
"""The taskset id verifiers loads (the top-level package awm_gym_verifiers, which re-exports
this module's taskset and harness: verifiers resolves ids to top-level modules only)."""

OUTCOME_KEY = "awm"
"""The ``trace.info`` key where a finished rollout's outcome is stored (plain JSON)."""


class AWMTaskData(vf.TaskData):
    """One task of a world: which runtime plays it and how the tools are shown."""

    gym_id: str
    """The registered Gymnasium id whose runtime plays the task."""
    world: str
    task_idx: int
    seed: int = 0
    """Moves the world's clock, not the task."""
    tool_names: list[str] | None = None
    """Offer only these tools (None: all of the world's tools)."""
    description_lines: int | None = None
    """Lines of each tool description to keep (None: all)."""
    capacity: int = 64
    env_kwargs: dict[str, Any] = Field(default_factory=dict)
    """:class:`awm_gym.EnvConfig` fields (``max_episode_steps``, ``rewards``...)."""


class AWMTasksetConfig(vf.TasksetConfig):
    """Which tasks of which worlds, and how the runtime plays them."""

    gym_id: str = "AWM/spotify-v0"
    """A registered Gymnasium id (``AWM/<world>-v0``, ``AWM/mix-v0``...)."""
    worlds: list[str] | None = None
    """Which of the id's worlds to use (None: all)."""
    task_indices: list[int] | None = None
    """Which tasks of each world (None: all); tasks excluded by ``env_kwargs["exclude"]`` (an
    exclusion file of ``awm check --write-exclusions``) are left out either way."""
    seeds: list[int] = Field(default_factory=lambda: [0])
    """One task per seed per task index."""
    tool_names: list[str] | None = None
    """Offer only these tools (None: every tool of the world; spotify's 63 take ~12k tokens)."""
    description_lines: int | None = None
    """Lines of each tool description to keep (None: all; 1 keeps the summary line)."""
    capacity: int = 64
    """Instances of the world; more concurrent rollouts wait for a free one."""
    env_kwargs: dict[str, Any] = Field(default_factory=dict)
    """:class:`awm_gym.EnvConfig` fields (``max_episode_steps``, ``rewards``...)."""
    system_prompt_text: str = DEFAULT_INSTRUCTIONS
    """The instructions before each task."""


_HOSTS: dict[str, EpisodeHost] = {}
"""One runtime per (gym id, capacity, env kwargs) in this process: tasks are plain data on the
wire, so the harness finds its runtime here."""


def host_for(gym_id: str, capacity: int = 64, env_kwargs: dict[str, Any] | None = None
             ) -> EpisodeHost:
    """The process's :class:`EpisodeHost` for these settings (built on first use)."""
    key = json.dumps([gym_id, capacity, env_kwargs or {}], sort_keys=True)
    if key not in _HOSTS:
        _HOSTS[key] = EpisodeHost(gym_id, capacity=capacity, **(env_kwargs or {}))
    return _HOSTS[key]


@atexit.register
def close_hosts() -> None:
    """Close every runtime :func:`host_for` built (their verifier workers); safe to repeat."""
    while _HOSTS:
        _HOSTS.popitem()[1].close()


def _outcome(trace: vf.Trace) -> EpisodeResult | None:
    o = trace.info.get(OUTCOME_KEY)
    return None if o is None else EpisodeResult(o["reward"], o["reward_valid"], o["success"],
                                                o["label"])


class AWMTask(vf.Task[AWMTaskData]):
    """Scores a rollout from the outcome :class:`AWMHarness` stored on its trace."""

    @vf.reward
    async def awm_reward(self, trace: vf.Trace) -> float:
        """The env's reward for the episode (the verifier's label through the reward table)."""
        result = _outcome(trace)
        return 0.0 if result is None else result.reward

    @vf.metric
    async def success(self, trace: vf.Trace) -> float:
        """1.0 when the task's verifier said complete."""
        result = _outcome(trace)
        return float(result is not None and result.success)

    @vf.metric
    async def reward_valid(self, trace: vf.Trace) -> float:
        """0.0 when the episode could not be scored (leave it out of statistics)."""
        result = _outcome(trace)
        return float(result is not None and result.reward_valid)

    @vf.metric
    async def format_error(self, trace: vf.Trace) -> float:
        """1.0 when the episode ended on a malformed tool call."""
        result = _outcome(trace)
        return float(result is not None and result.label == "format_error")


class AWMTaskset(vf.Taskset[AWMTask, AWMTasksetConfig]):
    """One :class:`AWMTask` per (world, task, seed) of ``config.gym_id``."""

    def load(self) -> Iterator[AWMTask]:
        c = self.config
        host = host_for(c.gym_id, c.capacity, c.env_kwargs)
        for world in c.worlds or host.worlds:
            count = host.task_count(world)
            tasks = host.runtime.world_set[world].tasks
            allowed = host.task_indices(world)  # without excluded tasks (exclude=FILE)
            indices = allowed if c.task_indices is None else c.task_indices
            for k in indices:
                if not 0 <= k < count:
                    raise EnvUsageError(f"task_indices: {k} is out of range; {world} has "
                                        f"tasks 0..{count - 1}.")
                if k not in allowed:
                    continue
                for seed in c.seeds:
                    yield AWMTask(AWMTaskData(
                        name=f"{world}/{k}/{seed}", prompt=tasks[k],
                        system_prompt=c.system_prompt_text, gym_id=c.gym_id, world=world,
                        task_idx=k, seed=seed, tool_names=c.tool_names,
                        description_lines=c.description_lines, capacity=c.capacity,
                        env_kwargs=c.env_kwargs), c.task)


class AWMHarnessConfig(vf.HarnessConfig):
    """The in-process tool loop has no settings of its own (turn limits: the env's step limit,
    ``--env.agent.max-turns``)."""


class AWMHarness(vf.Harness[AWMHarnessConfig]):
    """Plays one :class:`AWMTask` in-process: model calls through the interception endpoint,
    tool calls into an awm-gym episode, the final answer to the task's verifier."""

    APPENDS_SYSTEM_PROMPT = True
    EXECUTES_CODE = False  # the world's tools run in awm-gym's runtime, not the model's shell
    NEEDS_CONTAINER = False

    async def launch(self, ctx: vf.ModelContext, trace: vf.Trace, runtime: vf.Runtime,
                     endpoint: str, secret: str, mcp_urls: dict[str, str],
                     data: vf.TaskData) -> vf.ProgramResult:
        """Play ``trace``'s task to its end; the outcome goes to ``trace.info["awm"]``."""
        from openai import APIStatusError, AsyncOpenAI

        task = trace.task.data
        if not isinstance(task, AWMTaskData):
            task = AWMTaskData.model_validate(task.model_dump())
        host = host_for(task.gym_id, task.capacity, task.env_kwargs)
        tools = function_tools(host.tools(task.world), task.tool_names, task.description_lines)
        while not host.free:  # more rollouts in flight than instances: wait for one
            await asyncio.sleep(0.02)
        episode = host.open(task_idx=task.task_idx, seed=task.seed, world=task.world)
        messages: list[dict[str, Any]] = [{"role": "system", "content": task.system_prompt},
                                          {"role": "user", "content": task.prompt_text}]
        answer = None
        try:
            async with AsyncOpenAI(base_url=endpoint, api_key=secret, max_retries=0) as client:
                while not episode.is_done:
                    try:
                        response = await client.chat.completions.create(
                            model=ctx.model, messages=messages, tools=tools)
                    except APIStatusError:
                        if trace.stop_condition is None:
                            raise  # the model server's error: verifiers records it
                        break  # a stop refused the turn (--env.agent.max-turns): truncated
                    message = response.choices[0].message
                    messages.append(message.model_dump(exclude_none=True))
                    if not message.tool_calls:
                        answer = message.content or ""
                        break
                    for call in message.tool_calls:
                        # raw JSON text: the world parses it (a bad one is a format error)
                        text = episode.call(call.function.name, call.function.arguments)
                        messages.append({"role": "tool", "tool_call_id": call.id,
                                         "content": text})
                        if episode.is_done:
                            break
            result = episode.finish(answer)
        finally:
            episode.close()
        trace.info[OUTCOME_KEY] = {"reward": result.reward, "reward_valid": result.reward_valid,
                                   "success": result.success, "label": result.label,
                                   "turns": episode.turns}
        return vf.ProgramResult(exit_code=0, stdout="", stderr="")


def eval_config(model: str, base_url: str, api_key_var: str, num_rollouts: int = 1,
                output_dir: str | Path = "outputs", max_turns: int | None = None,
                **taskset: Any) -> EvalConfig:
    """A ``vf-eval`` run config for this taskset, as ``vf-eval`` builds it from its flags;
    ``verifiers.v1.cli.eval.runner.run_eval(config)`` runs it and returns the episodes.

    Args:
        model: the model name the server serves.
        base_url: its OpenAI-compatible URL (``http://127.0.0.1:8000/v1``).
        api_key_var: the environment variable holding its key.
        num_rollouts: rollouts per task (``-r``).
        output_dir: where the run writes its traces (``-o``).
        max_turns: model turns per rollout (``--env.agent.max-turns``; None: until the env's
            step limit or the answer). A rollout cut by it is ``truncated``.
        **taskset: :class:`AWMTasksetConfig` fields (``gym_id``, ``task_indices``...).
    """
    return EvalConfig.model_validate({
        "model": model, "num_rollouts": num_rollouts, "output_dir": str(output_dir),
        "push": False, "rich": None,
        "client": {"base_url": base_url, "api_key_var": api_key_var},
        "env": {"taskset": {"id": TASKSET_ID, **taskset},
                "agent": {"runtime": {"type": "subprocess"}, "max_turns": max_turns}},
    })
