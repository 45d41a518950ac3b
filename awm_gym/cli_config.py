"""Build command-line options from frozen config dataclasses; the help is each field's docstring.

Every ``awm`` command (``awm_gym.cli``, ``awm_gym.server.cli``, ``awm_gym.remote.cli``,
``synth.cli``, ``agents.cli``) declares its options as dataclass fields with a docstring under
each (the CleanRL style) and gets its argparse options from here, so each description is written
once. The convention:

* flags are kebab-case: field ``num_envs`` is ``--num-envs``; the snake_case spelling
  (``--num_envs``) is accepted as a hidden alias, as AWM's users type it;
* a nested dataclass is a section: ``--rollout.group-size`` (``--rollout-group-size`` works
  too), unless it is *flattened* (its fields get no prefix: ``SynthConfig.llm.model`` is
  ``--model``);
* ``names`` renames a flag (``{"llm.base_url": "api-url"}``), ``aliases`` adds hidden old
  spellings, ``skip`` leaves fields out, ``positional`` makes fields positional arguments;
* types come from the annotations: ``int``/``float``/``str``, ``bool`` (``--x`` / ``--no-x``),
  enums and ``Literal`` (choices), ``X | None`` (the word ``none`` gives None), tuples (one or
  more values, the flag repeatable) and mappings (a JSON object); a field that accepts only some
  of an enum's members says so with ``field(metadata={"choices": members})``;
* options left out keep the defaults of the instance (or class) the parser was built from, and
  the config is built (and validated) anew from what was given.

Example:
    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class Demo:
    ...     num_envs: int = 4
    ...     \"\"\"Instances.\"\"\"
    >>> parser = CommandParser(prog="demo")
    >>> add_config_arguments(parser, Demo())
    >>> config_from_args(Demo(), parser.parse_args(["--num_envs", "8"]))
    Demo(num_envs=8)
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import enum
import inspect
import json
import textwrap
import types
import typing
from collections.abc import Collection, Mapping, Sequence
from functools import cache
from typing import Any, NoReturn

__all__ = ["CommandParser", "COMMAND_GROUPS", "command_group", "field_docs", "add_config_arguments",
           "config_from_args", "one_line"]

COMMAND_GROUPS = {"env": "serve a world over the network (start) and list a server's tools (check)"}
"""The ``awm`` commands that several modules add subcommands to, with their help: ``awm env
start`` comes from :mod:`awm_gym.server.cli`, ``awm env check`` from :mod:`awm_gym.remote.cli`."""


class CommandParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose usage errors are one line: ``awm <cmd>: error: ...`` (exit 2).

    Example:
        >>> CommandParser(prog="awm list").error("no such option")  # doctest: +SKIP
        awm list: error: no such option (see awm list --help)
    """

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def command_group(subparsers: argparse._SubParsersAction,
                  name: str) -> argparse._SubParsersAction:
    """The subcommands of ``awm NAME`` (one of :data:`COMMAND_GROUPS`): added by the first module
    that asks, found again by the next. The chosen subcommand is ``args.<name>_command``.

    Example:
        >>> sub = CommandParser(prog="awm").add_subparsers(dest="command")
        >>> command_group(sub, "env") is command_group(sub, "env")
        True
    """
    parser = subparsers.choices.get(name)
    if parser is None:
        if name not in COMMAND_GROUPS:
            raise KeyError(f"command group {name!r}: add it to COMMAND_GROUPS "
                           f"(known: {', '.join(COMMAND_GROUPS)}).")
        parser = subparsers.add_parser(name, help=COMMAND_GROUPS[name])
        return parser.add_subparsers(dest=f"{name}_command", required=True)
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))


