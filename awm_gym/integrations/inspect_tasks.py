"""AWM worlds as Inspect AI tasks (``pip install "awm-gym[inspect]"``).

:func:`awm_task` is an Inspect ``Task``: one sample per task of a world, a split subset or a mix
(times ``seeds``), or one per seed ``seed .. seed+episodes-1`` with the task each seed picks, as
``World.evaluate`` does. Each sample opens an episode of the world in a batched runtime shared
by the process (contained like any world from disk; the built-ins run in-process), gives the
model the world's tools as Inspect tools, and lets it call them (``generate(tool_calls="loop")``)
until it replies without a tool call: that reply is the final answer, which the task's verifier
scores. Every tool call is one turn of the episode, so the tool calls and the world's replies are
the sample's messages and events in Inspect's log.

Two scorers read the episode's outcome:

* ``awm_verifier``: ``C`` when the verifier (or LLM judge) says complete, ``I`` otherwise
  (a wrong answer, a format error, the step limit); an episode the verifier could not score
  (crash, timeout, no verifier) is ``Score.unscored`` (NaN, left out of accuracy), never ``I``;
* ``awm_reward``: the env's reward (1.0 / 0.0, -1.0 for a format error), unscored likewise.

Each score's ``explanation`` is the label (``complete``, ``others``, ``format_error``,
``truncated``, ``verifier_error``, ...) and its ``metadata`` the world, task, seed, reward and
turns.

Run it by name (pyproject.toml registers this module as the ``awm_gym`` package's
``inspect_ai`` entry point; the task's arguments are ``-T``)::

    inspect eval awm_gym/awm_task --model openai-api/vllm/my-model \\
        -T worlds=spotify -T split=split.json -T subset=val_tasks

or from Python: ``inspect_ai.eval(awm_task(worlds="spotify"), model="...")``.

Example (Inspect's mock model, which answers at once: a wrong final answer):
    >>> from inspect_ai import eval as inspect_eval
    >>> from inspect_ai.model import ModelOutput, ModelUsage, get_model
    >>> def answer(messages, tools, tool_choice, config):
    ...     return ModelOutput.from_content("mockllm/model", "I cannot do this.")
    >>> import tempfile
    >>> [log] = inspect_eval(awm_task(worlds="spotify", task_indices=[0]), display="none",
    ...                      model=get_model("mockllm/model", custom_outputs=_with_usage(answer)),
    ...                      log_dir=tempfile.mkdtemp())
    >>> score = log.samples[0].scores["awm_verifier"]
    >>> score.value, score.explanation
    ('I', 'others')
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, NamedTuple

try:
    from inspect_ai import Task, task
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage
    from inspect_ai.scorer import CORRECT, INCORRECT, Score, Target, accuracy, mean, scorer, stderr
    from inspect_ai.solver import Generate, Solver, TaskState, solver
    from inspect_ai.tool import ToolDef, ToolParams
except ImportError as e:  # the one-line error that names the extra
    raise ImportError(f"awm_gym.integrations.inspect_tasks needs inspect-ai ({e}); install it "
                      "with pip install 'awm-gym[inspect]'.") from e

from awm_gym import info_keys as K
from awm_gym.errors import EnvUsageError
from awm_gym.integrations.episodes import (
    DEFAULT_INSTRUCTIONS,
    EpisodeHost,
    EpisodeResult,
    ToolEpisode,
    function_tools,
    shared_host,
)

__all__ = ["AWMTaskSettings", "awm_agent", "awm_reward", "awm_samples", "awm_task",
           "awm_verifier", "tool_params"]

OUTCOME_KEY = "awm"
"""The sample store key holding the episode's outcome (JSON: label, reward, ...)."""


