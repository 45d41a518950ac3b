"""``awm agent`` and ``awm train``: thin layers that build a config and call one library function.

* ``awm train [--<part>.<field> VALUE ...]``: the main job (:func:`agents.pipeline.run_training`);
  every field of :class:`agents.config.TrainConfig` is an option, its docstring the help text.
  The summary (success before and after, on the training tasks and on each held-out subset of
  the run's split) goes to stdout as JSON, then as one line with 95% Wilson intervals and which
  changes are significant (:func:`summary_line`); progress goes to stderr.
* ``awm agent --world W --task T --endpoint URL``: AWM's demo agent on our runtime: one episode
  of task ``T`` (an index, or the task's text) with an OpenAI-compatible endpoint; each turn is
  printed, then the verifier's verdict. Its options are the fields of :class:`AgentOptions`.
  A prompt the served model's context cannot hold ends the episode (``prompt_too_long``) with
  one line on stderr naming the prompt's tokens, the context and the option that shortens the
  prompt (:func:`overflow_line`).

Both build their options with :mod:`awm_gym.cli_config` (kebab-case flags, help from the field
docstrings).

Example:
    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="awm")
    >>> add_subcommands(parser.add_subparsers(dest="command"))
    >>> args = parser.parse_args(["train", "--grpo.steps", "2", "--rollout.group-size", "4"])
    >>> cfg = train_config_from_args(args)
    >>> cfg.grpo.steps, cfg.rollout.group_size
    (2, 4)
"""

from __future__ import annotations

import argparse
import difflib
import json
import logging
import sys
from dataclasses import dataclass, field
from typing import Any

from awm_gym.boundary import closing_on_error
from awm_gym.cli import main as awm_main
from awm_gym.cli_config import add_config_arguments, config_from_args
from awm_gym.errors import CommandLineError
from awm_gym.llm_endpoint import LLMEndpoint

from .chat_format import CatalogueMode
from .policies.sampling import SamplingConfig

__all__ = ["add_subcommands", "train_config_from_args", "main_train", "AgentOptions",
           "summary_line", "rate_changes", "overflow_line"]

logger = logging.getLogger(__name__)


def _add_train(sub: Any) -> None:
    from .config import TrainConfig  # the trainer's configs import torch-side modules

    p = sub.add_parser("train", help="build/SFT/GRPO/evaluate a tool-use agent (the main job)",
                       description="Run the training job; every option is a TrainConfig field.")
    add_config_arguments(p, TrainConfig())
    p.set_defaults(func=_cmd_train)


def train_config_from_args(args: argparse.Namespace) -> Any:
    """The :class:`~agents.config.TrainConfig` the parsed ``awm train`` options describe."""
    from .config import TrainConfig  # the trainer's configs import torch-side modules

    return config_from_args(TrainConfig(), args)


def _cmd_train(args: argparse.Namespace) -> int:
    from .pipeline import run_training

    logging.getLogger("agents").setLevel(logging.INFO)
    summary = run_training(train_config_from_args(args))
    if not summary:  # a data-parallel rank other than 0: rank 0 reports
        return 0
    print(json.dumps(summary, indent=2))
    print(summary_line(summary))
    return 0


def _count(rate: float, n: int) -> int:
    return round(rate * n)


def rate_changes(summary: dict[str, Any]) -> list[Any]:
    """One :class:`~agents.evaluate.Change` per evaluated subset of a run's summary: ``train``,
    then its held-out ``val_tasks`` and ``val_worlds`` (when the run had a split)."""
    from .evaluate import Change

    n = summary["eval_episodes"]
    out = [Change("train", _count(summary["success_before"], n),
                  _count(summary["success_after"], n), n, n)]
    for name, v in (summary.get("held_out") or {}).items():
        m = v["episodes"]
        before = v.get("success_before")
        if before is None:  # a resumed run: the first evaluation is not in this summary
            continue
        out.append(Change(name, _count(before, m), _count(v["success_after"], m), m, m))
    return out


