"""Train on AWM worlds with TRL's ``GRPOTrainer`` through its ``environment_factory``.

TRL (>= 1.0) runs the tool-calling loop itself: it renders the environment's public methods as
tools with the chat template, parses the tool calls the model writes, calls the methods and puts
their results back into the conversation. This module gives it what it asks for:

* :func:`make_environment` builds an environment class for one world: a ``reset(**row)`` that
  starts an episode of the row's task and returns the task text (TRL appends it to the user
  message), and one method per tool of the world, with the tool's name, description and argument
  types (its JSON schema read back into Python type hints, which is how TRL and ``transformers``
  describe tools to a chat template). The class itself is the zero-argument factory.
* :func:`task_dataset` lists the tasks to train on (a system prompt and an empty user message to
  which TRL appends the task; ``task_idx``, ``seed``, ``world`` and ``environment`` columns).
* :func:`awm_reward` is the reward function: each rollout's last assistant message is the final
  answer, scored by the task's verifier through the world's reward table. A rollout that ended
  without one (turn or token limit) gets the ``truncated`` reward; an unscored episode (the
  verifier crashed, timed out or is missing) returns None, which TRL turns into NaN and leaves out
  of the group's statistics.

Nothing here imports ``trl`` or ``torch``: TRL finds the tools by inspecting the class. Calls run
in the trainer's process on one :class:`~awm_gym.integrations.episodes.EpisodeHost` per class
(one template database, one verifier pool), whatever number of instances TRL creates.

Example:
    >>> Env = make_environment("AWM/spotify-v0", tool_names=["list_followed_artists"])
    >>> env = Env()
    >>> env.reset(task_idx=2, seed=0).startswith("Among the artists I follow")
    True
    >>> "Kiro Nakamura" in env.list_followed_artists()
    True
    >>> completion = [{"role": "assistant", "content": "Kiro Nakamura: 5,410,000."}]
    >>> awm_reward(completions=[completion], environments=[env])
    [1.0]
    >>> Env.host.close()
"""

from __future__ import annotations

import inspect
import keyword
import logging
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal

from awm_gym.errors import EnvUsageError
from awm_gym.integrations.episodes import (
    DEFAULT_INSTRUCTIONS,
    EpisodeHost,
    EpisodeResult,
    ToolEpisode,
    function_tools,
)

logger = logging.getLogger(__name__)

__all__ = ["AWMToolEnvironment", "awm_reward", "make_environment", "reference_conversation",
           "task_dataset", "tool_methods"]

_RESERVED = frozenset({"reset", "get_reward"})
"""Method names TRL treats specially: a tool with one of these names cannot be a method."""
_JSON_TYPES: dict[str, type] = {"string": str, "integer": int, "number": float,
                                "boolean": bool, "array": list, "object": dict}


class AWMToolEnvironment:
    """Base of the classes :func:`make_environment` builds (one per world).

    TRL calls ``reset(**row)`` before each rollout and the public methods as tools; everything
    else is private, since TRL would offer any other public method to the model as a tool.
    """

    host: EpisodeHost
    """The host that runs this class's episodes (shared by every instance)."""
    world: str
    """The world this class's tools belong to."""

    def __init__(self) -> None:
        self._episode: ToolEpisode | None = None

    def reset(self, task_idx: int | None = None, seed: int | None = None,
              world: str | None = None, **_row: Any) -> str:
        """Start an episode of the row's task (the seed picks one when ``task_idx`` is None)
        and return the task text; the other columns of the row are not used."""
        if world is not None and world != self.world:
            raise EnvUsageError(f"reset(world={world!r}) on {type(self).__name__}, whose world "
                                f"is {self.world!r}: route rows to their world's class with a "
                                "dict environment_factory and the dataset's 'environment' column.")
        self._close_episode()
        self._episode = self.host.open(task_idx=task_idx, seed=seed, world=self.world)
        return self._episode.task

    def _call(self, tool: str, arguments: Mapping[str, Any]) -> str:
        if self._episode is None:
            raise EnvUsageError(f"{type(self).__name__}.{tool}() before reset(): TRL resets "
                                "each environment before its rollout; call reset(...) first.")
        return self._episode.call(tool, arguments)

    def _finish(self, answer: str | None) -> EpisodeResult:
        if self._episode is None:
            raise EnvUsageError(f"awm_reward on a {type(self).__name__} that was never reset.")
        return self._episode.finish(answer)

    def _close_episode(self) -> None:
        if self._episode is not None:
            self._episode.close()
            self._episode = None

    def __del__(self) -> None:
        self._close_episode()


def _python_type(schema: Mapping[str, Any]) -> Any:
    """The Python type hint that ``transformers.get_json_schema`` turns back into ``schema``."""
    if schema.get("enum") and all(isinstance(v, (str, int, float, bool)) for v in schema["enum"]):
        return Literal[tuple(schema["enum"])]
    kind = schema.get("type")
    if kind is None:  # pydantic writes Optional[X] as anyOf [X, null]
        kinds = [s for s in schema.get("anyOf", []) if s.get("type") not in (None, "null")]
        if len(kinds) == 1:
            return _python_type(kinds[0])
        return str if not kinds else _python_type(kinds[0])
    if isinstance(kind, list):
        kinds = [k for k in kind if k != "null"]
        kind = kinds[0] if kinds else "string"
    if kind == "array" and isinstance(schema.get("items"), Mapping):
        return list[_python_type(schema["items"])]  # type: ignore[misc] - built at run time
    return _JSON_TYPES.get(kind, str)


