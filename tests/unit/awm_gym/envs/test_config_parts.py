"""EnvConfig is built flat (as ``make_vec`` takes it) and nests the parts components read."""

from __future__ import annotations

import dataclasses
import pickle

import gymnasium as gym
import pytest

import awm_gym  # noqa: F401 - registers the worlds
from awm_gym.envs import EnvConfig, EpisodeConfig, ShardingConfig
from awm_gym.scoring import RewardConfig
from awm_gym.scoring.scorer import ScoringConfig


def test_flat_fields_build_the_nested_parts() -> None:
    config = EnvConfig(max_episode_steps=7, max_action_chars=500, unknown_tool="format_error",
                       num_workers=2, isolation="process", worker_memory_mb=None,
                       verifier_mode="code", verifier_workers=3)
    assert config.episode == EpisodeConfig(max_episode_steps=7, max_action_chars=500,
                                           unknown_tool="format_error")
    assert config.sharding == ShardingConfig(num_workers=2, isolation="process",
                                             worker_memory_mb=None)
    assert isinstance(config.scoring, ScoringConfig) and config.scoring.verifier_workers == 3
    assert config.scoring.rewards is config.rewards


def test_the_parts_follow_replace_and_pickling() -> None:
    config = EnvConfig(max_episode_steps=7)
    assert config.episode.max_episode_steps == 7
    changed = dataclasses.replace(config, max_episode_steps=3, num_workers=1)
    assert changed.episode.max_episode_steps == 3 and changed.sharding.num_workers == 1
    back = pickle.loads(pickle.dumps(changed))
    assert back == changed and back.episode == changed.episode
    assert back.sharding == changed.sharding
    # the parts are views, not state: the instance holds its flat fields only (shards rebuild
    # a config from them)
    assert set(vars(back)) == {f.name for f in dataclasses.fields(EnvConfig)}
    assert EnvConfig(**vars(back)) == back


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"isolation": "docker"}, "EnvConfig.isolation='docker': choose one of 'auto', 'process', "
                              "'world', 'none'."),
    ({"unknown_tool": "ignore"}, "EnvConfig.unknown_tool='ignore': choose one of 'observe', "
                                 "'format_error'."),
    ({"backend": "slurm"}, "EnvConfig.backend='slurm': choose one of 'local', 'ray'."),
    ({"max_episode_steps": 0}, "EnvConfig.max_episode_steps=0: must be >= 1."),
    ({"tool_timeout_s": 0}, "EnvConfig.tool_timeout_s=0: must be > 0 seconds."),
    ({"import_timeout_s": -1}, "EnvConfig.import_timeout_s=-1: must be > 0 seconds."),
    ({"num_workers": -1}, "EnvConfig.num_workers=-1: use 'auto'"),
    ({"num_workers": "many"}, "EnvConfig.num_workers='many': use 'auto'"),
    ({"worker_memory_mb": 10}, "EnvConfig.worker_memory_mb=10: must be >= 256"),
    ({"ray_address": "auto"}, "EnvConfig.ray_address='auto' is only read with backend='ray'"),
    ({"verifier_workers": 0}, "EnvConfig.verifier_workers=0: must be >= 1."),
    ({"verifier_timeout_s": 0}, "EnvConfig.verifier_timeout_s=0: must be > 0 seconds."),
])
def test_errors_name_the_flat_field_and_the_fix(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError) as e:
        EnvConfig(**kwargs)
    assert str(e.value).startswith(message)


def test_make_vec_takes_the_flat_keywords() -> None:
    envs = gym.make_vec("AWM/spotify-v0", num_envs=2, max_episode_steps=4, isolation="none",
                        num_workers=0, rewards=RewardConfig(truncated=-0.5))
    try:
        assert envs.runtime.episode.max_episode_steps == 4
        assert envs.config.sharding.isolation == "none"
        envs.reset(seed=0)
        listing = '<tool_call>{"name": "list_tools", "arguments": {}}</tool_call>'
        for _ in range(3):
            _, rewards, _, truncated, _ = envs.step([listing] * 2)
            assert not truncated.any() and rewards.tolist() == [0.0, 0.0]
        _, rewards, _, truncated, infos = envs.step([listing] * 2)
        assert truncated.all() and rewards.tolist() == [-0.5, -0.5]
        assert infos["reward_valid"].tolist() == [True, True]
    finally:
        envs.close()


def test_a_contained_runtime_gets_a_worker_per_32_instances_up_to_one_per_core():
    from awm_gym.envs.vector_env import contained_workers

    assert [contained_workers(n, cores=4) for n in (1, 32, 33, 100, 128, 129, 4096)] == \
        [1, 1, 2, 4, 4, 4, 4]
    assert contained_workers(10_000) >= 1  # the machine's own core count


def test_workers_per_rank_local_processes_is_checked():
    assert EnvConfig(local_processes=4).sharding.local_processes == 4
    with pytest.raises(ValueError, match="EnvConfig.local_processes=0: must be an int >= 1"):
        EnvConfig(local_processes=0)
