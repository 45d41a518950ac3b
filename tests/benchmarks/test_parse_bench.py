"""The action parser's time against the length of the turn, up to 10 MB (issue 17).

Group ``parse`` times :func:`awm_gym.tools.actions.parse_action` with no length cap
(``max_chars=None``) on the shapes that were superlinear before the str.find parser, at 10 KB,
100 KB, 1 MB and 10 MB:

* ``unclosed_ws``: ``<tool_call>`` then whitespace, never closed (was cubic: 3,000 chars ~35 s);
* ``nested``: ``<tool_call>`` + ``[`` * n + ``</tool_call>`` (was a RecursionError);
* ``broken_json``: a body with an unterminated string (``json_repair`` took ~30 s at 1 MB; now
  only bodies up to ``MAX_REPAIR_CHARS`` are repaired, so 10 KB is the repair's worst case);
* ``valid_big``: a valid call whose argument is n characters (the ordinary path);
* ``opening_tags``, ``think_tags``: ``<tool_call>`` / ``<think>`` repeated, never closed;
* ``nested_objects``, ``call_tool_string``: deep nesting in the arguments, and in the JSON string
  of ``call_tool``'s arguments;
* ``huge_name``: a tool name of n characters (no "did you mean" search on it).

The default suite checks the same shapes without a clock: ``tests/unit/awm_gym/tools/
test_actions_hostile.py`` counts the work (Python lines, characters scanned) at n and 2n.

Linear means the time per character stays flat as the length grows: ``extra_info["chars"]``
holds the length, and docs/benchmarks/parsing-and-timeouts.md divides. Nothing here asserts a
time; each case asserts every round's parse result so a broken parser cannot post a good number.
"""

from __future__ import annotations

import json

import pytest
from bench_support import Recorded

from awm_gym.tools.actions import (
    MAX_REPAIR_CHARS,
    FinalAnswer,
    Malformed,
    ToolCall,
    UnknownTool,
    parse_action,
)

SIZES = [10_000, 100_000, 1_000_000, 10_000_000]
TOOLS = frozenset({"get_note"})


def _text(shape: str, n: int) -> str:
    if shape == "unclosed_ws":
        return "<tool_call>" + "\n" * n
    if shape == "nested":
        return "<tool_call>" + "[" * n + "</tool_call>"
    if shape == "broken_json":
        return '<tool_call>{"name": "get_note", "arguments": {"q": "' + "b" * n + "</tool_call>"
    if shape == "opening_tags":
        return "<tool_call>" * (n // 11)
    if shape == "think_tags":
        return "<think>" * (n // 7) + "answer"
    if shape == "nested_objects":
        return ('<tool_call>{"name": "get_note", "arguments": ' + '{"a": ' * (n // 6)
                + "</tool_call>")
    if shape == "call_tool_string":
        return '<tool_call>{"name": "call_tool", "arguments": "' + "[" * n + '"}</tool_call>'
    if shape == "huge_name":
        return '<tool_call>{"name": "' + "a" * n + '"}</tool_call>'
    return "<tool_call>" + json.dumps({"name": "get_note", "arguments": {"q": "b" * n}}) + \
        "</tool_call>"


@pytest.mark.benchmark(group="parse")
@pytest.mark.parametrize("n", SIZES, ids=[f"{n // 1000}k" for n in SIZES])
@pytest.mark.parametrize("shape", ["unclosed_ws", "nested", "broken_json", "valid_big",
                                   "opening_tags", "think_tags", "nested_objects",
                                   "call_tool_string", "huge_name"])
def test_parse_time_is_linear_in_length(benchmark, shape: str, n: int) -> None:
    text = _text(shape, n)
    benchmark.extra_info.update({"chars": len(text), "calls": 1})
    parse = Recorded(parse_action)
    benchmark.pedantic(parse, args=(text, TOOLS), rounds=5, iterations=1)
    repaired = shape == "broken_json" and n <= MAX_REPAIR_CHARS  # short enough to repair
    expected = {"valid_big": ToolCall, "think_tags": FinalAnswer, "huge_name": UnknownTool}.get(
        shape, ToolCall if repaired else Malformed)
    assert parse.results and all(isinstance(r, expected) for r in parse.results), parse.results