@cache
def field_docs(cls: type) -> dict[str, str]:
    """``{field: docstring}``: the string literal under each field of ``cls`` and its dataclass
    bases (a subclass's text wins), white space folded.

    Example:
        >>> from awm_gym.llm_endpoint import LLMEndpoint
        >>> field_docs(LLMEndpoint)["max_concurrency"]
        'Requests in flight at once.'
    """
    docs: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        if not dataclasses.is_dataclass(klass):
            continue
        try:
            source = textwrap.dedent(inspect.getsource(klass))
        except (OSError, TypeError):  # defined in a REPL or doctest: no source to read
            continue
        body = ast.parse(source).body[0].body  # type: ignore[attr-defined] - a ClassDef
        for node, after in zip(body, body[1:], strict=False):
            if (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
                    and isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
                    and isinstance(after.value.value, str)):
                docs[node.target.id] = " ".join(after.value.value.split())
    return docs


def _defaults(cfg: Any) -> dict[str, Any]:
    """Each field's current value: the instance's, or the class default (MISSING if required)."""
    if not isinstance(cfg, type):
        return {f.name: getattr(cfg, f.name) for f in dataclasses.fields(cfg)}
    values: dict[str, Any] = {}
    for f in dataclasses.fields(cfg):
        if f.default is not dataclasses.MISSING:
            values[f.name] = f.default
        elif f.default_factory is not dataclasses.MISSING:
            values[f.name] = f.default_factory()
        else:
            values[f.name] = dataclasses.MISSING
    return values


