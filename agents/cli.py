"""``awm agent`` and ``awm train``: thin layers that build a config and call one library function.

* ``awm train [--<part>.<field> VALUE ...]``: the main job (:func:`agents.pipeline.run_training`);
  every field of :class:`agents.config.TrainConfig` is an option, its docstring the help text.
  The summary (success before and after) goes to stdout as JSON, progress to stderr.
* ``awm agent --world W --task T --endpoint URL``: AWM's demo agent on our runtime: one episode
  of task ``T`` (an index, or the task's text) with an OpenAI-compatible endpoint; each turn is
  printed, then the verifier's verdict.

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
from typing import Any

__all__ = ["add_subcommands", "train_config_from_args", "main_train"]

logger = logging.getLogger(__name__)


def _add_train(sub: Any) -> None:
    from .cli_args import add_config_arguments
    from .config import TrainConfig

    p = sub.add_parser("train", help="build/SFT/GRPO/evaluate a tool-use agent (the main job)",
                       description="Run the training job; every option is a TrainConfig field.")
    add_config_arguments(p, TrainConfig())
    p.set_defaults(func=_cmd_train)


def train_config_from_args(args: argparse.Namespace) -> Any:
    """The :class:`~agents.config.TrainConfig` the parsed ``awm train`` options describe."""
    from .cli_args import config_from_args
    from .config import TrainConfig

    return config_from_args(TrainConfig(), args)


def _cmd_train(args: argparse.Namespace) -> int:
    from .pipeline import run_training

    logging.getLogger("agents").setLevel(logging.INFO)
    summary = run_training(train_config_from_args(args))
    if not summary:  # a data-parallel rank other than 0: rank 0 reports
        return 0
    print(json.dumps(summary, indent=2))
    print(f"success before GRPO {summary['success_before']:.3f} -> after "
          f"{summary['success_after']:.3f} ({summary['eval_episodes']} evaluation episodes, "
          f"{summary['backend']} backend, {summary['timings']['total_s']:.0f} s); see "
          f"{summary['run_dir']}")
    return 0


def main_train(argv: list[str] | None = None) -> int:
    """``scripts/train.py``: ``awm train`` as a standalone script."""
    parser = argparse.ArgumentParser(prog="train.py")
    add_subcommands(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["train", *(sys.argv[1:] if argv is None else argv)])
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr,
                        format="%(levelname)s %(name)s: %(message)s")
    return int(args.func(args))


def _add_agent(sub: Any) -> None:
    p = sub.add_parser("agent", help="run one task with an LLM endpoint (AWM's demo agent)",
                       description="One episode of a task, acted by an OpenAI-compatible "
                                   "endpoint, on the in-process runtime.")
    p.add_argument("--world", required=True, help="world name (see `awm list`)")
    p.add_argument("--task", required=True, help="task index, or the task's text")
    p.add_argument("--endpoint", default="http://127.0.0.1:8000/v1",
                   help="OpenAI-compatible /v1 URL (default: %(default)s)")
    p.add_argument("--model", default=None, help="model name (default: the endpoint's first)")
    p.add_argument("--world-set", default=None, help="world set directory (default: built-in)")
    p.add_argument("--max-turns", type=int, default=30, help="turn limit (default: 30)")
    p.add_argument("--window", default="none",
                   help="history window w: an int, or none for the full history (default: none,"
                        " as AWM's agent)")
    p.add_argument("--catalogue", default="full", choices=["full", "compact", "names", "none"],
                   help="tool catalogue in the prompt (default: full)")
    p.add_argument("--temperature", type=float, default=1.0, help="default: 1.0")
    p.add_argument("--max-new-tokens", type=int, default=2048, help="per turn (default: 2048)")
    p.add_argument("--transcript", default=None, help="write an HTML transcript to this folder")
    p.set_defaults(func=_cmd_agent)


def _resolve_task(tasks: list[str], task: str, world: str) -> int:
    if task.isdigit():
        idx = int(task)
        if idx >= len(tasks):
            raise SystemExit(f"--task {idx}: {world} has tasks 0..{len(tasks) - 1}.")
        return idx
    if task in tasks:
        return tasks.index(task)
    close = difflib.get_close_matches(task, tasks, n=1, cutoff=0.5)
    hint = f" Did you mean {close[0]!r}?" if close else " Run `awm list` and give an index."
    raise SystemExit(f"--task {task!r} is not a task of {world}.{hint}")


def _cmd_agent(args: argparse.Namespace) -> int:
    import gymnasium as gym

    import awm_gym  # noqa: F401 - registers the built-in worlds

    from .chat_format import ChatFormatConfig
    from .grpo.rollout import EpisodeSpec, collect_episodes, to_episode
    from .policies.openai_policy import EndpointConfig, OpenAIPolicy
    from .policies.sampling import SamplingConfig

    window = None if args.window.lower() == "none" else int(args.window)
    kwargs: dict[str, Any] = {"worlds": [args.world], "max_episode_steps": args.max_turns}
    if args.world_set:
        kwargs["world_set"] = args.world_set
    envs = gym.make_vec("AWM/mix-v0", num_envs=1, **kwargs)
    policy = OpenAIPolicy(EndpointConfig(base_url=args.endpoint, model=args.model),
                          ChatFormatConfig(history_turns=window, catalogue=args.catalogue),
                          SamplingConfig(temperature=args.temperature,
                                         max_new_tokens=args.max_new_tokens))
    try:
        world = envs.runtime.world_set[args.world].name
        task_idx = _resolve_task(list(envs.runtime.world_set[world].tasks), args.task, world)
        (traj,) = collect_episodes(envs, policy, [EpisodeSpec(world, task_idx, 0)])
        print(f"task: {traj.task}")
        for k, turn in enumerate(traj.turns, start=1):
            print(f"--- turn {k} ({turn.finish_reason})\n{turn.action}")
            if turn.observation:
                print(f">>> {turn.observation[:2000]}")
        label = traj.turns[-1].info.get("verifier_label") if traj.turns else None
        print(f"=== reward {traj.reward} | success {traj.success} | verifier {label} | "
              f"truncation {traj.truncation}")
        if args.transcript:
            from awm_gym.transcripts import write_transcripts

            write_transcripts([to_episode(traj, 0, policy.name)], args.transcript,
                              title=f"awm agent: {world} task {task_idx}")
    finally:
        policy.close()
        envs.close()
    return 0 if traj.success else 1


def add_subcommands(subparsers: Any) -> None:
    """Add ``agent`` and ``train`` to the ``awm`` command line."""
    _add_agent(subparsers)
    _add_train(subparsers)
