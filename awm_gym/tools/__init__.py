"""Tools: parse a model's action, list a world's tools, and run them in the world's own code.

The tool host (the worlds' FastAPI code, SQLAlchemy) loads when first used.
"""

from __future__ import annotations

from awm_gym.lazy_exports import lazy_exports
from awm_gym.tools.actions import (
    Action,
    FinalAnswer,
    ToolCall,
    format_tool_call,
    parse_action,
    solution_turns,
    strip_thinking,
)
from awm_gym.tools.catalogue import Catalogue, ToolSpec

__all__ = ["Action", "FinalAnswer", "ToolCall", "format_tool_call", "parse_action",
           "solution_turns", "strip_thinking", "Catalogue", "ToolSpec", "PreparedWorld",
           "ToolHost"]

__getattr__ = lazy_exports(__name__, {"host": ("PreparedWorld", "ToolHost")})
