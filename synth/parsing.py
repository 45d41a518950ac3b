"""Read structured values out of LLM answers: a JSON object, or a Python module.

Reasoning blocks (``<think>...</think>``) are removed first. JSON is taken from the whole answer,
else from a fenced block, else from the span between the first opening and the last closing
bracket; ``json_repair`` is the last resort for the small slips models make (trailing commas,
unquoted keys). Anything still unreadable raises :class:`~synth.errors.GenerationError` with a
message written for the correction prompt.

Example:
    >>> parse_json_answer('<think>..</think>```json\\n{"tasks": ["a", "b",]}\\n```', dict)
    {'tasks': ['a', 'b']}
    >>> extract_code("Here it is:\\n```python\\nimport os\\n```")
    'import os\\n'
"""

from __future__ import annotations

import json
import re
from typing import Any

from awm_gym.tools import strip_thinking

from .errors import GenerationError

__all__ = ["parse_json_answer", "extract_code", "require_keys"]

_FENCE = re.compile(r"```[a-zA-Z0-9_+-]*[ \t]*\n(.*?)```", re.DOTALL)


def _spans(body: str, kind: type) -> list[str]:
    open_, close = ("{", "}") if kind is dict else ("[", "]")
    if open_ in body and close in body and body.index(open_) < body.rindex(close):
        return [body[body.index(open_):body.rindex(close) + 1]]
    return []


def parse_json_answer(text: str, kind: type = dict) -> Any:
    """The JSON value of ``kind`` (``dict`` or ``list``) in an LLM answer.

    A list answer may also come wrapped in an object with one list value (``{"tasks": [...]}``).

    Raises:
        GenerationError: no JSON value of that kind could be read.
    """
    body = strip_thinking(text or "")
    candidates = [body, *_FENCE.findall(body), *_spans(body, kind)]
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(value, kind):
            return value
    import json_repair

    for candidate in candidates[1:] or candidates:
        try:
            value = json_repair.loads(candidate)
        except Exception:  # noqa: BLE001 - the repair library may fail in any way on model text
            continue
        if isinstance(value, kind) and value:
            return value
    what = "a JSON object" if kind is dict else "a JSON array"
    shown = body[:300] + ("..." if len(body) > 300 else "")
    raise GenerationError(f"The answer is not {what}: it could not be parsed. It began with: "
                          f"{shown!r}. Reply with {what} only, no commentary.")


def require_keys(value: dict[str, Any], keys: dict[str, type], where: str) -> None:
    """Check that ``value`` has each key with the given type.

    Raises:
        GenerationError: naming the first missing or mistyped key.
    """
    for key, kind in keys.items():
        if key not in value:
            raise GenerationError(f"{where}: the key {key!r} is missing.")
        if not isinstance(value[key], kind):
            raise GenerationError(f"{where}: {key!r} must be {kind.__name__}, got "
                                  f"{type(value[key]).__name__}.")


def extract_code(text: str) -> str:
    """The Python module in an LLM answer: the longest fenced block, or the whole answer.

    An answer that is a JSON object with a ``full_code`` or ``python_code`` string yields that
    string (AWM's env prompt allows a ``full_code`` wrapper).
    """
    body = strip_thinking(text or "")
    if body.startswith("{"):
        try:
            value = json.loads(body)
        except ValueError:
            value = None
        if isinstance(value, dict):
            for key in ("full_code", "python_code"):
                if isinstance(value.get(key), str):
                    return value[key]
    blocks = _FENCE.findall(body)
    code = max(blocks, key=len) if blocks else body
    return code if code.endswith("\n") else code + "\n"
