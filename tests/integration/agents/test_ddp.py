"""Data-parallel GRPO with two real processes (torchrun, gloo on CPU) through torch's engines.

A step on two ranks, each with whole groups of a fixed batch, goes through the trainer's own
path (advantages, samples, :func:`grpo_update` on the module :func:`wrap_for_training` gives:
DDP, or FSDP2 for a full fine-tune) and must leave the parameters the one-process step leaves
on the whole batch: for every advantage mode (``batch``'s standard deviation over both ranks'
rewards) and loss normalisation, with two optimizer steps per GRPO step, with LoRA, and with a
rank that has no samples; FSDP2 must shard every decoder layer apart, not only the root. SFT
split over the ranks must equal one-process SFT. A whole trainer step must run whole groups
per rank through DDP and keep the replicas equal; a rank left without samples must still step
and sync its sampler.
"""

from __future__ import annotations

import dataclasses
import pickle
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("peft")

import gymnasium as gym  # noqa: E402

from agents.grpo.batching import build_samples  # noqa: E402
from agents.grpo.config import GRPOConfig, OptimConfig, RolloutConfig  # noqa: E402
from agents.grpo.rollout import EpisodeSpec, collect_episodes  # noqa: E402
from agents.grpo.train import step_samples, step_specs  # noqa: E402
from agents.grpo.update import grpo_update  # noqa: E402
from agents.lora import LoRAConfig, apply_lora, causal_lm  # noqa: E402
from agents.policies.hf_policy import HFPolicy, load_model_and_tokenizer  # noqa: E402
from agents.sft import SFTConfig, run_sft  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))  # the warm-start fixture of the GRPO tests
from test_grpo import CHAT, SAMPLING, T, warm_model  # noqa: E402,F401 - fixture
from torchrun_support import torchrun_two_ranks  # noqa: E402

WORKER = Path(__file__).with_name("ddp_worker.py")
REWARDS = [1.0, 0.0, 0.0, 1.0, 1.0, -1.0, 0.0, 1.0]  # every group has a spread
TWO_STEPS = OptimConfig(optimizer_steps_per_step=2)


def _grpo(advantage: str, norm: str) -> GRPOConfig:
    return GRPOConfig(advantage=advantage, loss_norm=norm, loss_norm_constant=500.0)


CASES = [
    *[{"name": f"update_{a}_{n}", "grpo": _grpo(a, n), "optim": TWO_STEPS, "lora": False,
       "strategy": "ddp", "shard": True}
      for a in ("group", "mean", "batch") for n in ("token_mean", "seq_mean_token_mean",
                                                      "constant")],
    {"name": "lora", "grpo": _grpo("batch", "seq_mean_token_mean"), "optim": TWO_STEPS,
     "lora": True, "strategy": "ddp", "shard": True},
    {"name": "fsdp", "grpo": _grpo("group", "token_mean"), "optim": TWO_STEPS, "lora": False,
     "strategy": "fsdp", "shard": True},
    {"name": "update_rank1_empty", "grpo": _grpo("group", "token_mean"), "optim": TWO_STEPS,
     "lora": False, "strategy": "ddp", "shard": False},
]
SFT = SFTConfig(epochs=2, lr=1e-2, batch_size=3, micro_batch_tokens=400)


