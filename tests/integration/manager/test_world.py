"""The World manager end to end on real worlds: bookkeeping, policies, evaluate, CLI.

Recording and transcripts have their own file (test_world_recording.py).
"""

from __future__ import annotations

import json
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import awm_gym
from agents.policies import BasePolicy, OraclePolicy, RandomPolicy
from awm_gym import World
from awm_gym import info_keys as K
from awm_gym.cli import main as awm_main
from awm_gym.errors import EnvUsageError

LIST_TOOLS = '<tool_call>{"name": "list_tools", "arguments": {}}</tool_call>'


def episode_length(seed: int, max_len: int) -> int:
    """How many list_tools calls LengthPolicy makes before answering, for an episode seed."""
    return (seed * 7919 + 13) % (max_len + 1)


class LengthPolicy(BasePolicy):
    """Calls list_tools a seed-determined number of times, then answers: random episode lengths,
    so episodes finish out of order. Also checks what a stateful policy is told."""

    name = "length"

    def __init__(self, max_len: int) -> None:
        super().__init__()
        self.max_len = max_len
        self.calls: dict[int, int] = {}
        self.restarts: list[int] = []  # episode seeds seen with episode_restarted

    def get_action(self, infos: dict[str, Any]) -> list[str | None]:
        actions: list[str | None] = []
        for i, active in enumerate(infos[K.ACTIVE]):
            if not active:
                actions.append(None)
                continue
            seed = int(infos[K.SEED][i])
            if infos[K.EPISODE_RESTARTED][i]:
                self.restarts.append(seed)
                self.calls[i] = 0
                assert infos[K.OBSERVATION][i] == infos[K.TASK][i]
            assert int(infos[K.EPISODE_IDX][i]) == seed - self.base_seed
            n = self.calls[i]
            self.calls[i] = n + 1
            actions.append(LIST_TOOLS if n < episode_length(seed, self.max_len) else f"done {seed}")
        return actions

    def set_seed(self, seed: int | None) -> None:
        self.base_seed = seed


@pytest.fixture(scope="module")
def notes_id(tiny_ids: list[str]) -> str:
    return "AWM/notes_app-v0"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(num_envs=st.integers(1, 6), episodes=st.integers(0, 14), seed=st.integers(0, 10_000),
       max_len=st.integers(0, 6), max_steps=st.integers(1, 5))
def test_evaluate_runs_each_seed_exactly_once(notes_id: str, num_envs: int, episodes: int,
                                              seed: int, max_len: int, max_steps: int) -> None:
    world = World(notes_id, num_envs=num_envs, max_episode_steps=max_steps, verbose=0)
    policy = LengthPolicy(max_len)
    world.set_policy(policy)
    try:
        result = world.evaluate(episodes=episodes, seed=seed,
                                eval_keys=["num_turns", "seed", "truncated"])
    finally:
        world.close()
    assert result["episodes"] == episodes
    assert result["seeds"] == list(range(seed, seed + episodes))
    assert result["seed"] == result["seeds"]  # the episode's own record agrees with its slot
    assert sorted(policy.restarts) == result["seeds"]  # each episode started exactly once
    expected = [min(episode_length(s, max_len) + 1, max_steps) for s in result["seeds"]]
    assert result["num_turns"] == expected
    assert result["truncated"] == [episode_length(s, max_len) + 1 > max_steps
                                   for s in result["seeds"]]
    assert len(result["episode_successes"]) == episodes


def test_oracle_scores_every_builtin_task() -> None:
    world_set = awm_gym.get_world_set()
    worlds = [w.name for w in world_set for _ in w.tasks]
    tasks = [t for w in world_set for t in range(len(w.tasks))]
    world = World("AWM/mix-v0", num_envs=16, verbose=0)
    world.set_policy(OraclePolicy())
    try:
        result = world.evaluate(episodes=len(tasks), seed=0, eval_keys=["verifier_label"],
                                options={"world": worlds, "task_idx": tasks})
    finally:
        world.close()
    assert result["task_idx"] == tasks and result["worlds"] == worlds
    assert result["verifier_label"] == ["complete"] * len(tasks)
    assert result["success_rate"] == 1.0 and result["mean_reward"] == 1.0
    assert set(result["per_world"]) == set(world_set.names())
    for stats in result["per_world"].values():
        assert stats["success_rate"] == 1.0


