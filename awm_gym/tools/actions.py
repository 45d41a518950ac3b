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

Bounded on any input (issue 17): tags are found with ``str.find`` (no backtracking regex over
model text), so parsing is linear in the length of the turn; ``max_chars`` rejects a longer turn
before any parsing; JSON nested deeper than the interpreter can read, or too large to repair
(``json_repair`` is superlinear: only bodies up to :data:`MAX_REPAIR_CHARS` are repaired), is
:class:`Malformed`. Nothing in the text makes :func:`parse_action` raise.

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
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from awm_gym.tools.catalogue import TOOL_PREFIX

__all__ = ["ToolCall", "ListTools", "FinalAnswer", "Malformed", "Action", "parse_action",
           "strip_thinking", "format_tool_call", "solution_turns", "UnknownTool",
           "MAX_REPAIR_CHARS"]

_OPEN, _CLOSE = "<tool_call>", "</tool_call>"
_THINK_OPEN, _THINK_CLOSE = "<think>", "</think>"
MAX_REPAIR_CHARS = 32_768
"""Longest ``<tool_call>`` body handed to ``json_repair`` when ``json`` cannot read it (its time
grows faster than linearly: ~30 s for 1 MB); a longer invalid body is :class:`Malformed`."""
_MAX_NAME_SHOWN = 80


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
        name = self.name if len(self.name) <= 200 else (  # AWM echoes it whole; a model that
            f"{self.name[:80]}... ({len(self.name)} characters)")  # degenerates gets it cut
        if self.via_call_tool:
            return f"Tool '{name}' not found"
        return f"Unknown tool '{name}'. Only 'list_tools' and 'call_tool' are available."


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
    """Remove ``<think>...</think>`` blocks (and a dangling ``</think>`` prefix) and trim.

    Linear in ``len(text)``: an unclosed ``<think>`` is kept as text, as the regex
    ``<think>.*?</think>`` did.

    Example:
        >>> strip_thinking("<think>hmm</think> It is 42. <think>x")
        'It is 42. <think>x'
    """
    parts, pos = [], 0
    while True:
        start = text.find(_THINK_OPEN, pos)
        end = -1 if start < 0 else text.find(_THINK_CLOSE, start + len(_THINK_OPEN))
        if end < 0:
            parts.append(text[pos:])
            break
        parts.append(text[pos:start])
        pos = end + len(_THINK_CLOSE)
    text = "".join(parts)
    if _THINK_CLOSE in text:
        text = text.split(_THINK_CLOSE, 1)[1]
    return text.strip()


def _tool_call_blocks(text: str) -> tuple[str | None, int]:
    """The first complete ``<tool_call>`` body (stripped) and the number of complete blocks.

    Each block is the text between an opening tag and the next closing tag, as the non-greedy
    regex ``<tool_call>\\s*(.*?)\\s*</tool_call>`` found them; every character is looked at
    a bounded number of times.
    """
    first, count, pos = None, 0, 0
    while True:
        start = text.find(_OPEN, pos)
        if start < 0:
            break
        body_start = start + len(_OPEN)
        end = text.find(_CLOSE, body_start)
        if end < 0:
            break
        if first is None:
            first = text[body_start:end].strip()
        count += 1
        pos = end + len(_CLOSE)
    return first, count


def _loads(raw: str) -> tuple[Any, str | None]:
    """``raw`` read as JSON (repaired when short enough), or ``(None, why it could not be)``."""
    try:
        return json.loads(raw), None
    except ValueError:
        pass
    except RecursionError:
        return None, "its JSON is nested too deeply to read"
    except MemoryError:
        return None, "its JSON is too large to read"
    if len(raw) > MAX_REPAIR_CHARS:
        return None, (f"its JSON is invalid and longer than {MAX_REPAIR_CHARS} characters, "
                      "too long to repair")
    try:
        # late import: json_repair is only needed for invalid JSON
        import json_repair

        value = json_repair.loads(raw)
    except Exception:  # noqa: BLE001 - the repair library may fail in any way on model text
        return None, None
    return (value, None) if value not in ("", None) else (None, None)


def _arguments(value: Any) -> dict[str, Any] | None:
    if value is None or value == "":
        return {}
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except (ValueError, RecursionError):
            return None
    return value if isinstance(value, dict) else None


def _shown(name: str) -> str:
    """``name`` quoted for a message, cut to a readable length."""
    if len(name) <= _MAX_NAME_SHOWN:
        return repr(name)
    return f"{name[:_MAX_NAME_SHOWN]!r}... ({len(name)} characters)"


def _unknown(name: str, tools: Collection[str]) -> Malformed:
    if len(name) > _MAX_NAME_SHOWN:  # no tool name is this long; skip the quadratic matcher
        return Malformed(f"unknown tool {_shown(name)}. Call list_tools to see every tool.")
    close = difflib.get_close_matches(name, list(tools), n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    return Malformed(f"unknown tool {name!r}.{hint} Call list_tools to see every tool.")


def parse_action(text: str, tools: Collection[str], max_chars: int | None = None) -> Action:
    """Parse one model turn. ``tools`` are the world's tool names (operation ids).

    Args:
        text: the model's raw turn.
        tools: the world's tool names.
        max_chars: a turn longer than this is :class:`Malformed` before any parsing (None: no
            cap). Parsing is linear in ``len(text)`` either way.

    Example:
        >>> parse_action("x" * 11, {"get_note"}, max_chars=10).reason
        'the action is 11 characters long; the limit is 10 (EnvConfig.max_action_chars)'
    """
    if not isinstance(text, str):
        return Malformed(f"the action must be a string, got {type(text).__name__}")
    if max_chars is not None and len(text) > max_chars:
        return Malformed(f"the action is {len(text)} characters long; the limit is {max_chars} "
                         "(EnvConfig.max_action_chars)")
    body, count = _tool_call_blocks(text)
    if body is None:
        if _OPEN in text:
            return Malformed("unclosed <tool_call>: write <tool_call>{...}</tool_call>")
        return FinalAnswer(strip_thinking(text))
    dropped = count - 1
    call, why = _loads(body)
    if why is not None:
        return Malformed(f"the <tool_call> block cannot be read: {why}", dropped)
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
