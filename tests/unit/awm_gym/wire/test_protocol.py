"""Tests for awm_gym/wire/protocol.py: parsing client frames and writing replies."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from awm_gym.wire.protocol import (
    ErrorCode,
    MessageType,
    ProtocolError,
    encode_frame,
    error_frame,
    parse_request,
    reset_arguments,
    step_action,
)

LIMIT = 1024


def code_of(frame: str | bytes) -> tuple[ErrorCode, object, str]:
    with pytest.raises(ProtocolError) as raised:
        parse_request(frame, LIMIT)
    return raised.value.code, raised.value.request_id, raised.value.message


def test_requests_parse_with_their_ids_and_data() -> None:
    request = parse_request('{"type": "reset", "id": "a-1", "data": {"seed": 3}}', LIMIT)
    assert (request.type, request.id, request.data) == (MessageType.RESET, "a-1", {"seed": 3})
    assert reset_arguments(request) == (3, None)
    assert parse_request(b'{"type": "state"}', LIMIT).data == {}  # binary frames, no data
    assert parse_request('{"type": "close", "id": 0, "data": null}', LIMIT).id == 0


@pytest.mark.parametrize("frame, code", [
    ("{oops", ErrorCode.INVALID_JSON),
    (b"\xff", ErrorCode.INVALID_JSON),
    ("[" * 100_000 + "]" * 100_000, ErrorCode.MESSAGE_TOO_LARGE),
    ('"just a string"', ErrorCode.INVALID_MESSAGE),
    ('{"id": 1}', ErrorCode.INVALID_MESSAGE),
    ('{"type": 5}', ErrorCode.INVALID_MESSAGE),
    ('{"type": "step", "id": true}', ErrorCode.INVALID_MESSAGE),
    ('{"type": "step", "id": [1]}', ErrorCode.INVALID_MESSAGE),
    ('{"type": "step", "id": "' + "x" * 200 + '"}', ErrorCode.INVALID_MESSAGE),
    ('{"type": "step", "data": [1]}', ErrorCode.INVALID_MESSAGE),
    ('{"type": "step", "extra": 1}', ErrorCode.INVALID_MESSAGE),
    ('{"type": "jump"}', ErrorCode.UNKNOWN_TYPE),
])
def test_bad_frames_get_the_code_that_names_the_problem(frame: str, code: ErrorCode) -> None:
    assert code_of(frame)[0] is code


def test_deeply_nested_json_is_invalid_json_not_a_crash() -> None:
    deep = "[" * 50_000 + "]" * 50_000
    with pytest.raises(ProtocolError) as raised:
        parse_request(deep, 10**6)
    assert raised.value.code is ErrorCode.INVALID_JSON


def test_errors_keep_the_request_id_when_it_was_readable() -> None:
    code, request_id, message = code_of('{"type": "jump", "id": 9}')
    assert (code, request_id) == (ErrorCode.UNKNOWN_TYPE, 9)
    assert "'reset', 'step', 'state', 'tools', 'close'" in message
    assert code_of("{oops")[1] is None


def test_size_limit_counts_utf8_bytes() -> None:
    frame = json.dumps({"type": "step", "data": {"action": "é" * 600}}, ensure_ascii=False)
    assert len(frame) < LIMIT < len(frame.encode())
    code, _, message = code_of(frame)
    assert code is ErrorCode.MESSAGE_TOO_LARGE and f"at most {LIMIT}" in message


@pytest.mark.parametrize("data, field", [
    ({"seed": -1}, "reset.data.seed"),
    ({"seed": 1.5}, "reset.data.seed"),
    ({"seed": True}, "reset.data.seed"),
    ({"task_idx": "0"}, "reset.data.task_idx"),
    ({"world": "x"}, "['world']"),
])
def test_reset_fields_are_checked_by_name(data: dict, field: str) -> None:
    request = parse_request(json.dumps({"type": "reset", "id": 4, "data": data}), LIMIT)
    with pytest.raises(ProtocolError, match=__import__("re").escape(field)) as raised:
        reset_arguments(request)
    assert (raised.value.code, raised.value.request_id) == (ErrorCode.VALIDATION_ERROR, 4)


def test_step_needs_a_string_action_and_nothing_else() -> None:
    assert step_action(parse_request('{"type": "step", "data": {"action": ""}}', LIMIT)) == ""
    for data in ({}, {"action": None}, {"action": ["a"]}, {"action": "a", "seed": 1}):
        request = parse_request(json.dumps({"type": "step", "data": data}), LIMIT)
        with pytest.raises(ProtocolError) as raised:
            step_action(request)
        assert raised.value.code is ErrorCode.VALIDATION_ERROR


def test_frames_are_strict_json_even_with_numpy_and_nan_values() -> None:
    frame = json.loads(encode_frame("step", 3, {"reward": math.nan, "n": np.int64(2),
                                                "mask": np.array([True, False]),
                                                "text": "café"}))
    assert frame == {"type": "step", "id": 3, "data": {"reward": None, "n": 2,
                                                       "mask": [True, False], "text": "café"}}
    error = json.loads(error_frame(ErrorCode.CAPACITY_REACHED, "full"))
    assert error == {"type": "error", "id": None,
                     "data": {"code": "CAPACITY_REACHED", "message": "full"}}
