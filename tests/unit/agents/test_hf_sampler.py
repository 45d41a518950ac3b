"""agents/policies/hf_policy.py and chat_format.py: the transformers sampler draws from the
distribution it reports (nothing inherited from the model's generation config), and every EOS
id the sampler stops on is stripped from the action."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from agents.chat_format import ChatRenderer  # noqa: E402
from agents.grpo.batching import TrainSample, collate  # noqa: E402
from agents.grpo.loss import token_logprobs  # noqa: E402
from agents.policies.hf_policy import HFBackend, HFPolicy, load_model_and_tokenizer  # noqa: E402
from agents.policies.sampling import SamplingConfig  # noqa: E402

T = 0.7
MESSAGES = [[{"role": "user", "content": text}]
            for text in ("Like a song.", "List my playlists, please", "hi")]


def test_sampling_draws_from_the_reported_distribution_whatever_the_model_config(
        tiny_model_dir, monkeypatch):
    model, tok = load_model_and_tokenizer(str(tiny_model_dir), "cpu")
    own = model.generation_config  # a checkpoint's defaults that would bend the distribution
    own.repetition_penalty, own.top_k, own.top_p, own.no_repeat_ngram_size = 3.0, 2, 0.3, 1
    backend = HFBackend(model, tok, SamplingConfig(temperature=T, max_new_tokens=12))
    prompts = [ChatRenderer(tok).prompt_ids(m) for m in MESSAGES]
    drawn: list[torch.Tensor] = []
    multinomial = torch.multinomial

    def spy(probs, *args, **kwargs):  # the distribution generate actually samples from
        drawn.append(probs.detach().clone())
        return multinomial(probs, *args, **kwargs)

    monkeypatch.setattr(torch, "multinomial", spy)
    gens = backend.generate(MESSAGES, prompts, seed=0)
    monkeypatch.undo()
    assert sum(len(g.completion_ids) for g in gens) >= 6
    for row, g in enumerate(gens):
        actual = [float(torch.log(drawn[t][row, tok_id]))
                  for t, tok_id in enumerate(g.completion_ids)]
        assert g.logprobs == pytest.approx(actual, abs=1e-4)
    # ... which is the trainer's softmax(logits / T)
    samples = [TrainSample(g.prompt_ids, g.completion_ids, 1.0, g.logprobs) for g in gens]
    batch = collate(samples, tok.pad_token_id)
    logp, _ = token_logprobs(model, batch, T)
    mask = batch.loss_mask
    torch.testing.assert_close(logp[mask].detach(), batch.sampler_logprobs[mask], atol=2e-4,
                               rtol=0)
    assert model.generation_config is own and own.top_k == 2  # the model's config is untouched


def test_every_eos_id_is_stripped_from_the_action(tiny_model_dir):
    model, tok = load_model_and_tokenizer(str(tiny_model_dir), "cpu")
    greedy = SamplingConfig(temperature=0.0, max_new_tokens=4)
    first = HFPolicy(model, tok, sampling=greedy).sample(MESSAGES[:1])[0].completion_ids[0]
    assert first != tok.eos_token_id and tok.decode([first]) != ""
    # a model whose generation config ends turns on a second id: its greedy first token
    model.generation_config.eos_token_id = [tok.eos_token_id, first]
    gen = HFPolicy(model, tok, sampling=greedy).sample(MESSAGES[:1])[0]
    assert gen.completion_ids == (first,) and gen.finish_reason == "stop"
    assert gen.text == ""  # the action (and so the history) holds no end token
