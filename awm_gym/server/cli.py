"""``awm env start`` (serve a world: MCP + sessions) and ``awm env check`` (list MCP tools).

The options are the fields of :class:`~awm_gym.server.config.ServerConfig` and of the
:class:`~awm_gym.envs.config.EnvConfig` fields a server operator sets, built by
:mod:`awm_gym.cli_config` (help = the field docstrings, written once). Imported by every ``awm``
run, so it imports nothing heavy at load.

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
import dataclasses
import os
from dataclasses import dataclass

from awm_gym.cli_config import add_config_arguments, config_from_args
from awm_gym.envs.config import EnvConfig
from awm_gym.server.config import ServerConfig

__all__ = ["AUTH_TOKEN_ENV", "add_subcommands", "server_config", "start_flag", "START_ENV_FIELDS",
           "CheckOptions"]

AUTH_TOKEN_ENV = "AWM_GYM_AUTH_TOKEN"
"""The environment variable ``awm env start`` and ``awm env check`` read the token from."""

START_ENV_FIELDS = ("max_episode_steps", "tool_timeout_s", "verifier_timeout_s",
                    "verifier_workers", "verifier_mode", "num_workers", "max_action_chars",
                    "isolation")
"""The :class:`EnvConfig` fields ``awm env start`` exposes (the rest keep their defaults)."""

_NAMES = {"idle_timeout_s": "idle-timeout", "env.tool_timeout_s": "tool-timeout",
          "env.verifier_timeout_s": "verifier-timeout"}
_SKIP = {f"env.{f.name}" for f in dataclasses.fields(EnvConfig)} - {
    f"env.{name}" for name in START_ENV_FIELDS}


def start_flag(path: str) -> str:
    """The ``awm env start`` flag of a :class:`ServerConfig` field path (``env.num_workers``).

    Example:
        >>> start_flag("idle_timeout_s"), start_flag("env.num_workers")
        ('--idle-timeout', '--num-workers')
    """
    return "--" + _NAMES.get(path, path.rsplit(".", 1)[-1].replace("_", "-"))


@dataclass(frozen=True)
class CheckOptions:
    """What ``awm env check`` connects to."""

    url: str = "http://127.0.0.1:8001"
    """The server's address as ``awm env start`` prints it (``/mcp`` is appended when missing),
    or any MCP endpoint."""
    timeout_s: float = 10.0
    """Seconds to wait for the server."""

    def __post_init__(self) -> None:
        if not self.timeout_s > 0:
            raise ValueError(f"--timeout {self.timeout_s}: must be > 0 seconds.")


def server_config(args: argparse.Namespace) -> ServerConfig:
    """The :class:`ServerConfig` that ``awm env start`` arguments describe."""
    config = config_from_args(ServerConfig, args)
    if config.auth_token is None and os.environ.get(AUTH_TOKEN_ENV):
        config = dataclasses.replace(config, auth_token=os.environ[AUTH_TOKEN_ENV])
    return config


def _cmd_start(args: argparse.Namespace) -> int:
    from awm_gym.server.runner import serve  # uvicorn and the app: only when a server starts

    config = server_config(args)

    def announce(url: str) -> None:  # the result line: tools and scripts read it from stdout
        if config.protocol == "openenv":
            print(f"serving {config.world} at {url} (OpenEnv: {url}/reset, /step, /state, "
                  f"/schema, /metadata; sessions: {url.replace('http', 'ws', 1)}/ws)", flush=True)
            return
        print(f"serving {config.world} at {url} (MCP: {url}/mcp, sessions: "
              f"{url.replace('http', 'ws', 1)}/ws)", flush=True)

    serve(config, on_ready=announce)
    return 0


def _cmd_check(args: argparse.Namespace) -> int:
    # awm_gym.remote loads the env runtime and SQLAlchemy (~1 s): only when a check runs
    from awm_gym.remote.client import mcp_url
    from awm_gym.remote.mcp_check import list_mcp_tools

    options = config_from_args(CheckOptions, args)
    url = mcp_url(options.url)
    tools = list_mcp_tools(url, timeout_s=options.timeout_s,
                           auth_token=os.environ.get(AUTH_TOKEN_ENV))
    print(f"{len(tools)} tools at {url}")
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
    add_config_arguments(start, ServerConfig, names=_NAMES, skip=_SKIP, flatten={"env"})
    start.set_defaults(func=_cmd_start)
    check = env_sub.add_parser(
        "check", help="list the tools of a world server (or any MCP server)",
        description="Connect to the MCP endpoint of a server and list its tools.")
    add_config_arguments(check, CheckOptions, names={"timeout_s": "timeout"})
    check.set_defaults(func=_cmd_check)
