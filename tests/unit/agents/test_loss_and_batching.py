"""agents/grpo/batching.py and loss.py: the loss mask, packing, the clipped surrogate, KL, and
the chunked log-probabilities (equal to the full-vocabulary log_softmax they replace)."""

from __future__ import annotations

import re

import pytest

torch = pytest.importorskip("torch")

from agents.grpo.batching import TrainSample, collate, pack_micro_batches  # noqa: E402
from agents.grpo.loss import ppo_clip_loss, selected_logprobs, token_logprobs  # noqa: E402
from agents.precision import autocast  # noqa: E402


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


def _reference_token_logprobs(model, batch, temperature, with_entropy=False):
    """token_logprobs before issue 34, kept as the reference: three (N, V) float32 copies
    (the picked logits, their log_softmax, its exp for the entropy)."""
    from agents.grpo.loss import _takes_logits_to_keep
    from agents.lora import causal_lm

    lm = causal_lm(model)
    mask, input_ids = batch.loss_mask, batch.input_ids
    width = input_ids.shape[1]
    rows = mask.any(dim=0).nonzero()
    first = int(rows[0]) if len(rows) else width - 1
    kwargs = {}
    if _takes_logits_to_keep(type(lm)):
        kwargs["logits_to_keep"] = width - first
    else:
        first = 0
    out = lm(input_ids=input_ids, attention_mask=batch.attention_mask, use_cache=False, **kwargs)
    kept = out.logits[:, :width - 1 - first] if first < width - 1 else out.logits[:, :0]
    logits = kept[mask[:, first:]].float()
    if temperature > 0:
        logits = logits / temperature
    logsm = torch.log_softmax(logits, dim=-1)
    picked = logsm.gather(-1, batch.targets[mask].unsqueeze(-1)).squeeze(-1)
    logp = torch.zeros(mask.shape, dtype=picked.dtype).masked_scatter(mask, picked)
    entropy = None
    if with_entropy:
        with torch.no_grad():
            ent = -(logsm.exp() * logsm).sum(-1)
            entropy = torch.zeros(mask.shape, dtype=ent.dtype).masked_scatter(mask, ent)
    return logp, entropy


def _logprobs_and_grads(fn, model, batch, temperature, dtype, weights):
    model.zero_grad(set_to_none=True)
    with autocast(dtype, "cpu"):
        logp, entropy = fn(model, batch, temperature, with_entropy=True)
    (logp * weights).sum().backward()
    grads = {name: p.grad.clone() for name, p in model.named_parameters()}
    return logp.detach(), entropy, grads


@pytest.mark.parametrize("temperature, chunk_tokens, dtype", [
    (0.7, 1, "float32"), (0.7, 5, "float32"), (1.0, 1024, "float32"),
    (0.0, 3, "float32"),  # greedy: no temperature scaling
    (0.7, 5, "bfloat16"),  # bf16 logits under the run's autocast
])
def test_loss_memory_chunked_logprobs_and_gradients_equal_the_reference(
        tiny_model_dir, temperature, chunk_tokens, dtype):
    from agents.policies.hf_policy import load_model_and_tokenizer

    model, _ = load_model_and_tokenizer(str(tiny_model_dir), "cpu")
    g = torch.Generator().manual_seed(0)
    vocab = model.config.vocab_size
    samples = [TrainSample(tuple(torch.randint(1, vocab, (3 + 4 * k,), generator=g).tolist()),
                           tuple(torch.randint(1, vocab, (9 - 2 * k,), generator=g).tolist()),
                           1.0, ()) for k in range(4)]
    batch = collate(samples, pad_id=0)  # ragged prompts and completions: padding both sides
    weights = torch.randn(batch.loss_mask.shape, generator=g)

    def chunked(model, batch, temperature, with_entropy):
        return token_logprobs(model, batch, temperature, with_entropy, chunk_tokens=chunk_tokens)

    logp, entropy, grads = _logprobs_and_grads(chunked, model, batch, temperature, dtype,
                                               weights)
    ref_logp, ref_entropy, ref_grads = _logprobs_and_grads(
        _reference_token_logprobs, model, batch, temperature, dtype, weights)
    assert logp.dtype == ref_logp.dtype == torch.float32 and not entropy.requires_grad
    # bitwise: each chunk runs the kernels autograd ran on the whole block, row by row, so a
    # run's numbers (the main job's line) do not move with the chunking
    assert torch.equal(logp, ref_logp) and torch.equal(entropy, ref_entropy)
    for name, grad in grads.items():
        assert torch.equal(grad, ref_grads[name]), name


def test_loss_memory_selected_logprobs_gradcheck_and_chunk_check():
    logits = torch.randn(2, 3, 7, dtype=torch.float64, requires_grad=True)
    sample, column = torch.tensor([0, 0, 1, 1]), torch.tensor([0, 2, 1, 2])
    targets = torch.tensor([6, 0, 3, 3])
    for chunk in (1, 3, 4):
        assert torch.autograd.gradcheck(
            lambda x: selected_logprobs(x, sample, column, targets, 0.7, chunk)[0], (logits,))
    with pytest.raises(ValueError, match=re.escape("chunk_tokens=0")):
        selected_logprobs(logits, sample, column, targets, 0.7, chunk_tokens=0)