def test_random_policy_scores_what_it_should(spotify_id: str) -> None:
    world = World(spotify_id, num_envs=6, verbose=0, max_episode_steps=12)
    try:
        world.set_policy(RandomPolicy(seed=3))
        mixed = world.evaluate(episodes=30, seed=0, eval_keys=["format_error", "num_turns",
                                                                "verifier_label"])
        # no random answer completes a task; rewards are -1 (format error) or 0 (others / limit)
        assert mixed["success_rate"] == 0.0
        expected = [-1.0 if fe else 0.0 for fe in mixed["format_error"]]
        assert mixed["rewards"].tolist() == expected
        assert 0 < sum(mixed["format_error"]) < 30
        world.set_policy(RandomPolicy(seed=3, p_final=1.0, p_malformed=0.0))
        answers = world.evaluate(episodes=12, seed=0, eval_keys=["num_turns", "verifier_label"])
        assert answers["num_turns"] == [1] * 12
        assert answers["verifier_label"] == ["others"] * 12 and answers["mean_reward"] == 0.0
        world.set_policy(RandomPolicy(seed=3, p_final=0.0, p_malformed=1.0))
        broken = world.evaluate(episodes=12, seed=0, eval_keys=["format_error"])
        assert broken["format_error"] == [True] * 12 and broken["mean_reward"] == -1.0
    finally:
        world.close()
    # the same seeds give the same episodes whatever the number of instances
    solo = World(spotify_id, num_envs=1, verbose=0, max_episode_steps=12)
    solo.set_policy(RandomPolicy(seed=3))
    try:
        again = solo.evaluate(episodes=30, seed=0, eval_keys=["format_error", "num_turns",
                                                               "verifier_label"])
    finally:
        solo.close()
    assert again["num_turns"] == mixed["num_turns"]
    assert again["verifier_label"] == mixed["verifier_label"]


def test_random_policy_exercises_tool_errors(spotify_id: str) -> None:
    world = World(spotify_id, num_envs=8, verbose=0, max_episode_steps=10)
    world.set_policy(RandomPolicy(seed=1, p_final=0.05, p_malformed=0.0, p_invalid_args=0.5))
    outcomes: set[str] = set()
    try:
        world.reset(seed=0)
        while world.active.any():
            world.step()
            mask = world.infos.get("_" + K.TOOL_OUTCOME)
            if mask is not None:
                outcomes.update(world.infos[K.TOOL_OUTCOME][mask].tolist())
    finally:
        world.close()
    assert {"ok", "input_invalid"} <= outcomes


def test_mix_reports_per_world(tiny_ids: list[str]) -> None:
    world = World(["AWM/notes_app-v0", "AWM/judge_only-v0"], num_envs=4, verbose=0)
    world.set_policy(OraclePolicy())
    try:
        result = world.evaluate(episodes=20, seed=0)
    finally:
        world.close()
    assert set(result["per_world"]) == {"notes_app", "judge_only"}
    assert sum(s["episodes"] for s in result["per_world"].values()) == 20
    assert result["per_world"]["notes_app"]["success_rate"] == 1.0
    # judge_only has sql verifiers only: never scored as success, counted as unscored
    judged = result["per_world"]["judge_only"]["episodes"]
    assert result["per_world"]["judge_only"]["success_rate"] == 0.0
    assert result["unscored"] == judged


def test_step_and_policy_infos(notes_id: str) -> None:
    seen: list[dict[str, Any]] = []

    class Spy(BasePolicy):
        name = "spy"

        def get_action(self, infos: dict[str, Any]) -> list[str | None]:
            seen.append({k: (v.copy() if isinstance(v, np.ndarray) else v)
                         for k, v in infos.items()})
            return [LIST_TOOLS if a else None for a in infos[K.ACTIVE]]

    world = World(notes_id, num_envs=3, seed=5, max_episode_steps=2, verbose=0)
    with pytest.raises(EnvUsageError, match="needs a policy"):
        world.step()
    world.set_policy(Spy())
    world.reset()
    world.step()
    assert seen[0][K.EPISODE_RESTARTED].tolist() == [True] * 3
    assert seen[0][K.SEED].tolist() == [5, 6, 7]
    assert all(seen[0][K.OBSERVATION][i] == seen[0][K.TASK][i] for i in range(3))
    assert world.rewards.tolist() == [0.0] * 3 and not world.truncateds.any()
    world.step()  # the second step hits the limit
    assert seen[1][K.EPISODE_RESTARTED].tolist() == [False] * 3
    assert world.truncateds.all() and not world.active.any()
    with pytest.raises(EnvUsageError, match="no instance is mid-episode"):
        world.step()
    world.reset(seed=0, options={"reset_mask": np.array([False, True, False])})
    assert world.active.tolist() == [False, True, False]
    world.step()
    assert seen[-1][K.ACTIVE].tolist() == [False, True, False]
    assert seen[-1][K.EPISODE_RESTARTED].tolist() == [False, True, False]
    world.close()


