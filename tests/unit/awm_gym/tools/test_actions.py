"""Tests for awm_gym/tools/actions.py: turning a model's raw turn into one action."""

from __future__ import annotations

import json

import pytest

from awm_gym.tools.actions import (
    FinalAnswer,
    ListTools,
    Malformed,
    ToolCall,
    UnknownTool,
    parse_action,
    strip_thinking,
)

TOOLS = frozenset({"get_note", "create_note", "search_notes", "get_weather"})


def block(body: str) -> str:
    return f"<tool_call>\n{body}\n</tool_call>"


# -- well-formed calls ---------------------------------------------------------------------------


def test_tool_call_block_with_object_arguments() -> None:
    text = "I will look it up.\n" + block('{"name": "get_note", "arguments": {"note_id": 2}}')
    assert parse_action(text, TOOLS) == ToolCall("get_note", {"note_id": 2}, 0)


def test_list_tools_meta_tool() -> None:
    assert parse_action(block('{"name": "list_tools", "arguments": {}}'), TOOLS) == ListTools(0)
    assert parse_action(block('{"name": "list_tools"}'), TOOLS) == ListTools(0)


def test_call_tool_with_json_string_arguments_as_awm_prompts_it() -> None:
    inner = json.dumps({"tool_name": "create_note",
                        "arguments": json.dumps({"notebook_id": 2, "title": "Café ☕"})})
    text = block(json.dumps({"name": "call_tool", "arguments": inner}))
    assert parse_action(text, TOOLS) == ToolCall("create_note",
                                                 {"notebook_id": 2, "title": "Café ☕"}, 0)


def test_call_tool_with_object_arguments() -> None:
    text = block(json.dumps({"name": "call_tool", "arguments": {
        "tool_name": "search_notes", "arguments": {"q": "budget"}}}))
    assert parse_action(text, TOOLS) == ToolCall("search_notes", {"q": "budget"}, 0)


def test_call_tool_with_inner_arguments_as_json_string() -> None:
    text = block(json.dumps({"name": "call_tool", "arguments": {
        "tool_name": "get_note", "arguments": '{"note_id": 7}'}}))
    assert parse_action(text, TOOLS) == ToolCall("get_note", {"note_id": 7}, 0)


@pytest.mark.parametrize("name", ["mcp_tool_get_note", "get_note"])
def test_mcp_tool_prefix_is_stripped(name: str) -> None:
    assert parse_action(block(json.dumps({"name": name, "arguments": {"note_id": 1}})),
                        TOOLS) == ToolCall("get_note", {"note_id": 1}, 0)


def test_mcp_tool_prefix_inside_call_tool() -> None:
    text = block(json.dumps({"name": "call_tool", "arguments": {
        "tool_name": "mcp_tool_get_note", "arguments": "{\"note_id\": 3}"}}))
    assert parse_action(text, TOOLS) == ToolCall("get_note", {"note_id": 3}, 0)


def test_tool_whose_real_name_starts_with_the_prefix_is_kept() -> None:
    tools = {"mcp_tool_ping"}
    assert parse_action(block('{"name": "mcp_tool_ping"}'), tools) == ToolCall("mcp_tool_ping",
                                                                                  {}, 0)


@pytest.mark.parametrize("arguments", ['"arguments": {}', '"arguments": null', '"arguments": ""',
                                       ""])
def test_missing_or_empty_arguments_mean_no_arguments(arguments: str) -> None:
    body = '{"name": "get_note"' + (", " + arguments if arguments else "") + "}"
    assert parse_action(block(body), TOOLS) == ToolCall("get_note", {}, 0)


# -- lenient JSON, as AWM's tools_robust_json_loads ------------------------------------------------


def test_awm_broken_system_prompt_example_is_repaired() -> None:
    # AWM's own system prompt shows this invalid JSON (awm.md section 5); json_repair reads it.
    text = block('{"name": "get_weather", "arguments": "{"city": "Beijing"}"}')
    assert parse_action(text, TOOLS) == ToolCall("get_weather", {"city": "Beijing"}, 0)


@pytest.mark.parametrize("body", [
    '{"name": "get_weather", "arguments": {"city": "Beijing",}}',       # trailing comma
    "{'name': 'get_weather', 'arguments': {'city': 'Beijing'}}",      # single quotes
    '{"name": "get_weather", "arguments": {"city": "Beijing"}',        # missing brace
])
def test_other_broken_json_is_repaired(body: str) -> None:
    assert parse_action(block(body), TOOLS) == ToolCall("get_weather", {"city": "Beijing"}, 0)


def test_a_list_is_unwrapped_to_its_first_call() -> None:
    text = block('[{"name": "get_note", "arguments": {"note_id": 1}}, '
                 '{"name": "get_note", "arguments": {"note_id": 2}}]')
    assert parse_action(text, TOOLS) == ToolCall("get_note", {"note_id": 1}, 0)


# -- several blocks ------------------------------------------------------------------------------


def test_only_the_first_block_runs_and_the_rest_are_counted() -> None:
    text = (block('{"name": "search_notes", "arguments": {"q": "a"}}') + "\nthen\n"
            + block('{"name": "list_tools"}') + block("not even json"))
    assert parse_action(text, TOOLS) == ToolCall("search_notes", {"q": "a"}, 2)


def test_dropped_calls_are_reported_for_list_tools_and_malformed_too() -> None:
    assert parse_action(block('{"name": "list_tools"}') * 2, TOOLS) == ListTools(1)
    malformed = parse_action(block("garbage") + block('{"name": "get_note"}'), TOOLS)
    assert isinstance(malformed, Malformed) and malformed.dropped_calls == 1


