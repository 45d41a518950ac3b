"""Data-parallel GRPO with two real processes (torchrun, gloo on CPU).

One step on two ranks, each with half the batch (whole trajectories), must leave the parameters
the single-process step leaves on the whole batch, for every loss normalisation; a whole trainer
step must run whole groups per rank and keep the replicas equal; a rank left without samples
must still step and sync its sampler.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

import gymnasium as gym  # noqa: E402

from agents.grpo.batching import build_samples  # noqa: E402
from agents.grpo.config import GRPOConfig, OptimConfig, RolloutConfig  # noqa: E402
from agents.grpo.rollout import EpisodeSpec, collect_episodes  # noqa: E402
from agents.grpo.train import step_specs  # noqa: E402
from agents.grpo.update import grpo_update  # noqa: E402
from agents.policies.hf_policy import HFPolicy, load_model_and_tokenizer  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))  # the warm-start fixture of the GRPO tests
from test_grpo import CHAT, SAMPLING, T, warm_model  # noqa: E402,F401 - fixture

REPO = Path(__file__).resolve().parents[3]
WORKER = Path(__file__).with_name("ddp_worker.py")
NORMS = ("token_mean", "seq_mean_token_mean", "constant")


@pytest.fixture(scope="module")
def two_ranks(warm_model, tmp_path_factory) -> tuple[Path, list]:
    """Run the worker on two processes once: the fixed batch it updated on, and its outputs."""
    out = tmp_path_factory.mktemp("ddp")
    envs = gym.make_vec("AWM/spotify-v0", num_envs=8, max_episode_steps=4)
    model, tok = load_model_and_tokenizer(warm_model, "cpu")
    policy = HFPolicy(model, tok, CHAT, SAMPLING)
    policy.set_seed(1)
    trajs = collect_episodes(envs, policy, [EpisodeSpec("spotify", t, 7, t) for t in range(8)])
    envs.close()
    samples = build_samples(trajs, np.linspace(-1.0, 1.0, len(trajs)), np.ones(len(trajs), bool))
    assert len(samples) >= 8
    with open(out / "samples.pkl", "wb") as handle:
        pickle.dump((samples, T, NORMS), handle)
    env = dict(os.environ, OMP_NUM_THREADS="1",
               PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node",
           "2", str(WORKER), warm_model, str(out / "samples.pkl"), str(out)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=REPO, env=env)
    assert done.returncode == 0, done.stderr[-4000:]
    return out, samples


@pytest.mark.parametrize("norm", NORMS)
def test_two_processes_take_the_single_process_step(warm_model, two_ranks, norm):
    out, samples = two_ranks
    single, tok = load_model_and_tokenizer(warm_model, "cpu")
    before = {k: v.detach().clone() for k, v in single.named_parameters()}
    opt = torch.optim.SGD(single.parameters(), lr=1.0)
    expected = grpo_update(single, opt, samples, GRPOConfig(loss_norm=norm,
                                                            loss_norm_constant=500.0),
                           OptimConfig(), T, tok.pad_token_id)
    ranks = [torch.load(out / f"update{r}_{norm}.pt", weights_only=False) for r in (0, 1)]
    assert all(r["local_samples"] > 0 for r in ranks)
    for name, value in single.named_parameters():
        assert not torch.equal(value.detach(), before[name])  # the step moved it
        for rank in ranks:
            torch.testing.assert_close(rank["params"][name], value.detach(), atol=1e-6,
                                       rtol=1e-5)
    for rank in ranks:  # diagnostics are of the whole batch too
        for key in ("loss/num_tokens", "loss/num_samples"):
            assert rank["stats"][key] == expected[key], key
        assert rank["stats"]["loss/policy"] == pytest.approx(expected["loss/policy"], abs=1e-6)
        assert rank["stats"]["loss/grad_norm"] == pytest.approx(expected["loss/grad_norm"],
                                                                rel=1e-5)


def test_a_trainer_step_splits_whole_groups_over_ranks(two_ranks):
    out, _ = two_ranks
    ranks = [torch.load(out / f"step{r}.pt", weights_only=False) for r in (0, 1)]
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


def test_a_rank_without_samples_steps_and_syncs_its_sampler(two_ranks):
    out, _ = two_ranks
    ranks = [torch.load(out / f"nosamples{r}.pt", weights_only=False) for r in (0, 1)]
    assert ranks[0]["local_samples"] > 0 and ranks[1]["local_samples"] == 0
    assert [r["metrics"]["loss/optimizer_steps"] for r in ranks] == [1, 1]
    assert [r["syncs"] for r in ranks] == [1, 1]  # rank 1's sampler gets the new weights too
    for name, value in ranks[0]["params"].items():
        torch.testing.assert_close(ranks[1]["params"][name], value, atol=0, rtol=0)
