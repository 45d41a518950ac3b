"""The ``awm`` command line: thin wrappers that parse arguments and call one library function.

Subcommands so far: ``awm list [PATH]`` (worlds and their ids), ``awm check [PATH] [--world W]``
(:func:`awm_gym.check.check_world`; exit status 1 when a world has issues), and
``awm demo [--world W] [--num-envs N]`` (replay every task's reference solution through a
vector env and print the verifier results).
Results go to stdout, logs to stderr.

The ``awm`` command is the one place where the three packages meet: besides its own
subcommands it asks each module of :data:`COMMAND_PROVIDERS` that is importable (``synth.cli``,
``agents.cli``, ...) to add its subcommands through ``add_subcommands(subparsers)``. Nothing
else in ``awm_gym`` imports ``synth`` or ``agents``.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

__all__ = ["main", "COMMAND_PROVIDERS"]

COMMAND_PROVIDERS = ("awm_gym.server.cli", "synth.cli", "agents.cli")
"""Modules that add subcommands with ``add_subcommands(subparsers)`` (skipped when absent)."""


def _cmd_list(args: argparse.Namespace) -> int:
    from .registration import env_id, get_world_set

    world_set = get_world_set(args.path)
    for world in world_set:
        print(f"{env_id(world.name)}\t{len(world.tasks)} tasks\t{world.display_name}")
    for problem in world_set.problems:
        print(f"problem: {problem}", file=sys.stderr)
    return 0


def _cmd_check(args: argparse.Namespace) -> int:
    from .check import check_world

    from .config import EnvConfig

    config = EnvConfig(max_episode_steps=1000, verifier_timeout_s=args.verifier_timeout,
                       tool_timeout_s=args.tool_timeout)
    reports = check_world(args.path, args.world or None, config=config)
    for report in reports:
        print(report.summary())
    bad = [r.world for r in reports if not r.ok]
    print(f"{len(reports) - len(bad)}/{len(reports)} worlds OK" + (f"; issues in: {', '.join(bad)}"
                                                                  if bad else ""))
    return 1 if bad else 0


def _cmd_demo(args: argparse.Namespace) -> int:
    from .demo import run_oracle_demo

    result = run_oracle_demo(args.path, args.world, num_envs=args.num_envs)
    print(result)
    return 0 if result.success_rate == 1.0 else 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="awm", description="AWM worlds as Gymnasium envs.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log at DEBUG level")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("list", help="list the worlds of a world set and their Gymnasium ids")
    p.add_argument("path", nargs="?", default=None, help="world set directory (default: built-in)")
    p.set_defaults(func=_cmd_list)
    p = sub.add_parser("check", help="check worlds: template, defects, tasks proved")
    p.add_argument("path", nargs="?", default=None, help="world set directory (default: built-in)")
    p.add_argument("--world", action="append", help="check only this world (repeatable)")
    p.add_argument("--verifier-timeout", type=float, default=10.0,
                   help="seconds per verifier run (default: 10)")
    p.add_argument("--tool-timeout", type=float, default=10.0,
                   help="seconds per tool call (default: 10)")
    p.set_defaults(func=_cmd_check)
    p = sub.add_parser("demo", help="replay reference solutions through a vector env")
    p.add_argument("path", nargs="?", default=None, help="world set directory (default: built-in)")
    p.add_argument("--world", default="spotify", help="world to run (default: spotify)")
    p.add_argument("--num-envs", type=int, default=64, help="instances (default: 64)")
    p.set_defaults(func=_cmd_demo)
    _add_provided_commands(sub)
    return parser


def _add_provided_commands(sub: argparse._SubParsersAction) -> None:
    import importlib

    for module_name in COMMAND_PROVIDERS:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as e:
            if e.name is not None and module_name.startswith(e.name):
                continue  # the provider is not part of this install
            raise
        module.add_subcommands(sub)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING,
                        stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
