"""agents/grpo/metrics.py: JSONL and console sinks, rollout statistics, the plot."""

from __future__ import annotations

import io
import json

import pytest

from agents.grpo import metrics as M
from agents.grpo.rollout import EpisodeSpec, Trajectory, TurnSample
from agents.policies.sampling import Generation


def _traj(reward: float, success: bool, turns: int, truncation: str | None = None,
          finish: str = "stop") -> Trajectory:
    ts = tuple(TurnSample(Generation((1,) * 10, (2, 3), (-1.0, -1.0), finish, "a"), "a", "o", 0.0)
               for _ in range(turns))
    return Trajectory(EpisodeSpec("w", 0, 0, 0), "t", ts, reward, True, success,
                      reward == -1.0, truncation)


def test_rollout_metrics():
    m = M.rollout_metrics([_traj(1.0, True, 2), _traj(-1.0, False, 1),
                           _traj(0.0, False, 3, "max_turns", finish="length")])
    assert m[M.REWARD_MEAN] == pytest.approx(0.0)
    assert m[M.SUCCESS_RATE] == pytest.approx(1 / 3)
    assert m[M.FORMAT_ERROR_RATE] == pytest.approx(1 / 3)
    assert m[M.TURNS] == pytest.approx(2.0)
    assert m[M.TOKENS] == pytest.approx(4.0)
    assert m[M.TRUNC_LENGTH] == 3 and m[M.TRUNC_MAX_TURNS] == 1 and m[M.TRUNC_CONTEXT] == 0


def test_jsonl_sink_and_plot(tmp_path):
    sink = M.JSONLSink(tmp_path / "m.jsonl")
    for step in range(1, 4):
        sink.log({M.REWARD_MEAN: step / 4, M.SUCCESS_RATE: step / 5}, step)
    sink.log({M.EVAL_SUCCESS: 0.5, "x": float("nan")}, 3)
    sink.close()
    rows = M.read_jsonl(tmp_path / "m.jsonl")
    assert [r["step"] for r in rows] == [1, 2, 3, 3] and rows[-1]["x"] is None
    json.dumps(rows)  # strict JSON: no NaN
    png = M.plot_metrics(tmp_path / "m.jsonl", tmp_path / "r.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_console_line_for_sft_and_grpo():
    out = io.StringIO()
    sink = M.ConsoleSink(out, total_steps=5)
    sink.log({"sft/loss": 1.25, "sft/epoch": 2.0, "sft/epoch_s": 0.5}, -1)
    sink.log({M.REWARD_MEAN: 0.5, M.SUCCESS_RATE: 0.5, M.FRAC_ZERO_STD: 0.25}, 2)
    assert out.getvalue().splitlines() == ["sft epoch 2 | loss 1.2500 | 0.5 s",
                                           "step 2/5 | reward 0.500 | success 0.50 | zero-std 0.25"]