def summary_line(summary: dict[str, Any]) -> str:
    """The main job's last line: success before -> after GRPO on each subset with 95% Wilson
    intervals, which changes are significant, and plainly whether any held-out task was solved.

    Example:
        >>> print(summary_line({"success_before": 0.3125, "success_after": 0.640625,
        ...     "eval_episodes": 64, "backend": "vllm", "timings": {"total_s": 300.0},
        ...     "run_dir": "out/main", "held_out": {"val_tasks": {"success_before": 0.0,
        ...     "success_after": 0.0, "episodes": 48}}}))  # doctest: +NORMALIZE_WHITESPACE
        success before -> after GRPO, 95% Wilson intervals: train 0.312 [0.212, 0.434] -> 0.641
        [0.518, 0.747] (64 episodes) | val_tasks 0.000 [0.000, 0.074] -> 0.000 [0.000, 0.074]
        (48 episodes) | significant (two-proportion z-test, p < 0.05): train +0.328 (p=0.0002);
        not significant: val_tasks +0.000 (p=1) [0 solved before and after] | held-out: no
        task solved, before or after (the model does not generalise to unseen tasks) | vllm
        backend, 300 s; see out/main
    """
    from .evaluate import compare_rates

    changes = rate_changes(summary)
    parts = [" | ".join(c.text() for c in changes), compare_rates(changes)]
    held = [c for c in changes if c.name != "train"]
    if held and all(c.before == c.after == 0 for c in held):
        parts.append("held-out: no task solved, before or after (the model does not generalise "
                     "to unseen tasks)")
    parts.append(f"{summary['backend']} backend, {summary['timings']['total_s']:.0f} s; see "
                 f"{summary['run_dir']}")
    return "success before -> after GRPO, 95% Wilson intervals: " + " | ".join(parts)


def main_train(argv: list[str] | None = None) -> int:
    """``scripts/train.py``: ``awm train`` as a standalone script (the same options, and the
    same one-line failures)."""
    return awm_main(["train", *(sys.argv[1:] if argv is None else argv)])


@dataclass(frozen=True)
class AgentOptions:
    """``awm agent``: one task, acted by an OpenAI-compatible endpoint, on the in-process runtime.

    Example:
        >>> AgentOptions(world="spotify", task="0").endpoint.base_url
        'http://127.0.0.1:8000/v1'
    """

    world: str
    """World name (see `awm list`)."""
    task: str
    """Task index, or the task's text."""
    endpoint: LLMEndpoint = field(default_factory=LLMEndpoint)
    """The endpoint that acts."""
    world_set: str | None = None
    """World set directory (None: the built-in worlds)."""
    max_turns: int = 30
    """Turn limit."""
    window: int | None = None
    """History window: the last this-many turns are shown (none: the full history, as AWM's
    agent)."""
    catalogue: CatalogueMode = CatalogueMode.FULL
    """Tool catalogue in the prompt."""
    sampling: SamplingConfig = field(default_factory=lambda: SamplingConfig(max_new_tokens=2048))
    """How each turn is sampled."""
    transcript: str | None = None
    """Write an HTML transcript to this folder."""

    def __post_init__(self) -> None:
        if self.max_turns < 1:
            raise CommandLineError(f"--max-turns {self.max_turns}: must be >= 1.")
        if self.window is not None and self.window < 1:
            raise CommandLineError(f"--window {self.window}: must be >= 1, or none for the full "
                                   "history.")


def _add_agent(sub: Any) -> None:
    p = sub.add_parser("agent", help="run one task with an LLM endpoint (AWM's demo agent)",
                       description="One episode of a task, acted by an OpenAI-compatible "
                                   "endpoint, on the in-process runtime.")
    add_config_arguments(p, AgentOptions, flatten={"endpoint", "sampling"},
                         names={"endpoint.base_url": "endpoint"},
                         skip={"sampling.top_p", "sampling.max_prompt_tokens"})
    p.set_defaults(func=_cmd_agent)


def _resolve_task(tasks: list[str], task: str, world: str) -> int:
    if task.isdigit():
        idx = int(task)
        if idx >= len(tasks):
            raise CommandLineError(f"--task {idx}: {world} has tasks 0..{len(tasks) - 1}.")
        return idx
    if task in tasks:
        return tasks.index(task)
    close = difflib.get_close_matches(task, tasks, n=1, cutoff=0.5)
    hint = f" Did you mean {close[0]!r}?" if close else " Run `awm list` and give an index."
    raise CommandLineError(f"--task {task!r} is not a task of {world}.{hint}")


