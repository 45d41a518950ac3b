"""Training rollouts recorded: ``awm train``'s GRPO steps written to ``<run>/rollouts``.

A short GRPO run of the warm-started tiny model (``run_grpo``, the stage ``awm train`` runs)
records every step; the dataset read back with ``datasets.load_dataset`` must hold, token for
token, the samples the update was given (prompt and completion ids, sampler log-probs,
advantages) and mark exactly those turns in its loss mask; ``awm rescore`` must replay its
episodes and find them unchanged. ``World.record_dataset`` with an LLM policy must keep each
step's token ids and log-probabilities.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
datasets = pytest.importorskip("datasets")

import awm_gym  # noqa: E402
import agents.grpo.train as train_module  # noqa: E402
from agents.config import RunConfig, TrainConfig  # noqa: E402
from agents.grpo.config import GRPOConfig, OptimConfig, RolloutConfig  # noqa: E402
from agents.grpo.rollout_recorder import ROLLOUTS_DIR  # noqa: E402
from agents.parallel import DistInfo  # noqa: E402
from agents.policies.hf_policy import HFPolicy, load_model_and_tokenizer  # noqa: E402
from agents.stages.data import make_envs  # noqa: E402
from agents.stages.training import run_grpo  # noqa: E402
from awm_gym.manager.rescore import rescore_dataset  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from test_grpo import CHAT, SAMPLING, warm_model  # noqa: E402,F401 - fixture


class _Sink:
    def log(self, metrics, step):
        pass

    def close(self):
        pass


def _key(prompt_ids, completion_ids, advantage, logprobs):
    return (tuple(prompt_ids), tuple(completion_ids), round(float(advantage), 9),
            tuple(round(float(x), 5) for x in logprobs))


def test_rollout_dataset_holds_what_the_update_trained_and_rescores(warm_model, tmp_path,
                                                                    monkeypatch):
    cfg = TrainConfig(run=RunConfig(out_dir=str(tmp_path), seed=0), chat=CHAT, sampling=SAMPLING,
                      rollout=RolloutConfig(worlds=("spotify",), groups_per_step=4,
                                            group_size=2, max_turns=4, backend="hf"),
                      grpo=GRPOConfig(steps=2, cut_turn="penalty"), optim=OptimConfig(lr=1e-3))
    assert cfg.run.record_rollouts and TrainConfig().run.record_rollouts  # on in the main job
    updates: list[list] = []
    real_update = train_module.grpo_update

    def spy(module, optimizer, samples, *args, **kwargs):
        updates.append(list(samples))
        return real_update(module, optimizer, samples, *args, **kwargs)

    monkeypatch.setattr(train_module, "grpo_update", spy)
    model, tok = load_model_and_tokenizer(warm_model, "cpu")
    envs = make_envs(cfg.rollout, cfg.rollout.episodes_per_step)
    try:
        policy = HFPolicy(model, tok, CHAT, SAMPLING)
        trainer = run_grpo(cfg, tmp_path, DistInfo(), None, model, tok, envs, policy,
                           warm_model, _Sink(), lambda step: None, {})
    finally:
        envs.close()
    assert len(updates) == 2 and trainer.last_samples == updates[-1]

    path = tmp_path / ROLLOUTS_DIR
    ds = datasets.load_dataset(str(path), split="train")
    rows = sorted(ds.to_list(), key=lambda r: (r["episode_idx"], r["step_idx"]))
    assert {r["step"] for r in rows} == {1, 2}
    assert len({r["episode_idx"] for r in rows}) == 2 * cfg.rollout.episodes_per_step
    assert all(r["kept"] for r in rows)  # one round, every group kept
    for step, samples in enumerate(updates, start=1):
        trained = [r for r in rows if r["step"] == step and r["trained"]]
        # the recorded trained turns are the update's samples, in order, token for token
        assert [_key(r["prompt_ids"], r["completion_ids"], r["sample_advantage"],
                     r["sampler_logprobs"]) for r in trained] == \
            [_key(s.prompt_ids, s.completion_ids, s.advantage, s.sampler_logprobs)
             for s in samples]
    turns = [r for r in rows if r["completion_ids"] is not None]
    assert any(r["trained"] for r in turns)
    for r in turns:
        assert r["loss_mask"] == [int(r["trained"])] * len(r["completion_ids"])
        assert len(r["sampler_logprobs"]) == len(r["completion_ids"]) and r["prompt_ids"]
        if r["trained"] and r["finish_reason"] != "length":
            assert r["sample_advantage"] == pytest.approx(r["advantage"])
    for r in rows:
        if not r["trainable"]:  # a kept trajectory that does not train has no advantage
            assert r["advantage"] == 0.0
        if r["truncation"] in ("length", "context"):  # the cut turn never reached the env
            last = max(q["step_idx"] for q in rows if q["episode_idx"] == r["episode_idx"])
            if r["step_idx"] == last:
                assert r["action"] is None and r["completion_ids"] is not None

    # awm rescore reads the dataset and replays it: every episode with an action is unchanged
    result = rescore_dataset(path, num_envs=2)
    with_actions = {r["episode_idx"] for r in rows if r["action"] is not None}
    assert result.counts["same"] == len(with_actions), [
        (e.episode.name, e.status, e.detail) for e in result.episodes if e.status != "same"]
    assert result.counts["changed"] == result.counts["diverged"] == 0
    rescored = datasets.load_dataset(str(result.out), split="train")
    assert set(rescored["rescore_status"]) <= {"same", "unreplayable"}


def test_rollout_dataset_world_record_keeps_an_llm_policys_token_ids(warm_model, tmp_path):
    model, tok = load_model_and_tokenizer(warm_model, "cpu")
    policy = HFPolicy(model, tok, CHAT, SAMPLING)
    sampled: list[tuple] = []
    get_action = policy.get_action

    def spy(infos):
        actions = get_action(infos)
        sampled.extend((g.prompt_ids, g.completion_ids, g.logprobs)
                       for g in policy.last_generations if g is not None)
        return actions

    policy.get_action = spy
    world = awm_gym.World("AWM/spotify-v0", num_envs=2, max_episode_steps=3, verbose=0)
    try:
        world.set_policy(policy)
        path = world.record_dataset("llm", episodes=3, seed=0, cache_dir=tmp_path)
    finally:
        world.close()
    ds = datasets.load_dataset(str(path), split="train")
    acted = [r for r in ds if r["action"] is not None]
    assert acted and all(r["completion_ids"] for r in acted)
    recorded = [(tuple(r["prompt_ids"]), tuple(r["completion_ids"]),
                 tuple(pytest.approx(x, abs=1e-6) for x in r["sampler_logprobs"]))
                for r in acted]
    assert len(recorded) == len(sampled)
    assert {r[:2] for r in recorded} == {s[:2] for s in sampled}
    for prompt, completion, logprobs in recorded:
        match = next(s for s in sampled if s[0] == prompt and s[1] == completion)
        assert tuple(match[2]) == logprobs
    assert all(r["completion_ids"] is None for r in ds if r["action"] is None)


def test_rollout_dataset_oracle_recording_has_no_token_columns(tmp_path):
    from agents.policies import OraclePolicy

    world = awm_gym.World("AWM/spotify-v0", num_envs=2, verbose=0)
    try:
        world.set_policy(OraclePolicy())
        path = world.record_dataset("oracle", episodes=2, seed=0, cache_dir=tmp_path)
    finally:
        world.close()
    names = datasets.load_dataset(str(path), split="train").column_names
    assert "completion_ids" not in names and "prompt_ids" not in names