# -- malformed -----------------------------------------------------------------------------------


def test_unclosed_block_is_malformed() -> None:
    action = parse_action('<tool_call>{"name": "get_note", "arguments": {"note_id": 1}}', TOOLS)
    assert isinstance(action, Malformed)
    assert "unclosed <tool_call>" in action.reason


@pytest.mark.parametrize("body", ["garbage", "", "[]", '"just a string"', "123", "null"])
def test_a_block_that_is_not_a_json_object_is_malformed(body: str) -> None:
    action = parse_action(block(body), TOOLS)
    assert isinstance(action, Malformed)
    assert "not a JSON object" in action.reason


@pytest.mark.parametrize("body", ['{"name": "", "arguments": {}}', '{"name": 3}',
                                  '{"arguments": {"note_id": 1}}'])
def test_a_call_without_a_name_is_malformed(body: str) -> None:
    action = parse_action(block(body), TOOLS)
    assert action == Malformed('the tool call has no "name"', 0)


def test_unknown_tool_suggests_the_closest_name() -> None:
    action = parse_action(block('{"name": "get_nte", "arguments": {}}'), TOOLS)
    assert action == UnknownTool("get_nte", False, "unknown tool 'get_nte'. Did you mean "
                                 "'get_note'? Call list_tools to see every tool.", 0)
    # AWM's agent answers any top-level name but its two meta-tools with this text
    assert action.awm_text == ("Unknown tool 'get_nte'. Only 'list_tools' and 'call_tool' are "
                               "available.")


def test_unknown_tool_without_close_match_points_to_list_tools() -> None:
    action = parse_action(block('{"name": "zzzzzz"}'), TOOLS)
    assert isinstance(action, UnknownTool)
    assert action.hint == "unknown tool 'zzzzzz'. Call list_tools to see every tool."


def test_unknown_tool_through_call_tool() -> None:
    text = (block(json.dumps({"name": "call_tool", "arguments": {"tool_name": "serch_notes"}}))
            + block('{"name": "list_tools"}'))
    action = parse_action(text, TOOLS)
    assert isinstance(action, UnknownTool) and action.via_call_tool
    assert (action.name, action.dropped_calls) == ("serch_notes", 1)
    assert "unknown tool 'serch_notes'. Did you mean 'search_notes'?" in action.hint
    # what mcp-agent (AWM's MCP client) answers for a name its server does not list
    assert action.awm_text == "Tool 'serch_notes' not found"


@pytest.mark.parametrize("body", [
    '{"name": "mcp_tool_get_nte", "arguments": {}}',
    '{"name": "call_tool", "arguments": {"tool_name": "mcp_tool_get_nte"}}',
])
def test_an_unknown_prefixed_name_is_looked_up_without_its_prefix(body: str) -> None:
    action = parse_action(block(body), TOOLS)
    assert isinstance(action, UnknownTool)
    assert (action.name, action.via_call_tool) == ("get_nte", True)
    assert action.awm_text == "Tool 'get_nte' not found"


@pytest.mark.parametrize("arguments", ["[1, 2]", "5", '"not json"', '"[1]"', "true"])
def test_arguments_that_are_not_an_object_are_malformed(arguments: str) -> None:
    action = parse_action(block('{"name": "get_note", "arguments": ' + arguments + "}"), TOOLS)
    assert action == Malformed("the arguments of 'get_note' are not a JSON object", 0)


@pytest.mark.parametrize("arguments", ["{}", '{"arguments": {}}', '{"tool_name": 5}', '"oops"'])
def test_call_tool_without_a_tool_name_is_malformed(arguments: str) -> None:
    action = parse_action(block('{"name": "call_tool", "arguments": ' + arguments + "}"), TOOLS)
    assert isinstance(action, Malformed)
    assert action.reason.startswith("call_tool needs")


@pytest.mark.parametrize("action", [123, None, b"<tool_call>{}</tool_call>", ["a"], 1.5])
def test_a_non_string_action_is_malformed(action: object) -> None:
    parsed = parse_action(action, TOOLS)  # type: ignore[arg-type]
    assert parsed == Malformed(f"the action must be a string, got {type(action).__name__}", 0)


# -- final answers -------------------------------------------------------------------------------


def test_no_block_is_the_final_answer_with_thinking_removed() -> None:
    text = "<think>The note is 'Budget review'.\nLet me answer.</think>\n\n  It is Budget review.  "
    assert parse_action(text, TOOLS) == FinalAnswer("It is Budget review.")


def test_final_answer_keeps_other_markup_and_unicode() -> None:
    assert parse_action("Ответ: <b>42</b> ☕", TOOLS) == FinalAnswer("Ответ: <b>42</b> ☕")


def test_empty_turn_is_an_empty_final_answer() -> None:
    assert parse_action("", TOOLS) == FinalAnswer("")


def test_dangling_think_close_tag_drops_the_reasoning_before_it() -> None:
    # Qwen3 chat templates put <think> in the prompt, so the completion has only </think>.
    assert parse_action("reasoning here</think>\nThe answer.", TOOLS) == FinalAnswer("The answer.")


def test_tool_call_inside_thinking_is_still_a_call_as_in_awm() -> None:
    # AWM's regex runs over the whole content, <think> included (awm.md section 5).
    text = "<think>" + block('{"name": "get_note", "arguments": {"note_id": 4}}') + "</think>"
    assert parse_action(text, TOOLS) == ToolCall("get_note", {"note_id": 4}, 0)


def test_strip_thinking_removes_every_block() -> None:
    assert strip_thinking("<think>a</think>x<think>b</think> y ") == "x y"
