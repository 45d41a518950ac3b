"""agents/sft.py: one log line per epoch, whoever prints it."""

from __future__ import annotations

import logging

import pytest

from agents.grpo.batching import TrainSample
from agents.sft import SFTConfig, run_sft


def test_each_sft_epoch_is_logged_once(tiny_model_dir, caplog):
    from agents.policies.hf_policy import load_model_and_tokenizer

    model, tok = load_model_and_tokenizer(str(tiny_model_dir), "cpu")
    examples = [TrainSample((1, 2, 3), (4, 5), 0.0, ()), TrainSample((1, 6), (7, 8, 9), 0.0, ())]
    cfg = SFTConfig(epochs=2, batch_size=2)
    seen: list[int] = []
    with caplog.at_level(logging.INFO, logger="agents.sft"):
        run_sft(model, examples, cfg, tok.pad_token_id, on_epoch=lambda e, m: seen.append(e))
    assert seen == [0, 1] and not [r for r in caplog.records if "sft epoch" in r.message]
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="agents.sft"):
        metrics = run_sft(model, examples, cfg, tok.pad_token_id)
    assert len([r for r in caplog.records if "sft epoch" in r.message]) == 2
    assert metrics["sft/epoch"] == pytest.approx(2.0)
