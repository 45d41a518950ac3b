"""``awm gen ...``: the synthesis commands, added to the ``awm`` CLI by :func:`add_subcommands`.

``awm gen scenario|task|db|sample|spec|env|verifier|solution|finalize|all`` runs stages
(:func:`synth.pipeline.run_pipeline`); ``awm gen reset_db`` builds each world's ``.db`` file
(AWM's ``awm env reset_db``; it lives under ``gen`` because ``awm env`` belongs to the server).
Every field of :class:`~synth.config.SynthConfig` (its ``llm`` and ``embeddings`` parts
flattened) is an option, built by :mod:`awm_gym.cli_config`: kebab-case flags whose help is the
field docstring. Options keep AWM's names where AWM has them (``--input``, ``--output-dir``,
``--model``, ``--api-url``, ``--target-count``, ``--num-tasks``, ``--max-retry``, ``--mode``,
``--scenario``), and AWM's snake_case spellings (``--output_dir``, ``--api_url``, ...) are
accepted too. Results go to stdout, logs and progress bars to stderr.

Example:
    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="awm")
    >>> add_subcommands(parser.add_subparsers(dest="command"))
    >>> args = parser.parse_args(["gen", "task", "--model", "qwen3", "--num_tasks", "3"])
    >>> config_from_args(args).num_tasks, config_from_args(args).llm.model
    (3, 'qwen3')
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass

from awm_gym import cli_config

from .config import SynthConfig

__all__ = ["add_subcommands", "config_from_args", "ResetDBOptions"]

_NAMES = {"verifier_mode": "mode", "llm.base_url": "api-url",
          **{f"embeddings.{name}": f"embedding-{name.replace('_', '-')}" for name in
             ("backend", "model", "api_key_env", "local_model_path", "batch_size")},
          "embeddings.base_url": "embedding-api-url"}
"""AWM's option names where they differ from the field's (AWM's snake_case ones work too)."""


@dataclass(frozen=True)
class ResetDBOptions:
    """What ``awm gen reset_db`` builds."""

    output_dir: str = "outputs"
    """World set directory (AWM layout)."""
    database_dir: str | None = None
    """Where the .db files go (None: <output_dir>/databases)."""
    scenario: tuple[str, ...] = ()
    """Only these worlds (empty: all)."""


def config_from_args(args: argparse.Namespace) -> SynthConfig:
    """Build the :class:`SynthConfig` from parsed options (unset ones keep their defaults)."""
    return cli_config.config_from_args(SynthConfig(), args)


def _cmd_gen(args: argparse.Namespace) -> int:
    from .pipeline import run_pipeline

    reports = run_pipeline(config_from_args(args), [args.stage])
    for report in reports:
        print(report)
    return 1 if any(r.failed for r in reports) else 0


def _cmd_reset_db(args: argparse.Namespace) -> int:
    from .reset_db import reset_databases

    options = cli_config.config_from_args(ResetDBOptions, args)
    out_dir = options.database_dir or os.path.join(options.output_dir, "databases")
    builds = reset_databases(options.output_dir, out_dir, options.scenario)
    for b in builds:
        print(f"{b.world}\t{b.path}\tinserts ok {b.inserts_ok}\tfailed {b.inserts_failed}"
              f"\ttables failed {b.tables_failed}")
    print(f"{len(builds)} databases; {sum(b.inserts_ok for b in builds)} INSERTs ok, "
          f"{sum(b.inserts_failed for b in builds)} failed")
    return 0


def add_subcommands(subparsers: argparse._SubParsersAction) -> None:
    """Add ``awm gen <stage>`` and ``awm gen reset_db`` to the ``awm`` command line."""
    from .pipeline import STAGE_CHOICES

    gen = subparsers.add_parser("gen", help="synthesize worlds (AWM's stages) with an LLM")
    stages = gen.add_subparsers(dest="stage", required=True)
    for stage in STAGE_CHOICES:
        p = stages.add_parser(stage, help=f"run the {stage} stage" if stage != "all" else
                              "run every stage in order",
                              description="AWM's snake_case option names (--output_dir, "
                                          "--api_url, ...) are accepted too.")
        cli_config.add_config_arguments(p, SynthConfig(), names=_NAMES,
                                        flatten={"llm", "embeddings"})
        p.set_defaults(func=_cmd_gen)
    p = stages.add_parser("reset_db", help="build each world's .db file from gen_db + "
                                           "gen_sample (AWM's `awm env reset_db`)")
    cli_config.add_config_arguments(p, ResetDBOptions)
    p.set_defaults(func=_cmd_reset_db)


if __name__ == "__main__":  # python -m synth.cli gen ... (the same as awm gen ...)
    from awm_gym.cli import main

    sys.exit(main())
