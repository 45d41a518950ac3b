"""A text space that accepts any Unicode string (Gymnasium's ``Text`` accepts only its charset).

Example:
    >>> space = UnicodeText(100)
    >>> space.contains('<tool_call>{"name": "café ☕"}</tool_call>'), space.contains("x" * 101)
    (True, False)
"""

from __future__ import annotations

import string
from typing import Any

from gymnasium import spaces

__all__ = ["UnicodeText"]

_SAMPLE_CHARSET = string.ascii_letters + string.digits + " {}[]\":,._-<>/"


class UnicodeText(spaces.Text):
    """Any ``str`` of 0 to ``max_length`` code points (lone surrogates rejected).

    ``isinstance(space, gymnasium.spaces.Text)`` holds, but it is not flattenable and must not be
    used with ``AsyncVectorEnv`` shared memory; the small charset is used only by ``sample()``.
    """

    def __init__(self, max_length: int, *, seed: Any = None) -> None:
        super().__init__(max_length, min_length=0, charset=_SAMPLE_CHARSET, seed=seed)

    @property
    def is_np_flattenable(self) -> bool:
        return False

    def contains(self, x: Any) -> bool:
        if not isinstance(x, str) or len(x) > self.max_length:
            return False
        try:
            x.encode("utf-8")
        except UnicodeEncodeError:  # lone surrogates cannot be stored or tokenized
            return False
        return True

    def __repr__(self) -> str:
        return f"UnicodeText(max_length={self.max_length})"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, UnicodeText) and other.max_length == self.max_length

    def __hash__(self) -> int:
        return hash(("UnicodeText", self.max_length))
