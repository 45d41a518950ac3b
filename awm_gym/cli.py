"""The ``awm`` command line: thin wrappers that parse arguments and call one library function.

Subcommands: ``awm list [PATH]`` (worlds and their ids), ``awm check [PATH] [--world W]
[--verbose | --json]`` (:func:`awm_gym.manager.check.iter_check`; one block per world as it is
checked; exit status 0 when nothing worse than info was found, 1 for a defect, 2 for an error),
``awm demo [--world W] [--num-envs N]`` (replay every task's reference solution through a
vector env and print the verifier results), and the :class:`~awm_gym.manager.world.World` verbs:
``awm eval ENV --policy P`` (:meth:`World.evaluate`), ``awm record ENV NAME --policy P``
(:meth:`World.record_dataset`) and ``awm render OUT (--dataset NAME | --env ENV --policy P)``
(:meth:`World.render_transcripts`). ``--policy`` takes ``oracle``, ``random`` or
``module:Class``, with ``--policy-arg key=value`` for its constructor.
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
    from awm_gym.envs.registration import env_id, get_world_set

    world_set = get_world_set(args.path)
    for world in world_set:
        print(f"{env_id(world.name)}\t{len(world.tasks)} tasks\t{world.display_name}")
    for problem in world_set.problems:
        print(f"problem: {problem}", file=sys.stderr)
    return 0


def _cmd_check(args: argparse.Namespace) -> int:
    import json
    import shutil

    from awm_gym.envs.config import EnvConfig
    from awm_gym.manager.check import iter_check
    from awm_gym.manager.findings import exit_code

    config = EnvConfig(max_episode_steps=1000, verifier_timeout_s=args.verifier_timeout,
                       tool_timeout_s=args.tool_timeout)
    width = shutil.get_terminal_size((120, 24)).columns
    worst, counts = [], {"OK": 0, "DEFECT": 0, "ERROR": 0}
    for report in iter_check(args.path, args.world or None, config=config):
        worst.append(report.worst)
        counts[report.status] += 1
        if args.json:
            print(json.dumps(report.to_dict(), ensure_ascii=False), flush=True)
        else:
            print(report.summary(width=width, verbose=args.details), flush=True)
    if not args.json:
        print(f"{len(worst)} world{'' if len(worst) == 1 else 's'}: {counts['OK']} ok, "
              f"{counts['DEFECT']} with defects, {counts['ERROR']} with errors")
    return exit_code(worst)


def _cmd_demo(args: argparse.Namespace) -> int:
    from awm_gym.manager.demo import run_oracle_demo

    result = run_oracle_demo(args.path, args.world, num_envs=args.num_envs)
    print(result)
    return 0 if result.success_rate == 1.0 else 1


POLICY_ALIASES = {"oracle": "agents.policies.oracle:OraclePolicy",
                  "random": "agents.policies.random_policy:RandomPolicy"}
"""Short names for ``--policy`` (any ``module:Class`` works too)."""


def load_policy(spec: str, args: Sequence[str] = ()) -> object:
    """Build a policy from ``oracle`` / ``random`` / ``module:Class`` and ``key=value`` args
    (values are read as JSON when they parse, else kept as strings)."""
    import importlib
    import json

    target = POLICY_ALIASES.get(spec, spec)
    if ":" not in target:
        raise SystemExit(f"--policy {spec!r}: use one of {', '.join(POLICY_ALIASES)} or "
                         "'module:Class'.")
    module_name, _, class_name = target.partition(":")
    try:
        cls = getattr(importlib.import_module(module_name), class_name)
    except (ImportError, AttributeError) as e:
        raise SystemExit(f"--policy {spec!r}: cannot load {target} ({e}).") from e
    kwargs = {}
    for item in args:
        key, sep, raw = item.partition("=")
        if not sep:
            raise SystemExit(f"--policy-arg {item!r}: write key=value.")
        try:
            kwargs[key] = json.loads(raw)
        except ValueError:
            kwargs[key] = raw
    return cls(**kwargs)


def _make_world(args: argparse.Namespace, env: str) -> object:
    from awm_gym.envs.registration import register_worlds
    from awm_gym.manager.world import World

    if args.worlds_dir:
        register_worlds(args.worlds_dir)
    kwargs = {}
    if args.worlds:
        kwargs["worlds"] = args.worlds.split(",")
    if args.num_workers:
        kwargs["num_workers"] = args.num_workers
    world = World(env, num_envs=args.num_envs, seed=args.seed,
                  max_episode_steps=args.max_steps, verbose=0 if args.quiet else 1, **kwargs)
    world.set_policy(load_policy(args.policy, args.policy_arg or ()))
    return world


def _episode_options(args: argparse.Namespace) -> dict | None:
    options = {}
    if args.task_idx is not None:
        options["task_idx"] = args.task_idx
    if args.world:
        options["world"] = args.world
    return options or None


def _cmd_eval(args: argparse.Namespace) -> int:
    import json

    world = _make_world(args, args.env)
    try:
        result = world.evaluate(episodes=args.episodes, seed=args.seed,
                                eval_keys=["num_turns", "verifier_label", "format_error"],
                                options=_episode_options(args))
    finally:
        world.close()
    print(f"{args.env} | policy {world.policy_name} | {result['episodes']} episodes (seeds "
          f"{args.seed}..{args.seed + result['episodes'] - 1}) | success "
          f"{result['success_rate']:.3f} | mean reward {result['mean_reward']:+.3f} | mean turns "
          f"{sum(result['num_turns']) / max(1, result['episodes']):.1f}")
    if len(result["per_world"]) > 1:
        for name, stats in result["per_world"].items():
            print(f"  {name}: {stats['episodes']} episodes | success {stats['success_rate']:.3f}"
                  f" | mean reward {stats['mean_reward']:+.3f}")
    if args.json:
        out = {k: (v.tolist() if hasattr(v, "tolist") else v) for k, v in result.items()}
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(out, handle, indent=2)
    return 0


def _cmd_record(args: argparse.Namespace) -> int:
    world = _make_world(args, args.env)
    try:
        path = world.record_dataset(args.name, episodes=args.episodes, seed=args.seed,
                                    cache_dir=args.cache_dir, options=_episode_options(args),
                                    info_keys=args.info_key, mode=args.mode)
    finally:
        world.close()
    print(path)
    return 0


def _cmd_render(args: argparse.Namespace) -> int:
    from awm_gym.manager.recording import dataset_path, load_episodes
    from awm_gym.manager.transcripts import write_transcripts

    if args.dataset:
        path = dataset_path(args.dataset, args.cache_dir)
        episodes = load_episodes(path, episode_idx=args.episode,
                                 limit=None if args.episode else args.max_episodes)
        files = write_transcripts(episodes, args.out, title=f"{path.name} (recorded)")
    elif args.env:
        world = _make_world(args, args.env)
        try:
            files = world.render_transcripts(args.out, max_episodes=args.max_episodes,
                                             seed=args.seed, options=_episode_options(args))
        finally:
            world.close()
    else:
        raise SystemExit("awm render: give --dataset NAME (recorded) or --env ID --policy P (live).")
    print(files[-1])
    return 0


def _add_world_arguments(p: argparse.ArgumentParser, env_positional: bool = True) -> None:
    if env_positional:
        p.add_argument("env", help="env id, e.g. AWM/spotify-v0 or AWM/mix-v0")
    p.add_argument("--policy", default="oracle",
                   help="oracle | random | module:Class (default: oracle)")
    p.add_argument("--policy-arg", action="append", metavar="KEY=VALUE",
                   help="policy constructor argument (repeatable; JSON values)")
    p.add_argument("--worlds-dir", help="register the world set in this directory first")
    p.add_argument("--worlds", help="comma-separated worlds for AWM/mix-v0 (default: all)")
    p.add_argument("--num-envs", type=int, default=16, help="instances (default: 16)")
    p.add_argument("--num-workers", type=int, default=0, help="worker processes (default: 0)")
    p.add_argument("--max-steps", type=int, default=30, help="turns per episode (default: 30)")
    p.add_argument("--seed", type=int, default=0, help="episode k gets seed + k (default: 0)")
    p.add_argument("--task-idx", type=int, help="run only this task index")
    p.add_argument("--world", help="run only this world (of a mix)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="awm", description="AWM worlds as Gymnasium envs.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log at DEBUG level")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("list", help="list the worlds of a world set and their Gymnasium ids")
    p.add_argument("path", nargs="?", default=None, help="world set directory (default: built-in)")
    p.set_defaults(func=_cmd_list)
    p = sub.add_parser("check", help="triage worlds: errors, defects, info (exit 0/1/2)",
                       description="Check each world and print one block per world as it is "
                       "done. Exit status: 0 nothing worse than info, 1 a defect, 2 an error.")
    p.add_argument("path", nargs="?", default=None, help="world set directory (default: built-in)")
    p.add_argument("--world", action="append", help="check only this world (repeatable)")
    p.add_argument("--verbose", dest="details", action="store_true",
                   help="print findings whole, with their details")
    p.add_argument("--json", action="store_true", help="print one JSON object per world instead")
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
    p = sub.add_parser("eval", help="evaluate a policy on exactly N episodes (World.evaluate)")
    _add_world_arguments(p)
    p.add_argument("--episodes", type=int, default=100, help="episodes (default: 100)")
    p.add_argument("--json", help="also write the full result to this JSON file")
    p.set_defaults(func=_cmd_eval)
    p = sub.add_parser("record", help="record rollouts as a Hugging Face dataset")
    _add_world_arguments(p)
    p.add_argument("name", help="dataset name (under --cache-dir) or a path")
    p.add_argument("--episodes", type=int, default=100, help="episodes (default: 100)")
    p.add_argument("--cache-dir", help="datasets directory (default: $AWM_GYM_DATASETS or "
                                       "~/.cache/awm_gym/datasets)")
    p.add_argument("--mode", choices=["error", "append", "overwrite"], default="error",
                   help="when the dataset exists (default: error)")
    p.add_argument("--info-key", action="append",
                   help="info key to store per step (repeatable; default: a useful set)")
    p.set_defaults(func=_cmd_record)
    p = sub.add_parser("render", help="write HTML transcripts (recorded or live episodes)")
    p.add_argument("out", help="output directory")
    p.add_argument("--dataset", help="render this recorded dataset (name or path)")
    p.add_argument("--cache-dir", help="datasets directory of --dataset")
    p.add_argument("--episode", type=int, action="append", help="episode index (repeatable)")
    p.add_argument("--env", help="run live episodes of this env id instead")
    p.add_argument("--max-episodes", type=int, default=10, help="episodes (default: 10)")
    _add_world_arguments(p, env_positional=False)
    p.set_defaults(func=_cmd_render)
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
