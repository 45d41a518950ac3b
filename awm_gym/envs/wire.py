"""The shard worker's replies: framed JSON the caller checks, never a pickle it loads.

A shard worker runs world code, so anything it sends may be forged; the caller must be able to
read it without running code. A reply is one frame on the worker's reply descriptor (not
stdout: world code prints there): a 16-byte header (:data:`REPLY_HEADER`: JSON length, blob
length, the request's id), a JSON array ``[status, payload]`` and, for the byte replies
(``snapshot``, ``template``), the raw bytes. The caller sends each request with a random
64-bit id and the worker writes it into every frame it writes for that request, so the caller
refuses a frame that world code wrote without knowing the id, and a frame of an earlier
request (the worker's own answer, left unread because world code wrote one before it that
knew the id). :func:`decode_reply` checks the frame against the shape the request asked for
and raises :class:`ProtocolError` otherwise; an exception from the worker comes back as its
class name and message and is rebuilt only as one of a fixed set of classes.

A step reply sends each distinct observation once, and a ``list_tools`` observation not at all:
the worker marks it as a :class:`CatalogueRef` (the world's name) and the caller, which reads
the same catalogue cache, puts the text back (:class:`~awm_gym.envs.shards.ShardedRuntime`
accepts only its own worlds' names there).

Requests (caller -> worker) are pickles of ``(request id, request)``: the worker trusts its
caller, not the reverse.

Example:
    >>> frame = encode_reply("lost_turn", "ok", [True, False], request_id=7)
    >>> json_size, blob_size, request_id = REPLY_HEADER.unpack(frame[:REPLY_HEADER.size])
    >>> request_id, decode_reply("lost_turn", frame[REPLY_HEADER.size:], json_size, blob_size)
    (7, ('ok', [True, False]))
"""

from __future__ import annotations

import builtins
import json
import select
import struct
import time
from dataclasses import dataclass
from typing import Any, BinaryIO

from awm_gym import errors
from awm_gym.boundary import Failure, best_effort, capture
from awm_gym.envs.protocol import StepOutcome

__all__ = ["HEADER", "REPLY_HEADER", "MAX_JSON_BYTES", "MAX_BLOB_BYTES", "CatalogueRef",
           "ProtocolError", "decode_reply", "encode_json_frame", "encode_reply", "read_exactly",
           "read_json_frame"]

HEADER = struct.Struct("!II")
"""A JSON frame's header (:func:`encode_json_frame`): JSON length, blob length."""
REPLY_HEADER = struct.Struct("!IIQ")
"""A shard worker's reply frame's header (:func:`encode_reply`): JSON length, blob length, and
the id of the request it answers (never 0: a frame that carries 0 answers no request)."""
MAX_JSON_BYTES = 256 * 2**20
MAX_BLOB_BYTES = 2**32 - 1
_BLOB_KINDS = ("snapshot", "template")
_BUILTIN_ERRORS = ("ValueError", "TypeError", "KeyError", "IndexError", "RuntimeError",
                   "NotImplementedError", "AttributeError", "PermissionError", "OSError",
                   "FileNotFoundError", "TimeoutError", "MemoryError")


class ProtocolError(EOFError):
    """A reply that is not a well-formed frame of the expected shape: the worker is treated as
    dead (an ``EOFError``), restarted, and its instances replayed."""


@dataclass(frozen=True, slots=True)
class CatalogueRef:
    """In a step reply, in place of an observation: world ``world``'s ``list_tools`` text,
    which the caller holds already (1,024 instances over 647 worlds sent 647 catalogues of
    ~40 KB as JSON at every such step)."""

    world: str


def encode_reply(kind: str, status: str, payload: Any, request_id: int = 0) -> bytes:
    """One frame: the reply to the request ``request_id`` of ``kind`` (``status`` ``ok``,
    ``error`` with an exception payload, or ``progress`` with a batch position)."""
    blob = b""
    if status == "error":
        payload = [type(payload).__name__, _message(payload)]
    elif status == "ok" and kind in _BLOB_KINDS:
        blob, payload = (b"", None) if payload is None else (bytes(payload), True)
    elif status == "ok" and kind == "step":
        payload = _step_rows(payload)
    body = json.dumps([status, payload], ensure_ascii=False, separators=(",", ":"),
                      default=_fallback).encode("utf-8", "surrogatepass")
    return REPLY_HEADER.pack(len(body), len(blob), request_id) + body + blob


