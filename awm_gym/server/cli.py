"""``awm env start`` (serve a world: MCP + sessions) and ``awm env check`` (list MCP tools).

The options are the fields of :class:`~awm_gym.server.config.ServerConfig` and of the
:class:`~awm_gym.envs.config.EnvConfig` fields a server operator sets; their help is the field
docstrings, written once. Imported by every ``awm`` run, so it imports nothing heavy at load.

Example:
    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="awm")
    >>> add_subcommands(parser.add_subparsers(dest="command"))
    >>> args = parser.parse_args(["env", "start", "--world", "spotify", "--port", "0"])
    >>> config = server_config(args)
    >>> config.port, config.env.tool_timeout_s
    (0, 10.0)
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import functools
import inspect
import sys
import textwrap
from typing import Any

from awm_gym.envs.config import EnvConfig
from awm_gym.server.config import ServerConfig

__all__ = ["add_subcommands", "server_config"]

# (flag, config class, field); the help text is the field's docstring
_SERVER_FLAGS = (
    ("--world", ServerConfig, "world"),
    ("--worlds-dir", ServerConfig, "worlds_dir"),
    ("--host", ServerConfig, "host"),
    ("--port", ServerConfig, "port"),
    ("--max-sessions", ServerConfig, "max_sessions"),
    ("--idle-timeout", ServerConfig, "idle_timeout_s"),
    ("--max-message-bytes", ServerConfig, "max_message_bytes"),
    ("--max-request-bytes", ServerConfig, "max_request_bytes"),
    ("--max-sessions-per-client", ServerConfig, "max_sessions_per_client"),
)
_ENV_FLAGS = (
    ("--max-episode-steps", EnvConfig, "max_episode_steps"),
    ("--tool-timeout", EnvConfig, "tool_timeout_s"),
    ("--verifier-timeout", EnvConfig, "verifier_timeout_s"),
    ("--verifier-workers", EnvConfig, "verifier_workers"),
    ("--verifier-mode", EnvConfig, "verifier_mode"),
    ("--num-workers", EnvConfig, "num_workers"),
    ("--max-action-chars", EnvConfig, "max_action_chars"),
)


@functools.cache
def field_docs(cls: type) -> dict[str, str]:
    """The docstring written under each field of a dataclass (its one description)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    body = tree.body[0].body  # type: ignore[attr-defined]
    docs: dict[str, str] = {}
    for node, after in zip(body, body[1:], strict=False):
        if (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
                and isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
                and isinstance(after.value.value, str)):
            docs[node.target.id] = " ".join(after.value.value.split())
    return docs


def _field_type(cls: type, name: str) -> Any:
    annotation = str(cls.__dataclass_fields__[name].type)
    if annotation.startswith("int"):
        return int
    if annotation.startswith("float"):
        return float
    return str


def _add_flags(parser: argparse.ArgumentParser, flags: tuple[tuple[str, type, str], ...]) -> None:
    for flag, cls, name in flags:
        default = cls.__dataclass_fields__[name].default
        text = field_docs(cls).get(name, "")
        if default is not dataclasses.MISSING and default is not None:
            text += f" (default: {default})"
        parser.add_argument(flag, dest=name, type=_field_type(cls, name), help=text,
                            metavar=flag[2:].upper().replace("-", "_"),
                            required=name == "world",
                            default=argparse.SUPPRESS)


def server_config(args: argparse.Namespace) -> ServerConfig:
    """The :class:`ServerConfig` that ``awm env start`` arguments describe."""
    values = vars(args)
    env = EnvConfig(**{name: values[name] for _, _, name in _ENV_FLAGS if name in values})
    return ServerConfig(env=env, **{name: values[name] for _, _, name in _SERVER_FLAGS
                                    if name in values})


def _cmd_start(args: argparse.Namespace) -> int:
    from awm_gym.errors import AWMGymError
    from awm_gym.server.runner import serve

    try:
        config = server_config(args)
    except ValueError as e:
        print(f"awm env start: {e}", file=sys.stderr)
        return 2

    def announce(url: str) -> None:  # the result line: tools and scripts read it from stdout
        print(f"serving {config.world} at {url} (MCP: {url}/mcp, sessions: "
              f"{url.replace('http', 'ws', 1)}/ws)", flush=True)

    try:
        serve(config, on_ready=announce)
    except (AWMGymError, OSError) as e:
        print(f"awm env start: {e}", file=sys.stderr)
        return 1
    return 0


def _cmd_check(args: argparse.Namespace) -> int:
    from awm_gym.remote.client import RemoteError
    from awm_gym.remote.mcp_check import list_mcp_tools

    try:
        tools = list_mcp_tools(args.url, timeout_s=args.timeout)
    except RemoteError as e:
        print(f"awm env check: {e}", file=sys.stderr)
        return 1
    print(f"{len(tools)} tools at {args.url}")
    for tool in tools:
        first_line = (tool["description"] or "").strip().splitlines()[:1]
        print(f"  {tool['name']}: {first_line[0] if first_line else ''}")
    return 0 if tools else 1


def add_subcommands(subparsers: argparse._SubParsersAction) -> None:
    """Add ``awm env start`` and ``awm env check`` to the ``awm`` command."""
    env = subparsers.add_parser("env", help="serve worlds over the network (MCP + sessions)")
    env_sub = env.add_subparsers(dest="env_command", required=True)
    start = env_sub.add_parser(
        "start", help="serve one world: MCP at /mcp, sessions at /ws, /health, /metadata",
        description="Serve one world until Ctrl-C. Prints 'serving <world> at <url> ...' on "
                    "stdout when ready; logs go to stderr.")
    _add_flags(start, _SERVER_FLAGS)
    _add_flags(start, _ENV_FLAGS)
    start.set_defaults(func=_cmd_start)
    check = env_sub.add_parser("check", help="list the tools of an MCP server")
    check.add_argument("--url", required=True,
                       help="the MCP endpoint, e.g. http://127.0.0.1:8001/mcp")
    check.add_argument("--timeout", type=float, default=10.0,
                       help="seconds to wait for the server (default: 10)")
    check.set_defaults(func=_cmd_check)
