"""Registering world sets as Gymnasium ids, and gym.make / gym.make_vec on them."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import gymnasium as gym
import pytest

import awm_gym
from awm_gym import EnvUsageError, UnknownWorldError, WorldSetFormatError
from awm_gym.envs.env import AWMEnv
from awm_gym.envs.vector_env import AWMVectorEnv

LIST_TOOLS = '<tool_call>{"name": "list_tools", "arguments": {}}</tool_call>'


def test_register_worlds_returns_the_ids(tiny_ids: list[str], tiny_path: str) -> None:
    assert tiny_ids == ["AWM/defect_lab-v0", "AWM/judge_only-v0", "AWM/notes_app-v0"]
    for gid in tiny_ids:
        spec = gym.registry[gid]
        assert spec.entry_point == "awm_gym.envs.env:AWMEnv"
        assert spec.vector_entry_point == "awm_gym.envs.vector_env:AWMVectorEnv"
        assert spec.kwargs["world_set"] == os.path.realpath(tiny_path)
        assert spec.kwargs["worlds"] == [gid.split("/")[1][:-3]]
    # registering again replaces the ids without complaint
    assert awm_gym.register_worlds(tiny_path, isolation="none") == tiny_ids


def test_register_under_another_namespace(tiny_path: str) -> None:
    ids = awm_gym.register_worlds(tiny_path, namespace="TinyTest")
    try:
        assert ids == ["TinyTest/defect_lab-v0", "TinyTest/judge_only-v0",
                       "TinyTest/notes_app-v0"]
        env = gym.make("TinyTest/judge_only-v0")
        obs, info = env.reset(seed=0)
        assert info["world"] == "judge_only"
        env.close()
    finally:
        for gid in ids:
            del gym.registry[gid]


def test_register_a_directory_that_is_not_a_world_set(tmp_path: Path) -> None:
    with pytest.raises(WorldSetFormatError, match=re.escape("lacks gen_tasks.jsonl, gen_db.jsonl, "
                                                            "gen_envs.jsonl")):
        awm_gym.register_worlds(tmp_path)
    with pytest.raises(WorldSetFormatError, match="does not exist"):
        awm_gym.register_worlds(tmp_path / "missing")


def test_gym_make_gives_a_single_text_env(tiny_ids: list[str], tiny_set: awm_gym.WorldSet) -> None:
    env = gym.make("AWM/notes_app-v0")
    try:
        assert isinstance(env.unwrapped, AWMEnv)
        obs, info = env.reset(seed=3)
        assert obs in tiny_set["notes_app"].tasks
        assert info == {"world": "notes_app", "task_idx": tiny_set["notes_app"].tasks.index(obs),
                        "seed": 3}
        obs, reward, terminated, truncated, info = env.step(LIST_TOOLS)
        assert obs.startswith("Available MCP Tools (7 tools):")
        assert (reward, terminated, truncated, info["action_kind"]) == (0.0, False, False,
                                                                        "list_tools")
        assert env.unwrapped.tools_text == obs
    finally:
        env.close()


def test_gym_make_vec_gives_our_batched_env(tiny_ids: list[str]) -> None:
    envs = gym.make_vec("AWM/judge_only-v0", num_envs=3)
    try:
        assert isinstance(envs, AWMVectorEnv) and envs.num_envs == 3
        obs, info = envs.reset(seed=0)
        assert len(obs) == 3 and info["world"].tolist() == ["judge_only"] * 3
    finally:
        envs.close()


def test_make_vec_passes_config_kwargs(tiny_ids: list[str]) -> None:
    envs = gym.make_vec("AWM/notes_app-v0", num_envs=2, max_episode_steps=2,
                        verifier_timeout_s=3.0, max_text_length=5000, clock="2030-06-01 00:00:00")
    try:
        cfg = envs.config
        assert (cfg.max_episode_steps, cfg.verifier_timeout_s, cfg.max_text_length, cfg.clock) == (
            2, 3.0, 5000, "2030-06-01 00:00:00")
        assert envs.single_observation_space.max_length == 5000
        envs.reset(seed=0)
        envs.step([LIST_TOOLS] * 2)
        _, reward, terminated, truncated, _ = envs.step([LIST_TOOLS] * 2)
        assert truncated.all() and not terminated.any() and reward.tolist() == [0.0, 0.0]
        # the clock option reaches the world's code: a new note is stamped with it (one step,
        # 1 s, after the base time: the clock advances before each tool call)
        envs.reset(seed=0)
        obs, *_ = envs.step(['<tool_call>{"name": "create_note", "arguments": {"notebook_id": 1, '
                             '"title": "t"}}</tool_call>'] * 2)
        assert json.loads(obs[0])["created_at"] == "2030-06-01T00:00:01"
    finally:
        envs.close()


def test_gym_make_passes_config_kwargs(tiny_ids: list[str]) -> None:
    env = gym.make("AWM/notes_app-v0", verifier_mode="sql", verifier_workers=1)
    try:
        assert env.unwrapped.config.verifier_mode == "sql"
        env.reset(seed=0, options={"task_idx": 0})
        _, reward, terminated, _, info = env.step("Budget review")
        # task 0 of notes_app has a sql-mode verifier too; in sql mode it awaits a judge
        assert (info["verifier_label"], info["reward_valid"], terminated) == (
            "awaiting_judge", False, True)
    finally:
        env.close()


@pytest.mark.parametrize("make", ["make", "make_vec"])
def test_unknown_kwargs_are_rejected_naming_the_valid_options(tiny_ids: list[str],
                                                              make: str) -> None:
    kwargs = {"num_envs": 2} if make == "make_vec" else {}
    with pytest.raises(EnvUsageError) as raised:
        getattr(gym, make)("AWM/notes_app-v0", max_steps=5, **kwargs)
    message = str(raised.value)
    assert "unexpected keyword argument 'max_steps'" in message
    assert "Valid options are the fields of awm_gym.EnvConfig: max_episode_steps, tool_timeout_s" \
        in message
    assert "verifier_timeout_s" in message and "max_text_length" in message


def test_invalid_config_values_are_rejected(tiny_ids: list[str]) -> None:
    with pytest.raises(ValueError, match=re.escape("EnvConfig.verifier_mode='both': choose one of "
                                                   "'auto', 'code', 'sql'.")):
        gym.make_vec("AWM/notes_app-v0", num_envs=1, verifier_mode="both")
    with pytest.raises(ValueError, match=re.escape("EnvConfig.tool_timeout_s=0: must be > 0")):
        gym.make_vec("AWM/notes_app-v0", num_envs=1, tool_timeout_s=0)


def test_unknown_world_name_suggests_the_close_one(tiny_path: str) -> None:
    with pytest.raises(UnknownWorldError, match=re.escape("No world 'notes_ap' in ")) as raised:
        AWMVectorEnv(num_envs=1, world_set=tiny_path, worlds=["notes_app", "notes_ap"])
    assert str(raised.value).endswith("Did you mean 'notes_app'?")
    with pytest.raises(UnknownWorldError, match=re.escape("(or `awm list`) lists the 3 world(s)")):
        AWMEnv(world_set=tiny_path, worlds=["zzzz"])
    with pytest.raises(UnknownWorldError, match=re.escape("No worlds selected from")):
        AWMVectorEnv(num_envs=1, world_set=tiny_path, worlds=[])


def test_unknown_world_through_make_vec(tiny_ids: list[str], tiny_path: str) -> None:
    with pytest.raises(UnknownWorldError, match=re.escape("Did you mean 'judge_only'?")):
        gym.make_vec("AWM/notes_app-v0", num_envs=1, worlds=["judge_onyl"])


def test_display_names_are_normalized(tiny_path: str) -> None:
    env = AWMEnv(world_set=tiny_path, worlds=["Notes App"])
    try:
        assert env.reset(seed=0)[1]["world"] == "notes_app"
    finally:
        env.close()


def test_mix_id_exists_and_spreads_instances_over_worlds(spotify_id: str, tiny_path: str) -> None:
    assert "AWM/mix-v0" in gym.registry
    assert gym.registry["AWM/mix-v0"].vector_entry_point == "awm_gym.envs.vector_env:AWMVectorEnv"
    # by default over every built-in world
    envs = gym.make_vec("AWM/mix-v0", num_envs=2)
    try:
        assert set(envs.runtime.worlds) == set(awm_gym.get_world_set(None).names())
    finally:
        envs.close()
    # pointed at another world set and a choice of its worlds
    envs = gym.make_vec("AWM/mix-v0", num_envs=4, world_set=tiny_path,
                        worlds=["notes_app", "judge_only"])
    try:
        assert repr(envs) == "AWMVectorEnv(mix of 2 worlds, num_envs=4)"
        _, info = envs.reset(seed=0, options={"world": ["notes_app", "judge_only"] * 2})
        assert info["world"].tolist() == ["notes_app", "judge_only"] * 2
    finally:
        envs.close()


def test_builtin_world_is_registered_at_import(spotify_id: str) -> None:
    spec = gym.registry[spotify_id]
    assert spec.kwargs == {"world_set": os.path.realpath(awm_gym.BUILTIN_WORLDS_DIR),
                           "worlds": ["spotify"]}
    env = gym.make(spotify_id)
    try:
        obs, info = env.reset(seed=0)
        assert info["world"] == "spotify" and obs in awm_gym.get_world_set(None)["spotify"].tasks
    finally:
        env.close()
