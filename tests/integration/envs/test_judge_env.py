"""LLM-judged rewards in a vector env: batched judge calls, malformed answers, time-outs, rubrics.

The judge is a real OpenAI-compatible server on 127.0.0.1 (tests/fixtures/synth/scripted_llm.py)
whose verdicts depend on what the request contains, so the env's own request (task, steps,
verifier evidence and criteria) decides the label.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from awm_gym import info_keys as K
from awm_gym.envs.vector_env import AWMVectorEnv
from awm_gym.scoring.judge import JudgeConfig
from awm_gym.scoring.rubrics import (
    AnswerFormatRubric,
    CodeVerifierRubric,
    Gate,
    JudgeRubric,
    Sequential,
    WeightedSum,
)

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "synth"
if str(FIXTURES) not in sys.path:
    sys.path.insert(0, str(FIXTURES))

from scripted_llm import Reply, ScriptedLLM  # noqa: E402

CLOSE_2 = '<tool_call>{"name": "close_ticket", "arguments": {"ticket_id": 2}}</tool_call>'
SEARCH = '<tool_call>{"name": "search_notes", "arguments": {"q": "budget"}}</tool_call>'


def verdict(label: str) -> str:
    return json.dumps({"reasoning": "per the evidence", "classification": label})


@pytest.fixture()
def server():
    s = ScriptedLLM().start()
    s.script_text(("SLOW ANSWER",), Reply(verdict("complete"), delay_s=20.0))
    s.script_text(("broken printer", "close_ticket"), verdict("complete"))
    s.script_text(("broken printer",), verdict("incomplete"))
    s.script_text(("open tickets",), "Seems fine to me.")
    s.script_text(("budget", "JUDGE DOWN"), Reply(status=500))
    s.script_text(("budget",), verdict("incomplete"))
    yield s
    s.stop()


def judge_config(server: ScriptedLLM) -> JudgeConfig:
    # 5 s: on a loaded 2-core machine a quick verdict took over 1 s; the slow one takes 20 s
    return JudgeConfig(base_url=server.base_url, model="judge", timeout_s=5.0, max_retries=1,
                       backoff_s=0.01)


def test_sql_mode_episodes_are_judged_in_one_batch_per_step(server, tiny_path) -> None:
    envs = AWMVectorEnv(num_envs=4, world_set=tiny_path, worlds=["judge_only"],
                        judge=judge_config(server))
    try:
        envs.reset(seed=0, options={"task_idx": [0, 0, 1, 0]})
        _, reward, term, _, info = envs.step([CLOSE_2, "I closed it.", "You have 3.",
                                              "SLOW ANSWER"])
        judged = [r for r in server.requests if r["stage"] is None]
        assert len(judged) == 3  # the three final answers, one batch
        assert term.tolist() == [False, True, True, True]
        assert info[K.JUDGE_LABEL][1:].tolist() == ["incomplete", "judge_error", "judge_error"]
        assert reward[1] == pytest.approx(0.1) and info[K.REWARD_VALID][1]
        assert info[K.JUDGE_ERROR][2].startswith("malformed") and not info[K.REWARD_VALID][2]
        assert info[K.JUDGE_ERROR][3].startswith("timeout") and not info[K.REWARD_VALID][3]
        assert reward[2] == reward[3] == 0.0 and not info[K.SUCCESS][2:].any()
        assert K.AWAITING_JUDGE not in info
        _, reward, term, _, info = envs.step([
            "<think>done</think>Closed the printer ticket.", None, None, None])
        assert term[0] and reward[0] == 1.0 and info[K.SUCCESS][0]
        assert info[K.JUDGE_LABEL][0] == "complete" and info[K.VERIFIER_LABEL][0] == \
            "awaiting_judge"
        text = server.requests[-1]["text"]
        assert "printer_ticket_status_after" in text  # the verifier's evidence
        assert "success_criteria" in text  # and what its author said success looks like
        assert "close_ticket" in text and "Closed the printer ticket." in text
        assert "<think>" not in text
    finally:
        envs.close()


def test_without_a_judge_sql_episodes_stay_unscored(tiny_path) -> None:
    envs = AWMVectorEnv(num_envs=1, world_set=tiny_path, worlds=["judge_only"])
    try:
        envs.reset(seed=0, options={"task_idx": 0})
        _, reward, _, _, info = envs.step(["Done."])
        assert info[K.AWAITING_JUDGE][0] and not info[K.REWARD_VALID][0]
        assert K.JUDGE_LABEL not in info
    finally:
        envs.close()


def test_rubrics_combine_code_verifier_judge_and_format(server, tiny_path) -> None:
    rubric = Sequential(Gate(CodeVerifierRubric()),
                        WeightedSum([JudgeRubric(), AnswerFormatRubric(pattern="Budget review")],
                                    [0.5, 0.5]), name="reward")
    envs = AWMVectorEnv(num_envs=3, world_set=tiny_path, worlds=["notes_app"],
                        judge=judge_config(server), rubric=rubric)
    try:
        envs.reset(seed=0, options={"task_idx": 0})
        envs.step([SEARCH, SEARCH, SEARCH])
        _, reward, _, _, info = envs.step(["It is 'Budget review'.", "No idea.",
                                           "It is 'Budget review'. JUDGE DOWN"])
        parts = info[K.REWARD_COMPONENTS]
        assert reward[0] == pytest.approx(0.55) and info[K.REWARD_VALID][0]
        assert parts[0] == {"reward": pytest.approx(0.55), "reward.gate": 1.0,
                            "reward.gate.code": 1.0, "reward.weighted_sum": pytest.approx(0.55),
                            "reward.weighted_sum.judge": 0.1,
                            "reward.weighted_sum.format": 1.0}
        # the code verifier says others: the gate stops it at 0.0 whatever the judge says
        assert reward[1] == 0.0 and info[K.REWARD_VALID][1]
        assert "reward.weighted_sum" not in parts[1]
        # the judge failed (500s): unscored, never a silent 0.0 that looks like a grade
        assert not info[K.REWARD_VALID][2] and info[K.JUDGE_ERROR][2].startswith("provider")
        assert parts[2]["reward"] is None
        assert np.isfinite(reward).all()
    finally:
        envs.close()
