"""agents/grpo/update.py and loss.py on small random models built from a config (no download):
the log-probabilities are the model's own forward's, dropout stays out of the ratio, and each
loss normalisation weighs what it says, whatever the packing."""

from __future__ import annotations

import dataclasses
import math

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from agents.grpo.batching import TrainSample, collate  # noqa: E402
from agents.grpo.config import GRPOConfig, OptimConfig  # noqa: E402
from agents.grpo.loss import token_logprobs  # noqa: E402
from agents.grpo.update import grpo_update, minibatch_indices, sample_weights  # noqa: E402

T = 0.7
SMALL = dict(vocab_size=64, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
             num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=64)


def _model(kind: str = "llama", **extra):
    torch.manual_seed(0)
    cfg = {
        "llama": lambda: transformers.LlamaConfig(**SMALL, **extra),
        # soft-capping at 0.5 and scales far from 1, so a missed post-processing shows
        "gemma2": lambda: transformers.Gemma2Config(**SMALL, head_dim=8, sliding_window=16,
                                                    final_logit_softcapping=0.5, **extra),
        "granite": lambda: transformers.GraniteConfig(**SMALL, logits_scaling=8.0, **extra),
        "cohere": lambda: transformers.CohereConfig(**SMALL, logit_scale=4.0, **extra),
    }[kind]()
    return transformers.AutoModelForCausalLM.from_config(cfg).float()


def _samples(n: int = 8, trajectories: int = 3) -> list[TrainSample]:
    g = torch.Generator().manual_seed(1)
    out = []
    for k in range(n):
        prompt = torch.randint(1, 64, (3 + (5 * k) % 7,), generator=g).tolist()
        completion = torch.randint(1, 64, (1 + (3 * k) % 5,), generator=g).tolist()
        adv = float(torch.randn((), generator=g))
        out.append(TrainSample(tuple(prompt), tuple(completion), adv,
                               (0.0,) * len(completion), k % trajectories))
    return out


@pytest.mark.parametrize("kind", ["gemma2", "granite", "cohere", "llama"])
def test_trainer_logprobs_are_the_model_forwards(kind):
    model = _model(kind).eval()
    batch = collate(_samples(4), pad_id=0)
    logp, _ = token_logprobs(model, batch, T)
    with torch.no_grad():
        logits = model(input_ids=batch.input_ids,
                       attention_mask=batch.attention_mask).logits[:, :-1]
    expected = torch.log_softmax(logits.float() / T, -1).gather(
        -1, batch.targets.unsqueeze(-1)).squeeze(-1)
    mask = batch.loss_mask
    torch.testing.assert_close(logp[mask], expected[mask], atol=1e-5, rtol=1e-5)
    assert (logp[~mask] == 0).all()


def _sampler_logprobs(model, samples):
    """What an eval-mode sampler reports for the samples' tokens."""
    model.eval()
    with torch.no_grad():
        batch = collate(samples, pad_id=0)
        logp, _ = token_logprobs(model, batch, T)
    model.train()
    return [dataclasses.replace(s, sampler_logprobs=tuple(
        logp[r][batch.loss_mask[r]].tolist())) for r, s in enumerate(samples)]


@pytest.mark.parametrize("where", ["lora", "model"])
def test_dropout_stays_out_of_the_ratio(where):
    if where == "lora":
        pytest.importorskip("peft")
        from agents.lora import LoRAConfig, apply_lora

        model = apply_lora(_model(), LoRAConfig(r=4, dropout=0.5))
        for name, p in model.named_parameters():  # non-zero B: the adapter (and its dropout)
            if ".lora_B." in name:                # takes part in the forward
                torch.nn.init.normal_(p, std=0.5)
    else:
        model = _model(attention_dropout=0.5)
    samples = _sampler_logprobs(model, _samples())
    opt = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.0)
    stats = grpo_update(model, opt, samples, GRPOConfig(),
                        OptimConfig(optimizer_steps_per_step=2), T, 0)
    assert stats["loss/optimizer_steps"] == 2
    # the weights did not move (lr 0): the ratio must be 1 at both steps, and the trainer's
    # old log-probabilities the sampler's
    assert stats["loss/approx_kl"] < 1e-10
    assert stats["loss/clip_frac_low"] == stats["loss/clip_frac_high"] == 0.0
    assert stats["sampling/sampling_logp_difference/max"] < 1e-5
    assert model.training  # left in train mode, dropout restored
    assert any(isinstance(m, torch.nn.Dropout) and m.p == 0.5 for m in model.modules()) or \
        where == "model"


def _delta(samples, grpo: GRPOConfig, budget: int = 10**9) -> dict[str, torch.Tensor]:
    model = _model()
    before = {k: v.detach().clone() for k, v in model.named_parameters()}
    opt = torch.optim.SGD(model.parameters(), lr=1.0)  # the change is the gradient
    grpo_update(model, opt, samples, grpo, OptimConfig(micro_batch_tokens=budget,
                                                       max_grad_norm=1e9), T, 0)
    return {k: before[k] - v.detach() for k, v in model.named_parameters()}


