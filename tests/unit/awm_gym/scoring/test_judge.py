"""The LLM judge: answer parsing, prompt bounds, config checks, and calls to a real HTTP server."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from awm_gym.envs.config import EnvConfig, RewardConfig
from awm_gym.scoring.judge import (
    JudgeAnswerError,
    JudgeConfig,
    JudgeRequest,
    LLMJudge,
    Turn,
    build_judge_messages,
    criteria_from_raw_response,
    parse_judge_answer,
)
from awm_gym.scoring.rubrics import JudgeRubric

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "synth"
if str(FIXTURES) not in sys.path:
    sys.path.insert(0, str(FIXTURES))

from scripted_llm import Reply, ScriptedLLM  # noqa: E402


@pytest.fixture()
def server():
    s = ScriptedLLM().start()
    yield s
    s.stop()


def verdict(label: str) -> str:
    return json.dumps({"reasoning": f"it is {label}", "classification": label})


@pytest.mark.parametrize("text", [
    '{"reasoning": "r", "classification": "agent_error"}',
    '```json\n{"classification": " AGENT_ERROR "}\n```',
    '<think>maybe complete?</think>Verdict: {"classification": "agent_error", "x": [1]}',
])
def test_labels_are_read_from_json_only(text: str) -> None:
    assert parse_judge_answer(text)[0] == "agent_error"


@pytest.mark.parametrize(("text", "message"), [
    ("The agent completed the task.", "no JSON object"),
    ('{"classification": "partial"}', "'partial' is not one of"),
    ('{"verdict": "complete"}', "None is not one of"),
    ("", "no JSON object"),
])
def test_malformed_answers_are_errors_never_guesses(text: str, message: str) -> None:
    with pytest.raises(JudgeAnswerError, match=message):
        parse_judge_answer(text)


def test_the_prompt_is_bounded_and_carries_the_verifier_criteria() -> None:
    cfg = JudgeConfig(base_url="http://x/v1", model="m", max_turns=2, max_observation_chars=50)
    turns = tuple(Turn(f"<think>plan {i}</think>call {i}", "r" * 500) for i in range(5))
    request = JudgeRequest("Close ticket 2", turns, "Closed.", {"closed": [2]},
                           criteria_from_raw_response(json.dumps(
                               {"success_criteria": "ticket 2 closed", "python_code": "..."})))
    system, user = build_judge_messages(request, cfg)
    assert "complete" in system["content"] and "server_error" in system["content"]
    assert '"omitted_earlier_steps": 3' in user["content"]
    assert "call 3" in user["content"] and "call 2" not in user["content"]
    assert "plan" not in user["content"]  # reasoning is stripped from actions
    assert "450 more characters cut" in user["content"]
    assert "ticket 2 closed" in user["content"] and "python_code" not in user["content"]


def test_config_checks_name_the_field() -> None:
    with pytest.raises(ValueError, match="JudgeConfig.max_concurrency=0"):
        JudgeConfig(base_url="http://x/v1", model="m", max_concurrency=0)
    with pytest.raises(ValueError, match="JudgeConfig.model=''"):
        JudgeConfig(base_url="http://x/v1", model="")
    with pytest.raises(ValueError, match=r"unknown field\(s\) \['modle'\]"):
        EnvConfig(judge={"base_url": "http://x/v1", "modle": "m"})
    with pytest.raises(ValueError, match="EnvConfig.judge is None"):
        EnvConfig(rubric=JudgeRubric())
    assert RewardConfig(incomplete=0.3).judge_table == {
        "complete": 1.0, "incomplete": 0.3, "agent_error": 0.0, "server_error": 0.0}


def test_a_batch_gets_one_verdict_per_request_and_failures_are_labelled(server) -> None:
    server.script_text("task A", verdict("complete"))
    server.script_text("task B", "It went fine, I think.")
    server.script_text("task C", Reply(status=503), Reply(status=503), verdict("server_error"))
    server.script_text("task D", Reply(status=400))
    server.script_text("task E", Reply(verdict("complete"), delay_s=3600.0))  # never in time
    # timeout_s: generous for A-D on a loaded machine; E's reply never comes in time anyway
    judge = LLMJudge(JudgeConfig(base_url=server.base_url, model="judge", timeout_s=10.0,
                                 backoff_s=0.01, max_retries=2))
    try:
        requests = [JudgeRequest(f"task {x}", (), "done", {}) for x in "ABCDE"]
        results = judge.judge(requests)  # returns: E's reply (an hour away) was not waited for
        assert [r.label for r in results] == ["complete", "judge_error", "server_error",
                                              "judge_error", "judge_error"]
        assert [r.error_kind for r in results] == [None, "malformed", None, "provider",
                                                   "timeout"]
        assert results[0].reasoning == "it is complete" and results[0].is_valid
        assert "HTTP" in results[3].error or "400" in results[3].error
        # C was retried twice (transient 503s), D was not retried (a 400 is deterministic)
        texts = [r["text"] for r in server.requests]
        assert sum("task C" in t for t in texts) == 3 and sum("task D" in t for t in texts) == 1
        assert results[4].error == "no answer within timeout_s=10"  # given up at its timeout
        assert judge.judge([]) == []
    finally:
        judge.close()
        judge.close()
