"""Dynamic sampling on real rollouts: a step refills itself with groups that carry signal.

A scripted policy whose episodes succeed by a seeded coin drives the real spotify env (its
successes are the verifier's). With dynamic sampling the step must hold ``groups_per_step``
mixed groups, never run more rounds than its bound, report what it discarded, and two gloo
ranks must take part in the same rounds; with the option off (or one round) the trainer's
update must equal the single-round step it replaced, parameter for parameter.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

import gymnasium as gym  # noqa: E402

import awm_gym  # noqa: E402,F401
from agents.grpo import metrics as M  # noqa: E402
from agents.grpo.config import GRPOConfig, OptimConfig, RolloutConfig  # noqa: E402
from agents.grpo.dynamic_sampling import collect_step_rollouts  # noqa: E402
from agents.grpo.rollout import collect_episodes, list_tasks  # noqa: E402
from agents.grpo.train import GRPOSetup, GRPOTrainer, step_samples, step_specs  # noqa: E402
from agents.grpo.update import grpo_update  # noqa: E402
from agents.policies.hf_policy import HFPolicy, load_model_and_tokenizer  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from coin_policy import CoinPolicy  # noqa: E402
from test_grpo import CHAT, SAMPLING, T, warm_model  # noqa: E402,F401 - fixture
from torchrun_support import torchrun_two_ranks  # noqa: E402

ROLLOUT = RolloutConfig(groups_per_step=4, group_size=2, max_turns=4)


@pytest.fixture
def envs8():
    envs = gym.make_vec("AWM/spotify-v0", num_envs=8, max_episode_steps=4)
    yield envs
    envs.close()


def _rounds(envs, policy, max_rounds: int, is_dynamic: bool = True, seed: int = 5):
    tasks = list_tasks(envs)
    return collect_step_rollouts(envs, policy, lambda r: step_specs(tasks, ROLLOUT, seed, 0, r),
                                 GRPOConfig(), needed=ROLLOUT.groups_per_step,
                                 max_rounds=max_rounds, is_dynamic=is_dynamic,
                                 seed_round=lambda r: policy.set_seed(50 + r))


def _outcomes_by_group(result) -> dict[int, list[bool]]:
    groups: dict[int, list[bool]] = {}
    for traj, kept in zip(result.trajectories, result.kept, strict=True):
        if kept:
            groups.setdefault(traj.spec.group, []).append(traj.success)
    return groups


def test_dynamic_sampling_fills_the_step_with_mixed_groups(envs8):
    policy = CoinPolicy({k: 0.3 for k in range(10)})
    result = _rounds(envs8, policy, max_rounds=12)
    kept = _outcomes_by_group(result)
    assert len(kept) == ROLLOUT.groups_per_step == result.groups_kept
    assert all(len(set(v)) == 2 for v in kept.values()), kept  # every kept group is mixed
    assert result.rounds > 1  # one round of this policy has fewer mixed groups than that
    assert result.groups_sampled == result.rounds * ROLLOUT.groups_per_step
    assert result.groups_discarded == result.groups_sampled - 4
    assert 0 < result.discarded_s < result.rollout_s
    # groups are kept in the order drawn: a later mixed group never displaces an earlier one
    mixed = [g for g in sorted({t.spec.group for t in result.trajectories})
             if len({t.success for t in result.trajectories if t.spec.group == g}) == 2]
    assert sorted(kept) == mixed[:4]


def test_dynamic_sampling_respects_its_round_bound(envs8):
    never = CoinPolicy({k: 0.0 for k in range(10)})
    result = _rounds(envs8, never, max_rounds=3)
    assert result.rounds == 3 and result.groups_kept == 0 and not any(result.kept)
    assert result.groups_sampled == 12 and result.zero_std_groups == 12
    assert result.discarded_s == pytest.approx(result.rollout_s)


def test_dynamic_sampling_off_runs_one_round_and_keeps_every_group(envs8):
    never = CoinPolicy({k: 0.0 for k in range(10)})
    result = _rounds(envs8, never, max_rounds=5, is_dynamic=False)
    assert result.rounds == 1 and all(result.kept) and result.groups_kept == 4


PENALTY = GRPOConfig(cut_turn="penalty")
"""The main job's objective: a cut turn is charged on its own sample, so the warm model's first
steps have samples even where few groups differ."""


def _trainer(model_dir: str, envs, rollout: RolloutConfig, seed: int = 0) -> GRPOTrainer:
    model, tok = load_model_and_tokenizer(model_dir, "cpu")
    policy = HFPolicy(model, tok, CHAT, SAMPLING)
    setup = GRPOSetup(rollout, PENALTY, OptimConfig(lr=1e-3), T, seed)
    return GRPOTrainer(model, tok, envs, policy, setup)


def _params(model) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in model.named_parameters()}


def test_dynamic_sampling_off_update_equals_the_single_round_step(warm_model, envs8):
    """Option off, and option on with one round: the update the step made before dynamic
    sampling existed (one draw, its groups, their samples), parameter for parameter."""
    seed = 4
    # the step as it was: draw round 0, sample with the step's seed, train on its groups
    old = _trainer(warm_model, envs8, ROLLOUT, seed)
    old.policy.set_seed(seed * 1_000_003 + 0)
    trajs = collect_episodes(envs8, old.policy, step_specs(old.tasks, ROLLOUT, seed, 0))
    built = step_samples(trajs, old.setup.grpo)
    assert built.samples, "the warm model's first step should have samples"
    grpo_update(old.train_module, old.optimizer, built.samples, old.setup.grpo, old.setup.optim,
                T, old.pad_id, lr=old.setup.optim.lr)
    expected = _params(old.model)
    for rollout in (ROLLOUT, RolloutConfig(groups_per_step=4, group_size=2, max_turns=4,
                                           dynamic_sampling=True, max_sampling_rounds=1)):
        new = _trainer(warm_model, envs8, rollout, seed)
        metrics = new.step()
        assert metrics[M.ROUNDS] == 1
        got = _params(new.model)
        for name, value in expected.items():
            torch.testing.assert_close(got[name], value, rtol=0, atol=0, msg=name)


def test_dynamic_sampling_trainer_trains_only_kept_groups(warm_model, envs8):
    rollout = RolloutConfig(groups_per_step=4, group_size=2, max_turns=4, dynamic_sampling=True,
                            max_sampling_rounds=3)
    trainer = _trainer(warm_model, envs8, rollout, seed=1)
    metrics = trainer.step()
    out = trainer.last_rollouts
    assert 1 <= metrics[M.ROUNDS] == out.rounds <= 3
    assert metrics[M.EPISODES_SAMPLED] == out.rounds * 8 == len(trainer.last_trajectories)
    assert metrics[M.GROUPS_KEPT] == out.groups_kept <= 4
    assert metrics[M.GROUPS_KEPT] + metrics[M.GROUPS_DISCARDED] == out.rounds * 4
    assert metrics[M.GROUPS_SHORT] == 4 - out.groups_kept
    assert 0.0 <= metrics[M.DISCARDED_TIME_FRAC] <= 1.0
    kept_prompts = {t.generation.prompt_ids for tr in out.kept_trajectories for t in tr.turns}
    assert trainer.last_samples
    assert all(s.prompt_ids in kept_prompts for s in trainer.last_samples)


def test_dynamic_sampling_two_gloo_ranks_draw_the_same_rounds(tmp_path: Path):
    done = torchrun_two_ranks(Path(__file__).with_name("dynamic_sampling_worker.py"),
                              str(tmp_path))
    assert done.returncode == 0, done.stderr[-4000:]
    ranks = [json.loads((tmp_path / f"rank{r}.json").read_text()) for r in (0, 1)]
    assert ranks[0]["rounds"] == ranks[1]["rounds"] > 1
    assert ranks[0]["seen"] == ranks[1]["seen"]  # every rank saw every rank's groups
    assert ranks[0]["groups_kept"] == ranks[1]["groups_kept"] == 4
    assert not set(ranks[0]["kept"]) & set(ranks[1]["kept"])  # a group lives on one rank
    signal = [g for rnd in ranks[0]["seen"] for g, has in rnd if has]
    assert sorted(ranks[0]["kept"] + ranks[1]["kept"]) == sorted(signal)[:4]
