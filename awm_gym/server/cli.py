"""``awm env start``: serve a world (MCP + sessions); ``awm env check`` is the client's
(:mod:`awm_gym.remote.cli`).

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

from awm_gym.cli_config import add_config_arguments, command_group, config_from_args
from awm_gym.envs.config import EnvConfig
from awm_gym.server.config import ServerConfig
from awm_gym.wire.auth import AUTH_TOKEN_ENV

__all__ = ["add_subcommands", "server_config", "start_flag", "START_ENV_FIELDS"]

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


def add_subcommands(subparsers: argparse._SubParsersAction) -> None:
    """Add ``awm env start`` to the ``awm`` command."""
    start = command_group(subparsers, "env").add_parser(
        "start", help="serve one world: MCP at /mcp, sessions at /ws, /health, /metadata",
        description="Serve one world until Ctrl-C. Prints 'serving <world> at <url> ...' on "
                    "stdout when ready; logs go to stderr.")
    add_config_arguments(start, ServerConfig, names=_NAMES, skip=_SKIP, flatten={"env"})
    start.set_defaults(func=_cmd_start)
