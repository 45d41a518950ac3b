"""The action parser on degenerate and hostile text (issue 17): every shape is parsed without
raising, with work that grows linearly in the length of the turn.

The work is counted, not timed (STYLE b.8: no clock in the default suite). :func:`count_work`
runs :func:`parse_action` on the turn wrapped in :class:`WatchedText`, a ``str`` that counts the
characters its ``find`` and ``in`` look at, under a tracer that counts the Python lines run and
the files they ran in, and a profiler that flags any regular expression the parser's own code
runs (a backtracking regex over the turn is what made 3,000 characters take ~35 s before the
str.find parser; C-level regex work cannot be counted, so the parser must run none) and any
other ``str`` method called on the turn (work the counter would not see). Linear means the
counts for a turn of ``2n`` characters are at most twice those for ``n``: exact for ``a + b*n``,
while quadratic work quadruples. The wall-clock times of the same shapes are in
``tests/benchmarks/test_parse_bench.py``. The suite-wide pytest-timeout (300 s, pyproject) only
stops a hang; no test here has a timeout of its own.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

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


class WatchedText(str):
    """A turn that counts the characters ``find`` and ``in`` look at in it (up to the match, or
    to the end when there is none)."""

    looked_at: int = 0

    def find(self, sub: str, start: int = 0, end: int | None = None) -> int:  # type: ignore
        stop = len(self) if end is None else end
        index = str.find(self, sub, start, stop)
        self.looked_at += (stop if index < 0 else index + len(sub)) - start
        return index

    def __contains__(self, sub: object) -> bool:
        return isinstance(sub, str) and self.find(sub) >= 0


@dataclass
class Work:
    """What one :func:`parse_action` call did (see the module docstring)."""

    lines: int = 0
    """Python lines run (the parser and everything it calls: json, json_repair, difflib)."""
    looked_at: int = 0
    """Characters of the turn that ``find`` / ``in`` looked at."""
    files: set[str] = field(default_factory=set)
    """Source files whose lines ran."""
    regex_calls: list[str] = field(default_factory=list)
    """Regular-expression calls made by the parser's own code (must stay empty)."""
    unwatched: list[str] = field(default_factory=list)
    """``str`` methods called on the turn that the counter does not count (must stay empty)."""

    def ran(self, module: str) -> bool:
        """Whether any line of ``module`` (e.g. ``"json_repair"``, ``"difflib"``) ran."""
        return any(f"/{module}" in path for path in self.files)


def count_work(text: str, max_chars: int | None = None,
               parse: Callable[..., Any] = parse_action) -> tuple[Any, Work]:
    """``parse(text, TOOLS, max_chars=...)`` with the counters on; returns the action and the
    :class:`Work` done."""
    turn, work, parser = WatchedText(text), Work(), parse.__code__.co_filename

    def lines(frame: FrameType, event: str, arg: Any) -> Callable[..., Any]:
        if event == "line":
            work.lines += 1
            work.files.add(frame.f_code.co_filename)
        return lines

    def calls(frame: FrameType, event: str, arg: Any) -> Callable[..., Any] | None:
        return None if frame.f_code.co_filename == __file__ else lines

    def flag(frame: FrameType, event: str, arg: Any) -> None:
        """Flag a regex run by the parser's code, and a str method on the turn not counted."""
        if event == "call":  # a Python function: one of the re module's, called by the parser?
            module = frame.f_globals.get("__name__", "").partition(".")[0]
            if module == "re" and frame.f_back and frame.f_back.f_code.co_filename == parser:
                work.regex_calls.append(frame.f_code.co_name)
        elif event == "c_call" and frame.f_code.co_filename != __file__:
            owner = getattr(arg, "__self__", None)
            if owner is turn:
                work.unwatched.append(arg.__name__)
            elif isinstance(owner, re.Pattern) and frame.f_code.co_filename == parser:
                work.regex_calls.append(f"{owner.pattern!r}.{arg.__name__}")

    tracer, profiler = sys.gettrace(), sys.getprofile()  # a debugger's or coverage's, if any
    sys.settrace(calls)
    sys.setprofile(flag)
    try:
        action = parse(turn, TOOLS, max_chars=max_chars)
    finally:
        sys.setprofile(profiler)
        sys.settrace(tracer)
    work.looked_at = turn.looked_at
    return action, work


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

