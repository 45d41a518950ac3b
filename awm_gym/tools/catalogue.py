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

import functools
import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from awm_gym.atomic_io import write_bytes_atomic

__all__ = ["ToolSpec", "Catalogue", "CatalogueCache", "build_catalogue", "format_tools_text",
           "TOOL_PREFIX"]

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

    def _check_schema(self) -> None:
        """Build the validator (on first use: most tools of most worlds are never called)."""
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
        if self._validator is None and self._schema_error is None:
            self._check_schema()
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

    from awm_gym.tools.mcp_compat import tool_input_schema

    openapi = get_openapi(title=app.title, version=app.version,
                          openapi_version=app.openapi_version, description=app.description,
                          routes=app.routes)
    tools, operation_map = convert_openapi_to_mcp_tools(
        openapi, describe_all_responses=False, describe_full_response_schema=False)
    specs = [ToolSpec(t.name, t.description or "", tool_input_schema(t)) for t in tools]
    return specs, operation_map


CATALOGUE_FORMAT = 2
"""Bump when what a cached catalogue holds changes, so stale entries are not reused (2: a
header line with the names, the text as raw UTF-8, then the tools and their routing)."""
_LIBRARIES = ("fastapi", "pydantic", "fastapi-mcp", "mcp", "starlette")
"""The libraries whose versions decide a catalogue's text (part of the cache key)."""


class Catalogue:
    """A world's tools as MCP lists them, how to route each, and the ``list_tools`` text.

    Read back from the cache (:meth:`from_json`), only the text and the names are decoded; the
    tools' schemas and routing are decoded when first read (a ``list_tools`` reply or a
    malformed action needs neither, and 647 worlds' schemas took 0.5 s to decode).

    Attributes:
        text: :func:`format_tools_text` of ``tools``, rendered once from the tools as built.
        names: the tools' names.

    Example:
        >>> built = Catalogue([ToolSpec("ping", "Ping", {})], {"ping": {"path": "/ping",
        ...                    "method": "GET", "parameters": []}}, "1. mcp_tool_ping")
        >>> back = Catalogue.from_json(built.to_json())
        >>> sorted(back.names), back.tools[0].name, back.operations["ping"]["path"]
        (['ping'], 'ping', '/ping')
    """

    def __init__(self, tools: Sequence[ToolSpec], operations: Mapping[str, Mapping[str, Any]],
                 text: str) -> None:
        self.text = text
        self.names = frozenset(t.name for t in tools)
        self._decoded: tuple[tuple[ToolSpec, ...], Mapping[str, Mapping[str, Any]]] | None = (
            tuple(tools), operations)
        self._body: bytes | None = None

    def __repr__(self) -> str:
        return f"Catalogue({len(self.names)} tools)"

    @property
    def tools(self) -> tuple[ToolSpec, ...]:
        """The tools, in MCP listing order."""
        return self._decode()[0]

    @property
    def operations(self) -> Mapping[str, Mapping[str, Any]]:
        """Per tool, ``{"path", "method", "parameters": [{"name", "in"}, ...]}``."""
        return self._decode()[1]

    def _decode(self) -> tuple[tuple[ToolSpec, ...], Mapping[str, Mapping[str, Any]]]:
        decoded = self._decoded
        if decoded is None:  # two threads may both decode: the same result, assigned at once
            raw = json.loads(self._body.decode("utf-8", "surrogatepass"))  # type: ignore[union-attr]
            tools = tuple(ToolSpec(t["name"], t["description"], t["inputSchema"])
                          for t in raw["tools"])
            decoded = self._decoded = (tools, raw["operations"])
        return decoded

    @classmethod
    def of_app(cls, app: Any) -> Catalogue:
        """Build the catalogue of a FastAPI app with fastapi_mcp (imports it)."""
        tools, operation_map = build_catalogue(app)
        operations = {t.name: _routing_of(operation_map[t.name]) for t in tools}
        return cls(tuple(tools), operations, format_tools_text(tools))

    def to_json(self) -> bytes:
        """A JSON line ``{"names", "text_bytes"}``, the ``list_tools`` text as raw UTF-8 (that
        many bytes), a newline, and the JSON of ``{"tools", "operations"}``."""
        text = self.text.encode("utf-8", "surrogatepass")
        header = json.dumps({"names": sorted(self.names), "text_bytes": len(text)},
                            ensure_ascii=False).encode("utf-8", "surrogatepass")
        body = json.dumps({"tools": [t.to_dict() for t in self.tools],
                           "operations": self.operations},
                          ensure_ascii=False).encode("utf-8", "surrogatepass")
        return header + b"\n" + text + b"\n" + body

    @classmethod
    def from_json(cls, data: bytes) -> Catalogue:
        """Read :meth:`to_json`'s bytes, decoding the header and the text now, the rest later
        (the text is stored raw: as a JSON string, 647 worlds' texts took 0.1 s to decode).

        Raises:
            ValueError, KeyError, TypeError: not a catalogue of this format.
        """
        newline = data.find(b"\n")  # not partition: that would copy the whole rest
        if newline < 0:
            raise ValueError("not a catalogue: no header line")
        header = json.loads(data[:newline].decode("utf-8", "surrogatepass"))
        start = newline + 1
        end = start + int(header["text_bytes"])
        if data[end:end + 2] != b"\n{" or not data.endswith(b"}"):  # cut short: rebuild it
            raise ValueError("not a catalogue: the text is not followed by the body")
        catalogue = cls.__new__(cls)
        catalogue.text = str(memoryview(data)[start:end], "utf-8", "surrogatepass")
        catalogue.names = frozenset(header["names"])
        catalogue._decoded, catalogue._body = None, data[end + 1:]
        return catalogue


