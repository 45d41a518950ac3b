"""A world's tools exactly as AWM's MCP layer shows them to a model, and the ``list_tools`` text.

The catalogue comes from fastapi_mcp 0.4.0 itself (``get_openapi`` on the app's routes, then
``convert_openapi_to_mcp_tools`` with AWM's settings), so names (the routes' operation ids),
descriptions (summary, description and the ``### Responses`` example) and flat input schemas
(path + query + body properties) are byte-identical to what AWM serves. Arguments are checked
against the input schema as mcp 1.26's server does before any call, with the same message.

Example:
    >>> tool = ToolSpec("get_note", "Get a note", {"type": "object",
    ...     "properties": {"note_id": {"type": "integer", "title": "Note Id"}},
    ...     "required": ["note_id"]})
    >>> tool.validation_error({"note_id": "x"})
    "Input validation error: 'x' is not of type 'integer'"
    >>> tool.validation_error({"note_id": 3}) is None
    True
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ToolSpec", "build_catalogue", "format_tools_text", "TOOL_PREFIX"]

TOOL_PREFIX = "mcp_tool_"
"""The prefix AWM's agent puts before every tool name it shows a model."""


@dataclass(frozen=True)
class ToolSpec:
    """One tool as MCP lists it: ``name`` (operation id), ``description``, ``input_schema``."""

    name: str
    description: str
    input_schema: Mapping[str, Any]
    _validator: Any = field(default=None, init=False, repr=False, compare=False)
    _schema_error: str | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        import jsonschema
        from jsonschema.validators import validator_for

        cls = validator_for(self.input_schema)
        try:
            cls.check_schema(self.input_schema)
        except jsonschema.SchemaError as e:  # mcp reports this text for every call
            object.__setattr__(self, "_schema_error", str(e))
            return
        object.__setattr__(self, "_validator", cls(self.input_schema))

    def validation_error(self, arguments: Any) -> str | None:
        """The text mcp's server returns for arguments failing the input schema, else None."""
        if self._schema_error is not None:
            return self._schema_error
        from jsonschema.exceptions import best_match

        error = best_match(self._validator.iter_errors(arguments))
        return None if error is None else f"Input validation error: {error.message}"

    def to_dict(self) -> dict[str, Any]:
        """The MCP ``Tool`` fields as plain JSON: ``{"name", "description", "inputSchema"}``."""
        return {"name": self.name, "description": self.description,
                "inputSchema": json.loads(json.dumps(self.input_schema))}


def build_catalogue(app: Any) -> tuple[list[ToolSpec], dict[str, dict[str, Any]]]:
    """List an app's tools as fastapi_mcp 0.4.0 does; also return its operation map.

    Returns:
        ``(tools, operation_map)``: tools in MCP listing order, and for each tool name the
        ``{"path", "method", "parameters"}`` entry used to route its calls.
    """
    from fastapi.openapi.utils import get_openapi
    from fastapi_mcp.openapi.convert import convert_openapi_to_mcp_tools

    openapi = get_openapi(title=app.title, version=app.version,
                          openapi_version=app.openapi_version, description=app.description,
                          routes=app.routes)
    tools, operation_map = convert_openapi_to_mcp_tools(
        openapi, describe_all_responses=False, describe_full_response_schema=False)
    specs = [ToolSpec(t.name, t.description or "", t.inputSchema) for t in tools]
    return specs, operation_map


def _schema_type(schema: Mapping[str, Any]) -> str:
    if "type" in schema:
        t = schema["type"]
        return "/".join(t) if isinstance(t, list) else str(t)
    for option in schema.get("anyOf", []) or schema.get("oneOf", []):
        if option.get("type") not in (None, "null"):
            return str(option["type"])
    return "any"


def _format_parameters(schema: Mapping[str, Any], indent: str) -> list[str]:
    lines: list[str] = []
    required = set(schema.get("required", []))
    for name, prop in (schema.get("properties") or {}).items():
        kind = "required" if name in required else "optional"
        lines.append(f"{indent}- {name}: {_schema_type(prop)} ({kind})")
        if prop.get("description"):
            lines.append(f"{indent}  Description: {prop['description']}")
        if "default" in prop:
            lines.append(f"{indent}  Default: {prop['default']}")
        if prop.get("enum"):
            lines.append(f"{indent}  Allowed values: {', '.join(map(str, prop['enum']))}")
        if _schema_type(prop) == "object" and prop.get("properties"):
            lines.extend(_format_parameters(prop, indent + "    "))
    return lines


def format_tools_text(tools: Sequence[ToolSpec], prefix: str = TOOL_PREFIX) -> str:
    """Render the ``list_tools`` reply the way AWM's agent formats it for a model.

    Each tool is numbered, named ``mcp_tool_<operation_id>``, its description lines are indented
    (blank lines dropped), and its parameters are listed with type, required/optional, and
    description, default and allowed values when present; nested objects recurse, array item
    schemas are not shown. The layout is reconstructed from AWM's verified output (awm.md 3.4).

    Example:
        >>> print(format_tools_text([ToolSpec("ping", "Ping\\n\\nSays pong.", {"type": "object",
        ...     "properties": {"n": {"type": "integer", "default": 1}}})]))
        Available MCP Tools (1 tools):
        ================================================================================
        <BLANKLINE>
        1. mcp_tool_ping
           Description: Ping
           Says pong.
           Parameters:
              - n: integer (optional)
                Default: 1
    """
    lines = [f"Available MCP Tools ({len(tools)} tools):", "=" * 80]
    for i, tool in enumerate(tools, start=1):
        name = tool.name if tool.name.startswith(prefix) else prefix + tool.name
        desc = [ln.strip() for ln in tool.description.splitlines() if ln.strip()]
        lines += ["", f"{i}. {name}"]
        if desc:
            lines.append(f"   Description: {desc[0]}")
            lines.extend(f"   {ln}" for ln in desc[1:])
        params = _format_parameters(tool.input_schema, "      ")
        if params:
            lines.append("   Parameters:")
            lines.extend(params)
    return "\n".join(lines)
