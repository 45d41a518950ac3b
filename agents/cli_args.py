"""Generate argparse options from frozen config dataclasses; help text is each field's docstring.

A nested dataclass field becomes a group of ``--<field>.<subfield>`` options. Types come from
the annotations: ``int``/``float``/``str``, ``bool`` (``--x`` / ``--no-x``), enums (choices),
``X | None`` (the word ``none`` gives None) and tuples (several values). Options left out keep
the defaults of the instance the parser was built from.

Example:
    >>> import argparse
    >>> from agents.grpo.config import GRPOConfig
    >>> parser = argparse.ArgumentParser()
    >>> add_config_arguments(parser, GRPOConfig())
    >>> cfg = config_from_args(GRPOConfig(), parser.parse_args(["--clip-high", "0.3"]))
    >>> cfg.clip_high, cfg.clip_low
    (0.3, 0.2)
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import enum
import inspect
import textwrap
import types
import typing
from functools import lru_cache
from typing import Any

__all__ = ["field_docs", "add_config_arguments", "config_from_args"]


@lru_cache(maxsize=None)
def field_docs(cls: type) -> dict[str, str]:
    """``{field: docstring}`` read from the string literal under each field in ``cls``'s source."""
    try:
        source = textwrap.dedent(inspect.getsource(cls))
    except (OSError, TypeError):
        return {}
    body = ast.parse(source).body[0].body  # type: ignore[attr-defined] - a ClassDef
    docs: dict[str, str] = {}
    for node, nxt in zip(body, body[1:], strict=False):
        if (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
                and isinstance(nxt, ast.Expr) and isinstance(nxt.value, ast.Constant)
                and isinstance(nxt.value.value, str)):
            docs[node.target.id] = " ".join(nxt.value.value.split())
    return docs


def _unwrap(hint: Any) -> tuple[Any, bool]:
    """``(inner type, accepts None)`` of an annotation."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        return (args[0] if len(args) == 1 else str), len(args) < len(typing.get_args(hint))
    return hint, False


def _converter(inner: Any, optional: bool) -> Any:
    def convert(text: str) -> Any:
        if optional and text.lower() == "none":
            return None
        if isinstance(inner, type) and issubclass(inner, enum.Enum):
            return inner(text)
        if inner is int:
            return int(text)
        if inner is float:
            return float(text)
        return text

    convert.__name__ = getattr(inner, "__name__", "value")
    return convert


def _flag(prefix: str, name: str) -> str:
    return "--" + prefix + name.replace("_", "-")


def add_config_arguments(parser: argparse.ArgumentParser | Any, cfg: Any, prefix: str = "",
                         root: argparse.ArgumentParser | None = None) -> None:
    """Add one option per field of the dataclass instance ``cfg`` (recursing into nested ones).

    Each nested dataclass gets its own help section (an argument group of ``root``).
    """
    root = root if root is not None else parser
    hints = typing.get_type_hints(type(cfg))
    docs = field_docs(type(cfg))
    for f in dataclasses.fields(cfg):
        value = getattr(cfg, f.name)
        hint = hints[f.name]
        if dataclasses.is_dataclass(value):
            group = root.add_argument_group(f"{prefix}{f.name}", docs.get(f.name))
            add_config_arguments(group, value, f"{prefix}{f.name}.", root)
            continue
        inner, optional = _unwrap(hint)
        dest = prefix + f.name
        shown = value.value if isinstance(value, enum.Enum) else value
        help_text = f"{docs.get(f.name, '')} (default: {shown})".replace("%", "%%")
        if inner is bool:
            parser.add_argument(_flag(prefix, f.name), dest=dest, default=argparse.SUPPRESS,
                                action=argparse.BooleanOptionalAction, help=help_text)
        elif typing.get_origin(inner) is tuple:
            parser.add_argument(_flag(prefix, f.name), dest=dest, default=argparse.SUPPRESS,
                                nargs="+", metavar="VALUE", help=help_text)
        else:
            choices = [m.value for m in inner] if isinstance(inner, type) and issubclass(
                inner, enum.Enum) else None
            parser.add_argument(_flag(prefix, f.name), dest=dest, default=argparse.SUPPRESS,
                                type=_converter(str if choices else inner, optional),
                                choices=choices, metavar=None if choices else "VALUE",
                                help=help_text)


def config_from_args(cfg: Any, args: argparse.Namespace, prefix: str = "") -> Any:
    """A copy of ``cfg`` with every option given on the command line applied (validated anew)."""
    given = vars(args)
    changes: dict[str, Any] = {}
    for f in dataclasses.fields(cfg):
        value = getattr(cfg, f.name)
        dest = prefix + f.name
        if dataclasses.is_dataclass(value):
            new = config_from_args(value, args, dest + ".")
            if new is not value:
                changes[f.name] = new
        elif dest in given:
            new_value = given[dest]
            if isinstance(new_value, list):  # nargs="+": "none" alone means None
                new_value = None if [v.lower() for v in new_value] == ["none"] else \
                    tuple(new_value)
            changes[f.name] = new_value
    return dataclasses.replace(cfg, **changes) if changes else cfg