@pytest.mark.parametrize("norm", ["token_mean", "seq_mean_token_mean", "constant"])
def test_every_normalisation_is_independent_of_the_packing(norm):
    samples = _samples()
    grpo = GRPOConfig(loss_norm=norm, loss_norm_constant=100.0)
    one_by_one, all_at_once = _delta(samples, grpo, budget=1), _delta(samples, grpo)
    for name, value in all_at_once.items():
        torch.testing.assert_close(one_by_one[name], value, atol=1e-7, rtol=1e-4)


def test_each_normalisation_weighs_what_it_says():
    s = _samples(6, trajectories=2)  # trajectory 0: samples 0, 2, 4; trajectory 1: 1, 3, 5
    tokens = [len(x.completion_ids) for x in s]
    per_traj = [sum(tokens[0::2]), sum(tokens[1::2])]
    weights, n = sample_weights(s, "token_mean")
    assert n == sum(tokens) and weights == [1 / n] * 6
    weights, _ = sample_weights(s, "seq_mean_token_mean")
    # each trajectory's tokens carry 1/2 of the loss in total, however many it has
    for t in (0, 1):
        assert sum(w * k for w, k in zip(weights[t::2], tokens[t::2], strict=True)) == \
            pytest.approx(0.5)
    assert weights[0] == pytest.approx(1 / (2 * per_traj[0]))
    assert sample_weights(s, "constant", 50.0)[0] == [1 / 50] * 6


def test_dr_grpo_divides_by_the_constant_not_the_token_count():
    samples = _samples()
    n = sum(len(x.completion_ids) for x in samples)
    token_mean = _delta(samples, GRPOConfig(advantage="mean", loss_norm="token_mean"))
    dr_grpo = GRPOConfig(advantage="mean", loss_norm_constant=400.0)
    assert dr_grpo.effective_loss_norm.value == "constant"  # mean advantages pick it
    constant = _delta(samples, dr_grpo)
    for name, value in token_mean.items():
        torch.testing.assert_close(constant[name], value * n / 400.0, atol=1e-7, rtol=1e-4)


def _trainer(grpo: GRPOConfig, sampling):
    from types import SimpleNamespace as NS

    from agents.grpo.config import RolloutConfig
    from agents.grpo.train import GRPOSetup, GRPOTrainer

    rollout = RolloutConfig(groups_per_step=2, group_size=4, max_turns=5)
    envs = NS(num_envs=8, runtime=NS(tasks=[("w", 0)]))
    policy = NS(sampling=sampling, backend=NS())
    setup = GRPOSetup(rollout, grpo, OptimConfig(optimizer_steps_per_step=2), 0.7)
    return GRPOTrainer(_model(), NS(pad_token_id=0), envs, policy, setup)


def test_dr_grpo_constant_is_the_most_tokens_a_mini_batch_can_sample():
    from agents.policies.sampling import SamplingConfig

    trainer = _trainer(GRPOConfig(advantage="mean"), SamplingConfig(max_new_tokens=32))
    # 8 episodes over 2 optimizer steps, 5 turns of 32 tokens each
    assert trainer.setup.grpo.loss_norm_constant == 4 * 5 * 32
    given = _trainer(GRPOConfig(loss_norm="constant", loss_norm_constant=7.0),
                     SamplingConfig(max_new_tokens=32))
    assert given.setup.grpo.loss_norm_constant == 7.0


def test_grpo_refuses_nucleus_sampling():
    from agents.errors import AgentConfigError
    from agents.policies.sampling import SamplingConfig

    with pytest.raises(AgentConfigError, match=r"top_p=0.9 in GRPO.*top_p=1.0"):
        _trainer(GRPOConfig(), SamplingConfig(top_p=0.9))


def test_tis_default_weights_each_token_by_the_capped_ratio():
    # issue 41 row 5: truncated importance sampling is on by default, at verl's cap of 2
    assert GRPOConfig().tis_cap == 2.0
    exact = _sampler_logprobs(_model(), _samples())  # the sampler agrees with the trainer
    # a sampler that put a third of the trainer's probability on every sampled token: ratio 3
    undersold = [dataclasses.replace(s, sampler_logprobs=tuple(x - math.log(3.0)
                                                               for x in s.sampler_logprobs))
                 for s in exact]
    plain, capped = _delta(exact, GRPOConfig()), _delta(undersold, GRPOConfig())
    for name, value in plain.items():  # every token's gradient weighed by min(3, 2) = 2
        torch.testing.assert_close(capped[name], 2.0 * value, atol=1e-6, rtol=1e-4)
    off = _delta(undersold, GRPOConfig(tis_cap=None))  # none still turns it off
    for name, value in plain.items():
        torch.testing.assert_close(off[name], value, atol=1e-6, rtol=1e-4)


