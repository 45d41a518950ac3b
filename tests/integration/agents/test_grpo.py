"""GRPO invariants on real rollouts: a warm-started tiny model acting in AWM/spotify-v0.

Each test can fail: prompts trained on must be the sampled ones token for token, the loss mask
must hold exactly the sampled tokens, gradient accumulation must not change the update, a window
covering the whole episode must equal full history, every parameter must move, zero-variance
groups must contribute nothing, and a resumed run must repeat the next step.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

import gymnasium as gym  # noqa: E402

import awm_gym  # noqa: E402,F401
from agents.chat_format import (
    ChatFormatConfig,
    ChatRenderer,
    EpisodeContext,
    Turn,
    build_messages,  # noqa: E402
    tool_listing,
)
from agents.config import ModelConfig, RunConfig, TrainConfig  # noqa: E402
from agents.grpo import metrics as M  # noqa: E402
from agents.grpo.advantages import compute_advantages  # noqa: E402
from agents.grpo.batching import (
    TrainSample,
    build_samples,
    collate,
    trajectory_credit,  # noqa: E402
)
from agents.grpo.config import GRPOConfig, OptimConfig, RolloutConfig  # noqa: E402
from agents.grpo.loss import token_logprobs  # noqa: E402
from agents.grpo.rollout import EpisodeSpec, collect_episodes  # noqa: E402
from agents.grpo.train import GRPOSetup, GRPOTrainer  # noqa: E402
from agents.grpo.update import grpo_update, minibatch_indices  # noqa: E402
from agents.pipeline import make_envs, prepare_start_model  # noqa: E402
from agents.policies.hf_policy import HFPolicy, load_model_and_tokenizer  # noqa: E402
from agents.policies.sampling import SamplingConfig  # noqa: E402
from agents.sft import SFTConfig  # noqa: E402
from agents.tiny_model import TinyModelConfig  # noqa: E402

CHAT = ChatFormatConfig(history_turns=2, catalogue="none", max_observation_chars=120)
SAMPLING = SamplingConfig(temperature=0.7, max_new_tokens=48)
T = SAMPLING.temperature
WARM = TrainConfig(run=RunConfig(seed=0), model=ModelConfig(tiny=TinyModelConfig.small()),
                   chat=CHAT, rollout=RolloutConfig(worlds=("spotify",), env_id="AWM/mix-v0",
                                                    max_turns=4),
                   sft=SFTConfig(epochs=24, lr=1e-2, batch_size=4))
"""A tiny model warm-started on the oracle's spotify rollouts: it emits real multi-turn tool
calls, so rollouts have several turns per episode."""


class _NullSink:
    def log(self, metrics, step):
        self.last = (step, dict(metrics))

    def close(self):
        pass


@pytest.fixture(scope="module")
def warm_model(tmp_path_factory: pytest.TempPathFactory) -> str:
    torch.set_num_threads(1)
    envs = make_envs(WARM.rollout, 1)
    try:
        return prepare_start_model(WARM, tmp_path_factory.getbasetemp() / "agents_warm", envs)
    finally:
        envs.close()


@pytest.fixture
def envs8():
    envs = gym.make_vec("AWM/spotify-v0", num_envs=8, max_episode_steps=4)
    yield envs
    envs.close()


def _trainer(model_dir: str, envs, chat=CHAT, optim=None, grpo=None, seed=0, groups=4, size=2):
    model, tok = load_model_and_tokenizer(model_dir, "cpu")
    policy = HFPolicy(model, tok, chat, SAMPLING)
    setup = GRPOSetup(RolloutConfig(groups_per_step=groups, group_size=size, max_turns=4),
                      grpo or GRPOConfig(), optim or OptimConfig(lr=1e-3), T, seed)
    return GRPOTrainer(model, tok, envs, policy, setup)


def _params(model) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in model.named_parameters()}


def test_training_prompt_equals_sampled_prompt(warm_model, envs8):
    model, tok = load_model_and_tokenizer(warm_model, "cpu")
    policy = HFPolicy(model, tok, CHAT, SAMPLING)
    policy.set_seed(0)
    specs = [EpisodeSpec("spotify", t, 100 + t, g) for g, t in enumerate([1, 1, 5, 5, 8, 8, 9, 9])]
    trajs = collect_episodes(envs8, policy, specs)
    assert max(t.num_turns for t in trajs) >= 2, "the warm model should take several turns"
    renderer = ChatRenderer(tok)
    tools, text = tool_listing(envs8, "spotify")
    prefixes = {}
    for traj in trajs:
        ctx = EpisodeContext.create(CHAT, traj.task, tools, text)
        prefix = renderer.encode(tok.apply_chat_template(ctx.messages(), tokenize=False))
        history: list[Turn] = []
        for turn in traj.turns:
            gen = turn.generation
            expected = renderer.prompt_ids(build_messages(ctx, history, CHAT))
            assert list(gen.prompt_ids) == expected  # token for token
            assert list(gen.prompt_ids[:len(prefix)]) == prefix  # pinned prefix
            prefixes.setdefault(traj.spec.group, set()).add(tuple(prefix))
            history.append(Turn(turn.action, turn.observation))
    assert all(len(p) == 1 for p in prefixes.values())  # identical across a group
    adv = np.array([1.0 if k % 2 else -1.0 for k in range(len(trajs))])
    samples = build_samples(trajs, adv, np.ones(len(trajs), bool))
    gens = [t.generation for tr in trajs for t in tr.turns if t.generation.completion_ids]
    batch = collate(samples, tok.pad_token_id)
    for row, (s, g) in enumerate(zip(samples, gens, strict=True)):
        ids = batch.input_ids[row, :s.length].tolist()
        assert ids == list(g.prompt_ids) + list(g.completion_ids)
        assert batch.targets[row][batch.loss_mask[row]].tolist() == list(g.completion_ids)
    # the sampler's log-probabilities are the trainer's (same temperature, same tokens)
    logp, _ = token_logprobs(model, batch, T)
    np.testing.assert_allclose(logp[batch.loss_mask].detach().numpy(),
                               batch.sampler_logprobs[batch.loss_mask].numpy(), atol=2e-4)


def _real_samples(warm_model, envs8, n=8) -> list[TrainSample]:
    model, tok = load_model_and_tokenizer(warm_model, "cpu")
    policy = HFPolicy(model, tok, CHAT, SAMPLING)
    policy.set_seed(1)
    trajs = collect_episodes(envs8, policy, [EpisodeSpec("spotify", t, 7, t) for t in range(8)])
    adv = np.linspace(-1.0, 1.0, len(trajs))
    samples = build_samples(trajs, adv, np.ones(len(trajs), bool))
    assert len(samples) >= n
    return samples[:n]


@pytest.mark.parametrize("norm", ["token_mean", "seq_mean_token_mean", "constant"])
def test_micro_batch_1x8_equals_8x1(warm_model, envs8, norm):
    samples = _real_samples(warm_model, envs8)
    assert len({s.trajectory for s in samples}) >= 2  # trajectories of several turns
    grpo = GRPOConfig(loss_norm=norm, loss_norm_constant=500.0)
    results = []
    for budget in (1, 10**9):  # one sample per micro-batch (8 accumulations) vs all 8 at once
        model, tok = load_model_and_tokenizer(warm_model, "cpu")
        # plain SGD: the parameter change is the gradient itself (Adam would amplify float noise
        # in near-zero gradient entries)
        opt = torch.optim.SGD(model.parameters(), lr=1.0)
        stats = grpo_update(model, opt, samples, grpo, OptimConfig(
            micro_batch_tokens=budget), T, tok.pad_token_id)
        results.append((_params(model), stats))
    (p1, s1), (p8, s8) = results
    assert s1["loss/policy"] == pytest.approx(s8["loss/policy"], abs=1e-5)
    assert s1["loss/grad_norm"] == pytest.approx(s8["loss/grad_norm"], rel=1e-4)
    for name in p1:
        torch.testing.assert_close(p1[name], p8[name], atol=1e-6, rtol=1e-4)


def test_padding_free_update_equals_padded_on_real_rollouts(warm_model, envs8):
    # issue 41 row 8: the packed micro-batches (no padding, head at sampled tokens only) take
    # the padded update's step, to float rounding, on real windowed turn samples
    samples = _real_samples(warm_model, envs8)
    results = []
    for padding_free in (False, True):
        model, tok = load_model_and_tokenizer(warm_model, "cpu")
        opt = torch.optim.SGD(model.parameters(), lr=1.0)  # the change is the gradient
        stats = grpo_update(model, opt, samples, GRPOConfig(), OptimConfig(
            optimizer_steps_per_step=2, max_grad_norm=1e9, padding_free=padding_free), T,
            tok.pad_token_id)
        results.append((_params(model), stats))
    (padded, s_padded), (packed, s_packed) = results
    for key in ("loss/policy", "loss/approx_kl", "loss/entropy", "loss/grad_norm"):
        assert s_packed[key] == pytest.approx(s_padded[key], rel=1e-5, abs=1e-6), key
    for name in padded:
        torch.testing.assert_close(packed[name], padded[name], atol=1e-6, rtol=0)
    # never more body tokens (length-sorted micro-batches leave rows little to share), and the
    # head at the sampled tokens only
    assert s_packed[M.FORWARD_TOKENS] <= s_padded[M.FORWARD_TOKENS]
    assert s_packed[M.HEAD_TOKENS] == sum(len(s.completion_ids) for s in samples) + sum(
        len(samples[k].completion_ids) for k in minibatch_indices(samples, 2)[1])
    assert s_packed[M.HEAD_TOKENS] < s_padded[M.HEAD_TOKENS] / 2


def test_all_trainable_parameters_change_after_one_step(warm_model, envs8):
    samples = _real_samples(warm_model, envs8)
    model, tok = load_model_and_tokenizer(warm_model, "cpu")
    before = _params(model)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    stats = grpo_update(model, opt, samples, GRPOConfig(), OptimConfig(), T, tok.pad_token_id)
    assert stats["loss/optimizer_steps"] == 1
    unchanged = [n for n, p in model.named_parameters()
                 if p.requires_grad and torch.equal(p.detach(), before[n])]
    assert unchanged == []


def test_fixed_number_of_optimizer_steps(warm_model, envs8):
    samples = _real_samples(warm_model, envs8)
    for steps in (1, 3):
        model, tok = load_model_and_tokenizer(warm_model, "cpu")
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
        stats = grpo_update(model, opt, samples, GRPOConfig(),
                            OptimConfig(optimizer_steps_per_step=steps), T, tok.pad_token_id)
        assert stats["loss/optimizer_steps"] == steps
        assert {int(s["step"]) for s in opt.state.values()} == {steps}


def test_zero_variance_groups_contribute_nothing(warm_model, envs8):
    model, tok = load_model_and_tokenizer(warm_model, "cpu")
    policy = HFPolicy(model, tok, CHAT, SAMPLING)
    policy.set_seed(2)
    trajs = collect_episodes(envs8, policy, [EpisodeSpec("spotify", t // 2, 3, t // 2)
                                             for t in range(8)])
    # groups 0-1 get a signal, groups 2-3 are flat (all 1.0 / all 0.0)
    rewards = [1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.0]
    groups = [t.spec.group for t in trajs]
    adv = compute_advantages(rewards, groups, [True] * 8)
    assert adv.zero_std_groups == 2 and not adv.trainable[4:].any()
    with_flat = build_samples(trajs, adv.values, adv.trainable)
    only_signal = build_samples(trajs[:4], adv.values[:4], adv.trainable[:4])
    assert with_flat == only_signal
    adv_all_flat = compute_advantages([1.0] * 8, groups, [True] * 8)
    flat_samples = build_samples(trajs, adv_all_flat.values, adv_all_flat.trainable)
    assert flat_samples == []
    before = _params(model)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    stats = grpo_update(model, opt, flat_samples, GRPOConfig(), OptimConfig(), 1.0,
                        tok.pad_token_id)
    assert stats["loss/optimizer_steps"] == 0
    assert all(torch.equal(p.detach(), before[n]) for n, p in model.named_parameters())


def test_window_at_least_episode_length_equals_full_history(warm_model, envs8):
    outcomes = []
    for w in (None, 4):  # episodes last at most 4 turns
        chat = dataclasses.replace(CHAT, history_turns=w)
        trainer = _trainer(warm_model, envs8, chat=chat)
        metrics = trainer.step()
        prompts = [t.generation.prompt_ids for tr in trainer.last_trajectories for t in tr.turns]
        outcomes.append((prompts, metrics, _params(trainer.model)))
    (pa, ma, wa), (pb, mb, wb) = outcomes
    assert pa == pb
    assert ma["loss/policy"] == pytest.approx(mb["loss/policy"], abs=1e-7)
    for name in wa:
        torch.testing.assert_close(wa[name], wb[name], atol=0, rtol=0)


def test_resume_from_checkpoint_reproduces_the_next_step(warm_model, envs8, tmp_path: Path):
    straight = _trainer(warm_model, envs8)
    straight.step()
    expected = straight.step()
    expected_params = _params(straight.model)

    first = _trainer(warm_model, envs8)
    first.step()
    ckpt = first.save(str(tmp_path))
    resumed = _trainer(ckpt, envs8)
    resumed.load_state(ckpt, 1)
    got = resumed.step()
    for key in ("rollout/reward_mean", "rollout/turns_per_episode", "loss/policy",
                "loss/num_tokens", "loss/grad_norm"):
        assert got[key] == pytest.approx(expected[key], abs=1e-6), key
    for name, value in _params(resumed.model).items():
        torch.testing.assert_close(value, expected_params[name], atol=1e-6, rtol=1e-5)



def test_periodic_checkpoint_lora_resume_reproduces_the_next_step(warm_model, envs8,
                                                                   tmp_path: Path):
    """A LoRA run's checkpoint holds the adapter and the AdamW state; resumed through the run's
    own path (``TrainConfig(resume=True)`` with LoRA, :func:`load_start_model` loads the start
    model with the adapter on it, trainable, :func:`sampling_policy` keeps that adapter,
    :func:`make_trainer` restores the optimizer), the next step is the straight run's."""
    from agents.grpo.config import BackendKind
    from agents.lora import LoRAConfig, apply_lora
    from agents.parallel import DistInfo
    from agents.stages.training import make_trainer, sampling_policy
    from agents.stages.warm_start import load_start_model

    lora = LoRAConfig(r=4, alpha=8)
    rollout = RolloutConfig(groups_per_step=4, group_size=2, max_turns=4)

    def lora_trainer() -> GRPOTrainer:
        model, tok = load_model_and_tokenizer(warm_model, "cpu")
        torch.manual_seed(0)  # the adapters' initialisation
        model = apply_lora(model, lora)
        setup = GRPOSetup(rollout, GRPOConfig(), OptimConfig(lr=1e-3), T, 0)
        return GRPOTrainer(model, tok, envs8, HFPolicy(model, tok, CHAT, SAMPLING), setup)

    straight = lora_trainer()
    straight.step()
    expected = straight.step()
    expected_params = _params(straight.model)

    first = lora_trainer()
    first.step()
    ckpt = Path(first.save(str(tmp_path)))
    assert (ckpt / "adapter_model.safetensors").exists() and (ckpt / "optimizer.pt").exists()
    assert not (ckpt / "model.safetensors").exists()  # the adapter, not the merged model
    cfg = TrainConfig(run=RunConfig(out_dir=str(tmp_path), resume=True, device="cpu"),
                      model=ModelConfig(lora=lora), chat=CHAT, sampling=SAMPLING,
                      rollout=rollout, grpo=GRPOConfig(), optim=OptimConfig(lr=1e-3))
    model, tok, start = load_start_model(cfg, tmp_path, envs8, None, {}, DistInfo(), ckpt)
    assert start == warm_model  # a sampler starts from the base and is sent the adapter
    model, policy = sampling_policy(cfg, model, tok, start, BackendKind.HF)
    resumed = make_trainer(cfg, DistInfo(), ckpt, model, tok, envs8, policy, warm_model)
    assert resumed.step_idx == 1
    got = resumed.step()
    for key in ("rollout/reward_mean", "rollout/turns_per_episode", "loss/policy",
                "loss/num_tokens", "loss/grad_norm"):
        assert got[key] == pytest.approx(expected[key], abs=1e-6), key
    params = _params(resumed.model)
    assert set(params) == set(expected_params)  # one adapter, where the straight run has it
    for name, value in params.items():
        torch.testing.assert_close(value, expected_params[name], atol=1e-6, rtol=1e-5)