@pytest.mark.parametrize(("policy", "message"), [
    (object(), "lacks get_action, set_env, set_seed"),
])
def test_set_policy_checks_the_protocol(notes_id: str, policy: Any, message: str) -> None:
    world = World(notes_id, num_envs=1, verbose=0)
    try:
        with pytest.raises(EnvUsageError, match=message):
            world.set_policy(policy)
    finally:
        world.close()


def test_bad_policy_output_is_a_clear_error(notes_id: str) -> None:
    class Short(BasePolicy):
        def get_action(self, infos: dict[str, Any]) -> list[str | None]:
            return ["x"]

    class NotText(BasePolicy):
        def get_action(self, infos: dict[str, Any]) -> list[Any]:
            return [None, None]

    world = World(notes_id, num_envs=2, verbose=0)
    try:
        world.set_policy(Short())
        with pytest.raises(EnvUsageError, match=r"one entry per instance \(2\)"):
            world.evaluate(episodes=2)
        world.set_policy(NotText())
        with pytest.raises(EnvUsageError, match="NoneType for active instance 0"):
            world.evaluate(episodes=2)
    finally:
        world.close()


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"episodes": -1}, "episodes=-1"),
    ({"episodes": 3, "options": {"task_idx": [0, 1]}}, r"options\['task_idx'\] has 2 entries for 3"),
    ({"episodes": 1, "options": {"reset_mask": np.ones(2, dtype=bool)}}, "reset_mask"),
    ({"episodes": 1, "seed": "x"}, "seed='x'"),
])
def test_evaluate_rejects_bad_arguments(notes_id: str, kwargs: dict[str, Any],
                                        message: str) -> None:
    world = World(notes_id, num_envs=2, verbose=0)
    world.set_policy(OraclePolicy())
    try:
        with pytest.raises(EnvUsageError, match=message):
            world.evaluate(**kwargs)
    finally:
        world.close()


def test_env_name_list_errors(notes_id: str) -> None:
    with pytest.raises(EnvUsageError, match="empty list"):
        World([], num_envs=1)
    with pytest.raises(EnvUsageError, match="not a registered id"):
        World(["AWM/nope-v0"], num_envs=1)
    with pytest.raises(EnvUsageError, match="different world sets"):
        World([notes_id, "AWM/spotify-v0"], num_envs=1)
    assert "AWM/mix-v0" in gym.registry


def test_cli_eval_json(notes_id: str, tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "result.json"
    code = awm_main(["eval", notes_id, "--episodes", "6", "--num-envs", "2", "--quiet",
                     "--json", str(out)])
    assert code == 0
    printed = capsys.readouterr().out
    assert "6 episodes (seeds 0..5) | success 1.000" in printed
    data = json.loads(out.read_text())
    assert data["seeds"] == list(range(6)) and data["episode_successes"] == [True] * 6


def test_cli_policy_errors(notes_id: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert awm_main(["eval", notes_id, "--policy", "nonsense"]) == 2
    assert capsys.readouterr().err == ("awm eval: error: --policy 'nonsense': use one of oracle, "
                                       "random or 'module:Class'.\n")
    assert awm_main(["eval", notes_id, "--policy", "agents.policies:Missing"]) == 2
    assert "cannot load" in capsys.readouterr().err


@pytest.mark.parametrize("verbose", [0, 1])
def test_progress_bar_follows_verbose(notes_id: str, verbose: int,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    world = World(notes_id, num_envs=2, verbose=verbose)
    world.set_policy(OraclePolicy())
    try:
        world.evaluate(episodes=4, seed=0)
    finally:
        world.close()
    err = capsys.readouterr().err
    assert ("evaluate" in err) if verbose else err == ""