def _step_rows(outcomes: Any) -> list[Any]:
    """``[texts, rows, worlds]``: each distinct observation once (a batch of list_tools answers
    1,024 copies of a 38 KB catalogue), a :class:`CatalogueRef` as its world's name; a row's
    first field is an index into ``texts``, or ``-1 - k`` for the catalogue of ``worlds[k]``."""
    texts: dict[str, int] = {}
    worlds: dict[str, int] = {}
    rows = []
    for o in outcomes:
        obs = o.observation
        index = (-1 - worlds.setdefault(obs.world, len(worlds)) if isinstance(obs, CatalogueRef)
                 else texts.setdefault(obs, len(texts)))
        rows.append([index, o.reward, o.terminated, o.truncated, o.info])
    return [list(texts), rows, list(worlds)]


def encode_json_frame(value: Any) -> bytes:
    """A frame holding only ``value`` as JSON (no blob): for replies of other workers."""
    body = json.dumps(value, ensure_ascii=False, separators=(",", ":"),
                      default=_fallback).encode("utf-8", "surrogatepass")
    return HEADER.pack(len(body), 0) + body


def read_exactly(stream: BinaryIO, size: int, deadline: float) -> bytes:
    """``size`` bytes of an unbuffered pipe; ``EOFError`` when it closes, ``TimeoutError`` past
    ``deadline`` (``time.monotonic()``), even mid-frame."""
    chunks, left = [], size
    while left:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not select.select([stream], [], [], remaining)[0]:
            raise TimeoutError("worker reply deadline passed")
        chunk = stream.read(min(left, 2**24))
        if not chunk:
            raise EOFError("worker pipe closed")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def read_json_frame(stream: BinaryIO, deadline: float) -> Any:
    """The JSON value of the next frame of ``stream`` (see :func:`encode_json_frame`); a frame
    too long or not JSON is a :class:`ProtocolError`."""
    json_size, blob_size = HEADER.unpack(read_exactly(stream, HEADER.size, deadline))
    if json_size > MAX_JSON_BYTES or blob_size:
        raise ProtocolError(f"a frame of {json_size} + {blob_size} bytes is not a JSON frame")
    try:
        return json.loads(read_exactly(stream, json_size, deadline))
    except (ValueError, RecursionError) as e:
        raise ProtocolError(f"a frame is not JSON ({e})") from None


def _message(e: BaseException) -> str:
    message = ""  # what a broken __str__ of world code's exception leaves
    with best_effort("writing an exception's message", log=None):
        message = str(e.args[0]) if isinstance(e, KeyError) and e.args else str(e)
    return message


def _fallback(value: Any) -> Any:
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    if hasattr(value, "item"):  # numpy scalars
        return value.item()
    return str(value)


def decode_reply(kind: str, data: bytes, json_size: int, blob_size: int) -> tuple[str, Any]:
    """``(status, payload)`` of a frame whose body is ``data`` (JSON then blob), checked against
    the shape of a reply to ``kind``; an ``error`` payload is an exception to raise."""
    try:
        message = json.loads(data[:json_size])
    except (ValueError, RecursionError) as e:
        raise ProtocolError(f"a reply to {kind!r} is not JSON ({e})") from None
    _require(isinstance(message, list) and len(message) == 2, kind, "a [status, payload] pair")
    status, payload = message
    if status == "progress":
        _require(type(payload) is int, kind, "an int progress position")
        return status, payload
    if status == "error":
        _require(isinstance(payload, list) and len(payload) == 2
                 and all(isinstance(p, str) for p in payload), kind, "[class name, message]")
        return status, _rebuild_error(*payload)
    _require(status == "ok", kind, "status ok, error or progress")
    blob = data[json_size:json_size + blob_size]
    return status, _CHECKS.get(kind, _unknown)(kind, payload, blob)