@pytest.fixture(scope="module")
def two_ranks(warm_model, tmp_path_factory) -> tuple[Path, list, list]:
    """Run the worker on two processes once: the fixed trajectories, SFT examples and outputs."""
    out = tmp_path_factory.mktemp("ddp")
    envs = gym.make_vec("AWM/spotify-v0", num_envs=8, max_episode_steps=4)
    model, tok = load_model_and_tokenizer(warm_model, "cpu")
    policy = HFPolicy(model, tok, CHAT, SAMPLING)
    policy.set_seed(1)
    trajs = collect_episodes(envs, policy, [EpisodeSpec("spotify", t, 7, t) for t in range(8)])
    envs.close()
    # real turns, with rewards set so every group of two has a spread (groups 0,0,1,1,...)
    trajs = [dataclasses.replace(t, spec=dataclasses.replace(t.spec, group=k // 2), reward=r,
                                 reward_valid=True, truncation=None)
             for k, (t, r) in enumerate(zip(trajs, REWARDS, strict=True))]
    examples = build_samples(trajs, np.zeros(len(trajs)), np.ones(len(trajs), bool))
    assert sum(len(t.turns) for t in trajs) >= 8
    with open(out / "cases.pkl", "wb") as handle:
        pickle.dump((trajs, T, CASES), handle)
    with open(out / "sft.pkl", "wb") as handle:
        pickle.dump(examples, handle)
    done = torchrun_two_ranks(WORKER, warm_model, str(out / "cases.pkl"), str(out),
                              timeout=900)
    assert done.returncode == 0, done.stderr[-4000:]
    return out, trajs, examples


def _trainable(model) -> dict:
    return {k: v.detach() for k, v in causal_lm(model).named_parameters() if v.requires_grad}


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_ddp_engine_two_ranks_take_the_one_process_step(warm_model, two_ranks, case):
    """global_advantage, trajectory_minibatch and ddp_engine on two ranks: the engine's
    reduced gradient (DDP or FSDP2) is the one-process gradient of the whole batch."""
    out, trajs, _ = two_ranks
    single, tok = load_model_and_tokenizer(warm_model, "cpu")
    if case["lora"]:
        torch.manual_seed(0)  # the adapters' initialisation, as on the ranks
        single = apply_lora(single, LoRAConfig(r=4, alpha=8, dropout=0.0))
    before = {k: v.clone() for k, v in _trainable(single).items()}
    opt = torch.optim.SGD([p for p in single.parameters() if p.requires_grad], lr=1.0)
    built = step_samples(trajs, case["grpo"])
    expected = grpo_update(single, opt, built.samples, case["grpo"], case["optim"], T,
                           tok.pad_token_id)
    ranks = [torch.load(out / f"{case['name']}{r}.pt", weights_only=False) for r in (0, 1)]
    if case["shard"]:
        assert all(r["local_samples"] > 0 for r in ranks)
    else:
        assert ranks[1]["local_samples"] == 0
    assert expected["loss/optimizer_steps"] == 2
    for name, value in _trainable(single).items():
        assert not torch.equal(value, before[name]), name  # the step moved it
        for rank in ranks:
            torch.testing.assert_close(rank["params"][name], value, atol=2e-6, rtol=1e-5)
    for rank in ranks:  # diagnostics are of the whole batch too
        for key in ("loss/num_tokens", "loss/num_samples", "loss/optimizer_steps"):
            assert rank["stats"][key] == expected[key], key
        assert rank["stats"]["loss/policy"] == pytest.approx(expected["loss/policy"], abs=1e-6)
        assert rank["stats"]["loss/grad_norm"] == pytest.approx(expected["loss/grad_norm"],
                                                                rel=1e-5)


def test_catches_fault_fsdp_shards_every_decoder_layer(two_ranks):
    """The FSDP case above compares parameters only, and a model sharded as one root unit
    takes the very same step: this checks the sharding itself. Every decoder layer and the
    root must be FSDP units (else a forward gathers the whole model at once), and each rank
    must hold only its share of every parameter."""
    out, _, _ = two_ranks
    ranks = [torch.load(out / f"fsdp{r}.pt", weights_only=False)["sharding"] for r in (0, 1)]
    for sharding in ranks:
        assert len(sharding["layers"]) >= 2
        missing = [n for n in ["", *sharding["layers"]] if n not in sharding["units"]]
        assert not missing, f"not FSDP units: {missing} (units: {sharding['units']})"
    for name, (local0, full) in ranks[0]["numel"].items():
        local1 = ranks[1]["numel"][name][0]
        assert local0 + local1 == full and max(local0, local1) < full, name


def test_ddp_engine_sft_split_over_ranks_is_one_process_sft(warm_model, two_ranks):
    out, _, examples = two_ranks
    single, tok = load_model_and_tokenizer(warm_model, "cpu")
    metrics = run_sft(single, examples, SFT, tok.pad_token_id, seed=3)
    ranks = [torch.load(out / f"sft{r}.pt", weights_only=False) for r in (0, 1)]
    for name, value in _trainable(single).items():
        for rank in ranks:  # AdamW's step divides by sqrt(v): where a gradient is ~0, the
            # summation order of the reduce shows in the fifth digit (5 of 70k weights)
            torch.testing.assert_close(rank["params"][name], value, atol=1e-4, rtol=1e-3)
        torch.testing.assert_close(ranks[1]["params"][name], ranks[0]["params"][name],
                                   atol=0, rtol=0)  # the replicas stay equal
    for rank in ranks:
        assert rank["metrics"]["sft/loss"] == pytest.approx(metrics["sft/loss"], rel=1e-5)


def test_a_trainer_step_splits_whole_groups_over_ranks(two_ranks):
    out, _, _ = two_ranks
    ranks = [torch.load(out / f"step{r}.pt", weights_only=False) for r in (0, 1)]
    assert ranks[0]["wrapped"] == "CausalLMDataParallel"  # torch's DDP, not a hand-made one
    assert ranks[0]["metrics"]["loss/optimizer_steps"] == 1  # it trained
    for name, value in ranks[0]["params"].items():  # and the replicas stayed equal
        torch.testing.assert_close(ranks[1]["params"][name], value, atol=0, rtol=0)
    local = [set(r["specs"]) for r in ranks]
    groups = [{spec[3] for spec in specs} for specs in local]
    assert not groups[0] & groups[1]  # no group spans two ranks
    rollout = RolloutConfig(groups_per_step=4, group_size=2, max_turns=4)
    tasks = [("spotify", t) for t in range(10)]
    whole = {(s.world, s.task_idx, s.seed, s.group) for s in step_specs(tasks, rollout, 2, 0)}
    assert local[0] | local[1] == whole
    for r in ranks:  # every rank reports the whole step's rollouts
        assert r["metrics"]["rollout/reward_mean"] == ranks[0]["metrics"]["rollout/reward_mean"]


def test_metric_traffic_a_trainer_step_moves_no_trajectory(two_ranks):
    """A whole trainer step on two ranks hands torch.distributed's object collectives only
    small records (the groups' outcomes), never a trajectory: its metrics are reduced sums."""
    out, _, _ = two_ranks
    for r in (0, 1):
        traffic = torch.load(out / f"step{r}.pt", weights_only=False)["traffic"]
        assert traffic, "the step exchanged its groups' records"
        assert not any("Trajectory" in kinds or "TurnSample" in kinds for _, _, kinds in traffic)
        assert sum(size for _, size, _ in traffic) < 16_384, traffic


def test_a_rank_without_samples_steps_and_syncs_its_sampler(two_ranks):
    out, _, _ = two_ranks
    ranks = [torch.load(out / f"nosamples{r}.pt", weights_only=False) for r in (0, 1)]
    assert ranks[0]["local_samples"] > 0 and ranks[1]["local_samples"] == 0
    assert [r["metrics"]["loss/optimizer_steps"] for r in ranks] == [1, 1]
    assert [r["syncs"] for r in ranks] == [1, 1]  # rank 1's sampler gets the new weights too
    for name, value in ranks[0]["params"].items():
        torch.testing.assert_close(ranks[1]["params"][name], value, atol=0, rtol=0)