def test_train_logs_and_checkpoints(warm_model, envs8, tmp_path: Path):
    trainer = _trainer(warm_model, envs8)
    trainer.setup = dataclasses.replace(trainer.setup, checkpoint_every=1)
    sink = _NullSink()
    trainer.train(2, sink, str(tmp_path))
    step, metrics = sink.last
    assert step == 2 and "perf/gen_tokens_per_s" in metrics and "time/train_s" in metrics
    assert (tmp_path / "checkpoints" / "latest").read_text() == "step_000002"


def test_a_cut_turn_stops_its_episode_and_no_minus_one_reaches_earlier_turns(warm_model, envs8):
    model, tok = load_model_and_tokenizer(warm_model, "cpu")
    # 24 tokens: some turns of the warm model fit, some are cut (probed: a 21-token tool call
    # then a cut second turn in episode 2 at this seed)
    policy = HFPolicy(model, tok, CHAT, dataclasses.replace(SAMPLING, max_new_tokens=24))
    policy.set_seed(0)
    trajs = collect_episodes(envs8, policy,
                             [EpisodeSpec("spotify", t, 100 + t, t // 4) for t in range(8)])
    cut = [t for t in trajs if t.is_cut]
    assert cut and any(t.num_turns >= 2 for t in cut), "need a cut after a complete turn"
    for traj in trajs:
        reasons = [turn.finish_reason for turn in traj.turns]
        if "length" not in reasons:
            continue
        # the cut turn is the last one, was never sent to the env, and scored nothing
        assert reasons.index("length") == len(reasons) - 1 and traj.truncation == "length"
        assert traj.turns[-1].observation == "" and traj.turns[-1].info == {}
        assert traj.reward == 0.0 and not traj.format_error
    # default (mask): no turn of a cut trajectory trains, whatever its group did
    rewards, scored = trajectory_credit(trajs, "mask")
    adv = compute_advantages(rewards, [t.spec.group for t in trajs], scored)
    samples = build_samples(trajs, adv.values, adv.trainable)
    cut_prompts = {turn.generation.prompt_ids for t in cut for turn in t.turns}
    assert not any(s.prompt_ids in cut_prompts for s in samples)
    # penalty: the cut trajectory keeps its env reward (0.0) for its group; only the cut turn's
    # own sample is charged the named penalty, on top of its trajectory's advantage when negative
    rewards, scored = trajectory_credit(trajs, "penalty")
    assert [r for r, t in zip(rewards, trajs, strict=True) if t.is_cut] == [0.0] * len(cut)
    adv = compute_advantages(rewards, [t.spec.group for t in trajs], scored)
    samples = build_samples(trajs, adv.values, adv.trainable, cut_turn_penalty=-0.25)
    for i, traj in enumerate(trajs):
        if not traj.is_cut:
            continue
        own = [s for s in samples if s.trajectory == i]
        assert own[-1].completion_ids == traj.turns[-1].generation.completion_ids
        assert own[-1].advantage == pytest.approx(min(adv.values[i], 0.0) - 0.25)
        assert own[-1].advantage < 0
        assert [s.advantage for s in own[:-1]] == pytest.approx(
            [adv.values[i]] * (len(own) - 1) if adv.trainable[i] else [])


def test_sampler_trainer_gap_is_logged_and_flags_a_precision_mismatch(warm_model, envs8):
    samples = _real_samples(warm_model, envs8)  # sampled by transformers in float32
    gaps = {}
    for dtype in ("float32", "bfloat16"):
        model, tok = load_model_and_tokenizer(warm_model, "cpu")
        opt = torch.optim.SGD(model.parameters(), lr=0.0)
        stats = grpo_update(model, opt, samples, GRPOConfig(), OptimConfig(), T,
                            tok.pad_token_id, dtype=dtype)
        gaps[dtype] = (stats[M.LOGP_DIFF_MEAN], stats[M.LOGP_DIFF_MAX])
        assert stats[M.IS_RATIO_MIN] <= stats[M.IS_RATIO_MEAN] <= stats[M.IS_RATIO_MAX]
    assert gaps["float32"][1] < 2e-4  # same precision: float noise only
    assert gaps["bfloat16"][1] > 1e-3  # a bf16 trainer against an fp32 sampler shows up
    assert gaps["bfloat16"][0] > 10 * gaps["float32"][0]


def test_truncated_importance_sampling_weights_each_token_by_the_capped_ratio(warm_model,
                                                                               envs8):
    # a sampler that put half the trainer's probability on every sampled token: ratio 2
    samples = [dataclasses.replace(s, sampler_logprobs=tuple(x - np.log(2.0)
                                                             for x in s.sampler_logprobs))
               for s in _real_samples(warm_model, envs8)]
    deltas = {}
    for cap in (None, 3.0, 1.5):
        model, tok = load_model_and_tokenizer(warm_model, "cpu")
        before = _params(model)
        opt = torch.optim.SGD(model.parameters(), lr=1.0)  # the change is the gradient
        stats = grpo_update(model, opt, samples, GRPOConfig(tis_cap=cap),
                            OptimConfig(max_grad_norm=1e9), T, tok.pad_token_id)
        assert stats[M.IS_RATIO_MEAN] == pytest.approx(2.0, rel=1e-3)
        deltas[cap] = {n: before[n] - p.detach() for n, p in model.named_parameters()}
    for name, plain in deltas[None].items():
        torch.testing.assert_close(deltas[3.0][name], 2.0 * plain, rtol=1e-3, atol=1e-6)
        torch.testing.assert_close(deltas[1.5][name], 1.5 * plain, rtol=1e-3, atol=1e-6)


def test_tis_default_leaves_a_float32_update_as_it_was(warm_model, envs8):
    # the main job's case (float32 sampler and trainer): TIS, on by default at cap 2 since
    # issue 41, weighs each token by a ratio within float noise of 1 and never binds
    samples = _real_samples(warm_model, envs8)  # sampled by transformers in float32
    deltas, ratios = {}, None
    for cap in (None, GRPOConfig().tis_cap):
        model, tok = load_model_and_tokenizer(warm_model, "cpu")
        before = _params(model)
        opt = torch.optim.SGD(model.parameters(), lr=1.0)  # the change is the gradient
        stats = grpo_update(model, opt, samples, GRPOConfig(tis_cap=cap),
                            OptimConfig(max_grad_norm=1e9), T, tok.pad_token_id)
        ratios = stats[M.IS_RATIO_MIN], stats[M.IS_RATIO_MAX]
        deltas[cap] = {n: before[n] - p.detach() for n, p in model.named_parameters()}
    assert cap == 2.0 and 1 - 1e-4 < ratios[0] <= ratios[1] < 1 + 1e-4, ratios
    for name, plain in deltas[None].items():
        torch.testing.assert_close(deltas[2.0][name], plain, rtol=1e-4, atol=1e-7)


def test_a_lora_grpo_step_changes_only_adapter_weights(warm_model, envs8):
    pytest.importorskip("peft")
    from agents.lora import LoRAConfig, apply_lora

    samples = _real_samples(warm_model, envs8)
    base, tok = load_model_and_tokenizer(warm_model, "cpu")
    model = apply_lora(base, LoRAConfig(r=4, alpha=8))
    before = _params(model)
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-3)
    stats = grpo_update(model, opt, samples, GRPOConfig(), OptimConfig(), T, tok.pad_token_id)
    assert stats["loss/optimizer_steps"] == 1
    changed = {n for n, p in model.named_parameters() if not torch.equal(p.detach(), before[n])}
    lora_b = {n for n in before if ".lora_B." in n}
    assert lora_b and lora_b <= changed  # B starts at zero, so it is what the first step moves
    assert all(".lora_" in n for n in changed)  # and no base weight moved


def test_gradient_checkpointing_gives_the_same_update(warm_model, envs8):
    from agents.lora import enable_gradient_checkpointing

    samples = _real_samples(warm_model, envs8)
    results = []
    for checkpointing in (False, True):
        model, tok = load_model_and_tokenizer(warm_model, "cpu")
        if checkpointing:
            enable_gradient_checkpointing(model)
            assert model.is_gradient_checkpointing
        opt = torch.optim.SGD(model.parameters(), lr=1.0)
        grpo_update(model, opt, samples, GRPOConfig(), OptimConfig(), T, tok.pad_token_id)
        results.append(_params(model))
    for name, value in results[0].items():
        torch.testing.assert_close(results[1][name], value, atol=1e-6, rtol=1e-5)