@pytest.mark.parametrize("kind", ["llama", "gemma2", "granite", "cohere"])
def test_padding_free_loss_and_gradients_equal_the_padded_rows(kind):
    # issue 41 row 8: one packed row (position ids restarting per sample, head at loss
    # positions only) gives the padded rows' log-probabilities, loss and gradient
    model = _model(kind)
    samples = _samples()
    batch = collate(samples, pad_id=0)
    weights = torch.tensor([s.advantage for s in samples]).unsqueeze(-1)  # (B, 1)
    results = []
    for padding_free in (False, True):
        model.zero_grad()
        logp, entropy = token_logprobs(model, batch, T, with_entropy=True,
                                       padding_free=padding_free)
        loss = (logp * weights).sum() / batch.loss_mask.sum()  # a token-mean surrogate
        loss.backward()
        results.append((logp.detach(), entropy, loss.detach(),
                        {n: p.grad.clone() for n, p in model.named_parameters()}))
    (logp, entropy, loss, grads), (logp_pf, entropy_pf, loss_pf, grads_pf) = results
    torch.testing.assert_close(logp_pf, logp, atol=1e-6, rtol=0)
    torch.testing.assert_close(entropy_pf, entropy, atol=1e-6, rtol=0)
    torch.testing.assert_close(loss_pf, loss, atol=1e-6, rtol=0)
    for name, grad in grads.items():
        torch.testing.assert_close(grads_pf[name], grad, atol=1e-6, rtol=0)
    assert (logp_pf[~batch.loss_mask] == 0).all()


def test_padding_free_update_equals_the_padded_one_and_forwards_fewer_tokens():
    from agents.grpo import metrics as M
    from agents.grpo.loss import forward_tokens

    samples = _sampler_logprobs(_model(), _samples())
    results = []
    for padding_free in (False, True):
        model = _model()
        before = {k: v.detach().clone() for k, v in model.named_parameters()}
        opt = torch.optim.SGD(model.parameters(), lr=1.0)  # the change is the gradient
        # two optimizer steps (old log-probabilities computed, ratios off 1), several
        # micro-batches each
        stats = grpo_update(model, opt, samples, GRPOConfig(),
                            OptimConfig(optimizer_steps_per_step=2, micro_batch_tokens=64,
                                        max_grad_norm=1e9, padding_free=padding_free), T, 0)
        results.append((stats, {k: before[k] - v.detach() for k, v in model.named_parameters()}))
    (padded, delta), (packed, delta_pf) = results
    assert packed["loss/approx_kl"] > 0  # the second step's ratio moved
    for key in ("loss/policy", "loss/approx_kl", "loss/entropy", "loss/clip_frac_low",
                "loss/clip_frac_high", M.IS_RATIO_MIN, M.IS_RATIO_MAX):
        assert packed[key] == pytest.approx(padded[key], abs=1e-6), key
    for name, value in delta.items():
        torch.testing.assert_close(delta_pf[name], value, atol=1e-6, rtol=0)
    # each sample once per pass (the second mini-batch's twice: old log-probabilities, then
    # its update); packed, the head runs at its sampled tokens only, the body at its real
    # tokens and what is left of the packed rows
    second = [samples[k] for k in minibatch_indices(samples, 2)[1]]
    real = sum(s.length for s in samples + second)
    assert real <= packed[M.FORWARD_TOKENS] < padded[M.FORWARD_TOKENS]
    assert packed[M.HEAD_TOKENS] == sum(len(s.completion_ids) for s in samples + second)
    assert packed[M.HEAD_TOKENS] < padded[M.HEAD_TOKENS]
    batch = collate(samples, 0)
    assert forward_tokens(batch, padding_free=False)[0] == 8 * max(s.length for s in samples)
    assert forward_tokens(batch, padding_free=True, one_row=True)[0] == real - sum(
        s.length for s in second)  # flash attention: one row of the real tokens


def test_padding_free_falls_back_to_padded_rows_for_a_model_that_cannot_pack(caplog):
    from agents.grpo import metrics as M

    class Uniform(torch.nn.Module):  # a causal LM without position ids or packed masks
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(torch.zeros(4))

        def forward(self, input_ids, attention_mask, use_cache):
            return type("Out", (), {"logits": self.w.expand(*input_ids.shape, 4)})

    samples = [TrainSample((1, 2), (3,), 1.0, (-1.4,)), TrainSample((1,), (2, 3), -1.0, ())]
    with pytest.raises(ValueError, match=r"Uniform cannot take packed sequences.*"
                                         r"--no-optim.padding-free"):
        token_logprobs(Uniform(), collate(samples, 0), 1.0, padding_free=True)
    model = Uniform()  # the update (padding_free on by default) runs it padded, and says so
    stats = grpo_update(model, torch.optim.SGD(model.parameters(), lr=1.0), samples,
                        GRPOConfig(), OptimConfig(), 1.0, 0)
    assert OptimConfig().padding_free and stats[M.FORWARD_TOKENS] == 2 * 3  # padded rows
    assert "Uniform cannot take packed sequences" in caplog.text
