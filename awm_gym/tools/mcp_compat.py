"""The ``mcp`` SDK across the supported range (1.26, AWM's; 2.x, what vllm 0.32 needs).

mcp 2 renamed the Python attributes of its models to snake case (``Tool.inputSchema`` became
``Tool.input_schema``, ``CallToolResult.isError`` became ``is_error``); the JSON on the wire keeps
the camel-case names, and the constructors accept them in both versions. mcp 2 also moved tool
handlers of the low-level ``Server`` from decorators into its constructor. Code of ours that reads
those attributes or builds a server goes through here.

Example:
    >>> from mcp import types
    >>> tool_input_schema(types.Tool(name="t", description="d", inputSchema={"type": "object"}))
    {'type': 'object'}
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

__all__ = ["tool_input_schema", "result_is_error", "build_tool_server", "client_streams",
           "MCP_MAJOR"]


def _major() -> int:
    from importlib.metadata import version

    return int(version("mcp").split(".", 1)[0])


MCP_MAJOR = _major()
"""The installed mcp SDK's major version (1 or 2)."""


def tool_input_schema(tool: Any) -> dict[str, Any]:
    """A ``types.Tool``'s input schema, in either SDK."""
    if "input_schema" in type(tool).model_fields:
        return tool.input_schema
    return tool.inputSchema


def result_is_error(result: Any) -> bool:
    """A ``types.CallToolResult``'s error flag, in either SDK."""
    if "is_error" in type(result).model_fields:
        return bool(result.is_error)
    return bool(result.isError)


def build_tool_server(name: str, *, version: str, lifespan: Callable[[Any], Any],
                      list_tools: Callable[[Any], Awaitable[list[Any]]],
                      call_tool: Callable[[Any, str, dict[str, Any]], Awaitable[Any]]) -> Any:
    """A low-level MCP ``Server`` that lists and calls tools, in either SDK.

    Args:
        name / version: the server's identity (``initialize``'s ``serverInfo``).
        lifespan: the per-session lifespan (an async context manager factory taking the server).
        list_tools: ``await list_tools(context)`` -> the ``types.Tool`` list.
        call_tool: ``await call_tool(context, name, arguments)`` -> a ``types.CallToolResult``;
            the SDK does not check the arguments against the schema (the runtime does, with the
            same text as mcp 1.26's check).

    ``context`` is the SDK's request context (``lifespan_context``, ``request``). mcp 1.x
    registers handlers with decorators and exposes the context on the server; mcp 2 takes the
    handlers in the constructor and passes the context in.
    """
    from mcp import types
    from mcp.server.lowlevel import Server

    if MCP_MAJOR >= 2:
        async def on_list_tools(context: Any, params: Any) -> Any:
            return types.ListToolsResult(tools=await list_tools(context))

        async def on_call_tool(context: Any, params: Any) -> Any:
            return await call_tool(context, params.name, dict(params.arguments or {}))

        return Server(name, version=version, lifespan=lifespan, on_list_tools=on_list_tools,
                      on_call_tool=on_call_tool)
    server = Server(name, version=version, lifespan=lifespan)

    async def list_handler() -> list[Any]:
        return await list_tools(server.request_context)

    async def call_handler(tool: str, arguments: dict[str, Any]) -> Any:
        return await call_tool(server.request_context, tool, arguments)

    server.list_tools()(list_handler)
    server.call_tool(validate_input=False)(call_handler)
    return server


@contextlib.asynccontextmanager
async def client_streams(url: str, http_client: Any = None) -> AsyncIterator[tuple[Any, Any]]:
    """``(read, write)`` of a Streamable HTTP connection to ``url``, for ``ClientSession``.

    mcp 1.x yields ``(read, write, get_session_id)``, mcp 2 ``(read, write)``.
    """
    from mcp.client.streamable_http import streamable_http_client

    kwargs = {} if http_client is None else {"http_client": http_client}
    async with streamable_http_client(url, **kwargs) as streams:
        yield streams[0], streams[1]
