"""Parse a model's raw turn into one action: a tool call, ``list_tools``, a final answer, or malformed.

The grammar is AWM's agent's (awm.md section 5), with its lenient JSON reading:

* ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` blocks (Qwen/Hermes). The JSON is
  read with ``json``, then ``json_repair``; a list is unwrapped to its first element. Only the
  first block is executed; the count of dropped ones is reported.
* AWM's meta-tools: ``list_tools`` and ``call_tool`` with ``{"tool_name", "arguments"}`` where
  ``arguments`` is a JSON string (or an object); direct tool names, with or without the
  ``mcp_tool_`` prefix, are accepted too.
* A turn without any ``<tool_call>`` is the final answer (``<think>...</think>`` removed).

Stricter than AWM, because a training signal should not guess: an unclosed ``<tool_call>``, JSON
that cannot be repaired, a missing name, or arguments that are not an object are
:class:`Malformed` (AWM would answer with an error text or silently use ``{}``). A well-formed call
to a tool the world does not have is :class:`UnknownTool`, which carries AWM's reply text: the
runtime answers it as AWM does and the episode goes on (``EnvConfig.unknown_tool``).

Example:
    >>> parse_action('<tool_call>{"name": "get_note", "arguments": {"note_id": 2}}</tool_call>',
    ...              {"get_note"})
    ToolCall(tool='get_note', arguments={'note_id': 2}, dropped_calls=0)
    >>> parse_action("<think>done</think>It is 42.", {"get_note"})
    FinalAnswer(text='It is 42.')
    >>> unknown = parse_action('<tool_call>{"name": "get_nte"}</tool_call>', {"get_note"})
    >>> unknown.awm_text
    "Unknown tool 'get_nte'. Only 'list_tools' and 'call_tool' are available."
    >>> unknown.hint
    "unknown tool 'get_nte'. Did you mean 'get_note'? Call list_tools to see every tool."
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from awm_gym.tools.catalogue import TOOL_PREFIX

__all__ = ["ToolCall", "ListTools", "FinalAnswer", "Malformed", "Action", "parse_action",
           "strip_thinking", "format_tool_call", "solution_turns", "UnknownTool"]

_TOOL_CALL = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.DOTALL)
_THINK = re.compile(r"<think>.*?</think>", re.DOTALL)


@dataclass(frozen=True, slots=True)
class ToolCall:
    """Call ``tool`` (an operation id) with ``arguments``."""

    tool: str
    arguments: dict[str, Any]
    dropped_calls: int = 0


@dataclass(frozen=True, slots=True)
class ListTools:
    """AWM's ``list_tools`` meta-tool: show the catalogue."""

    dropped_calls: int = 0


@dataclass(frozen=True, slots=True)
class FinalAnswer:
    """A turn with no tool call: the episode's answer (reasoning removed)."""

    text: str


@dataclass(frozen=True, slots=True)
class Malformed:
    """A turn that tried to call a tool and failed to say how; ``reason`` says what was wrong."""

    reason: str
    dropped_calls: int = field(default=0)


@dataclass(frozen=True, slots=True)
class UnknownTool:
    """A well-formed call to a tool the world does not have.

    AWM's agent answers it with an error text and the episode goes on; :attr:`awm_text` is that
    text (without the ``Error: `` prefix the agent adds). ``name`` is the tool asked for, without
    the ``mcp_tool_`` prefix; ``via_call_tool`` is True when it came through ``call_tool`` or
    carried the prefix (AWM's agent then asks the MCP server, which does not find it), False for
    any other top-level name. ``hint`` is our own message with a "Did you mean" suggestion.
    """

    name: str
    via_call_tool: bool
    hint: str
    dropped_calls: int = 0

    @property
    def awm_text(self) -> str:
        """The text AWM's agent returns for this call (``mcp-agent``'s words for ``call_tool``)."""
        if self.via_call_tool:
            return f"Tool '{self.name}' not found"
        return f"Unknown tool '{self.name}'. Only 'list_tools' and 'call_tool' are available."


