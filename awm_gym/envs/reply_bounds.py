"""What a shard worker's reply to one request may be: its progress frames, its size, its time.

World code runs in the worker and can write to the worker's reply descriptor, so every frame the
caller reads there may be forged. :class:`ReplyBounds` is built from the request alone, before
anything is read, and holds the reply to it (issue 42, class 3):

* **progress frames** name only positions the request could report, in the order the worker
  reports them (:meth:`~awm_gym.envs.runtime.WorldRuntime.step`): :data:`LOADING` at most once
  per world the batch may load and only before any action, then the batch positions whose
  action may be a tool call (those with a ``<tool_call>`` tag), each once and in increasing
  order, then :data:`VERIFYING` once, only when an action may be a final answer. A ``call_tool``
  request reports :data:`LOADING` once and position 0 once; no other request reports progress.
* **sizes**: a step reply holds at most one observation of ``max_text_length`` characters and an
  info per instance, a reset reply a task text per instance, and only ``snapshot`` and
  ``template`` replies carry bytes (at most the worker's memory limit). The header is checked
  before the body is read, so a forged size costs the caller nothing.
* **time**: the sum of what each frame the request may legitimately send grants
  (:func:`phase_s`) is the request's overall budget from the moment it was sent; a frame never
  extends it, and a repeated or out-of-order frame is refused.

A frame that breaks any of these is a :class:`~awm_gym.envs.wire.ProtocolError`: the worker is
treated as dead (killed, restarted, its other instances replayed).

Example:
    >>> from awm_gym.envs.config import EnvConfig
    >>> call = '<tool_call>{"name": "get_track", "arguments": {}}</tool_call>'
    >>> bounds = ReplyBounds.for_request(("step", [0, 1], [call, "Done."]), EnvConfig(), worlds=1)
    >>> sorted(bounds.tool_positions), bounds.loads, bounds.verifies, bounds.max_blob_bytes
    ([0], 1, True, 0)
    >>> bounds.admit(0); bounds.admit(VERIFYING)
    >>> try:
    ...     bounds.admit(0)  # position 0 again: world code wrote it
    ... except ProtocolError as e:
    ...     print(str(e)[:43])
    a progress frame naming position 0 does not
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from awm_gym.envs.config import EnvConfig
from awm_gym.envs.runtime import LOADING
from awm_gym.envs.wire import MAX_BLOB_BYTES, MAX_JSON_BYTES, ProtocolError

__all__ = ["LOADING", "VERIFYING", "ReplyBounds", "phase_s"]

VERIFYING = -1
"""The progress position a worker reports before it verifies a batch's final answers."""

_TOOL_TAG = "<tool_call>"
_BYTES_PER_CHAR = 6
"""Most JSON bytes one character can take (``\\u001f``; UTF-8 takes at most 4)."""
_INFO_BYTES = 2**20
"""Room for one instance's info dict (error texts, verifier and judge fields) and the frame."""


def phase_s(config: EnvConfig, pos: int) -> float:
    """How long the worker may take after reporting ``pos``: an action gets the tool timeout
    and a margin, a world's loading the import timeout, a verification two verifier timeouts
    (and the judge's)."""
    if pos >= 0:
        return config.tool_timeout_s + 5.0
    if pos == LOADING:  # a world's code runs before its first call, as at import
        return config.import_timeout_s + 10.0
    judge_s = config.judge.timeout_s if config.judge is not None else 0.0
    return 2 * config.verifier_timeout_s + judge_s + 10.0


def _may_call_tool(action: Any) -> bool:
    """Whether the worker may parse ``action`` as a tool call (and so report its position):
    only a turn with a ``<tool_call>`` tag can be one (str's own ``find``: a subclass may lie)."""
    return not isinstance(action, str) or type(action) is not str \
        or str.find(action, _TOOL_TAG) >= 0


def _may_answer(action: Any) -> bool:
    """Whether ``action`` may be a final answer (a turn without a ``<tool_call>`` tag)."""
    return isinstance(action, str) and (type(action) is not str
                                        or str.find(action, _TOOL_TAG) < 0)


