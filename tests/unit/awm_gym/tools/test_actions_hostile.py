"""The action parser on degenerate and hostile text (issue 17): every shape finishes at once and
none raises. Each case is guarded by a timeout of a few seconds, not a timed assert: before the
linear parser, the first case alone took ~35 s and the nested one raised RecursionError."""

from __future__ import annotations

import pytest

from awm_gym.tools.actions import (
    MAX_REPAIR_CHARS,
    FinalAnswer,
    Malformed,
    ToolCall,
    UnknownTool,
    parse_action,
    strip_thinking,
)

TOOLS = {"get_note", "create_note"}

HOSTILE = {
    "unclosed tag then 3000 newlines": "<tool_call>" + "\n" * 3000,
    "unclosed tag then 210 KB of spaces": "<tool_call>" + " " * 210_000,
    "unclosed tag then 10 MB of newlines": "<tool_call>" + "\n" * 10_000_000,
    "100,000 opening tags": "<tool_call>" * 100_000,
    "100,000 unclosed think tags": "<think>" * 100_000 + "answer",
    "1 MB broken JSON body": ('<tool_call>{"name": "get_note", "arguments": {"a": "'
                              + "b" * 1_000_000 + "</tool_call>"),
    "100,000 nested lists": "<tool_call>" + "[" * 100_000 + "</tool_call>",
    "100,000 nested objects in arguments": ('<tool_call>{"name": "get_note", "arguments": '
                                            + '{"a": ' * 100_000 + "</tool_call>"),
    "nested call_tool arguments string": ('<tool_call>{"name": "call_tool", "arguments": "'
                                          + "[" * 100_000 + '"}</tool_call>'),
    "invalid JSON just under the repair limit": ("<tool_call>{'name': 'get_note', "
                                                 + "'x': [1," * (MAX_REPAIR_CHARS // 8)
                                                 + "</tool_call>"),
}


@pytest.mark.timeout(5)
@pytest.mark.parametrize("text", list(HOSTILE.values()), ids=list(HOSTILE))
def test_hostile_text_is_parsed_at_once_without_raising(text: str) -> None:
    action = parse_action(text, TOOLS)
    assert isinstance(action, (Malformed, FinalAnswer, ToolCall))


@pytest.mark.timeout(5)
def test_deep_nesting_is_named_in_the_reason() -> None:
    action = parse_action("<tool_call>" + "[" * 100_000 + "</tool_call>", TOOLS)
    assert action == Malformed("the <tool_call> block cannot be read: its JSON is nested too "
                               "deeply to read")


@pytest.mark.timeout(5)
def test_a_long_invalid_body_is_not_handed_to_the_repairer() -> None:
    body = '{"name": "get_note", "arguments": {"note_id": 2, "pad": "' + "x" * MAX_REPAIR_CHARS
    action = parse_action(f"<tool_call>{body}</tool_call>", TOOLS)
    assert isinstance(action, Malformed)
    assert f"longer than {MAX_REPAIR_CHARS} characters" in action.reason
    # a short invalid body is still repaired, as AWM's agent does
    short = parse_action('<tool_call>{"name": "get_note", "arguments": {"note_id": 2}</tool_call>',
                         TOOLS)
    assert short == ToolCall("get_note", {"note_id": 2})


@pytest.mark.timeout(5)
def test_the_action_cap_is_decided_before_parsing() -> None:
    valid = '<tool_call>{"name": "get_note", "arguments": {"note_id": 2}}</tool_call>'
    assert parse_action(valid, TOOLS, max_chars=len(valid)) == ToolCall("get_note", {"note_id": 2})
    action = parse_action(valid + " ", TOOLS, max_chars=len(valid))
    assert action == Malformed(f"the action is {len(valid) + 1} characters long; the limit is "
                               f"{len(valid)} (EnvConfig.max_action_chars)")
    huge = parse_action("<tool_call>" + "[" * 10_000_000, TOOLS, max_chars=100_000)
    assert "the limit is 100000" in huge.reason


@pytest.mark.timeout(5)
def test_a_huge_tool_name_is_cut_in_the_reason() -> None:
    name = "a" * 1_000_000
    action = parse_action('<tool_call>{"name": "' + name + '"}</tool_call>', TOOLS)
    assert isinstance(action, UnknownTool)  # answered as AWM does, the name cut in the hint
    assert len(action.hint) < 300 and len(action.awm_text) < 300
    assert "(1000000 characters)" in action.hint


@pytest.mark.parametrize("text, expected", [
    ("<think>a</think>b<think>c</think>d", "bd"),
    ("<think>never closed", "<think>never closed"),
    ("plan</think> answer", "answer"),
    ("<think><think>x</think>y</think>z", "z"),  # as re.sub(r"<think>.*?</think>") then split
    ("a <think>b</think> c <think>d", "a  c <think>d"),
])
def test_strip_thinking_keeps_the_regex_semantics(text: str, expected: str) -> None:
    assert strip_thinking(text) == expected


@pytest.mark.parametrize("text, count", [
    ("<tool_call>{}</tool_call><tool_call>{}</tool_call>", 1),
    ("<tool_call>{}</tool_call> <tool_call> unclosed", 0),
    ("<tool_call><tool_call>{}</tool_call><tool_call>{}</tool_call>", 1),
])
def test_dropped_calls_count_complete_blocks(text: str, count: int) -> None:
    action = parse_action(text, TOOLS)
    assert action.dropped_calls == count