def _routing_of(entry: Mapping[str, Any]) -> dict[str, Any]:
    """What routing a call needs of fastapi_mcp's operation entry (JSON, unlike the rest)."""
    return {"path": entry["path"], "method": entry["method"],
            "parameters": [{"name": p.get("name"), "in": p.get("in")}
                           for p in entry.get("parameters") or ()]}


@functools.cache
def _library_versions() -> str:
    from importlib.metadata import PackageNotFoundError, version

    found = []
    for name in _LIBRARIES:
        try:
            found.append(f"{name}={version(name)}")
        except PackageNotFoundError:
            found.append(f"{name}=-")
    return ",".join(found)


class CatalogueCache:
    """Catalogues on disk, keyed by world content hash and the versions of the libraries that
    render them, like templates (:class:`~awm_gym.worlds.template_db.TemplateCache`): a warm
    start reads the catalogue and never imports ``fastapi_mcp`` or ``mcp``.

    Each entry is ``catalogue/<key>.json``, written atomically.
    """

    def __init__(self, directory: str | os.PathLike) -> None:
        self.directory = Path(directory) / "catalogue"

    def __repr__(self) -> str:
        return f"CatalogueCache({str(self.directory)!r})"

    @staticmethod
    def key(content_hash: str) -> str:
        raw = f"{content_hash}|{CATALOGUE_FORMAT}|{_library_versions()}"
        return hashlib.sha256(raw.encode()).hexdigest()[:32]

    def load(self, key: str) -> Catalogue | None:
        try:
            return Catalogue.from_json((self.directory / f"{key}.json").read_bytes())
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def has(self, key: str) -> bool:
        return (self.directory / f"{key}.json").is_file()

    def save(self, key: str, catalogue: Catalogue) -> None:
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            write_bytes_atomic(self.directory / f"{key}.json", catalogue.to_json())
        except OSError:  # a read-only or full cache only costs a rebuild next time
            pass


def _format_parameters(properties: Mapping[str, Any], required: Sequence[str],
                       indent: str) -> list[str]:
    """AWM's parameter lines for ``properties`` (rule 4 of awm_list_tools.md)."""
    lines: list[str] = []
    for name, prop in properties.items():
        kind = "required" if name in required else "optional"
        prop_type = prop.get("type", "unknown")  # printed as Python prints it: a list stays a list
        lines.append(f"{indent}- {name}: {prop_type} ({kind})")
        if prop.get("description"):
            lines.append(f"{indent}  Description: {prop['description']}")
        if prop.get("default") is not None:
            lines.append(f"{indent}  Default: {prop['default']}")
        if prop.get("enum"):
            lines.append(f"{indent}  Allowed values: {prop['enum']}")
        if prop_type == "object" and prop.get("properties"):
            lines.append(f"{indent}  Properties:")
            lines.extend(_format_parameters(prop["properties"], prop.get("required") or [],
                                            indent + "    "))
    return lines


def format_tools_text(tools: Sequence[ToolSpec], prefix: str = TOOL_PREFIX) -> str:
    """Render the ``list_tools`` reply byte for byte as AWM's agent does.

    The rules (``shared/reference/awm_list_tools.md``, read from ``format_tools_for_response`` in
    AWM's ``core/agent.py``): a tool named ``list_tools`` is left out; tools are numbered and
    named ``mcp_tool_<operation_id>``; the description's first line follows ``Description:``
    and its other non-blank lines are indented; ``Parameters: None`` when the input schema has no
    properties, else one line per property with its ``type`` as Python prints it (``unknown``
    when absent), ``(required)``/``(optional)``, and the description, a default that is not
    None, the enum as a Python list, and an object's own properties (``Properties:``, four more
    spaces) when present; array item schemas are not shown. The text is stripped at the end.

    Example:
        >>> print(format_tools_text([ToolSpec("ping", "Ping\\n\\nSays pong.", {"type": "object",
        ...     "properties": {"n": {"type": "integer", "default": 1,
        ...                          "enum": [1, 2]}}}), ToolSpec("now", "", {})]))
        Available MCP Tools (2 tools):
        ================================================================================
        <BLANKLINE>
        1. mcp_tool_ping
           Description: Ping
           Says pong.
           Parameters:
              - n: integer (optional)
                Default: 1
                Allowed values: [1, 2]
        <BLANKLINE>
        2. mcp_tool_now
           Description: 
           Parameters: None
    """
    shown = [t for t in tools if t.name != "list_tools"]
    lines = [f"Available MCP Tools ({len(shown)} tools):", "=" * 80, ""]
    for i, tool in enumerate(shown, start=1):
        name = tool.name if tool.name.startswith(prefix) else prefix + tool.name
        first, *rest = (tool.description or "").split("\n")
        lines.append(f"{i}. {name}")
        lines.append(f"   Description: {first.strip()}")
        lines.extend(f"   {ln.strip()}" for ln in rest if ln.strip())
        schema = tool.input_schema or {}
        properties = schema.get("properties")
        if properties:
            lines.append("   Parameters:")
            lines.extend(_format_parameters(properties, schema.get("required") or [], "      "))
        else:
            lines.append("   Parameters: None")
        lines.append("")
    return "\n".join(lines).strip()