# the hostile shapes as functions of their size n (in characters, roughly)
SHAPES: dict[str, Callable[[int], str]] = {
    "unclosed tag then newlines": lambda n: "<tool_call>" + "\n" * n,
    "unclosed tag then spaces": lambda n: "<tool_call>" + " " * n,
    "opening tags": lambda n: "<tool_call>" * (n // 11),
    "unclosed think tags": lambda n: "<think>" * (n // 7) + "answer",
    "closed think blocks": lambda n: "<think>a</think>" * (n // 16) + "answer",
    "complete blocks": lambda n: '<tool_call>{"name": "get_note"}</tool_call>' * (n // 44),
    "broken JSON body": lambda n: ('<tool_call>{"name": "get_note", "arguments": {"a": "'
                                   + "b" * n + "</tool_call>"),
    "nested lists": lambda n: "<tool_call>" + "[" * n + "</tool_call>",
    "nested objects in arguments": lambda n: ('<tool_call>{"name": "get_note", "arguments": '
                                              + '{"a": ' * (n // 6) + "</tool_call>"),
    "nested call_tool arguments string": lambda n: ('<tool_call>{"name": "call_tool", '
                                                    '"arguments": "' + "[" * n + '"}</tool_call>'),
    "huge tool name": lambda n: '<tool_call>{"name": "' + "a" * n + '"}</tool_call>',
    "valid call with a long argument": lambda n: ('<tool_call>{"name": "get_note", "arguments": '
                                                  '{"q": "' + "b" * n + '"}}</tool_call>'),
    "final answer": lambda n: "x" * n,
}
SIZE = 40_000
"""``n`` of the linear-work test: above MAX_REPAIR_CHARS, so no body is short enough to repair
(``json_repair`` is superlinear; bodies up to that limit cost a bounded amount)."""


@pytest.mark.parametrize("text", list(HOSTILE.values()), ids=list(HOSTILE))
def test_hostile_text_is_parsed_without_raising(text: str) -> None:
    action = parse_action(text, TOOLS)
    assert isinstance(action, (Malformed, FinalAnswer, ToolCall))


@pytest.mark.parametrize("shape", list(SHAPES.values()), ids=list(SHAPES))
def test_the_work_is_linear_in_the_length_of_the_turn(shape: Callable[[int], str]) -> None:
    text, double = shape(SIZE), shape(2 * SIZE)
    action, work = count_work(text)
    again, more = count_work(double)
    assert type(again) is type(action)
    assert work.regex_calls == more.regex_calls == [], "the parser ran a regex (uncountable)"
    assert work.unwatched == more.unwatched == [], "a str method the counter does not see"
    assert more.lines <= 2 * work.lines, (work.lines, more.lines)
    assert more.looked_at <= 2 * work.looked_at, (work.looked_at, more.looked_at)
    # every character is looked at a bounded number of times (three passes at most today)
    assert work.looked_at <= 4 * len(text), (work.looked_at, len(text))
    assert not work.ran("json_repair") and not work.ran("difflib")


BEFORE_ISSUE_17 = """
import re
_TOOL_CALL = re.compile(r"<tool_call>\\s*(.*?)\\s*</tool_call>", re.DOTALL)

def regex_parser(text, tools, max_chars=None):
    return _TOOL_CALL.findall(text)

def quadratic_parser(text, tools, max_chars=None):
    return [text.find("}", start) for start in range(len(text))]
"""


def test_the_counters_see_a_regex_and_quadratic_work() -> None:
    """What the str.find parser replaced (a backtracking regex over the turn), and a loop that
    rescans the rest of the turn at every character, fail the checks above."""
    parsers: dict[str, Any] = {}
    exec(compile(BEFORE_ISSUE_17, "<parsers before issue 17>", "exec"), parsers)
    _, work = count_work("<tool_call>" + "\n" * 100, parse=parsers["regex_parser"])
    assert len(work.regex_calls) == 1 and work.regex_calls[0].endswith(".findall")
    _, work = count_work("<tool_call>" + "\n" * 1000, parse=parsers["quadratic_parser"])
    _, more = count_work("<tool_call>" + "\n" * 2000, parse=parsers["quadratic_parser"])
    assert more.looked_at > 3 * work.looked_at


def test_deep_nesting_is_named_in_the_reason() -> None:
    action = parse_action("<tool_call>" + "[" * 100_000 + "</tool_call>", TOOLS)
    assert action == Malformed("the <tool_call> block cannot be read: its JSON is nested too "
                               "deeply to read")


def test_a_long_invalid_body_is_not_handed_to_the_repairer() -> None:
    body = '{"name": "get_note", "arguments": {"note_id": 2, "pad": "' + "x" * MAX_REPAIR_CHARS
    action, work = count_work(f"<tool_call>{body}</tool_call>")
    assert isinstance(action, Malformed)
    assert f"longer than {MAX_REPAIR_CHARS} characters" in action.reason
    assert not work.ran("json_repair")
    # a short invalid body is still repaired, as AWM's agent does
    short, work = count_work('<tool_call>{"name": "get_note", "arguments": {"note_id": 2}'
                             '</tool_call>')
    assert short == ToolCall("get_note", {"note_id": 2}) and work.ran("json_repair")


def test_the_action_cap_is_decided_before_parsing() -> None:
    valid = '<tool_call>{"name": "get_note", "arguments": {"note_id": 2}}</tool_call>'
    assert parse_action(valid, TOOLS, max_chars=len(valid)) == ToolCall("get_note", {"note_id": 2})
    action = parse_action(valid + " ", TOOLS, max_chars=len(valid))
    assert action == Malformed(f"the action is {len(valid) + 1} characters long; the limit is "
                               f"{len(valid)} (EnvConfig.max_action_chars)")
    huge, work = count_work("<tool_call>" + "[" * 10_000_000, max_chars=100_000)
    assert "the limit is 100000" in huge.reason
    _, small = count_work("<tool_call>" + "[" * 100_000, max_chars=100_000)
    assert work.looked_at == 0 and work.lines == small.lines  # not one character was read


def test_a_huge_tool_name_is_cut_in_the_reason() -> None:
    name = "a" * 1_000_000
    action, work = count_work('<tool_call>{"name": "' + name + '"}</tool_call>')
    assert isinstance(action, UnknownTool)  # answered as AWM does, the name cut in the hint
    assert len(action.hint) < 300 and len(action.awm_text) < 300
    assert "(1000000 characters)" in action.hint
    assert not work.ran("difflib")  # no "did you mean" search on a name no tool has


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
