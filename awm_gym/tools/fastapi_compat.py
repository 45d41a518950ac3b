"""The FastAPI internals the direct dispatch path uses, across the supported FastAPI range.

:mod:`awm_gym.tools.dispatch` validates a tool call's arguments with FastAPI's own functions
instead of sending an HTTP request through the app (microseconds instead of a millisecond). Two
of the helpers it needs moved between FastAPI 0.115 (AWM's validated version) and the newest
the ranges allow (0.136, what vllm 0.32 needs); this module is the one place that knows:

- ``normalize_errors``: FastAPI <= 0.115 flattens validation errors with
  ``fastapi._compat._normalize_errors`` before its 422 handler renders them; later versions
  pass the errors through as they are (already flat).
- ``has_field_loop``: the per-field loop of :class:`~awm_gym.tools.dispatch._ParamExtractor`
  mirrors FastAPI 0.115's ``request_params_to_args`` (and needs its ``is_sequence_field``).
  Newer FastAPI changed that function (pydantic-model groups, extra keys), so there the
  extractor delegates every parameter group to FastAPI's own function: the text is then what the
  installed FastAPI says, whatever its version.

Example:
    >>> normalize_errors([{"loc": ("query", "limit"), "msg": "bad", "type": "int_parsing"}])[0]["msg"]
    'bad'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import fastapi._compat as _fastapi_compat

__all__ = ["normalize_errors", "has_field_loop", "is_sequence_field", "lenient_issubclass"]

_normalize = getattr(_fastapi_compat, "_normalize_errors", None)
is_sequence_field: Any = getattr(_fastapi_compat, "is_sequence_field", None)
lenient_issubclass: Any = getattr(_fastapi_compat, "lenient_issubclass", None)

has_field_loop = is_sequence_field is not None and lenient_issubclass is not None
"""Whether the installed FastAPI has the 0.115-era helpers our per-field loop needs."""


def normalize_errors(errors: Sequence[Any]) -> list[Any]:
    """Validation errors as FastAPI's 422 handler renders them (before ``jsonable_encoder``)."""
    return list(_normalize(errors)) if _normalize is not None else list(errors)
