"""The shard worker's step replies (awm_gym/envs/wire.py): each distinct observation travels
once, a catalogue as its world's name, and a forged frame is refused as a dead worker, never
trusted."""

from __future__ import annotations

import json

import pytest

from awm_gym.envs.protocol import StepOutcome
from awm_gym.envs.wire import (
    REPLY_HEADER,
    CatalogueRef,
    ProtocolError,
    decode_reply,
    encode_reply,
)


def _decode(frame: bytes) -> tuple[str, object]:
    json_size, blob_size, _ = REPLY_HEADER.unpack(frame[:REPLY_HEADER.size])
    return decode_reply("step", frame[REPLY_HEADER.size:], json_size, blob_size)


def _forged(payload: object) -> bytes:
    body = json.dumps(["ok", payload]).encode()
    return REPLY_HEADER.pack(len(body), 0, 0) + body


def test_a_step_reply_round_trips() -> None:
    outcomes = [StepOutcome("a", 0.0, False, False, {"tool_outcome": "ok"}),
                StepOutcome("b", 1.0, True, False, {"verifier_label": "complete"}),
                StepOutcome("a", -1.0, False, True, {})]
    assert _decode(encode_reply("step", "ok", outcomes)) == ("ok", outcomes)


def test_a_repeated_observation_is_sent_once() -> None:
    catalogue = "tool " * 8_000  # list_tools answers every instance the same catalogue
    same = [StepOutcome(catalogue, 0.0, False, False, {}) for _ in range(512)]
    frame = encode_reply("step", "ok", same)
    assert len(frame) < len(catalogue) + 512 * 40
    status, decoded = _decode(frame)
    assert status == "ok" and decoded == same


def test_a_catalogue_travels_as_its_worlds_name() -> None:
    outcomes = [StepOutcome(CatalogueRef("spotify"), 0.0, False, False, {"world": "spotify"}),
                StepOutcome("a", 0.0, False, False, {}),
                StepOutcome(CatalogueRef("gmail"), 0.0, False, False, {"world": "gmail"}),
                StepOutcome(CatalogueRef("spotify"), 0.0, False, False, {"world": "spotify"})]
    frame = encode_reply("step", "ok", outcomes)
    assert json.loads(frame[REPLY_HEADER.size:])[1][2] == ["spotify", "gmail"]  # each name once
    assert _decode(frame) == ("ok", outcomes)


@pytest.mark.parametrize("payload", [
    [["a"], [[1, 0.0, False, False, {}]]],          # an index past the observations
    [["a"], [[-1, 0.0, False, False, {}]]],
    [["a"], [[-2, 0.0, False, False, {}]], ["w"]],  # past the catalogue names
    [["a"], [[-1, 0.0, False, False, {}]], [7]],     # a catalogue name that is not text
    [["a"], [[0, 0.0, False, False, {}]], [], []],   # a fourth part
    [["a"], [["a", 0.0, False, False, {}]]],        # the old shape: text in place of an index
    [["a"], [[0, "1", False, False, {}]]],           # a reward that is not a number
    [[1], [[0, 0.0, False, False, {}]]],             # an observation that is not text
    [[[0, 0.0, False, False, {}]]],                   # no observation table
])
def test_a_forged_step_reply_is_a_protocol_error(payload: object) -> None:
    with pytest.raises(ProtocolError, match="a reply to 'step' is not"):
        _decode(_forged(payload))
