"""How many shard workers an env starts: ``num_workers="auto"`` (the default), 0 and k, for
trusted and contained code, and how the settings that carry it read a command line's text."""

from __future__ import annotations

import pytest

from agents.errors import AgentConfigError
from agents.grpo.config import RolloutConfig
from awm_gym.cli_options import RunOptions
from awm_gym.envs.config import EnvConfig, ShardingConfig, coerce_workers
from awm_gym.envs.vector_env import (INSTANCES_PER_TRUSTED_WORKER, contained_workers,
                                     shard_count, trusted_workers)
from awm_gym.errors import CommandLineError


@pytest.mark.parametrize(("instances", "cores", "expected"), [
    (1, 2, 0), (64, 2, 0), (127, 2, 0), (128, 2, 2), (1024, 2, 2),
    (1024, 1, 0),              # one core: a shard worker would only add a round trip
    (1024, 16, 16), (1024, 64, 16), (192, 16, 3)])
def test_trusted_code_is_sharded_once_every_shard_gets_64_instances(instances: int, cores: int,
                                                                     expected: int) -> None:
    assert INSTANCES_PER_TRUSTED_WORKER == 64
    assert trusted_workers(instances, cores=cores) == expected
    assert shard_count("auto", instances, contained=False, cores=cores) == expected


@pytest.mark.parametrize("num_workers", ["auto", 0])
def test_contained_code_always_gets_workers(num_workers: int | str) -> None:
    for instances in (1, 32, 33, 1024):
        assert shard_count(num_workers, instances, contained=True, cores=2) == \
            contained_workers(instances, cores=2) >= 1


def test_an_explicit_count_is_taken_as_it_is() -> None:
    assert shard_count(0, 1024, contained=False, cores=2) == 0
    assert shard_count(3, 8, contained=False, cores=2) == 3
    assert shard_count(3, 8, contained=True, cores=2) == 3


def test_auto_is_the_default_everywhere_it_is_carried() -> None:
    assert EnvConfig().num_workers == "auto" and ShardingConfig().num_workers == "auto"
    assert RolloutConfig().num_workers == "auto" and RunOptions().num_workers == "auto"
    assert RolloutConfig().env_kwargs["num_workers"] == "auto"


@pytest.mark.parametrize(("text", "value"), [("auto", "auto"), ("AUTO", "auto"), ("0", 0),
                                             ("4", 4), (2, 2)])
def test_command_line_text_is_read_as_a_count(text: str | int, value: int | str) -> None:
    assert coerce_workers(text) == value
    assert EnvConfig(num_workers=text).num_workers == value
    assert RolloutConfig(num_workers=text).num_workers == value
    assert RunOptions(num_workers=text).num_workers == value


@pytest.mark.parametrize("bad", [-1, "-1", "two", 1.5, True, None])
def test_a_bad_count_names_the_field_and_the_fix(bad: object) -> None:
    with pytest.raises(ValueError, match=r"EnvConfig\.num_workers=.*use 'auto'.*int >= 0"):
        EnvConfig(num_workers=bad)
    with pytest.raises(AgentConfigError, match=r"RolloutConfig\.num_workers=.*use 'auto'"):
        RolloutConfig(num_workers=bad)
    with pytest.raises(CommandLineError, match=r"--num-workers=.*use 'auto'"):
        RunOptions(num_workers=bad)


def test_ray_needs_a_count_of_actors() -> None:
    pytest.importorskip("ray")
    with pytest.raises(ValueError, match="backend='ray' with num_workers='auto'.*>= 1"):
        EnvConfig(backend="ray")
    with pytest.raises(AgentConfigError, match="env_backend='ray' with num_workers='auto'"):
        RolloutConfig(env_backend="ray")
