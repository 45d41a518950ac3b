"""Peak memory at a 152k vocabulary (issue 34): one HF sampling call and one GRPO micro-batch
loss + backward, the code before issue 34 (kept here as the reference row) against today's.

The model is a random-initialised Llama with Qwen2.5's vocabulary (151,936 ids) and a width of
64, so on a CPU the (tokens, vocabulary) tensors are nearly all the memory there is:

* group ``memory-sampler``: ``HFBackend.generate`` of 8 prompts (left-padded, 24-31 tokens) to
  128 new tokens at temperature 0.7; *before* asked generate for ``output_scores`` and stacked
  them into a (B, T_new, V) float32 tensor;
* group ``memory-loss``: ``token_logprobs(..., with_entropy=True)`` (as the trainer calls it)
  then ``ppo_clip_loss`` and backward on 4 samples of 128 prompt and 512 completion tokens
  (N = 2,048 loss tokens); *before* made the (N, V) float32 copy, its log_softmax and its exp.

``extra_info["peak_mb"]`` is the most tensor memory alive at once during the call, counted by a
dispatch mode (torch keeps no CPU allocator statistics; the same counter as
``tests/unit/agents/test_memory_large_vocab.py``), excluding what existed before (the weights);
``extra_info["largest_mb"]`` the largest single tensor. The timed round runs without the
counter. Each case checks the other side's results when both ran: the same tokens and
log-probabilities, the same loss and gradient.
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytest.importorskip("pytest_benchmark")

# the old code (before issue 34) and the memory counter, as the unit tests keep them
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "unit" / "agents"))
from test_hf_sampler import _reference_generate_batch  # noqa: E402
from test_loss_and_batching import _reference_token_logprobs  # noqa: E402
from test_memory_large_vocab import LiveTensorBytes  # noqa: E402

from agents.grpo.batching import TrainSample, collate  # noqa: E402
from agents.grpo.loss import ppo_clip_loss, token_logprobs  # noqa: E402
from agents.policies.hf_policy import HFBackend  # noqa: E402
from agents.policies.sampling import Generation, SamplingConfig  # noqa: E402

VOCAB = 151_936
"""Qwen2.5's vocabulary."""
PROMPTS, NEW_TOKENS, T = 8, 128, 0.7
SAMPLES, PROMPT_TOKENS, COMPLETION_TOKENS = 4, 128, 512
MB = 1e6
_RESULTS: dict[tuple[str, str], Any] = {}


@pytest.fixture(scope="module")
def model() -> Any:
    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        vocab_size=VOCAB, hidden_size=64, intermediate_size=128, num_hidden_layers=1,
        num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=1024,
        bos_token_id=None, eos_token_id=None, pad_token_id=0)
    return transformers.LlamaForCausalLM(config).float()


def _measure(benchmark: Any, fn: Any, key: tuple[str, str]) -> Any:
    with LiveTensorBytes() as memory:
        result = fn()
    benchmark.extra_info.update(calls=1, peak_mb=round(memory.peak / MB, 1),
                                largest_mb=round(memory.largest / MB, 1))
    benchmark.pedantic(fn, rounds=1, iterations=1)
    _RESULTS[key] = result
    print(f"\n| {key[0]} | {key[1]} | {memory.peak / MB:,.0f} MB | {memory.largest / MB:,.0f} MB |")
    return result


# ---- the sampler --------------------------------------------------------------------------

@pytest.mark.parametrize("code", ["before", "after"])
def test_sampler_memory(benchmark, model, code):
    benchmark.group = "memory-sampler"
    # HFBackend reads the tokenizer's pad and EOS ids only; the last id never ends a turn here
    tokenizer = SimpleNamespace(pad_token_id=0, eos_token_id=VOCAB - 1)
    s = SamplingConfig(temperature=T, max_new_tokens=NEW_TOKENS)
    backend = HFBackend(model, tokenizer, s, batch_size=PROMPTS)
    prompts = [list(range(1, 25 + row)) for row in range(PROMPTS)]

    def run() -> list[Generation]:
        torch.manual_seed(0)
        if code == "before":
            return _reference_generate_batch(backend, prompts, s)
        return backend.generate([[]] * PROMPTS, prompts, seed=0)

    gens = _measure(benchmark, run, ("sampler", code))
    assert all(len(g.completion_ids) == NEW_TOKENS for g in gens)
    other = _RESULTS.get(("sampler", "before" if code == "after" else "after"))
    if other is not None:
        for got, want in zip(gens, other, strict=True):
            assert got.completion_ids == want.completion_ids
            assert got.logprobs == pytest.approx(want.logprobs, abs=1e-5)


# ---- the loss -----------------------------------------------------------------------------

@pytest.mark.parametrize("code", ["before", "after"])
def test_loss_memory(benchmark, model, code):
    benchmark.group = "memory-loss"
    g = torch.Generator().manual_seed(1)
    samples = [TrainSample(tuple(torch.randint(1, VOCAB, (PROMPT_TOKENS,), generator=g).tolist()),
                           tuple(torch.randint(1, VOCAB, (COMPLETION_TOKENS,),
                                               generator=g).tolist()),
                           float(k % 2) - 0.5, ()) for k in range(SAMPLES)]
    batch = collate(samples, pad_id=0)
    advantages = torch.tensor([s.advantage for s in samples])
    logprobs = _reference_token_logprobs if code == "before" else token_logprobs
    n_tokens = int(batch.loss_mask.sum())

    def run() -> tuple[float, float, Any]:
        model.zero_grad(set_to_none=True)
        logp, entropy = logprobs(model, batch, T, with_entropy=True)
        terms = ppo_clip_loss(logp, logp.detach() + 0.1, advantages, batch.loss_mask, 0.2, 0.28)
        loss = terms.token_loss.sum() / n_tokens
        loss.backward()
        grad = model.lm_head.weight.grad
        return float(loss.detach()), float(entropy.sum()), grad[:64].clone()

    loss, entropy, grad = _measure(benchmark, run, ("loss", code))
    other = _RESULTS.get(("loss", "before" if code == "after" else "after"))
    if other is not None:
        assert loss == pytest.approx(other[0], rel=1e-5)
        assert entropy == pytest.approx(other[1], rel=1e-5)
        torch.testing.assert_close(grad, other[2], atol=1e-7, rtol=1e-4)
