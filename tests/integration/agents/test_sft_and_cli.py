"""SFT on a dataset recorded with World.record_dataset, HFPolicy under the World, and the main
job (``awm train``) at toy size."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

import gymnasium as gym  # noqa: E402

import awm_gym  # noqa: E402,F401
from agents.chat_format import (  # noqa: E402
    ChatFormatConfig,
    ChatRenderer,
    EpisodeContext,
    Turn,
    build_messages,
    tool_listing,
)
from agents.policies.hf_policy import HFPolicy, load_model_and_tokenizer  # noqa: E402
from agents.policies.oracle import OraclePolicy, reference_plan  # noqa: E402
from awm_gym.worlds.splits import load_split, split_worlds  # noqa: E402

REPO = Path(__file__).resolve().parents[3]
from agents.policies.sampling import SamplingConfig  # noqa: E402
from agents.errors import AgentConfigError  # noqa: E402
from agents.sft import SFTConfig, run_sft, sft_examples  # noqa: E402
from agents.tiny_model import TinyModelConfig, build_tiny_model  # noqa: E402

CHAT = ChatFormatConfig(history_turns=2, catalogue="names", max_observation_chars=100)


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    torch.set_num_threads(1)
    return str(build_tiny_model(tmp_path_factory.getbasetemp() / "agents_tiny_model",
                                TinyModelConfig.small()))


@pytest.fixture(scope="module")
def oracle_dataset(tmp_path_factory):
    world = awm_gym.World("AWM/spotify-v0", num_envs=4, verbose=0)
    world.set_policy(OraclePolicy())
    path = world.record_dataset("oracle", episodes=4, seed=0,
                                cache_dir=tmp_path_factory.mktemp("datasets"),
                                options={"task_idx": [1, 3, 8, 9]})
    world.close()
    return str(path)


def test_sft_examples_keep_each_episodes_first_actions_when_capped(model_dir, oracle_dataset):
    _, tok = load_model_and_tokenizer(model_dir, "cpu")
    renderer = ChatRenderer(tok)
    envs = gym.make_vec("AWM/spotify-v0", num_envs=1)
    every = sft_examples(oracle_dataset, envs, CHAT, renderer)
    capped = sft_examples(oracle_dataset, envs, CHAT, renderer, max_per_episode=1)
    plans = [reference_plan(envs.runtime.world_set, "spotify", t) for t in (1, 3, 8, 9)]
    assert len(capped) == 4 and all(len(p) > 1 for p in plans)
    # each kept example is its episode's first action, rendered as without the cap
    starts = [sum(len(p) for p in plans[:k]) for k in range(4)]
    assert capped == [every[k] for k in starts]
    with pytest.raises(AgentConfigError, match="max_examples_per_episode"):
        SFTConfig(max_examples_per_episode=0)
    envs.close()


def test_sft_examples_are_the_policy_prompts_plus_actions(model_dir, oracle_dataset):
    _, tok = load_model_and_tokenizer(model_dir, "cpu")
    renderer = ChatRenderer(tok)
    envs = gym.make_vec("AWM/spotify-v0", num_envs=1)
    examples = sft_examples(oracle_dataset, envs, CHAT, renderer)
    plans = [reference_plan(envs.runtime.world_set, "spotify", t) for t in (1, 3, 8, 9)]
    assert len(examples) == sum(len(p) for p in plans)
    # replay task 9: example k must be the prompt a policy renders after k oracle turns
    tools, text = tool_listing(envs, "spotify")
    obs, _ = envs.reset(seed=0, options={"task_idx": 9})
    ctx = EpisodeContext.create(CHAT, obs[0], tools, text)
    history: list[Turn] = []
    for example, action in zip(examples[-len(plans[3]):], plans[3], strict=True):
        assert list(example.prompt_ids) == renderer.prompt_ids(build_messages(ctx, history, CHAT))
        assert list(example.completion_ids) == renderer.completion_ids(action)
        assert example.completion_ids[-1] == tok.eos_token_id
        obs, *_ = envs.step([action])
        history.append(Turn(action, obs[0]))
    envs.close()


def test_sft_lowers_the_loss_on_assistant_tokens(model_dir, oracle_dataset):
    model, tok = load_model_and_tokenizer(model_dir, "cpu")
    envs = gym.make_vec("AWM/spotify-v0", num_envs=1)
    examples = sft_examples(oracle_dataset, envs, CHAT, ChatRenderer(tok))
    envs.close()
    losses = []
    run_sft(model, examples, SFTConfig(epochs=4, lr=5e-3, batch_size=4), tok.pad_token_id,
            on_epoch=lambda e, m: losses.append(m["sft/loss"]))
    assert losses[-1] < losses[0] - 1.0


def test_hf_policy_under_the_world(model_dir):
    model, tok = load_model_and_tokenizer(model_dir, "cpu")
    world = awm_gym.World("AWM/spotify-v0", num_envs=3, max_episode_steps=2, verbose=0)
    world.set_policy(HFPolicy(model, tok, CHAT, SamplingConfig(max_new_tokens=16)))
    result = world.evaluate(episodes=4, seed=0)
    assert result["seeds"] == [0, 1, 2, 3] and len(result["episode_successes"]) == 4
    world.close()


def test_main_job_at_toy_size(tmp_path):
    out = tmp_path / "run"
    cmd = [sys.executable, "scripts/train.py", "--run.out-dir", str(out),
           "--run.torch-threads", "1", "--rollout.worlds", "spotify",
           "--rollout.groups-per-step", "2", "--rollout.group-size", "2",
           "--rollout.max-turns", "2", "--rollout.backend", "hf", "--grpo.steps", "2",
           "--sft.epochs", "1", "--eval.episodes-per-task", "1",
           "--eval.val-episodes-per-task", "1",
           "--sampling.max-new-tokens", "24", "--run.transcripts", "2",
           "--model.tiny.hidden-size", "64", "--model.tiny.num-heads", "2",
           "--model.tiny.num-kv-heads", "1", "--model.tiny.vocab-size", "1024",
           "--model.tiny.corpus-py-files", "20"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=REPO)
    assert done.returncode == 0, done.stderr[-3000:]
    text, _, last = done.stdout.rstrip().rpartition("\n")
    summary = json.loads(text)
    assert last.startswith("success before -> after GRPO, 95% Wilson intervals: train ")
    assert " | val_tasks " in last and " | val_worlds " in last and "significant (" in last
    assert 0.0 <= summary["success_before"] <= 1.0 and 0.0 <= summary["success_after"] <= 1.0
    # the default split (seed 0 of the built-ins) trains on 8 of spotify's 10 tasks and holds
    # out its other 2 and every task of 2 other worlds; each is evaluated before and after
    split = split_worlds(None, 0.2, 0.2, 0)
    assert load_split(out / "split.json") == split
    assert summary["eval_episodes"] == 8 and summary["grpo_steps"] == 2
    held = summary["held_out"]
    assert list(held) == ["val_tasks", "val_worlds"]
    assert held["val_tasks"]["episodes"] == 2 and held["val_worlds"]["episodes"] == 20
    assert {"success_before", "success_after"} <= set(held["val_worlds"])
    recipe = json.loads((out / "model_sft" / "warm_start.json").read_text())
    assert recipe["worlds"] == [["spotify", t] for t in split.train["spotify"]]  # SFT: train only
    rows = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in rows if "eval_val_worlds/success_rate" in r] == [0, 2]
    assert [r["step"] for r in rows if "rollout/reward_mean" in r] == [1, 2]
    for key in ("rollout/frac_zero_std_groups", "perf/env_steps_per_s", "time/generate_s",
                "time/sync_s", "loss/entropy", "rollout/trunc_length_turns"):
        assert key in rows[-2], key
    for name in ("reward.png", "summary.json", "config.json", "transcripts/index.html",
                 "model_final/config.json", "checkpoints/latest", "datasets/oracle"):
        assert (out / name).exists(), name
    assert "step 2/2" in done.stderr