def _cmd_agent(args: argparse.Namespace) -> int:
    import gymnasium as gym

    import awm_gym  # noqa: F401 - registers the built-in worlds

    from .chat_format import ChatFormatConfig
    from .grpo.rollout import EpisodeSpec, collect_episodes, to_episode
    from .policies.openai_policy import OpenAIPolicy

    options = config_from_args(AgentOptions, args)
    kwargs: dict[str, Any] = {"worlds": [options.world], "max_episode_steps": options.max_turns}
    if options.world_set:
        kwargs["world_set"] = options.world_set
    envs = gym.make_vec("AWM/mix-v0", num_envs=1, **kwargs)
    with closing_on_error(envs.close):
        policy = OpenAIPolicy(options.endpoint, ChatFormatConfig(
            history_turns=options.window, catalogue=options.catalogue), options.sampling)
    try:
        world = envs.runtime.world_set[options.world].name
        task_idx = _resolve_task(list(envs.runtime.world_set[world].tasks), options.task, world)
        (traj,) = collect_episodes(envs, policy, [EpisodeSpec(world, task_idx, 0)])
        print(f"task: {traj.task}")
        for k, turn in enumerate(traj.turns, start=1):
            print(f"--- turn {k} ({turn.finish_reason})\n{turn.action}")
            if turn.observation:
                print(f">>> {turn.observation[:2000]}")
        label = traj.turns[-1].info.get("verifier_label") if traj.turns else None
        print(f"=== reward {traj.reward} | success {traj.success} | verifier {label} | "
              f"truncation {traj.truncation}")
        if traj.turns and traj.turns[-1].finish_reason == "prompt_too_long":
            print(overflow_line(policy.backend.context_overflow, len(traj.turns), options),
                  file=sys.stderr)
        if options.transcript:
            from awm_gym.manager import write_transcripts

            write_transcripts([to_episode(traj, 0, policy.name)], options.transcript,
                              title=f"awm agent: {world} task {task_idx}")
    finally:
        policy.close()
        envs.close()
    return 0 if traj.success else 1


_SHORTER = {CatalogueMode.FULL: "--catalogue compact (or --catalogue names)",
            CatalogueMode.COMPACT: "--catalogue names"}
"""The catalogue option that shortens the prompt, by the catalogue the prompt had."""


def overflow_line(overflow: Any, turn: int, options: AgentOptions) -> str:
    """The one line ``awm agent`` prints when turn ``turn``'s prompt does not fit the served
    model's context: the prompt's tokens, the context, and the options that shorten the prompt.

    ``overflow`` is the backend's :class:`~agents.policies.openai_policy.ContextOverflow`
    (None when the server's error named nothing).

    Example:
        >>> from agents.policies.openai_policy import parse_context_overflow
        >>> print(overflow_line(parse_context_overflow(
        ...     "This model's maximum context length is 2048 tokens. However, your prompt "
        ...     "contains 9770 input tokens."), 1, AgentOptions(world="spotify", task="0")))
        awm agent: the prompt of turn 1 has 9770 tokens but the served model's context is 2048 \
tokens; shorten it with --catalogue compact (or --catalogue names), or serve the model with a \
longer context.
    """
    prompt = context = chars = new = None
    if overflow is not None:
        prompt, context = overflow.prompt_tokens, overflow.context_tokens
        chars, new = overflow.prompt_chars, overflow.max_new_tokens
    size = (f"has {prompt} tokens" if prompt is not None else
            f"has {chars} characters" if chars is not None else "is too long")
    limit = (f"the served model's context is {context} tokens" if context is not None else
             "the served model did not say its context size")
    shorten = [_SHORTER[mode] for mode in (CatalogueMode(options.catalogue),) if mode in _SHORTER]
    if turn > 1:
        shorten.append("--window N (only the last N turns)")
    fixes = [f"shorten it with {' or '.join(shorten)}"] if shorten else []
    if prompt is not None and context is not None and new and prompt < context < prompt + new:
        fixes.append(f"leave room for the reply with --max-new-tokens {context - prompt} or less")
    fixes.append("serve the model with a longer context")
    return (f"awm agent: the prompt of turn {turn} {size} but {limit}; "
            f"{', '.join(fixes[:-1])}{', or ' if len(fixes) > 1 else ''}{fixes[-1]}.")


def add_subcommands(subparsers: Any) -> None:
    """Add ``agent`` and ``train`` to the ``awm`` command line."""
    _add_agent(subparsers)
    _add_train(subparsers)
