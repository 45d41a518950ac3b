"""List the tools of an MCP server over Streamable HTTP (what ``awm env check`` prints).

Works against any MCP server: ours (``awm env start``), AWM's own, or another.

Example (with ``awm env start --world spotify`` running)::

    tools = list_mcp_tools("http://127.0.0.1:8001")     # /mcp is appended
    tools[0]["name"], len(tools)      # ('search_tracks', 63)
"""

from __future__ import annotations

from typing import Any

from awm_gym.remote.client import RemoteError, mcp_url
from awm_gym.wire.auth import auth_headers

__all__ = ["list_mcp_tools"]


def list_mcp_tools(url: str, *, timeout_s: float = 10.0,
                   auth_token: str | None = None) -> list[dict[str, Any]]:
    """Connect to the MCP endpoint at ``url`` (a server address gets ``/mcp`` appended), list
    its tools, and end the session.

    Returns:
        One ``{"name", "description", "inputSchema"}`` dict per tool, in the server's order.

    Raises:
        RemoteError: the server cannot be reached, is not an MCP endpoint, or timed out.
    """
    import anyio  # third-party: loaded only when tools are listed

    url = mcp_url(url)
    try:
        return anyio.run(_list_tools, url, timeout_s, auth_token)
    except RemoteError:
        raise
    except BaseException as e:  # noqa: BLE001 - anyio wraps transport faults in exception groups
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        raise RemoteError(f"cannot list the tools of {url}: {_root_cause(e)}. Is an MCP server "
                          "running there (e.g. `awm env start --world spotify`)?") from e


async def _list_tools(url: str, timeout_s: float, auth_token: str | None
                      ) -> list[dict[str, Any]]:
    import anyio
    import httpx
    from mcp import ClientSession

    from awm_gym.tools.mcp_compat import client_streams, tool_input_schema

    with anyio.fail_after(timeout_s):
        async with httpx.AsyncClient(timeout=timeout_s, follow_redirects=True,
                                     headers=auth_headers(auth_token)) as http, \
                client_streams(url, http_client=http) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            result = await session.list_tools()
    return [{"name": t.name, "description": t.description or "",
             "inputSchema": tool_input_schema(t)} for t in result.tools]


def _root_cause(error: BaseException) -> str:
    """The innermost, most telling error of an exception group or chain."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    if isinstance(error, TimeoutError):
        return "no answer in time"
    return f"{type(error).__name__}: {error}"
