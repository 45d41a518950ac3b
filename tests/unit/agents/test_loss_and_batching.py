"""agents/grpo/batching.py and loss.py: the loss mask, packing, the clipped surrogate, KL."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from agents.grpo.batching import TrainSample, collate, pack_micro_batches  # noqa: E402
from agents.grpo.loss import ppo_clip_loss  # noqa: E402


def test_loss_mask_covers_exactly_the_sampled_tokens():
    samples = [TrainSample((10, 11, 12), (20, 21), 1.0, (-0.5, -0.6)),
               TrainSample((10,), (30, 31, 32), -1.0, (-0.1, -0.2, -0.3))]
    b = collate(samples, pad_id=0)
    for row, s in enumerate(samples):
        targets = b.targets[row][b.loss_mask[row]].tolist()
        assert targets == list(s.completion_ids)  # every sampled id, nothing else
        assert b.sampler_logprobs[row][b.loss_mask[row]].tolist() == \
            pytest.approx(list(s.sampler_logprobs))
    assert int(b.loss_mask.sum()) == 5


@pytest.mark.parametrize("budget", [1, 7, 12, 100])
def test_packing_respects_the_budget_and_keeps_every_sample(budget):
    samples = [TrainSample(tuple(range(n)), (1,), 0.0, ()) for n in (3, 6, 2, 5, 4, 1)]
    for sort in (False, True):
        batches = pack_micro_batches(samples, budget, sort_by_length=sort)
        assert sorted(k for b in batches for k in b) == list(range(len(samples)))
        for b in batches:
            width = max(samples[k].length for k in b)
            assert len(b) == 1 or len(b) * width <= budget


def test_ratio_one_gives_the_policy_gradient():
    logp = torch.log(torch.tensor([[0.2, 0.5, 0.9]])).requires_grad_()
    mask = torch.tensor([[True, True, False]])
    terms = ppo_clip_loss(logp, logp.detach(), torch.tensor([2.0]), mask, 0.2, 0.28)
    terms.token_loss.sum().backward()
    assert logp.grad.tolist() == [[-2.0, -2.0, 0.0]]  # d(-A * ratio)/d logp = -A, masked
    assert terms.clip_low == terms.clip_high == 0 and terms.approx_kl == pytest.approx(0.0)


@pytest.mark.parametrize("adv, shift, clipped, side", [
    (1.0, 0.5, True, "high"),    # ratio e^0.5 > 1.28 with A > 0: clipped, no gradient
    (1.0, 0.1, False, "high"),   # ratio 1.105 inside the range
    (-1.0, -0.5, True, "low"),   # ratio e^-0.5 < 0.8 with A < 0: clipped
    (-1.0, 0.5, False, "low"),   # ratio up with A < 0: the unclipped term binds
])
def test_separate_low_and_high_clip(adv, shift, clipped, side):
    old = torch.tensor([[-1.0]])
    logp = (old + shift).clone().requires_grad_()
    terms = ppo_clip_loss(logp, old, torch.tensor([adv]), torch.tensor([[True]]), 0.2, 0.28)
    terms.token_loss.sum().backward()
    assert (logp.grad.abs().item() == 0.0) == clipped
    counted = terms.clip_high if side == "high" else terms.clip_low
    assert counted == (1.0 if clipped else 0.0)


def test_k3_kl_to_the_reference():
    logp = torch.tensor([[-1.0, -2.0]], requires_grad=True)
    ref = torch.tensor([[-1.5, -2.0]])
    terms = ppo_clip_loss(logp, logp.detach(), torch.tensor([0.0]), torch.tensor([[True, True]]),
                          0.2, 0.28, ref_logp=ref, kl_coef=0.5)
    d = -0.5
    expected = (torch.exp(torch.tensor(d)) - d - 1).item()
    assert terms.kl_ref == pytest.approx(expected)
    assert terms.token_loss.sum().item() == pytest.approx(0.5 * expected)
    with pytest.raises(ValueError, match="ref_logp"):
        ppo_clip_loss(logp, logp.detach(), torch.tensor([0.0]), torch.tensor([[True, True]]),
                      0.2, 0.28, kl_coef=0.1)