def _unwrap(hint: Any) -> tuple[Any, bool]:
    """``(inner type, accepts None)`` of an annotation."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        return (args[0] if len(args) == 1 else str), len(args) < len(typing.get_args(hint))
    return hint, False


def _choices(inner: Any) -> list[Any] | None:
    if isinstance(inner, type) and issubclass(inner, enum.Enum):
        return [m.value for m in inner]
    if typing.get_origin(inner) is typing.Literal:
        return list(typing.get_args(inner))
    return None


def _converter(inner: Any, optional: bool) -> Any:
    origin = typing.get_origin(inner)
    base = inner if isinstance(inner, type) else origin

    def convert(text: str) -> Any:
        if optional and text.lower() == "none":
            return None
        if base in (int, float):
            return base(text)
        if isinstance(base, type) and issubclass(base, Mapping):
            value = json.loads(text)
            if not isinstance(value, dict):
                raise ValueError("not a JSON object")
            return value
        return text

    convert.__name__ = {int: "int", float: "float"}.get(base, "JSON object" if isinstance(
        base, type) and issubclass(base, Mapping) else "value")
    return convert


def _shown(value: Any) -> str:
    if isinstance(value, enum.Enum):
        value = value.value
    if isinstance(value, tuple):
        return " ".join(map(str, value)) or "none given"
    return str(value).replace("%", "%%")


def add_config_arguments(parser: argparse.ArgumentParser, cfg: Any, *,
                         names: Mapping[str, str] | None = None,
                         aliases: Mapping[str, Sequence[str]] | None = None,
                         skip: Collection[str] = (), flatten: Collection[str] = (),
                         positional: Collection[str] = (), _prefix: str = "",
                         _flag_prefix: str = "", _root: Any = None) -> None:
    """Add one option per field of ``cfg`` (a dataclass instance or class), recursing into
    nested dataclasses. Field paths are dotted (``llm.base_url``) in ``names``, ``aliases``,
    ``skip``, ``flatten`` and ``positional``.

    Args:
        parser: the parser (or argument group) to add to.
        cfg: its values are the defaults; a class's required fields become required options.
        names: flag name (without ``--``) per field path, where the kebab-case name won't do.
        aliases: extra hidden spellings (with ``--``) per field path, e.g. old flag names.
        skip: field paths to leave out.
        flatten: nested fields whose options take no section prefix.
        positional: field paths given as positional arguments (optional when they have a
            default).
    """
    names, aliases = names or {}, aliases or {}
    root = _root if _root is not None else parser
    hints = typing.get_type_hints(cfg if isinstance(cfg, type) else type(cfg))
    docs = field_docs(cfg if isinstance(cfg, type) else type(cfg))
    narrowed = {f.name: [getattr(c, "value", c) for c in f.metadata["choices"]]
                for f in dataclasses.fields(cfg) if "choices" in f.metadata}
    for name, value in _defaults(cfg).items():
        path = _prefix + name
        if path in skip:
            continue
        inner, optional = _unwrap(hints[name])
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            group = root.add_argument_group(path, docs.get(name))
            add_config_arguments(group, value, names=names, aliases=aliases, skip=skip,
                                 flatten=flatten, positional=positional, _prefix=path + ".",
                                 _flag_prefix="" if path in flatten else f"{_flag_prefix}{name}.",
                                 _root=root)
            continue
        help_text = docs.get(name, "").replace("%", "%%")
        if value is not dataclasses.MISSING and value is not None and value != ():
            help_text += f" (default: {_shown(value)})"
        if path in positional:
            parser.add_argument(path, metavar=name.upper(), help=help_text,
                                nargs=None if value is dataclasses.MISSING else "?",
                                default=argparse.SUPPRESS, type=_converter(inner, optional))
            continue
        flag = "--" + names.get(path, _flag_prefix + name.replace("_", "-"))
        snake = flag.replace("-", "_").replace("__", "--", 1)
        hidden = [f for f in ({snake, flag.replace(".", "-")} | set(aliases.get(path, ())))
                  if f != flag]
        kwargs: dict[str, Any] = {"dest": path, "default": argparse.SUPPRESS}
        if inner is bool:
            kwargs["action"] = argparse.BooleanOptionalAction
        else:
            choices = narrowed.get(name) or _choices(inner)
            is_tuple = typing.get_origin(inner) is tuple
            element = typing.get_args(inner)[0] if is_tuple else inner
            kwargs.update(
                type=_converter(str if choices else element, optional and not is_tuple),
                choices=choices, metavar=flag[2:].upper().replace("-", "_").replace(".", "_"),
                required=value is dataclasses.MISSING)
            if is_tuple:
                kwargs.update(nargs="+", action="extend")
                help_text += " (one or more; the flag can repeat)"
        if kwargs.get("required"):  # argparse checks a required option's own spellings only
            parser.add_argument(flag, *sorted(hidden), help=help_text, **kwargs)
            continue
        parser.add_argument(flag, help=help_text, **kwargs)
        for spelling in sorted(hidden):  # accepted, not shown in --help
            parser.add_argument(spelling, **kwargs, help=argparse.SUPPRESS)


def config_from_args(cfg: Any, args: argparse.Namespace, *, _prefix: str = "") -> Any:
    """The config ``args`` describe: ``cfg`` (an instance, or a class to instantiate) with every
    option given on the command line applied, built (so validated) anew.

    Raises:
        ValueError (or the config's own error): a value the config rejects.
    """
    given = vars(args)
    hints = typing.get_type_hints(cfg if isinstance(cfg, type) else type(cfg))
    changes: dict[str, Any] = {}
    for name, value in _defaults(cfg).items():
        path = _prefix + name
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            new = config_from_args(value, args, _prefix=path + ".")
            if new is not value or isinstance(cfg, type):
                changes[name] = new
        elif path in given:
            new_value = given[path]
            if isinstance(new_value, list):  # nargs="+": "none" alone means None
                new_value = None if [str(v).lower() for v in new_value] == ["none"] else \
                    tuple(new_value)
            inner = _unwrap(hints[name])[0]
            if isinstance(inner, type) and issubclass(inner, enum.Enum) and \
                    isinstance(new_value, str):  # argparse checked it is one of the values
                new_value = inner(new_value)
            changes[name] = new_value
    if isinstance(cfg, type):
        return cfg(**changes)
    return dataclasses.replace(cfg, **changes) if changes else cfg


def one_line(error: BaseException) -> str:
    """An error as one line of text (white space folded), for ``awm <cmd>: error: ...``."""
    text = " ".join(str(error).split())
    return text or type(error).__name__
