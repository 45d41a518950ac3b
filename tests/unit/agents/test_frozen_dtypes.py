"""agents/stages (warm_start, training) and agents/lora.py: what a bfloat16 LoRA run keeps in
float32 (the adapters, the optimizer's master weights) and what it does not (the frozen base,
the frozen KL reference model); a float32 run is left as it was.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("peft")

import gymnasium as gym  # noqa: E402

import awm_gym  # noqa: E402,F401 - registers the built-in worlds
from agents.config import ModelConfig, RunConfig, TrainConfig  # noqa: E402
from agents.grpo.config import GRPOConfig, RolloutConfig  # noqa: E402
from agents.lora import LoRAConfig  # noqa: E402
from agents.parallel import DistInfo  # noqa: E402
from agents.policies.hf_policy import HFPolicy  # noqa: E402
from agents.stages.training import make_trainer, prepare_for_training  # noqa: E402
from agents.stages.warm_start import load_start_model  # noqa: E402


def _config(tmp_path: Path, dtype: str) -> TrainConfig:
    return TrainConfig(run=RunConfig(out_dir=str(tmp_path), device="cpu"),
                       model=ModelConfig(dtype=dtype, lora=LoRAConfig(r=4, alpha=8)),
                       rollout=RolloutConfig(env_id="AWM/spotify-v0", groups_per_step=1,
                                             group_size=2, max_turns=2),
                       grpo=GRPOConfig(kl_coef=0.05))


def _trainer(cfg: TrainConfig, model_dir: Path):
    """The GRPO model and trainer as ``awm train`` builds them, resuming from ``model_dir``."""
    model, tok, start = load_start_model(cfg, Path(cfg.run.out_dir), None, None, {}, DistInfo(),
                                         model_dir)
    model = prepare_for_training(model, cfg.model)
    envs = gym.make_vec("AWM/spotify-v0", num_envs=cfg.rollout.episodes_per_step,
                        max_episode_steps=2)
    policy = HFPolicy(model, tok, cfg.chat, cfg.sampling, dtype=cfg.model.dtype)
    return model, make_trainer(cfg, DistInfo(), None, model, tok, envs, policy, start), envs


@pytest.mark.parametrize("dtype", ["bfloat16", "float32"])
def test_frozen_bf16_lora_base_and_reference_model(tiny_model_dir, tmp_path, dtype):
    cfg = _config(tmp_path, dtype)
    model, trainer, envs = _trainer(cfg, tiny_model_dir)
    try:
        frozen = {p.dtype for p in model.parameters() if not p.requires_grad}
        trainable = {p.dtype for p in model.parameters() if p.requires_grad}
        assert frozen == {getattr(torch, dtype)}  # bfloat16 run: no float32 copy of the base
        assert trainable == {torch.float32}  # the adapters: the optimizer's master weights
        assert {p.dtype for g in trainer.optimizer.param_groups for p in g["params"]} == {
            torch.float32}
        assert {p.dtype for p in trainer.ref_model.parameters()} == {getattr(torch, dtype)}
    finally:
        envs.close()


def test_frozen_bf16_a_full_fine_tune_keeps_float32_master_weights(tiny_model_dir, tmp_path):
    cfg = dataclasses.replace(_config(tmp_path, "bfloat16"), model=ModelConfig(dtype="bfloat16"))
    model, tok, _ = load_start_model(cfg, tmp_path, None, None, {}, DistInfo(), tiny_model_dir)
    assert {p.dtype for p in prepare_for_training(model, cfg.model).parameters()} == {
        torch.float32}
