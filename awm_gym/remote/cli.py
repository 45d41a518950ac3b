"""``awm env check``: list the tools of a world server (or of any MCP server).

The client's side of ``awm env``; ``awm env start`` is the server's (:mod:`awm_gym.server.cli`).
Imported by every ``awm`` run, so it imports nothing heavy at load.

Example:
    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="awm")
    >>> add_subcommands(parser.add_subparsers(dest="command"))
    >>> args = parser.parse_args(["env", "check", "--url", "http://127.0.0.1:9000"])
    >>> args.env_command, config_from_args(EnvCheckOptions, args)
    ('check', EnvCheckOptions(url='http://127.0.0.1:9000', timeout_s=10.0))
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass

from awm_gym.cli_config import add_config_arguments, command_group, config_from_args
from awm_gym.wire.auth import AUTH_TOKEN_ENV

__all__ = ["EnvCheckOptions", "add_subcommands"]


@dataclass(frozen=True)
class EnvCheckOptions:
    """What ``awm env check`` connects to."""

    url: str = "http://127.0.0.1:8001"
    """The server's address as ``awm env start`` prints it (``/mcp`` is appended when missing),
    or any MCP endpoint."""
    timeout_s: float = 10.0
    """Seconds to wait for the server."""

    def __post_init__(self) -> None:
        if not self.timeout_s > 0:
            raise ValueError(f"--timeout {self.timeout_s}: must be > 0 seconds.")


def _cmd_check(args: argparse.Namespace) -> int:
    # the MCP client (mcp, httpx, anyio): only when a check runs
    from awm_gym.remote.client import mcp_url
    from awm_gym.remote.mcp_check import list_mcp_tools

    options = config_from_args(EnvCheckOptions, args)
    url = mcp_url(options.url)
    tools = list_mcp_tools(url, timeout_s=options.timeout_s,
                           auth_token=os.environ.get(AUTH_TOKEN_ENV))
    print(f"{len(tools)} tools at {url}")
    for tool in tools:
        first_line = (tool["description"] or "").strip().splitlines()[:1]
        print(f"  {tool['name']}: {first_line[0] if first_line else ''}")
    return 0 if tools else 1


def add_subcommands(subparsers: argparse._SubParsersAction) -> None:
    """Add ``awm env check`` to the ``awm`` command."""
    check = command_group(subparsers, "env").add_parser(
        "check", help="list the tools of a world server (or any MCP server)",
        description="Connect to the MCP endpoint of a server and list its tools.")
    add_config_arguments(check, EnvCheckOptions, names={"timeout_s": "timeout"})
    check.set_defaults(func=_cmd_check)
