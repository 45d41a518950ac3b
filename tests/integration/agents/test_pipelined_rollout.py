"""The pipelined rollout (``collect_episodes(pipeline=True)``) on real spotify instances.

Two guarantees: with a policy whose turns depend only on each instance's own conversation, the
pipelined schedule gives exactly the plain loop's trajectories (every observation reaches its
own instance, the cut and finished instances stop where they would); and with a seeded sampler,
the thread changes nothing: the pipelined rollout with the env stepping in a thread equals the
same schedule run without one, token for token.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from pathlib import Path

import gymnasium as gym
import pytest

import awm_gym  # noqa: F401 - registers the ids
from agents.chat_format import ChatFormatConfig
from agents.grpo.rollout import (
    EpisodeSpec,
    RolloutTimings,
    Trajectory,
    _collect_pipelined,
    _Run,
    collect_episodes,
)
from agents.policies.chat_policy import ChatPolicy
from agents.policies.sampling import Generation, SamplingConfig

CALL = '<tool_call>\n{"name": "list_followed_artists", "arguments": {}}\n</tool_call>'


class _ConversationBackend:
    """Answers from the conversation alone (no randomness): the task's digest picks how many
    tool calls come before the final answer, and the answer quotes the last tool result's digest,
    so an observation delivered to the wrong instance changes the trajectory. Tasks whose digest
    ends in 0 are cut by the token limit on their second turn."""

    def generate(self, messages: Sequence[Sequence[Mapping[str, str]]],
                 prompt_ids: Sequence[Sequence[int] | None], seed: int | None,
                 sampling: SamplingConfig) -> list[Generation]:
        return [self._turn(m) for m in messages]

    @staticmethod
    def _turn(messages: Sequence[Mapping[str, str]]) -> Generation:
        def digest(text: str) -> int:
            return int(hashlib.sha256(text.encode()).hexdigest()[:8], 16)

        task = next(m["content"] for m in messages if m["role"] == "user")
        done = sum(m["role"] == "assistant" for m in messages)
        if digest(task) % 5 == 0 and done == 1:
            return Generation((), (), (), "length", "cut")
        if done < digest(task) % 3:
            return Generation((), (), (), "stop", CALL)
        last = messages[-1]["content"] if done else task
        return Generation((), (), (), "stop", f"answer {digest(last) % 1000}")

    def close(self) -> None:
        pass


def _policy() -> ChatPolicy:
    return ChatPolicy(_ConversationBackend(), ChatFormatConfig(history_turns=None,
                                                               catalogue="none"),
                      SamplingConfig(), name="conversation")


def _same(a: list[Trajectory], b: list[Trajectory]) -> None:
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        assert (x.spec, x.reward, x.success, x.truncation) == (y.spec, y.reward, y.success,
                                                                 y.truncation)
        assert [(t.action, t.observation, t.reward, t.generation)
                for t in x.turns] == [(t.action, t.observation, t.reward, t.generation)
                                      for t in y.turns]


@pytest.fixture
def envs9():
    envs = gym.make_vec("AWM/spotify-v0", num_envs=9, max_episode_steps=3)
    yield envs
    envs.close()


def test_pipelined_equals_plain_for_a_conversation_policy(envs9):
    specs = [EpisodeSpec("spotify", t, 10 + t, t) for t in range(9)]  # odd: unequal halves
    plain_timings, timings = RolloutTimings(), RolloutTimings()
    plain = collect_episodes(envs9, _policy(), specs, plain_timings)
    piped = collect_episodes(envs9, _policy(), specs, timings, pipeline=True)
    _same(plain, piped)
    assert timings.env_steps == plain_timings.env_steps
    turns = [t.num_turns for t in plain]
    assert len(set(turns)) > 1, "the halves should finish at different turns"
    assert {t.truncation for t in plain} >= {None, "length"}



@pytest.fixture(scope="module")
def warm_model(tmp_path_factory: pytest.TempPathFactory) -> str:
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from agents.config import ModelConfig, RunConfig, TrainConfig
    from agents.grpo.config import RolloutConfig
    from agents.pipeline import make_envs, prepare_start_model
    from agents.sft import SFTConfig
    from agents.tiny_model import TinyModelConfig

    torch.set_num_threads(1)
    cfg = TrainConfig(run=RunConfig(seed=0), model=ModelConfig(tiny=TinyModelConfig.small()),
                      chat=ChatFormatConfig(history_turns=2, catalogue="none",
                                            max_observation_chars=120),
                      rollout=RolloutConfig(worlds=("spotify",), env_id="AWM/mix-v0",
                                            max_turns=4),
                      sft=SFTConfig(epochs=24, lr=1e-2, batch_size=4))
    envs = make_envs(cfg.rollout, 1)
    try:
        return prepare_start_model(cfg, Path(tmp_path_factory.getbasetemp()) / "pipe_warm", envs)
    finally:
        envs.close()


def test_pipelined_sampling_does_not_depend_on_the_thread(warm_model):
    from agents.policies.hf_policy import HFPolicy, load_model_and_tokenizer

    model, tok = load_model_and_tokenizer(warm_model, "cpu")
    policy = HFPolicy(model, tok, ChatFormatConfig(history_turns=2, catalogue="none",
                                                   max_observation_chars=120),
                      SamplingConfig(temperature=0.7, max_new_tokens=48))
    specs = [EpisodeSpec("spotify", t, 7, t // 2) for t in (1, 1, 5, 5, 8, 8, 9, 9)]
    envs = gym.make_vec("AWM/spotify-v0", num_envs=8, max_episode_steps=4)
    try:
        runs = []
        for overlap in (True, False, True):
            policy.set_seed(3)
            run = _Run.start(envs, policy, specs, RolloutTimings())
            _collect_pipelined(run, overlap=overlap)
            runs.append(run.trajectories())
    finally:
        envs.close()
    _same(runs[0], runs[1])
    _same(runs[0], runs[2])
    assert max(t.num_turns for t in runs[0]) >= 2, "the warm model should take several turns"
