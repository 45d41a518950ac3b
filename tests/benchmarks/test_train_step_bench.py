"""Whole GRPO steps, ours against TRL's ``GRPOTrainer`` (``train_step_probe.py``; on demand).

A smoke run: one step a side with a short warm start, checking that each side ran its steps and
reported every part of the table. The numbers in docs/benchmarks/training-steps.md come from the
probe itself (``python tests/benchmarks/train_step_probe.py --steps N``); this test asserts no
timing.
"""

from __future__ import annotations

import math

import pytest

pytest.importorskip("torch")
pytest.importorskip("trl")

import train_step_probe  # noqa: E402 - conftest puts this folder on sys.path

STEPS = 1


def test_train_step_side_by_side(tmp_path):
    out = tmp_path / "train_step.json"
    result = train_step_probe.main(["--steps", str(STEPS), "--warm-start-steps", "4",
                                    "--sides", "ours", "ours-pipelined", "trl",
                                    "--out", str(out)])
    assert out.exists()
    assert set(result["sides"]) == {"ours", "ours-pipelined", "trl"}
    for side, r in result["sides"].items():
        assert len(r["steps"]) == STEPS, side
        assert r["peak_rss_mb"] > 0
        for row in r["steps"]:
            assert row["step_s"] > 0 and row["generate_s"] > 0 and row["train_s"] > 0, side
            assert row["env_s"] > 0, side  # every side reset and scored its episodes
            assert 0.0 <= row["success"] <= 1.0 and not math.isnan(row["episodes_per_s"])
    assert "| trl |" in result["table"]