class AWMTaskSettings(NamedTuple):
    """Which world(s) and tasks an :func:`awm_task` runs, and how.

    A ``NamedTuple``, not a dataclass: ``inspect eval FILE@awm_task`` executes this file as a
    module it does not put in ``sys.modules``, where a dataclass with string annotations fails.
    """

    worlds: tuple[str, ...] | None = None
    """The worlds (None: every world of the set)."""
    worlds_dir: str | None = None
    """The world set directory (or Hub id); None: the built-in worlds."""
    split: str | None = None
    """A split file (``awm split PATH``); with ``subset``, only that subset's tasks."""
    subset: str | None = None
    """``train`` | ``val_tasks`` | ``val_worlds`` of ``split``."""
    exclude: str | None = None
    """An exclusion file (``awm check --write-exclusions``): its tasks are never samples."""
    max_episode_steps: int | None = None
    """Turns before an episode is truncated (None: the env's default)."""
    capacity: int = 16
    """Instances of the shared runtime (samples that run at once)."""

    @property
    def env_kwargs(self) -> dict[str, Any]:
        """The ``gym.make_vec("AWM/mix-v0", ...)`` keyword arguments."""
        kwargs: dict[str, Any] = {"world_set": self.worlds_dir,
                                  "worlds": list(self.worlds) if self.worlds else None}
        for name in ("split", "subset", "exclude", "max_episode_steps"):
            if getattr(self, name) is not None:
                kwargs[name] = getattr(self, name)
        return kwargs

    def host(self) -> EpisodeHost:
        """The process's runtime for these settings."""
        return shared_host("AWM/mix-v0", self.capacity, self.env_kwargs)


# -- tools ------------------------------------------------------------------------------------


def _clean_schema(schema: Any, defs: Mapping[str, Any], depth: int = 0) -> Any:
    """A JSON Schema in the subset Inspect takes: ``$ref`` inlined, ``oneOf`` as ``anyOf``, a
    one-element ``allOf`` merged, ``const`` as a one-value ``enum``."""
    if depth > 32:  # a recursive $ref: stop expanding
        return {}
    if isinstance(schema, list):
        return [_clean_schema(s, defs, depth + 1) for s in schema]
    if not isinstance(schema, Mapping):
        return schema
    schema = dict(schema)
    ref = schema.pop("$ref", None)
    if isinstance(ref, str):
        target = defs.get(ref.rsplit("/", 1)[-1], {})
        schema = {**copy.deepcopy(target), **schema}
    schema.pop("$defs", None), schema.pop("definitions", None)
    if "oneOf" in schema:
        schema["anyOf"] = schema.pop("oneOf")
    all_of = schema.pop("allOf", None)
    if isinstance(all_of, list):
        for part in all_of:
            if isinstance(part, Mapping):
                schema = {**_clean_schema(part, defs, depth + 1), **schema}
    if "const" in schema:
        schema["enum"] = [schema.pop("const")]
    return {k: _clean_schema(v, defs, depth + 1) for k, v in schema.items()}


def tool_params(schema: Mapping[str, Any]) -> ToolParams:
    """A tool's input schema (as MCP lists it) as Inspect's ``ToolParams``.

    Example:
        >>> p = tool_params({"type": "object", "properties": {"x": {"$ref": "#/$defs/X"}},
        ...                  "required": ["x"], "$defs": {"X": {"type": "integer"}}})
        >>> p.properties["x"].type, p.required
        ('integer', ['x'])
    """
    defs = {**schema.get("definitions", {}), **schema.get("$defs", {})}
    clean = _clean_schema(schema, defs)
    return ToolParams(properties=clean.get("properties") or {},
                      required=list(clean.get("required") or []),
                      additionalProperties=bool(clean.get("additionalProperties", False)))


def _tool_defs(episode: ToolEpisode, host: EpisodeHost, tool_names: Sequence[str] | None,
               description_lines: int | None) -> list[ToolDef]:
    """The world's tools as Inspect tools that call the episode."""
    defs = []
    for spec in function_tools(host.tools(episode.world), tool_names, description_lines):
        fn = spec["function"]

        def bind(name: str) -> Callable[..., Any]:
            async def execute(**arguments: Any) -> str:
                return episode.call(name, arguments)
            return execute

        defs.append(ToolDef(bind(fn["name"]), name=fn["name"], description=fn["description"],
                            parameters=tool_params(fn["parameters"]),
                            max_output=0))  # the world's text, never cut by Inspect
    return defs


# -- dataset ----------------------------------------------------------------------------------