def _require(ok: bool, kind: str, what: str) -> None:
    if not ok:
        raise ProtocolError(f"a reply to {kind!r} is not {what}; the worker is treated as dead")


def _rebuild_error(name: str, message: str) -> Exception:
    cls = getattr(errors, name, None) if name[:1].isupper() else None
    if not (isinstance(cls, type) and issubclass(cls, Exception)
            and cls.__module__ == errors.__name__):
        cls = getattr(builtins, name) if name in _BUILTIN_ERRORS else None
    if cls is None:
        return errors.EnvUsageError(f"{name} in a worker: {message}")
    rebuilt = capture(cls, message)  # fails for a class whose constructor wants more
    return errors.EnvUsageError(f"{name} in a worker: {message}") \
        if isinstance(rebuilt, Failure) else rebuilt


def _is_info(value: Any) -> bool:
    return isinstance(value, dict)


def _is_number(value: Any) -> bool:
    return type(value) in (int, float)


def _init(kind: str, payload: Any, blob: bytes) -> Any:
    _require(isinstance(payload, list) and len(payload) == 3, kind, "[report, worlds, skipped]")
    report, worlds, skipped = payload
    _require(report is None or isinstance(report, dict), kind, "a containment report")
    _require(_strings(worlds) and _strings(skipped), kind, "lists of world names and messages")
    return report, worlds, skipped


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _reset(kind: str, payload: Any, blob: bytes) -> Any:
    _require(isinstance(payload, list) and all(
        isinstance(p, list) and len(p) == 2 and isinstance(p[0], str) and _is_info(p[1])
        for p in payload), kind, "a list of [observation, info]")
    return [(obs, info) for obs, info in payload]


def _step(kind: str, payload: Any, blob: bytes) -> Any:
    _require(isinstance(payload, list) and len(payload) in (2, 3) and _strings(payload[0])
             and isinstance(payload[1], list) and (len(payload) == 2 or _strings(payload[2])),
             kind, "[observations, outcomes, catalogue worlds]")
    texts, rows = payload[0], payload[1]
    worlds = payload[2] if len(payload) == 3 else []
    observations = [*texts, *(CatalogueRef(w) for w in reversed(worlds))]  # -1 - k: worlds[k]
    _require(all(
        isinstance(p, list) and len(p) == 5 and type(p[0]) is int
        and -len(worlds) <= p[0] < len(texts)
        and _is_number(p[1]) and type(p[2]) is bool and type(p[3]) is bool and _is_info(p[4])
        for p in rows), kind, "a list of [observation index, reward, terminated, truncated, info]")
    return [StepOutcome(observations[p[0]], *p[1:]) for p in rows]


def _bools(kind: str, payload: Any, blob: bytes) -> Any:
    _require(isinstance(payload, list) and all(type(p) is bool for p in payload), kind,
             "a list of bools")
    return payload


def _text(kind: str, payload: Any, blob: bytes) -> Any:
    _require(isinstance(payload, str), kind, "a string")
    return payload


def _tools(kind: str, payload: Any, blob: bytes) -> Any:
    _require(isinstance(payload, list) and all(isinstance(p, dict) for p in payload), kind,
             "a list of tool schemas")
    return payload


def _tool_result(kind: str, payload: Any, blob: bytes) -> Any:
    _require(isinstance(payload, list) and len(payload) == 2 and isinstance(payload[0], str)
             and type(payload[1]) is bool, kind, "a [text, is_error] pair")
    return payload[0], payload[1]


def _none(kind: str, payload: Any, blob: bytes) -> Any:
    _require(payload is None, kind, "null")
    return None


def _bytes(kind: str, payload: Any, blob: bytes) -> Any:
    if payload is None and kind == "snapshot":
        return None
    _require(payload is True, kind, "bytes")
    return blob


def _unknown(kind: str, payload: Any, blob: bytes) -> Any:
    raise ProtocolError(f"a reply to an unknown request {kind!r}")


_CHECKS = {"init": _init, "reset": _reset, "step": _step, "lost_turn": _bools,
           "tools_text": _text, "tools": _tools, "snapshot": _bytes, "template": _bytes,
           "title": _text, "call_tool": _tool_result, "end_tool_session": _none}