def _one_line(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _tool_method(spec: Mapping[str, Any]) -> Callable[..., str] | None:
    """A method that runs tool ``spec`` (an OpenAI function tool), with the signature and
    Google-style docstring TRL reads; None (and a warning) when Python cannot name it."""
    name = spec["name"]
    schema = spec["parameters"]
    if not name.isidentifier() or keyword.iskeyword(name) or name in _RESERVED \
            or name.startswith("_"):
        logger.warning("tool %r cannot be a Python method name; TRL will not offer it", name)
        return None
    required = set(schema.get("required") or [])
    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    annotations: dict[str, Any] = {"return": str}
    arg_lines = []
    for arg, prop in (schema.get("properties") or {}).items():
        if not arg.isidentifier() or keyword.iskeyword(arg):
            logger.warning("tool %r: argument %r cannot be a Python parameter; TRL will not "
                           "offer the tool", name, arg)
            return None
        hint = _python_type(prop)
        default = inspect.Parameter.empty if arg in required else None
        params.append(inspect.Parameter(arg, inspect.Parameter.KEYWORD_ONLY, default=default,
                                        annotation=hint))
        annotations[arg] = hint
        described = prop.get("description") or prop.get("title") or arg
        arg_lines.append(f"    {arg}: {_one_line(described)}")

    def method(self: AWMToolEnvironment, **arguments: Any) -> str:
        return self._call(name, arguments)

    description = spec.get("description") or name
    method.__name__ = method.__qualname__ = name
    method.__doc__ = description + ("\n\nArgs:\n" + "\n".join(arg_lines) if arg_lines else "")
    # keyword-only, so required and optional arguments keep the schema's order
    method.__signature__ = inspect.Signature(  # type: ignore[attr-defined] - read by inspect
        params, return_annotation=str)
    method.__annotations__ = annotations
    return method


def make_environment(env_id: str = "AWM/spotify-v0", *, world: str | None = None,
                     tool_names: Sequence[str] | None = None, description_lines: int | None = 1,
                     capacity: int = 64, **env_kwargs: Any) -> type[AWMToolEnvironment]:
    """An environment class for TRL's ``GRPOTrainer(environment_factory=...)``.

    Args:
        env_id: a registered id (``AWM/<world>-v0``; for ``AWM/mix-v0`` name the ``world``).
        world: the world whose tools the class offers (the env id's only world when None).
        tool_names: offer only these tools (None: every tool). The tools' schemas go into every
            prompt, so small models need a short list.
        description_lines: lines of each tool description to keep (None: all; AWM's end with a
            response example).
        capacity: the most rollouts in flight at once (TRL keeps one instance per rollout).
        **env_kwargs: :class:`awm_gym.EnvConfig` fields (``max_episode_steps``, ``rewards``...).

    Returns:
        A subclass of :class:`AWMToolEnvironment` with one method per tool; its ``host``
        attribute owns the runtime (``Env.host.close()`` when training is over).
    """
    host = EpisodeHost(env_id, capacity=capacity, **env_kwargs)
    world = world or host._only_world()
    if world not in host.worlds:
        host.close()
        raise EnvUsageError(f"make_environment(world={world!r}): not a world of {env_id} "
                            f"({', '.join(host.worlds)}).")
    namespace: dict[str, Any] = {"host": host, "world": world, "__module__": __name__,
                                 "__doc__": f"The {world} world's tools, for TRL."}
    for spec in function_tools(host.tools(world), tool_names, description_lines):
        method = _tool_method(spec["function"])
        if method is not None:
            namespace[method.__name__] = method
    return type(f"AWMEnvironment_{world}", (AWMToolEnvironment,), namespace)


def task_dataset(environment: type[AWMToolEnvironment], task_indices: Iterable[int] | None = None,
                 seeds: Iterable[int] = (0,), instructions: str = DEFAULT_INSTRUCTIONS) -> Any:
    """The training rows for ``environment``'s world: one per (task, seed).

    Each row's ``prompt`` is a system message with ``instructions`` and an empty user message
    (``reset`` returns the task and TRL appends it there); ``task_idx``, ``seed``, ``world`` and
    ``environment`` (the world, for a dict ``environment_factory``) go to ``reset``. Tasks the
    host may not open (excluded by its ``exclude=`` file, or outside its split subset) are left
    out, and how many is logged.

    Returns:
        A ``datasets.Dataset``.

    Example:
        >>> Env = make_environment("AWM/spotify-v0", tool_names=["search_artists"])
        >>> rows = task_dataset(Env, task_indices=[0, 2], seeds=range(2))
        >>> len(rows), rows[1]["task_idx"], rows[1]["seed"]
        (4, 0, 1)
        >>> Env.host.close()
    """
    from datasets import Dataset

    world = environment.world
    count = environment.host.task_count(world)
    allowed = environment.host.task_indices(world)  # without excluded tasks (exclude=FILE)
    indices = list(allowed) if task_indices is None else list(task_indices)
    for k in indices:
        if not 0 <= k < count:
            raise EnvUsageError(f"task_dataset(task_indices=...): {k} is out of range; "
                                f"{world} has tasks 0..{count - 1}.")
    indices = [k for k in indices if k in allowed]
    if count > len(allowed):
        logger.info("task_dataset(%s): %d of %d tasks left out (excluded or outside the split "
                    "subset)", world, count - len(allowed), count)
    prompt = [{"role": "system", "content": instructions}, {"role": "user", "content": ""}]
    rows = [{"prompt": prompt, "task_idx": k, "seed": s, "world": world, "environment": world}
            for k in indices for s in seeds]
    return Dataset.from_list(rows)


def tool_methods(environment: AWMToolEnvironment) -> list[Callable[..., str]]:
    """The environment's tools as TRL offers them: its public methods but ``reset``, by name.

    Pass them as ``tools=`` to ``tokenizer.apply_chat_template`` to render a prompt as TRL does.
    """
    return [getattr(environment, name) for name, _ in
            inspect.getmembers(type(environment), predicate=inspect.isfunction)
            if not name.startswith("_") and name not in _RESERVED]


def reference_conversation(environment: type[AWMToolEnvironment], task_idx: int, seed: int = 0,
                           instructions: str = DEFAULT_INSTRUCTIONS) -> list[dict[str, Any]]:
    """A task's reference solution (``gen_solutions.jsonl``) played in the world, as the chat
    messages of a TRL rollout: system, user (the task), then per call an assistant message with
    ``tool_calls`` and the tool's real result, then the final answer. Render it with the
    tokenizer (``tools=tool_methods(...)``) for a supervised warm start before GRPO.

    Raises:
        EnvUsageError: the task has no reference solution.

    Example:
        >>> Env = make_environment("AWM/spotify-v0", tool_names=["list_followed_artists"])
        >>> messages = reference_conversation(Env, task_idx=2)
        >>> [m["role"] for m in messages]
        ['system', 'user', 'assistant', 'tool', 'assistant']
        >>> messages[2]["tool_calls"][0]["function"]
        {'name': 'list_followed_artists', 'arguments': {}}
        >>> Env.host.close()
    """
    world = environment.host.runtime.world_set[environment.world]
    solution = world.solutions[task_idx] if 0 <= task_idx < len(world.solutions) else None
    if solution is None:
        raise EnvUsageError(f"reference_conversation: task {task_idx} of {environment.world} "
                            "has no reference solution (gen_solutions.jsonl).")
    env = environment()
    try:
        task = env.reset(task_idx=task_idx, seed=seed)
        messages: list[dict[str, Any]] = [{"role": "system", "content": instructions},
                                          {"role": "user", "content": task}]
        for call in solution.calls:
            arguments = dict(call.arguments)
            messages.append({"role": "assistant", "content": "", "tool_calls": [
                {"type": "function", "function": {"name": call.tool, "arguments": arguments}}]})
            messages.append({"role": "tool", "name": call.tool,
                             "content": env._call(call.tool, arguments)})
        messages.append({"role": "assistant", "content": solution.final_answer or "Done."})
    finally:
        env._close_episode()
    return messages


def _final_answer(completion: Any) -> str | None:
    """The final answer in a TRL completion: the last message, when the assistant wrote it
    without a tool call; None when the rollout stopped on a tool call or a tool result."""
    if isinstance(completion, str):
        return completion
    if not completion:
        return None
    last = completion[-1]
    if last.get("role") != "assistant" or last.get("tool_calls"):
        return None
    content = last.get("content")
    if isinstance(content, list):  # content parts
        content = "".join(p.get("text", "") for p in content if isinstance(p, Mapping))
    return content or ""


def awm_reward(completions: Sequence[Any], environments: Sequence[AWMToolEnvironment],
               log_metric: Callable[[str, float], None] | None = None,
               **_columns: Any) -> list[float | None]:
    """TRL reward function: score each rollout's final answer with its task's verifier.

    Args:
        completions: TRL's completions, one list of messages per rollout.
        environments: TRL's per-rollout environments (the ``environments`` keyword TRL passes).
        log_metric: TRL's metric logger; logs ``awm/success`` and ``awm/unscored`` when given.

    Returns:
        One reward per rollout: the env's reward, or None when it could not be scored.
    """
    if len(completions) != len(environments):
        raise EnvUsageError(f"awm_reward: {len(completions)} completions but "
                            f"{len(environments)} environments; pass TRL's own lists.")
    results = [env._finish(_final_answer(c)) for c, env in zip(completions, environments,
                                                                strict=True)]
    if log_metric is not None and results:
        log_metric("awm/success", sum(r.success for r in results) / len(results))
        log_metric("awm/unscored", sum(not r.reward_valid for r in results) / len(results))
    return [r.reward if r.reward_valid else None for r in results]