def awm_samples(settings: AWMTaskSettings, task_indices: Iterable[int] | None = None,
                seeds: Iterable[int] = (0,), episodes: int | None = None, seed: int = 0
                ) -> list[Sample]:
    """The samples of an :func:`awm_task`.

    Args:
        settings: the worlds, split subset and exclusions (they decide which tasks exist).
        task_indices: keep only these task indices of each world (None: all).
        seeds: one sample per task per seed (ids ``<world>/<task>`` with one seed,
            ``<world>/<task>/seed<seed>`` with several).
        episodes: instead, one sample per seed ``seed .. seed+episodes-1``, whose task the seed
            picks exactly as ``World.evaluate(episodes, seed=seed)`` does (ids ``seed<seed>``).
        seed: the first seed with ``episodes``.
    """
    host = settings.host()
    world_set = host.runtime.world_set
    out = []
    if episodes is not None:
        for s in range(seed, seed + episodes):
            episode = host.open(seed=s)  # the runtime's own choice for this seed
            episode.close()
            out.append(_sample(f"seed{s}", world_set[episode.world].tasks[episode.task_idx],
                               episode.world, episode.task_idx, s))
        return out
    keep = None if task_indices is None else set(task_indices)
    seeds = list(seeds)
    for world, t in host.runtime.tasks:
        if keep is None or t in keep:
            for s in seeds:
                sid = f"{world}/{t}" + (f"/seed{s}" if len(seeds) > 1 else "")
                out.append(_sample(sid, world_set[world].tasks[t], world, t, s))
    if not out:
        raise EnvUsageError(f"awm_task: no task left (task_indices={task_indices}); this "
                            f"selection has {len(host.runtime.tasks)} task(s).")
    return out


def _sample(sid: str, text: str, world: str, task_idx: int, seed: int) -> Sample:
    return Sample(id=sid, input=text, target="complete",
                  metadata={"world": world, "task_idx": task_idx, "seed": seed})


# -- solver and scorers -----------------------------------------------------------------------


@solver
def awm_agent(settings: AWMTaskSettings, tool_names: Sequence[str] | None = None,
              description_lines: int | None = 1) -> Solver:
    """Play the sample's episode: the world's tools in a tool-call loop until the model answers.

    The outcome (label, reward, scoring) goes to the sample's store under ``"awm"``; the
    instance goes back to the runtime when the sample ends, however it ends.
    """
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        host, meta = settings.host(), state.metadata
        episode = host.open(meta["task_idx"], meta["seed"], meta["world"])
        try:
            state.tools = [d.as_tool() for d in _tool_defs(episode, host, tool_names,
                                                           description_lines)]
            state = await generate(state, tool_calls="loop")
            message = state.output.message if state.output and state.output.choices else None
            answer = message.text if message is not None and not message.tool_calls else None
            episode.finish(answer)
        finally:
            result = episode.finish(None)  # already finished: the same result
            state.store.set(OUTCOME_KEY, _outcome(result, episode))
            episode.close()
        return state

    return solve


def _outcome(result: EpisodeResult, episode: ToolEpisode) -> dict[str, Any]:
    return {"label": result.label, "reward": result.reward, "reward_valid": result.reward_valid,
            "success": result.success, "world": episode.world, "task_idx": episode.task_idx,
            "seed": episode.seed, "turns": episode.turns,
            "error": result.info.get(K.VERIFIER_ERROR) or result.info.get(K.JUDGE_ERROR)}


def _unscored(outcome: Mapping[str, Any] | None) -> Score | None:
    if outcome is None:
        return Score.unscored(reason="the sample ended before its episode started")
    if not outcome["reward_valid"]:
        return Score.unscored(reason=f"{outcome['label']}: {outcome['error']}",
                              explanation=outcome["label"], metadata=dict(outcome))
    return None