@dataclass
class ReplyBounds:
    """The reply a request may get (see the module docstring); :meth:`admit` takes each
    progress frame in turn and :meth:`check_sizes` each frame's header."""

    kind: str
    tool_positions: frozenset[int]
    """Batch positions that may report running a tool call."""
    loads: int
    """How many :data:`LOADING` frames may come (before any action)."""
    verifies: bool
    """Whether a :data:`VERIFYING` frame may come (after the actions)."""
    max_json_bytes: int
    max_blob_bytes: int
    budget_s: float | None
    """The whole reply's time from the request's sending, progress included (None: only the
    caller's deadline, for requests that report no progress)."""
    size: int = 0
    """The batch size the request asked for (its messages name it)."""
    _last: int = -1
    _loaded: int = 0
    _verifying: bool = False

    @classmethod
    def for_request(cls, message: Sequence[Any], config: EnvConfig, worlds: int
                    ) -> ReplyBounds:
        """The bounds of the reply to ``message`` (a request tuple) from a worker on
        ``config`` that holds ``worlds`` worlds."""
        kind = message[0]
        memory = (config.worker_memory_mb * 2**20 if config.worker_memory_mb
                  else MAX_BLOB_BYTES)
        general = min(MAX_JSON_BYTES, memory)
        text_bytes = _BYTES_PER_CHAR * config.max_text_length
        if kind == "step":
            actions = list(message[2])
            tools = frozenset(p for p, a in enumerate(actions) if _may_call_tool(a))
            verifies = any(_may_answer(a) for a in actions)
            loads = min(len(tools), worlds)
            per_instance = text_bytes + _BYTES_PER_CHAR * config.max_action_chars + _INFO_BYTES
            budget = (phase_s(config, 0) * (1 + len(tools)) + phase_s(config, LOADING) * loads
                      + (phase_s(config, VERIFYING) if verifies else 0.0))
            return cls(kind, tools, loads, verifies,
                       min(general, len(actions) * per_instance + _INFO_BYTES), 0, budget,
                       len(actions))
        if kind == "call_tool":
            budget = 2 * phase_s(config, 0) + phase_s(config, LOADING)
            return cls(kind, frozenset({0}), 1, False, general, 0, budget, 1)
        size = len(message[1]) if kind in ("reset", "lost_turn") else 0
        json_bytes = {"reset": size * (text_bytes + _INFO_BYTES) + _INFO_BYTES,
                      "lost_turn": 8 * size + 64, "end_tool_session": 64,
                      "snapshot": 64, "template": 64}.get(kind, general)
        blob = memory if kind in ("snapshot", "template") else 0
        return cls(kind, frozenset(), 0, False, min(general, json_bytes), blob, None, size)

    def check_sizes(self, json_size: int, blob_size: int) -> None:
        """Refuse a frame header larger than any reply to the request can be."""
        if json_size > self.max_json_bytes or blob_size > self.max_blob_bytes:
            raise ProtocolError(
                f"a frame of {json_size} + {blob_size} bytes is larger than any reply to a "
                f"{self.kind!r} request of {self.size} can be ({self.max_json_bytes} + "
                f"{self.max_blob_bytes}); the worker is treated as dead")

    def admit(self, pos: int) -> None:
        """Take the progress frame naming ``pos``, or refuse it (a position the request does
        not hold, one repeated or out of order)."""
        if pos == LOADING and self._last < 0 and not self._verifying \
                and self._loaded < self.loads:
            self._loaded += 1
        elif pos == VERIFYING and self.verifies and not self._verifying:
            self._verifying = True
        elif pos in self.tool_positions and pos > self._last and not self._verifying:
            self._last = pos
        else:
            raise ProtocolError(
                f"a progress frame naming position {pos} does not fit a {self.kind!r} request "
                f"of {self.size} actions; the worker is treated as dead")
