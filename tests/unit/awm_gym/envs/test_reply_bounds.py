"""What a worker's reply may be, derived from the request alone (awm_gym/envs/reply_bounds.py):
progress positions in the order a worker reports them, sizes under the request's cap, and an
overall time that no frame extends (issue 42, class 3)."""

from __future__ import annotations

import pytest

from awm_gym.envs.config import EnvConfig
from awm_gym.envs.reply_bounds import LOADING, VERIFYING, ReplyBounds
from awm_gym.envs.wire import ProtocolError

CALL = '<tool_call>{"name": "get_track", "arguments": {}}</tool_call>'
CONFIG = EnvConfig(tool_timeout_s=3.0, import_timeout_s=20.0, verifier_timeout_s=4.0,
                   max_text_length=1_000, max_action_chars=500)


def _step(*actions: object) -> ReplyBounds:
    return ReplyBounds.for_request(("step", list(range(len(actions))), list(actions)), CONFIG,
                                   worlds=3)


def test_a_worker_reports_in_order_and_each_position_once() -> None:
    bounds = _step(CALL, "Done.", CALL, CALL)
    for pos in (LOADING, 0, 2, 3, VERIFYING):
        bounds.admit(pos)


@pytest.mark.parametrize("frames", [
    [0, 0],                 # a position again (a flood of progress frames)
    [2, 0],                 # out of order
    [1],                    # a final answer runs no world code: no frame
    [4], [1_000_000],       # not in the request
    [0, LOADING],           # loading after an action
    [LOADING, LOADING, LOADING, LOADING],  # more loads than tool calls
    [VERIFYING, 2],         # an action after the verification
    [VERIFYING, VERIFYING],
    [-3],
])
def test_a_frame_the_request_does_not_hold_is_refused(frames: list[int]) -> None:
    bounds = _step(CALL, "Done.", CALL, CALL)
    with pytest.raises(ProtocolError, match="does not fit a 'step' request"):
        for pos in frames:
            bounds.admit(pos)


def test_no_verification_frame_without_a_possible_final_answer() -> None:
    with pytest.raises(ProtocolError):
        _step(CALL, CALL).admit(VERIFYING)


def test_the_overall_budget_is_the_sum_of_what_legitimate_frames_grant() -> None:
    per_action, loading, verifying = 3.0 + 5, 20.0 + 10, 2 * 4.0 + 10
    assert _step(CALL).budget_s == 2 * per_action + loading
    assert _step(CALL, "Done.").budget_s == 2 * per_action + loading + verifying
    assert _step("Done.").budget_s == per_action + verifying
    assert _step(CALL, CALL, CALL, CALL).budget_s == 5 * per_action + 3 * loading  # 3 worlds


def test_sizes_are_capped_by_the_request() -> None:
    bounds = _step(CALL, CALL)
    bounds.check_sizes(bounds.max_json_bytes, 0)
    assert bounds.max_json_bytes < 5 * 2**20
    for sizes in ((bounds.max_json_bytes + 1, 0), (10, 1), (10, 512 * 2**20)):
        with pytest.raises(ProtocolError, match="larger than any reply"):
            bounds.check_sizes(*sizes)
    snapshot = ReplyBounds.for_request(("snapshot", 0), CONFIG, worlds=1)
    snapshot.check_sizes(12, CONFIG.worker_memory_mb * 2**20)
    with pytest.raises(ProtocolError):
        snapshot.check_sizes(12, CONFIG.worker_memory_mb * 2**20 + 1)


@pytest.mark.parametrize("message", [("reset", [0], [1], [None], [None]), ("lost_turn", [0]),
                                     ("snapshot", 0), ("tools_text", "spotify")])
def test_requests_without_actions_report_no_progress(message: tuple) -> None:
    bounds = ReplyBounds.for_request(message, CONFIG, worlds=1)
    assert bounds.budget_s is None
    for pos in (0, LOADING, VERIFYING):
        with pytest.raises(ProtocolError):
            bounds.admit(pos)


def test_a_tool_session_call_reports_its_loading_then_its_call() -> None:
    message = ("call_tool", 0, "spotify", "get_track", {})
    ReplyBounds.for_request(message, CONFIG, worlds=5).admit(0)
    bounds = ReplyBounds.for_request(message, CONFIG, worlds=5)
    bounds.admit(LOADING)
    bounds.admit(0)
    with pytest.raises(ProtocolError):
        bounds.admit(0)