@scorer(metrics=[accuracy(), stderr()])
def awm_verifier() -> Callable[[TaskState, Target], Any]:
    """``C`` when the task's verifier says complete, ``I`` otherwise; unscored when it could not
    score the episode. The explanation is the label."""
    async def score(state: TaskState, target: Target) -> Score:
        outcome = state.store.get(OUTCOME_KEY)
        unscored = _unscored(outcome)
        if unscored is not None:
            return unscored
        return Score(value=CORRECT if outcome["success"] else INCORRECT,
                     answer=state.output.completion if state.output else None,
                     explanation=outcome["label"], metadata=dict(outcome))

    return score


@scorer(metrics=[mean(), stderr()])
def awm_reward() -> Callable[[TaskState, Target], Any]:
    """The env's reward of the episode (1.0 / 0.0; -1.0 for a format error); unscored when the
    verifier could not score it."""
    async def score(state: TaskState, target: Target) -> Score:
        outcome = state.store.get(OUTCOME_KEY)
        unscored = _unscored(outcome)
        if unscored is not None:
            return unscored
        return Score(value=float(outcome["reward"]), explanation=outcome["label"])

    return score


# -- the task ---------------------------------------------------------------------------------


def _names(value: str | Sequence[str] | None) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):  # -T worlds=a,b
        return tuple(v.strip() for v in value.split(",") if v.strip())
    return tuple(value)


def _ints(value: int | str | Iterable[int] | None) -> list[int] | None:
    if value is None:
        return None
    if isinstance(value, int):
        return [value]
    if isinstance(value, str):
        return [int(v) for v in value.split(",") if v.strip()]
    return [int(v) for v in value]


@task
def awm_task(worlds: str | Sequence[str] | None = "spotify", worlds_dir: str | None = None,
             split: str | None = None, subset: str | None = None, exclude: str | None = None,
             task_indices: int | str | Sequence[int] | None = None,
             seeds: int | str | Sequence[int] = 0, episodes: int | None = None, seed: int = 0,
             tool_names: str | Sequence[str] | None = None, description_lines: int | None = 1,
             max_episode_steps: int | None = None, capacity: int = 16,
             instructions: str = DEFAULT_INSTRUCTIONS, message_limit: int | None = None) -> Task:
    """An AWM world (or a split subset, or a mix) as an Inspect task; see the module doc.

    Args:
        worlds: the world(s) (comma-separated from ``-T``); None: every world of the set.
        worlds_dir: the world set (directory or Hub id); None: the built-in worlds.
        split: a split file.
        subset: one of its subsets (``train``, ``val_tasks``, ``val_worlds``).
        exclude: an exclusion file; its tasks are never samples.
        task_indices: keep only these tasks of each world.
        seeds: one sample per task per seed.
        episodes: instead of ``seeds``, one sample per seed ``seed .. seed+episodes-1`` with the
            task the seed picks (as ``World.evaluate``).
        seed: the first of those seeds.
        tool_names: offer only these tools (None: all of the world's).
        description_lines: lines of each tool description kept (None: all; 1: the summary).
        max_episode_steps: turns before the episode is truncated (None: the env's default).
        capacity: episodes that run at once.
        instructions: the system message before each task.
        message_limit: Inspect's per-sample message limit (None: 4 per allowed turn + 10).
    """
    from inspect_ai.solver import system_message

    settings = AWMTaskSettings(_names(worlds), worlds_dir, split, subset, exclude,
                               max_episode_steps, capacity)
    samples = awm_samples(settings, _ints(task_indices), _ints(seeds) or [0], episodes, seed)
    steps = settings.host().config.max_episode_steps
    return Task(dataset=samples,
                solver=[system_message(instructions.replace("{", "{{").replace("}", "}}")),
                        awm_agent(settings, _names(tool_names), description_lines)],
                scorer=[awm_verifier(), awm_reward()],
                message_limit=message_limit or 4 * steps + 10,
                name="awm_task", metadata={"env_kwargs": json.dumps(settings.env_kwargs,
                                                                     default=str)})


def _with_usage(fn: Callable[..., ModelOutput]) -> Callable[..., ModelOutput]:
    """A mock model's output function whose outputs carry token usage (without it, Inspect's
    mock model counts tokens with a tiktoken file it downloads, which fails offline)."""
    def wrapped(*args: Any) -> ModelOutput:
        output = fn(*args)
        if output.usage is None:
            output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return output
    return wrapped
