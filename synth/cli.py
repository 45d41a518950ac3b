"""``awm gen ...``: the synthesis commands, added to the ``awm`` CLI by :func:`add_subcommands`.

``awm gen scenario|task|db|sample|spec|env|verifier|solution|finalize|all`` runs stages
(:func:`synth.pipeline.run_pipeline`); ``awm gen reset_db`` builds each world's ``.db`` file
(AWM's ``awm env reset_db``; it lives under ``gen`` because ``awm env`` belongs to the server).
Options keep AWM's names where AWM has them (``--input``, ``--output_dir``, ``--model``,
``--api_url``, ``--target_count``, ``--num_tasks``, ``--max_retry``, ``--mode``,
``--scenario``). Their help text is the docstring under each config field, written once in
:mod:`synth.config`. Results go to stdout, logs and progress bars to stderr.

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
import ast
import dataclasses
import inspect
import sys
import textwrap
from typing import Any

from .config import EmbeddingConfig, LLMEndpoint, SynthConfig

__all__ = ["add_subcommands", "config_from_args"]

# (config class, dest prefix, {field: option name}) — fields not listed keep their own name
_GROUPS: tuple[tuple[type, str, dict[str, str]], ...] = (
    (SynthConfig, "", {"verifier_mode": "mode"}),
    (LLMEndpoint, "llm.", {"base_url": "api_url"}),
    (EmbeddingConfig, "embeddings.", {"backend": "embedding_backend", "model": "embedding_model",
                                      "base_url": "embedding_api_url",
                                      "api_key_env": "embedding_api_key_env",
                                      "local_model_path": "embedding_local_model_path",
                                      "batch_size": "embedding_batch_size"}),
)
_SKIPPED = {"llm", "embeddings", "extra_body"}


def _field_docs(cls: type) -> dict[str, str]:
    """The docstring written under each field of a dataclass (the CleanRL style)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    body = tree.body[0].body  # type: ignore[attr-defined]  # a ClassDef
    docs = {}
    for node, following in zip(body, body[1:], strict=False):
        if (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
                and isinstance(following, ast.Expr) and isinstance(following.value, ast.Constant)
                and isinstance(following.value.value, str)):
            docs[node.target.id] = " ".join(following.value.value.split())
    return docs


def _add_config_arguments(parser: argparse.ArgumentParser) -> None:
    for cls, prefix, renames in _GROUPS:
        docs = _field_docs(cls)
        group = parser.add_argument_group(cls.__name__)
        for f in dataclasses.fields(cls):
            if f.name in _SKIPPED:
                continue
            option = "--" + renames.get(f.name, f.name)
            dest = prefix + f.name
            kind = str(f.type)
            help_text = docs.get(f.name, "")
            if kind == "bool":
                group.add_argument(option, dest=dest, action=argparse.BooleanOptionalAction,
                                   default=None, help=help_text)
            elif kind.startswith("tuple[str"):
                group.add_argument(option, dest=dest, action="append", default=None,
                                   help=help_text + " (repeatable)")
            else:
                convert = int if kind.startswith("int") else float if kind.startswith(
                    "float") else str
                group.add_argument(option, dest=dest, type=convert, default=None,
                                   help=help_text)


def config_from_args(args: argparse.Namespace) -> SynthConfig:
    """Build the :class:`SynthConfig` from parsed options (unset ones keep their defaults)."""
    values: dict[str, dict[str, Any]] = {"": {}, "llm.": {}, "embeddings.": {}}
    for dest, value in vars(args).items():
        if value is None:
            continue
        for prefix in ("llm.", "embeddings."):
            if dest.startswith(prefix):
                values[prefix][dest[len(prefix):]] = value
                break
        else:
            if dest in {f.name for f in dataclasses.fields(SynthConfig)}:
                values[""][dest] = tuple(value) if isinstance(value, list) else value
    llm = LLMEndpoint(**{"model": "gpt-4.1-mini", **values["llm."]})
    return SynthConfig(llm=llm, embeddings=EmbeddingConfig(**values["embeddings."]),
                       **values[""])


def _cmd_gen(args: argparse.Namespace) -> int:
    from .pipeline import run_pipeline

    reports = run_pipeline(config_from_args(args), [args.stage])
    for report in reports:
        print(report)
    return 1 if any(r.failed for r in reports) else 0


def _cmd_reset_db(args: argparse.Namespace) -> int:
    import os

    from .reset_db import reset_databases

    out_dir = args.database_dir or os.path.join(args.output_dir, "databases")
    builds = reset_databases(args.output_dir, out_dir, args.scenario or ())
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
                              "run every stage in order")
        _add_config_arguments(p)
        p.set_defaults(func=_cmd_gen)
    p = stages.add_parser("reset_db", help="build each world's .db file from gen_db + "
                                           "gen_sample (AWM's `awm env reset_db`)")
    p.add_argument("--output_dir", default="outputs", help="world set directory (AWM layout)")
    p.add_argument("--database_dir", default=None,
                   help="where the .db files go (default: <output_dir>/databases)")
    p.add_argument("--scenario", action="append", help="only this world (repeatable)")
    p.set_defaults(func=_cmd_reset_db)


if __name__ == "__main__":  # python -m synth.cli gen ... (the same as awm gen ...)
    from awm_gym.cli import main

    sys.exit(main())
