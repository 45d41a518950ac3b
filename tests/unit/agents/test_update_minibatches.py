"""agents/grpo/update.py with several optimizer steps per GRPO step: each trajectory whole in one
mini-batch (so ``seq_mean_token_mean`` gives it one share), and a first mini-batch whose ratio is
exactly 1 in bfloat16 (its "old" log-probabilities are its own); ``batch`` advantages divide by
the standard deviation of the whole batch's rewards when a rank holds part of it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from agents.grpo import update  # noqa: E402
from agents.grpo.advantages import compute_advantages  # noqa: E402
from agents.grpo.batching import TrainSample  # noqa: E402
from agents.grpo.config import GRPOConfig, OptimConfig  # noqa: E402
from agents.grpo.update import grpo_update, minibatch_indices  # noqa: E402
sys.path.insert(0, str(Path(__file__).parent))
from test_update import T, _model, _samples  # noqa: E402 - the same small models


def test_trajectory_minibatch_keeps_each_trajectory_whole():
    samples = [TrainSample((1,), (2,), 1.0, (), t) for t in (0, 0, 0, 1, 1, 2, 3, 3)]
    parts = minibatch_indices(samples, 2)
    owners = [{samples[k].trajectory for k in part} for part in parts]
    assert not owners[0] & owners[1]
    assert sorted(k for part in parts for k in part) == list(range(len(samples)))


def test_trajectory_minibatch_each_trajectory_gets_one_share(monkeypatch):
    """seq_mean_token_mean with two optimizer steps: a trajectory's turns all sit in one
    mini-batch, so its tokens get one share (a trajectory cut across two mini-batches was
    counted whole in each: up to two shares)."""
    sizes = (2, 3, 1)  # six turn samples: an even split by sample cuts trajectory 1
    samples = [TrainSample((1, 2, 3), (4, 5), 1.0 - t, (0.0, 0.0), t)
               for t, n in enumerate(sizes) for _ in range(n)]
    holders: dict[int, int] = {}
    shares: dict[int, float] = {}
    seen = update.sample_weights

    def spy(mb, norm, constant=None, is_distributed=False):
        weights, tokens = seen(mb, norm, constant, is_distributed)
        for t in {s.trajectory for s in mb}:
            holders[t] = holders.get(t, 0) + 1
        for s, w in zip(mb, weights, strict=True):
            shares[s.trajectory] = shares.get(s.trajectory, 0.0) + w * len(s.completion_ids)
        return weights, tokens

    monkeypatch.setattr(update, "sample_weights", spy)
    model = _model()
    grpo_update(model, torch.optim.SGD(model.parameters(), lr=0.0), samples,
                GRPOConfig(loss_norm="seq_mean_token_mean"),
                OptimConfig(optimizer_steps_per_step=2), T, 0)
    assert holders == {0: 1, 1: 1, 2: 1}  # each trajectory in exactly one mini-batch
    assert shares == pytest.approx({0: 0.5, 1: 0.5, 2: 1.0})  # 1 / its mini-batch's count


def _bf16_model():
    torch.manual_seed(0)
    cfg = transformers.LlamaConfig(vocab_size=256, hidden_size=64, intermediate_size=128,
                                   num_hidden_layers=2, num_attention_heads=4,
                                   num_key_value_heads=2, max_position_embeddings=256)
    return transformers.AutoModelForCausalLM.from_config(cfg).float()


def test_first_ratio_is_exactly_one_in_bfloat16():
    """lr=0 and a clip range of 1e-6 around 1: the clip binds on any ratio that is not exactly
    1. The first mini-batch's old log-probabilities are its own (detached), the second's were
    packed as its update packs it: no token is clipped in bf16. (Old log-probabilities packed
    over the whole step clipped 4.5% of the tokens here: padding changes bf16 numerics.)"""
    g = torch.Generator().manual_seed(1)
    samples = []
    for k in range(16):
        prompt = torch.randint(1, 256, (5 + (17 * k) % 60,), generator=g).tolist()
        completion = torch.randint(1, 256, (1 + (7 * k) % 20,), generator=g).tolist()
        samples.append(TrainSample(tuple(prompt), tuple(completion),
                                   float(torch.randn((), generator=g)),
                                   (0.0,) * len(completion), k))
    model = _bf16_model()
    stats = grpo_update(model, torch.optim.SGD(model.parameters(), lr=0.0), samples,
                        GRPOConfig(clip_low=1e-6, clip_high=1e-6),
                        OptimConfig(optimizer_steps_per_step=2, micro_batch_tokens=200), T, 0,
                        dtype="bfloat16")
    assert stats["loss/optimizer_steps"] == 2
    assert stats["loss/clip_frac_low"] == 0.0 and stats["loss/clip_frac_high"] == 0.0
    assert stats["loss/approx_kl"] == 0.0


def test_global_advantage_batch_std_is_the_whole_batch():
    """A rank holding half the groups divides by the std of every rank's rewards (gathered by
    the trainer), so its advantages are the one-process ones."""
    rewards = [1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0]
    groups = [0, 0, 1, 1, 2, 2, 3, 3]
    whole = compute_advantages(rewards, groups, [True] * 8, "batch")
    mine = [k for k, g in enumerate(groups) if g % 2 == 0]
    local = compute_advantages([rewards[k] for k in mine], [groups[k] for k in mine],
                               [True] * len(mine), "batch", batch_rewards=rewards)
    assert local.values.tolist() == pytest.approx([whole.values[k] for k in mine])
