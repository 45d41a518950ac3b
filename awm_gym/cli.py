"""The ``awm`` command line: thin wrappers that parse arguments and call one library function.

Subcommands: ``awm list [PATH]`` (worlds and their ids, ``AWM/mix-v0`` included), ``awm split
[PATH] --val-worlds F --val-tasks F --seed S [--out FILE]`` (:func:`awm_gym.split_worlds`, written
as JSON), ``awm check
[PATH] [--world W] [--verbose | --json] [--write-exclusions FILE]``
(:func:`awm_gym.manager.check.iter_check`; one block per world as it is checked, one line per
kind of finding; exit status 0 when nothing worse than info was found, 1 for a defect, 2 for an
error; the exclusion file keeps the bad tasks out of every env given ``exclude=FILE``), ``awm demo [--world W] [--num-envs N]`` (replay every task's reference solution through a
vector env and print the verifier results), and the :class:`~awm_gym.manager.world.World` verbs:
``awm eval ENV --policy P`` (:meth:`World.evaluate`), ``awm record ENV NAME --policy P``
(:meth:`World.record_dataset`) and ``awm render OUT (--dataset NAME | --env ENV --policy P)``
(:meth:`World.render_transcripts`), and ``awm rescore DATASET [--world-set PATH]``
(:func:`awm_gym.manager.rescore.rescore_dataset`: replay recorded episodes, score them with the
verifiers as they are now, print the ones whose outcome changed or whose replay diverged);
``--split FILE [--subset S]`` runs them on a split's
subset, ``--exclude FILE`` without the tasks of an exclusion file. ``--policy`` takes ``oracle``, ``random`` or
``module:Class``, with ``--policy-arg key=value`` for its constructor. Each command's options are
the fields of its dataclass in :mod:`awm_gym.cli_options` (help = the field docstrings).
Results go to stdout, logs to stderr.

An expected failure (an :class:`~awm_gym.errors.AWMGymError`, a missing file, a bad URL, an
unreachable server, a bad option value) is one line on stderr, ``awm <cmd>: error: ...``, with
exit status 2; ``--debug`` (anywhere on the line) prints the traceback too.

The ``awm`` command is the one place where the three packages meet: besides its own
subcommands it asks each module of :data:`COMMAND_PROVIDERS` that is importable (``synth.cli``,
``agents.cli``, ...) to add its subcommands through ``add_subcommands(subparsers)``, and imports
the :data:`SERVER_PROVIDERS`, which register their servers with :mod:`awm_gym.server` (``awm env
start --protocol openenv``). Nothing else in ``awm_gym`` imports ``synth`` or ``agents``, and
:mod:`awm_gym.server` imports no integration.
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import json
import logging
import sys
import traceback
from collections.abc import Sequence
from typing import Any

from awm_gym.cli_config import CommandParser, add_config_arguments, config_from_args, one_line
from awm_gym.cli_options import (
    CheckOptions,
    DemoOptions,
    DoctorOptions,
    EvalOptions,
    ListOptions,
    RecordOptions,
    RenderOptions,
    RescoreOptions,
    RunOptions,
    SplitOptions,
)
from awm_gym.errors import AWMGymError, CommandLineError, UnknownWorldError

__all__ = ["main", "build_parser", "load_policy", "COMMAND_PROVIDERS", "SERVER_PROVIDERS",
           "EXPECTED_ERRORS"]

COMMAND_PROVIDERS = ("awm_gym.server.cli", "awm_gym.remote.cli", "synth.cli", "agents.cli")
"""Modules that add subcommands with ``add_subcommands(subparsers)`` (skipped when absent)."""

SERVER_PROVIDERS = ("awm_gym.integrations.openenv",)
"""Modules that register a server for a ``--protocol`` of ``awm env start`` when imported
(:func:`awm_gym.server.register_server`); each imports its library only when it serves."""

EXPECTED_ERRORS: tuple[type[BaseException], ...] = (AWMGymError, OSError, ValueError)
"""Failures reported in one line (exit status 2): our errors (synth's and agents' derive from
:class:`AWMGymError`), files and connections (``OSError``), and values a config rejects."""

POLICY_ALIASES = {"oracle": "agents.policies.oracle:OraclePolicy",
                  "random": "agents.policies.random_policy:RandomPolicy"}
"""Short names for ``--policy`` (any ``module:Class`` works too)."""

_RUN = {"flatten": {"run"}}


def _cmd_list(args: argparse.Namespace) -> int:
    from awm_gym.envs.registration import MIX_NAME, env_id, get_world_set

    options = config_from_args(ListOptions, args)
    world_set = get_world_set(options.path)
    for world in world_set:
        print(f"{env_id(world.name)}\t{len(world.tasks)} tasks\t{world.display_name}")
    where = "" if options.path is None else f", world_set={options.path!r}"
    print(f"{env_id(MIX_NAME)}\t{sum(len(w.tasks) for w in world_set)} tasks\tall "
          f"{len(world_set)} worlds in one env (gym.make_vec('{env_id(MIX_NAME)}'{where}))")
    for problem in world_set.problems:
        print(f"problem: {problem}", file=sys.stderr)
    return 0


def _cmd_check(args: argparse.Namespace) -> int:
    import json
    import shutil

    from awm_gym.envs.config import EnvConfig
    from awm_gym.manager.check import iter_check
    from awm_gym.manager.findings import exit_code

    options = config_from_args(CheckOptions, args)
    config = EnvConfig(max_episode_steps=1000, verifier_timeout_s=options.verifier_timeout_s,
                       tool_timeout_s=options.tool_timeout_s)
    width = shutil.get_terminal_size((120, 24)).columns
    worst, counts, reports = [], {"OK": 0, "DEFECT": 0, "ERROR": 0}, []
    for report in iter_check(options.path, list(options.world) or None, config=config):
        reports.append(report)
        worst.append(report.worst)
        counts[report.status] += 1
        if options.json:
            print(json.dumps(report.to_dict(), ensure_ascii=False), flush=True)
        else:
            print(report.summary(width=width, verbose=options.details), flush=True)
    if not options.json:
        print(f"{len(worst)} world{'' if len(worst) == 1 else 's'}: {counts['OK']} ok, "
              f"{counts['DEFECT']} with defects, {counts['ERROR']} with errors")
    if options.write_exclusions is not None:
        from awm_gym.envs.registration import get_world_set
        from awm_gym.manager.check import exclusions_of

        exclusions = exclusions_of(get_world_set(options.path), reports)
        exclusions.save(options.write_exclusions)
        print(f"wrote {options.write_exclusions}: {exclusions.count} task(s) of "
              f"{len({w for w, _ in exclusions.reasons})} world(s) excluded, "
              f"{len(exclusions.worlds)} world(s) checked", file=sys.stderr)
    return exit_code(worst)


def _cmd_demo(args: argparse.Namespace) -> int:
    from awm_gym.manager.demo import run_oracle_demo

    options = config_from_args(DemoOptions, args)
    result = run_oracle_demo(options.path, options.world, num_envs=options.num_envs)
    print(result)
    return 0 if result.success_rate == 1.0 else 1


def _cmd_split(args: argparse.Namespace) -> int:
    import os

    from awm_gym.envs.registration import get_world_set
    from awm_gym.worlds.splits import split_worlds

    options = config_from_args(SplitOptions, args)
    world_set = get_world_set(options.path)
    split = split_worlds(world_set, val_worlds=options.val_worlds, val_tasks=options.val_tasks,
                         seed=options.seed, exclude=options.exclude)
    out = options.out or (os.path.join(options.path, "split.json")  # a Hub id: not in its cache
                          if options.path and os.path.isdir(options.path) else "split.json")
    split.save(out)
    z = split.sizes
    print(f"{out}: train {z['train_worlds']} worlds / {z['train_tasks']} tasks | val_tasks "
          f"{z['val_tasks']} tasks | val_worlds {z['val_worlds']} worlds / "
          f"{z['val_world_tasks']} tasks ({', '.join(split.val_worlds) or 'none'}) | seed "
          f"{split.seed} | {split.world_set_hash}")
    return 0


def load_policy(spec: str, args: Sequence[str] = ()) -> object:
    """Build a policy from ``oracle`` / ``random`` / ``module:Class`` and ``key=value`` args
    (values are read as JSON when they parse, else kept as strings).

    Raises:
        CommandLineError: the spec or an argument cannot work (the message says how to fix it).
    """
    target = POLICY_ALIASES.get(spec, spec)
    if ":" not in target:
        raise CommandLineError(f"--policy {spec!r}: use one of {', '.join(POLICY_ALIASES)} or "
                               "'module:Class'.")
    module_name, _, class_name = target.partition(":")
    try:
        cls = getattr(importlib.import_module(module_name), class_name)
    except (ImportError, AttributeError) as e:
        raise CommandLineError(f"--policy {spec!r}: cannot load {target} ({e}).") from e
    kwargs = {}
    for item in args:
        key, sep, raw = item.partition("=")
        if not sep:
            raise CommandLineError(f"--policy-arg {item!r}: write key=value.")
        try:
            kwargs[key] = json.loads(raw)
        except ValueError:
            kwargs[key] = raw
    return cls(**kwargs)


def _require_env_id(env: str) -> None:
    import gymnasium as gym  # loaded by `import awm_gym` already; named here for the registry

    if env in gym.registry:
        return
    close = difflib.get_close_matches(env, [k for k in gym.registry if k.startswith("AWM/")], n=3)
    hint = f" Did you mean {', '.join(map(repr, close))}?" if close else " Run `awm list`."
    raise UnknownWorldError(f"No env id {env!r} is registered.{hint} A world set of your own "
                            "needs --worlds-dir DIR.")


def _make_world(run: RunOptions, env: str) -> object:
    from awm_gym.envs.registration import register_worlds
    from awm_gym.manager.world import World  # the World pulls in the vector env stack

    if run.worlds_dir:
        register_worlds(run.worlds_dir)
    _require_env_id(env)
    kwargs: dict[str, object] = {}
    if run.world_names:
        kwargs["worlds"] = list(run.world_names)
    kwargs["num_workers"] = run.num_workers
    if run.split:
        kwargs["split"] = run.split
    if run.subset:
        kwargs["subset"] = run.subset
    if run.exclude:
        kwargs["exclude"] = run.exclude
    if run.backend != "local" or run.ray_address is not None:
        kwargs.update(backend=run.backend, ray_address=run.ray_address)  # EnvConfig checks them
    policy = load_policy(run.policy, run.policy_arg)
    world = World(env, num_envs=run.num_envs, seed=run.seed, max_episode_steps=run.max_steps,
                  verbose=0 if run.quiet else 1, **kwargs)
    world.set_policy(policy)
    return world


def _episode_options(run: RunOptions) -> dict | None:
    options: dict[str, object] = {}
    if run.task_idx is not None:
        options["task_idx"] = run.task_idx
    if run.world:
        options["world"] = run.world
    return options or None


def _cmd_eval(args: argparse.Namespace) -> int:
    options = config_from_args(EvalOptions, args)
    run = options.run
    world = _make_world(run, options.env)
    try:
        result = world.evaluate(episodes=options.episodes, seed=run.seed,
                                eval_keys=["num_turns", "verifier_label", "format_error"],
                                options=_episode_options(run))
    finally:
        world.close()
    print(f"{options.env} | policy {world.policy_name} | {result['episodes']} episodes (seeds "
          f"{run.seed}..{run.seed + result['episodes'] - 1}) | success "
          f"{result['success_rate']:.3f} | mean reward {result['mean_reward']:+.3f} | mean turns "
          f"{sum(result['num_turns']) / max(1, result['episodes']):.1f}")
    if len(result["per_world"]) > 1:
        for name, stats in result["per_world"].items():
            print(f"  {name}: {stats['episodes']} episodes | success {stats['success_rate']:.3f}"
                  f" | mean reward {stats['mean_reward']:+.3f}")
    for name, stats in result.get("per_subset", {}).items():
        print(f"  subset {name}: {stats['episodes']} episodes | success "
              f"{stats['success_rate']:.3f} | mean reward {stats['mean_reward']:+.3f}")
    if options.json:
        from awm_gym.atomic_io import write_text_atomic

        out = {k: (v.tolist() if hasattr(v, "tolist") else v) for k, v in result.items()}
        write_text_atomic(options.json, json.dumps(out, indent=2))
    return 0


def _cmd_record(args: argparse.Namespace) -> int:
    options = config_from_args(RecordOptions, args)
    world = _make_world(options.run, options.env)
    try:
        path = world.record_dataset(options.name, episodes=options.episodes,
                                    seed=options.run.seed, cache_dir=options.cache_dir,
                                    options=_episode_options(options.run),
                                    info_keys=list(options.info_key) or None, mode=options.mode)
    finally:
        world.close()
    print(path)
    return 0


def _cmd_render(args: argparse.Namespace) -> int:
    from awm_gym.manager.recording import dataset_path, load_episodes
    from awm_gym.manager.transcripts import write_transcripts

    options = config_from_args(RenderOptions, args)
    if options.dataset is not None:
        path = dataset_path(options.dataset, options.cache_dir)
        episodes = load_episodes(path, episode_idx=list(options.episode) or None,
                                 limit=None if options.episode else options.max_episodes)
        files = write_transcripts(episodes, options.out, title=f"{path.name} (recorded)")
    else:
        world = _make_world(options.run, options.env)
        try:
            files = world.render_transcripts(options.out, max_episodes=options.max_episodes,
                                             seed=options.run.seed,
                                             options=_episode_options(options.run))
        finally:
            world.close()
    print(files[-1])
    return 0


def _cmd_rescore(args: argparse.Namespace) -> int:
    import os

    from awm_gym.manager.recording import dataset_path
    from awm_gym.manager.rescore import rescore_dataset

    options = config_from_args(RescoreOptions, args)
    env: dict[str, object] = {"isolation": options.isolation}
    if options.max_steps is not None:
        env["max_episode_steps"] = options.max_steps
    dataset = options.dataset  # a path that exists (a table in the current directory) as given
    path = dataset if os.path.exists(dataset) else dataset_path(dataset, options.cache_dir)
    result = rescore_dataset(path,
                             world_set=options.world_set, out=options.out, mode=options.mode,
                             num_envs=options.num_envs, **env)
    print(result.table())
    return 0


def _cmd_doctor(args: argparse.Namespace) -> int:
    from awm_gym import doctor

    options = config_from_args(DoctorOptions, args)
    checks = doctor.CHECKS
    if options.only:
        known = {c.module for c in checks}
        unknown = sorted(set(options.only) - known)
        if unknown:
            raise CommandLineError(f"--only {' '.join(unknown)}: not a check; use some of "
                                   f"{', '.join(sorted(known))}.")
        checks = tuple(c for c in checks if c.module in options.only)
    results = doctor.diagnose(checks)
    print(doctor.report(results))
    return 1 if any(r.status == "broken" for r in results) else 0


def build_parser() -> CommandParser:
    """The ``awm`` parser: its own commands and those of :data:`COMMAND_PROVIDERS`."""
    parser = CommandParser(prog="awm", description="AWM worlds as Gymnasium envs.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log at DEBUG level")
    parser.add_argument("--debug", action="store_true",
                        help="print the traceback of a failure (may be given anywhere)")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, options, func, help_text, extra in (
            ("list", ListOptions, _cmd_list, "list the worlds of a world set and their "
             "Gymnasium ids", {"positional": {"path"}}),
            ("check", CheckOptions, _cmd_check, "triage worlds: errors, defects, info (exit 0/1/2)",
             {"positional": {"path"}, "names": {"verifier_timeout_s": "verifier-timeout",
                                                "tool_timeout_s": "tool-timeout",
                                                "details": "verbose"}}),
            ("demo", DemoOptions, _cmd_demo, "replay reference solutions through a vector env",
             {"positional": {"path"}}),
            ("split", SplitOptions, _cmd_split, "write a train / val_tasks / val_worlds split "
             "of a world set (JSON)", {"positional": {"path"}}),
            ("eval", EvalOptions, _cmd_eval, "evaluate a policy on exactly N episodes "
             "(World.evaluate)", {**_RUN, "positional": {"env"}}),
            ("record", RecordOptions, _cmd_record, "record rollouts as a Hugging Face dataset",
             {**_RUN, "positional": {"env", "name"}}),
            ("render", RenderOptions, _cmd_render, "write HTML transcripts (recorded or live "
             "episodes)", {**_RUN, "positional": {"out"}}),
            ("rescore", RescoreOptions, _cmd_rescore, "replay recorded episodes, score them "
             "with today's verifiers, report what changed", {"positional": {"dataset"}}),
            ("doctor", DoctorOptions, _cmd_doctor, "check that each installed extra imports; "
             "print the fix for what does not (exit 0/1)", {})):
        p = sub.add_parser(name, help=help_text, description=options.__doc__)
        add_config_arguments(p, options, **extra)
        p.set_defaults(func=func)
    for module_name in SERVER_PROVIDERS:
        _import_provider(module_name)
    for module_name in COMMAND_PROVIDERS:
        module = _import_provider(module_name)
        if module is not None:
            module.add_subcommands(sub)
    return parser


def _import_provider(module_name: str) -> Any:
    """The provider module, or None when it is not part of this install."""
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as e:
        if e.name is not None and module_name.startswith(e.name):
            return None
        raise


def _command_name(args: argparse.Namespace) -> str:
    words = ["awm", args.command, getattr(args, "env_command", None), getattr(args, "stage", None)]
    return " ".join(w for w in words if w)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``awm`` with ``argv`` (default: the process's); returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    argv = [a for a in argv if a != "--debug"]
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as e:  # --help (0) or a usage error, already printed in one line (2)
        return e.code if isinstance(e.code, int) else 2
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING,
                        stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
    try:
        return int(args.func(args))
    except EXPECTED_ERRORS as e:
        if debug:
            traceback.print_exc()
        print(f"{_command_name(args)}: error: {one_line(e)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{_command_name(args)}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
