"""How long past its timeout a call that never answers holds the caller (see docs/benchmarks/parsing-and-timeouts.md).

The default suite checks that these calls end at their timeout without a clock (a tool that
sleeps an hour, a judge reply an hour away: the call returns, labelled a timeout); the time they
take is measured here. Group ``timeouts``:

* ``tool_sleepy``: one vector step of 2 ``defect_lab`` instances (fixture world), one calling
  ``sleepy`` (``time.sleep(3600)``), the other a normal read, with ``tool_timeout_s=1``
  (in-process, ``isolation="none"``);
* ``judge_silent``: ``LLMJudge.judge`` on one request to a scripted server on loopback whose
  reply is an hour away, with ``timeout_s=1``.

``extra_info["overshoot_s"]`` is the median round time minus the timeout. Every round is checked:
the silent call labelled a timeout, the tool step's other instance answered.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from bench_support import TINY_WORLDS, Recorded, tool_action

from awm_gym.envs.vector_env import AWMVectorEnv
from awm_gym.scoring.judge import JudgeConfig, JudgeRequest, LLMJudge

FIXTURES_SYNTH = os.path.join(os.path.dirname(TINY_WORLDS), "..", "synth")
if FIXTURES_SYNTH not in sys.path:
    sys.path.insert(0, FIXTURES_SYNTH)

from scripted_llm import Reply, ScriptedLLM  # noqa: E402

TIMEOUT_S = 1.0
ROUNDS = 3


def _overshoot(benchmark: Any) -> None:
    if benchmark.stats is not None:  # None under --benchmark-disable (the smoke run)
        benchmark.extra_info["overshoot_s"] = round(benchmark.stats.stats.median - TIMEOUT_S, 4)


@pytest.fixture(scope="module")
def defect_envs() -> Iterator[AWMVectorEnv]:
    envs = AWMVectorEnv(isolation="none", num_envs=2, world_set=TINY_WORLDS,
                        worlds=["defect_lab"], tool_timeout_s=TIMEOUT_S,
                        max_episode_steps=10**9)
    envs.reset(seed=0, options={"task_idx": 0})
    yield envs
    envs.close()


@pytest.mark.benchmark(group="timeouts")
def test_timeout_tool_sleepy(benchmark: Any, defect_envs: AWMVectorEnv) -> None:
    actions = [tool_action("sleepy", {}), tool_action("sync_stats", {})]
    step = Recorded(defect_envs.step)
    benchmark.extra_info.update(calls=1, timeout_s=TIMEOUT_S)
    benchmark.pedantic(step, args=(actions,), rounds=ROUNDS, iterations=1)
    _overshoot(benchmark)
    assert step.results, "no round recorded"
    for obs, _, _, _, info in step.results:
        assert info["tool_outcome"].tolist() == ["timeout", "ok"]
        assert json.loads(obs[1]) == {"item_count": 3, "thing_count": 2}


@pytest.mark.benchmark(group="timeouts")
def test_timeout_judge_silent(benchmark: Any) -> None:
    server = ScriptedLLM().start()
    verdict = json.dumps({"reasoning": "done", "classification": "complete"})
    server.script_text("task silent", Reply(verdict, delay_s=3600.0))
    judge = LLMJudge(JudgeConfig(base_url=server.base_url, model="judge", timeout_s=TIMEOUT_S,
                                 max_retries=0))
    requests = [JudgeRequest("task silent", (), "done", {})]
    run = Recorded(judge.judge)
    benchmark.extra_info.update(calls=1, timeout_s=TIMEOUT_S)
    try:
        benchmark.pedantic(run, args=(requests,), rounds=ROUNDS, iterations=1)
    finally:
        judge.close()
        server.stop()
    _overshoot(benchmark)
    assert run.results, "no round recorded"
    for (silent,) in run.results:
        assert (silent.label, silent.error_kind) == ("judge_error", "timeout"), silent
