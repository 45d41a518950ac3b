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


def _reference_generate_batch(backend, prompts, s):
    """Today's sampler before issue 34, kept as the reference: generate's output_scores
    stacked into a (B, T_new, V) tensor, then log_softmax and gather."""
    from agents.policies.hf_policy import sampling_generation_config
    from agents.policies.sampling import Generation, trim_at_eos
    from agents.precision import autocast

    width = max(len(p) for p in prompts)
    input_ids = torch.full((len(prompts), width), backend.pad_id, dtype=torch.long)
    attention = torch.zeros((len(prompts), width), dtype=torch.long)
    for row, p in enumerate(prompts):
        input_ids[row, width - len(p):] = torch.tensor(list(p), dtype=torch.long)
        attention[row, width - len(p):] = 1
    config = sampling_generation_config(s, backend.eos_ids, backend.pad_id)
    config.output_scores, config.return_dict_in_generate = True, True
    model = backend.model
    own_config, model.generation_config = model.generation_config, config
    model.eval()
    try:
        with torch.no_grad(), autocast(backend.dtype, "cpu"):
            result = model.generate(input_ids=input_ids, attention_mask=attention,
                                    generation_config=config)
    finally:
        model.generation_config = own_config
    new = result.sequences[:, width:]
    scores = torch.stack(result.scores, dim=1).float()  # (B, T_new, V)
    logp = torch.log_softmax(scores, dim=-1).gather(-1, new.unsqueeze(-1)).squeeze(-1)
    gens = []
    for row, p in enumerate(prompts):
        ids, stopped = trim_at_eos(new[row].tolist(), backend.eos_ids)
        gens.append(Generation(tuple(p), ids, tuple(logp[row, :len(ids)].tolist()),
                               "stop" if stopped else "length", ""))
    return gens


@pytest.mark.parametrize("temperature, top_p, dtype", [
    (0.0, 1.0, "float32"),     # greedy
    (0.7, 1.0, "float32"),     # the GRPO default: softmax(logits / T)
    (1.3, 0.8, "float32"),     # nucleus: the recorder must see the top-p warper's output
    (0.7, 1.0, "bfloat16"),    # under the run's bf16 autocast
])
def test_sampler_memory_logprobs_equal_the_output_scores_reference(tiny_model_dir, temperature,
                                                                    top_p, dtype):
    model, tok = load_model_and_tokenizer(str(tiny_model_dir), "cpu")
    s = SamplingConfig(temperature=temperature, top_p=top_p, max_new_tokens=10)
    prompts = [ChatRenderer(tok).prompt_ids(m) for m in MESSAGES]
    assert len({len(p) for p in prompts}) == len(prompts)  # left padding in every batch
    backend = HFBackend(model, tok, s, dtype=dtype)
    torch.manual_seed(0)
    probe = _reference_generate_batch(backend, prompts, s)
    # end turns on tokens rows 0 and 1 drew early, so rows stop at different steps (EOS, then
    # padding) while another may run to the limit
    backend.eos_ids = [*backend.eos_ids, probe[0].completion_ids[1], probe[1].completion_ids[4]]
    torch.manual_seed(0)
    expected = _reference_generate_batch(backend, prompts, s)
    gens = backend.generate(MESSAGES, prompts, seed=0)
    lengths = [len(g.completion_ids) for g in gens]
    assert len(set(lengths)) > 1 and "stop" in {g.finish_reason for g in gens}, lengths
    for got, want in zip(gens, expected, strict=True):
        assert got.completion_ids == want.completion_ids
        assert got.finish_reason == want.finish_reason
        assert got.logprobs == pytest.approx(want.logprobs, abs=1e-5, rel=1e-6)
