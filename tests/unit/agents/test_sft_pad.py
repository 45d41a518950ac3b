"""agents/chat_format.py pad_token_id: SFT, GRPO and the sampler pad with one id, EOS when the
tokenizer has no pad token (Llama's and many chat tokenizers ship none)."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest

from agents.chat_format import ChatFormatConfig
from agents.errors import AgentConfigError


def _without_pad(tokenizer):
    tok = copy.deepcopy(tokenizer)
    tok.pad_token = None
    assert tok.pad_token_id is None and tok.eos_token_id is not None
    return tok


def test_sft_pad_falls_back_to_eos_and_refuses_a_tokenizer_without_either(tiny_tokenizer):
    from agents.chat_format import pad_token_id

    assert pad_token_id(tiny_tokenizer) == tiny_tokenizer.pad_token_id
    tok = _without_pad(tiny_tokenizer)
    assert pad_token_id(tok) == tok.eos_token_id
    tok.eos_token = None
    with pytest.raises(AgentConfigError, match=re.escape(type(tok).__name__)) as err:
        pad_token_id(tok)
    assert "neither a pad token nor an EOS token" in str(err.value)
    assert "tokenizer.eos_token" in str(err.value)  # the fix


def test_sft_pad_warm_start_of_a_model_whose_tokenizer_has_no_pad_token(tiny_model_dir,
                                                                        tiny_tokenizer,
                                                                        tmp_path: Path):
    """The pipeline's SFT (prepare_start_model, as ``awm train`` runs it) on a saved model whose
    tokenizer has no pad token: it pads with EOS instead of failing in collate."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from agents.config import ModelConfig, RunConfig, TrainConfig
    from agents.grpo.config import RolloutConfig
    from agents.pipeline import make_envs, prepare_start_model
    from agents.sft import SFTConfig

    model_dir = tmp_path / "no_pad"
    AutoModelForCausalLM.from_pretrained(tiny_model_dir).save_pretrained(model_dir)
    _without_pad(tiny_tokenizer).save_pretrained(model_dir)
    assert AutoTokenizer.from_pretrained(model_dir).pad_token_id is None
    cfg = TrainConfig(run=RunConfig(seed=0), model=ModelConfig(path=str(model_dir)),
                      chat=ChatFormatConfig(history_turns=1, catalogue="none",
                                            max_observation_chars=64),
                      rollout=RolloutConfig(worlds=("spotify",), env_id="AWM/mix-v0",
                                            max_turns=4),
                      sft=SFTConfig(epochs=1, batch_size=8, max_examples_per_episode=1))
    envs = make_envs(cfg.rollout, 1)
    losses: list[float] = []
    try:
        out = prepare_start_model(cfg, tmp_path / "run", envs, sink=_LossSink(losses))
    finally:
        envs.close()
    assert Path(out, "warm_start.json").exists() and len(losses) == 1
    assert losses[0] > 0  # one real epoch ran, padded with EOS
    # the warm-started tokenizer is saved as given: still no pad token, GRPO falls back the same
    assert AutoTokenizer.from_pretrained(out).pad_token_id is None


class _LossSink:
    def __init__(self, losses: list[float]) -> None:
        self.losses = losses

    def log(self, metrics, step) -> None:  # noqa: ANN001
        self.losses.append(metrics["sft/loss"])

    def close(self) -> None:
        pass
