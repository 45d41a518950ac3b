"""Tests for awm_gym/tools/catalogue.py: the ``list_tools`` text, rule by rule.

Each test states one rule of AWM's formatter (``format_tools_for_response`` in AWM's
``core/agent.py``; the rules are numbered in ``shared/reference/awm_list_tools.md``) and checks
the exact bytes. The whole-world counterpart, on a generated world with every schema shape, is
``tests/integration/tools/test_list_tools_text.py``.
"""

from __future__ import annotations

from typing import Any

import pytest

from awm_gym.tools.catalogue import ToolSpec, format_tools_text

HEADER = "Available MCP Tools ({n} tools):\n" + "=" * 80 + "\n\n"


def one(properties: dict[str, Any] | None = None, required: list[str] | None = None,
        description: str = "Do it") -> str:
    """The text of one tool ``t`` with these parameters, without the header and name lines."""
    schema: dict[str, Any] = {"type": "object"}
    if properties is not None:
        schema["properties"] = properties
    if required is not None:
        schema["required"] = required
    text = format_tools_text([ToolSpec("t", description, schema)])
    head = HEADER.format(n=1) + "1. mcp_tool_t\n"
    assert text.startswith(head)
    return text[len(head):]


def params(properties: dict[str, Any], required: list[str] | None = None) -> str:
    """The ``Parameters:`` lines of one tool with these parameters."""
    text = one(properties, required)
    assert text.startswith("   Description: Do it\n")
    return text[len("   Description: Do it\n"):]


def test_rule_1_a_tool_named_list_tools_is_left_out_and_not_counted() -> None:
    tools = [ToolSpec("list_tools", "meta", {}), ToolSpec("a", "A", {})]
    assert format_tools_text(tools) == (HEADER.format(n=1) + "1. mcp_tool_a\n"
                                        "   Description: A\n   Parameters: None")


def test_rule_2_header_and_rule_5_no_final_newline() -> None:
    assert format_tools_text([]) == "Available MCP Tools (0 tools):\n" + "=" * 80
    text = format_tools_text([ToolSpec("a", "A", {}), ToolSpec("b", "B", {})])
    assert text == (HEADER.format(n=2) + "1. mcp_tool_a\n   Description: A\n   Parameters: None\n"
                    "\n2. mcp_tool_b\n   Description: B\n   Parameters: None")


def test_rule_3_the_prefix_is_added_once() -> None:
    text = format_tools_text([ToolSpec("mcp_tool_x", "X", {}), ToolSpec("y", "Y", {})])
    assert "1. mcp_tool_x\n" in text and "2. mcp_tool_y\n" in text
    assert "mcp_tool_mcp_tool_x" not in text


def test_rule_3_description_first_line_then_later_non_blank_lines_stripped() -> None:
    text = one(description="  Get a note  \n\n   Its full text.  \n \n### Responses:\n")
    assert text == ("   Description: Get a note\n   Its full text.\n   ### Responses:\n"
                    "   Parameters: None")


def test_rule_3_an_empty_description_keeps_the_trailing_space() -> None:
    assert one(description="") == "   Description: \n   Parameters: None"
    # a description whose first line is blank: the first line is printed empty
    assert one(description="\nSecond") == "   Description: \n   Second\n   Parameters: None"


@pytest.mark.parametrize("schema", [{}, {"type": "object"}, {"type": "object", "properties": {}}])
def test_rule_3_a_tool_without_parameters_says_none(schema: dict[str, Any]) -> None:
    text = format_tools_text([ToolSpec("ping", "Ping", schema)])
    assert text.endswith("1. mcp_tool_ping\n   Description: Ping\n   Parameters: None")


def test_rule_4_required_and_optional_come_from_the_required_list() -> None:
    text = params({"a": {"type": "integer"}, "b": {"type": "string"}}, required=["b"])
    assert text == ("   Parameters:\n      - a: integer (optional)\n"
                    "      - b: string (required)")


def test_rule_4_a_property_without_type_prints_unknown() -> None:
    any_of = {"anyOf": [{"type": "string"}, {"type": "null"}], "title": "Label"}
    assert params({"label": any_of}) == "   Parameters:\n      - label: unknown (optional)"


def test_rule_4_a_list_type_prints_as_a_python_list() -> None:
    text = params({"label": {"type": ["string", "null"]}})
    assert text == "   Parameters:\n      - label: ['string', 'null'] (optional)"


def test_rule_4_description_only_when_non_empty() -> None:
    text = params({"a": {"type": "integer", "description": ""},
                "b": {"type": "integer", "description": "How many"}})
    assert text == ("   Parameters:\n      - a: integer (optional)\n"
                    "      - b: integer (optional)\n        Description: How many")


@pytest.mark.parametrize(("default", "shown"), [
    (None, None), (True, "True"), (False, "False"), (0, "0"), (10, "10"), (1.5, "1.5"),
    ("", ""), ("open", "open"), ([1, 2], "[1, 2]"), ({"k": "v"}, "{'k': 'v'}"),
])
def test_rule_4_default_printed_with_str_and_skipped_when_none(default: Any,
                                                               shown: str | None) -> None:
    text = params({"a": {"type": "string", "default": default}, "z": {"type": "integer"}})
    expected = "   Parameters:\n      - a: string (optional)"
    if shown is not None:  # an empty string is shown too: "Default: " with its space
        expected += f"\n        Default: {shown}"
    assert text == expected + "\n      - z: integer (optional)"


def test_rule_4_enum_printed_as_a_python_list_and_skipped_when_empty() -> None:
    text = params({"status": {"type": "string", "enum": ["open", "closed"]},
                "n": {"type": "integer", "enum": []}})
    assert text == ("   Parameters:\n      - status: string (optional)\n"
                    "        Allowed values: ['open', 'closed']\n"
                    "      - n: integer (optional)")


def test_rule_4_line_order_is_description_default_values() -> None:
    text = params({"s": {"type": "string", "enum": ["a", "b"], "default": "a",
                      "description": "Sort"}}, required=[])
    assert text == ("   Parameters:\n      - s: string (optional)\n        Description: Sort\n"
                    "        Default: a\n        Allowed values: ['a', 'b']")


def test_rule_4_nested_object_properties_four_spaces_deeper_with_their_own_required() -> None:
    nested = {"type": "object", "required": ["city"], "properties": {
        "city": {"type": "string"},
        "geo": {"type": "object", "properties": {"lat": {"type": "number", "default": 1.5}}}}}
    text = params({"address": nested}, required=["address"])
    assert text == ("   Parameters:\n      - address: object (required)\n"
                    "        Properties:\n"
                    "          - city: string (required)\n"
                    "          - geo: object (optional)\n"
                    "            Properties:\n"
                    "              - lat: number (optional)\n"
                    "                Default: 1.5")


def test_rule_4_objects_without_properties_and_array_items_are_not_expanded() -> None:
    text = params({"meta": {"type": "object"},
                "tags": {"type": "array", "items": {"type": "object",
                                                    "properties": {"k": {"type": "string"}}}}})
    assert text == ("   Parameters:\n      - meta: object (optional)\n"
                    "      - tags: array (optional)")


def test_rule_5_trailing_whitespace_of_the_last_line_is_stripped() -> None:
    text = params({"a": {"type": "string", "description": "ends with spaces   "}})
    assert text.endswith("Description: ends with spaces")
