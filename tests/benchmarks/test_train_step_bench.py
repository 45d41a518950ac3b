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


@pytest.mark.parametrize("backend", ["hf", "vllm"])
def test_both_sides_from_one_saved_adapter(tmp_path, backend):
    """``--adapter`` with ``--trl-format ours`` (issue 40, item 4): both sides load one saved
    LoRA adapter and train it on, TRL's in our chat format; ours samples with ``backend``."""
    if backend == "vllm":
        pytest.importorskip("vllm")
    from agents.lora import LoRAConfig, apply_lora
    from agents.policies.hf_policy import load_model_and_tokenizer
    from agents.tiny_model import TinyModelConfig, build_tiny_model

    model_dir = build_tiny_model(tmp_path / "tiny", TinyModelConfig(seed=0))
    model, _ = load_model_and_tokenizer(str(model_dir), "cpu")
    apply_lora(model, LoRAConfig(r=4)).save_pretrained(tmp_path / "adapter")
    result = train_step_probe.main(["--steps", str(STEPS), "--model-path", str(model_dir),
                                    "--adapter", str(tmp_path / "adapter"), "--lora-r", "4",
                                    "--trl-format", "ours", "--catalogue", "names",
                                    "--history-turns", "1", "--ours-backend", backend,
                                    "--sides", "ours", "trl"])
    assert set(result["sides"]) == {"ours", "trl"}
    for side, r in result["sides"].items():
        assert r["warm_start_s"] < 1.0, side  # no warm start: the adapter is the start
        assert len(r["steps"]) == STEPS and r["steps"][0]["env_s"] > 0, side
