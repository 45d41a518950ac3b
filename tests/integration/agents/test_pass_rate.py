"""The pass-rate curriculum: each task's recent success decides how often it is drawn.

The tracker must follow its groups (EMA), weigh tasks in the learnable band above tasks always
or never solved without starving those, and, on the real spotify env with a policy whose
success depends on the task, give a run more groups with signal than the uniform draw. The
trainer writes the rates to its run folder (table, plot), its metrics and its checkpoints, and
a resumed run draws as the first would have.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

import gymnasium as gym  # noqa: E402

import awm_gym  # noqa: E402,F401
from agents.errors import AgentConfigError  # noqa: E402
from agents.grpo import metrics as M  # noqa: E402
from agents.grpo.checkpoint import latest_checkpoint, read_trainer_state  # noqa: E402
from agents.grpo.config import GRPOConfig, OptimConfig, RolloutConfig  # noqa: E402
from agents.grpo.curriculum import (  # noqa: E402
    PASS_RATE_FILE,
    GroupOutcome,
    PassRates,
    TaskSampling,
    load_pass_rates,
)
from agents.grpo.dynamic_sampling import collect_step_rollouts  # noqa: E402
from agents.grpo.rollout import list_tasks  # noqa: E402
from agents.grpo.train import GRPOSetup, GRPOTrainer, step_specs  # noqa: E402
from agents.policies.hf_policy import HFPolicy, load_model_and_tokenizer  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from coin_policy import CoinPolicy  # noqa: E402
from test_grpo import CHAT, SAMPLING, T, warm_model  # noqa: E402,F401 - fixture

W = "spotify"


def test_pass_rate_tracker_follows_each_group_as_a_moving_average():
    rates = PassRates(ema=0.25)
    rates.update([GroupOutcome(W, 0, 4, 4), GroupOutcome(W, 1, 0, 4), GroupOutcome(W, 2, 0, 0)],
                  step=0)
    assert rates.rate((W, 0)) == 1.0 and rates.rate((W, 1)) == 0.0
    assert rates.rate((W, 2)) is None  # a group with nothing scored says nothing
    rates.update([GroupOutcome(W, 1, 2, 4)], step=1)
    assert rates.rate((W, 1)) == pytest.approx(0.25 * 0.5)
    assert rates.groups == {(W, 0): 1, (W, 1): 2}
    assert rates.weight((W, 0), 0.05) == 0.05  # always solved: the floor
    assert rates.weight((W, 1), 0.05) == pytest.approx(4 * 0.125 * 0.875)
    assert rates.weight((W, 9), 0.05) == 1.0  # unseen: explored first
    again = PassRates.from_state(rates.state_dict())
    assert again == rates
    with pytest.raises(AgentConfigError, match="pass_rate_ema"):
        PassRates(ema=0.0)
    with pytest.raises(AgentConfigError, match="pass_rate_floor"):
        RolloutConfig(pass_rate_floor=0.0)
    with pytest.raises(AgentConfigError, match="uniform"):
        RolloutConfig(task_sampling="easiest")


def test_pass_rate_draw_prefers_the_learnable_band_and_starves_none():
    tasks = [(W, k) for k in range(6)]
    rates = PassRates()
    rates.update([GroupOutcome(W, 0, 4, 4), GroupOutcome(W, 1, 4, 4),  # always solved
                  GroupOutcome(W, 2, 0, 4), GroupOutcome(W, 3, 0, 4),  # never solved
                  GroupOutcome(W, 4, 2, 4)], step=0)  # in the band; task 5 unseen
    weights = [rates.weight(t, 0.05) for t in tasks]
    rollout = RolloutConfig(groups_per_step=2, group_size=2)
    drawn = Counter((s.world, s.task_idx) for step in range(2000)
                    for s in step_specs(tasks, rollout, 0, step, weights=weights)[::2])
    assert drawn[(W, 4)] > 5 * drawn[(W, 0)] and drawn[(W, 5)] > 5 * drawn[(W, 2)]
    assert min(drawn[t] for t in tasks) > 0  # never starved
    # uniform: every task about as often
    flat = Counter((s.world, s.task_idx) for step in range(2000)
                   for s in step_specs(tasks, rollout, 0, step)[::2])
    assert max(flat.values()) < 1.2 * min(flat.values())


def _run(envs, sampling: TaskSampling, steps: int) -> tuple[int, int, PassRates]:
    """``steps`` steps of drawing by ``sampling`` and rolling out, the tracker following;
    returns (groups with signal, groups sampled, the tracker)."""
    rollout = RolloutConfig(groups_per_step=2, group_size=4, max_turns=10, task_sampling=sampling)
    tasks = list_tasks(envs)
    # tasks 0-3 always solved, 4-6 never, 7-9 half the time
    policy = CoinPolicy({**{k: 1.0 for k in range(4)}, **{k: 0.0 for k in range(4, 7)},
                         **{k: 0.5 for k in range(7, 10)}})
    rates = PassRates(ema=0.5)
    signal = sampled = 0
    for step in range(steps):
        weights = [rates.weight(t, 0.05) for t in tasks] \
            if sampling is TaskSampling.PASS_RATE else None
        out = collect_step_rollouts(
            envs, policy, lambda r, s=step, w=weights: step_specs(tasks, rollout, 0, s, r, w),
            GRPOConfig(), needed=2, max_rounds=1, is_dynamic=False,
            seed_round=lambda r, s=step: policy.set_seed(s),
            on_round=lambda recs, s=step: rates.update((x.outcome for x in recs), s))
        signal += out.groups_with_signal
        sampled += out.groups_sampled
    return signal, sampled, rates


def test_pass_rate_sampling_gives_more_groups_with_signal_than_uniform():
    envs = gym.make_vec("AWM/spotify-v0", num_envs=8, max_episode_steps=10)  # every solution
    try:
        uniform, n_uniform, _ = _run(envs, TaskSampling.UNIFORM, 14)
        curriculum, n_curriculum, rates = _run(envs, TaskSampling.PASS_RATE, 14)
    finally:
        envs.close()
    assert n_uniform == n_curriculum == 28
    assert curriculum >= uniform + 4 and curriculum > n_curriculum / 2, (uniform, curriculum)
    assert all(rates.rate((W, k)) in (None, 1.0) for k in range(4))  # verifier's successes


def test_pass_rate_trainer_writes_table_plot_metrics_and_resumes(warm_model, tmp_path: Path):
    envs = gym.make_vec("AWM/spotify-v0", num_envs=4, max_episode_steps=4)
    rollout = RolloutConfig(groups_per_step=2, group_size=2, max_turns=4,
                            task_sampling="pass_rate")

    def trainer() -> GRPOTrainer:
        model, tok = load_model_and_tokenizer(warm_model, "cpu")
        setup = GRPOSetup(rollout, GRPOConfig(cut_turn="penalty"), OptimConfig(lr=1e-3), T, 0)
        return GRPOTrainer(model, tok, envs, HFPolicy(model, tok, CHAT, SAMPLING), setup)

    class Sink:
        rows: list[dict] = []

        def log(self, metrics, step):
            self.rows.append(dict(metrics))

        def close(self):
            pass

    try:
        first = trainer()
        first.train(2, Sink(), str(tmp_path))
        assert (tmp_path / "pass_rates.png").read_bytes()[:4] == b"\x89PNG"
        table = (tmp_path / "pass_rates.csv").read_text().splitlines()
        assert table[0] == "world,task_idx,groups,pass_rate,last_step"
        assert len(table) == 1 + len(first.tasks)
        assert sum(int(line.split(",")[2]) for line in table[1:]) == 4  # 2 steps x 2 groups
        row = Sink.rows[-1]
        assert row["curriculum/tasks_unseen"] <= len(first.tasks) - 2
        assert any(k.startswith(M.PASS_RATE_PREFIX) for k in row)
        ckpt = latest_checkpoint(tmp_path)
        assert ckpt is not None and (ckpt / PASS_RATE_FILE).exists()
        assert load_pass_rates(ckpt, 0.5) == first.pass_rates
        resumed = trainer()
        resumed.load_state(str(ckpt), read_trainer_state(ckpt).step)
        assert resumed.pass_rates == first.pass_rates
        # the next draw is the one the first run would have made
        assert resumed._draw(0) == first._draw(0)
    finally:
        envs.close()


def test_pass_rate_weighted_draw_is_seeded():
    tasks = [(W, k) for k in range(5)]
    rollout = RolloutConfig(groups_per_step=3, group_size=2)
    weights = [0.05, 1.0, 0.5, 0.2, 1.0]
    a = step_specs(tasks, rollout, 7, 3, 1, weights)
    assert a == step_specs(tasks, rollout, 7, 3, 1, weights)
    assert a != step_specs(tasks, rollout, 7, 3, 2, weights)
    assert len({(s.world, s.task_idx) for s in a}) == 3  # no task twice within a pass