Action = ToolCall | ListTools | FinalAnswer | Malformed | UnknownTool


def format_tool_call(tool: str, arguments: Mapping[str, Any]) -> str:
    """The ``<tool_call>`` text that calls ``tool`` (what :func:`parse_action` reads back).

    Example:
        >>> format_tool_call("get_note", {"note_id": 2})
        '<tool_call>{"name": "get_note", "arguments": {"note_id": 2}}</tool_call>'
    """
    return ("<tool_call>" + json.dumps({"name": tool, "arguments": dict(arguments)},
                                       ensure_ascii=False) + "</tool_call>")


def solution_turns(solution: Any, default_answer: str = "Done.") -> list[str]:
    """The turns that replay a reference solution (``gen_solutions.jsonl``): each call as
    :func:`format_tool_call` text, then its final answer (``default_answer`` when it has none)."""
    calls = [format_tool_call(c.tool, c.arguments) for c in solution.calls]
    return [*calls, solution.final_answer or default_answer]


def strip_thinking(text: str) -> str:
    """Remove ``<think>...</think>`` blocks (and a dangling ``</think>`` prefix) and trim."""
    text = _THINK.sub("", text)
    if "</think>" in text:
        text = text.split("</think>", 1)[1]
    return text.strip()


def _loads(raw: str) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        pass
    try:
        import json_repair

        value = json_repair.loads(raw)
    except Exception:  # noqa: BLE001 - the repair library may fail in any way on model text
        return None
    return value if value not in ("", None) else None


def _arguments(value: Any) -> dict[str, Any] | None:
    if value is None or value == "":
        return {}
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return None
    return value if isinstance(value, dict) else None


def _unknown(name: str, tools: Collection[str]) -> Malformed:
    close = difflib.get_close_matches(name, list(tools), n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    return Malformed(f"unknown tool {name!r}.{hint} Call list_tools to see every tool.")


def parse_action(text: str, tools: Collection[str]) -> Action:
    """Parse one model turn. ``tools`` are the world's tool names (operation ids)."""
    if not isinstance(text, str):
        return Malformed(f"the action must be a string, got {type(text).__name__}")
    blocks = _TOOL_CALL.findall(text)
    if not blocks:
        if "<tool_call>" in text:
            return Malformed("unclosed <tool_call>: write <tool_call>{...}</tool_call>")
        return FinalAnswer(strip_thinking(text))
    dropped = len(blocks) - 1
    call = _loads(blocks[0])
    if isinstance(call, list):
        call = call[0] if call else None
    if not isinstance(call, dict):
        return Malformed('the <tool_call> block is not a JSON object like {"name": ..., '
                         '"arguments": {...}}', dropped)
    name = call.get("name")
    if not isinstance(name, str) or not name:
        return Malformed('the tool call has no "name"', dropped)
    if name == "list_tools":
        return ListTools(dropped)
    arguments: Any = call.get("arguments")
    via_call_tool = name.startswith(TOOL_PREFIX)  # AWM's agent turns these into call_tool
    if name == "call_tool":
        inner = _arguments(arguments)
        if inner is None or not isinstance(inner.get("tool_name"), str):
            return Malformed('call_tool needs {"tool_name": str, "arguments": JSON object '
                             'string}', dropped)
        name, arguments, via_call_tool = inner["tool_name"], inner.get("arguments"), True
    if name.startswith(TOOL_PREFIX) and name not in tools:
        name = name[len(TOOL_PREFIX):]
    if name not in tools:
        return UnknownTool(name, via_call_tool, _unknown(name, tools).reason, dropped)
    parsed = _arguments(arguments)
    if parsed is None:
        return Malformed(f"the arguments of {name!r} are not a JSON object", dropped)
    return ToolCall(name, parsed, dropped)
