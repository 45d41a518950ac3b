"""The three runtimes satisfy the Runtime protocol the Gymnasium envs are written against."""

from __future__ import annotations

import inspect

import gymnasium as gym
import pytest

import awm_gym  # noqa: F401 - registers the built-in worlds
from awm_gym.envs.protocol import Runtime
from awm_gym.envs.runtime import WorldRuntime
from awm_gym.envs.shards import ShardedRuntime
from awm_gym.remote.runtime import RemoteRuntime

PROTOCOL_METHODS = [
    "reset", "step", "tools_text", "tools", "instance_world", "snapshot", "template", "close"]


@pytest.mark.parametrize("cls", [WorldRuntime, ShardedRuntime, RemoteRuntime])
def test_each_runtime_has_every_protocol_method_with_its_parameters(cls: type) -> None:
    for name in PROTOCOL_METHODS:
        expected = list(inspect.signature(getattr(Runtime, name)).parameters)
        method = getattr(cls, name, None)
        assert callable(method), f"{cls.__name__} lacks {name}()"
        params = list(inspect.signature(method).parameters.values())
        assert [p.name for p in params[:len(expected)]] == expected, (cls.__name__, name)
        extra = params[len(expected):]  # a runtime may take more, never requiring it
        assert all(p.default is not inspect.Parameter.empty for p in extra), (cls.__name__, name)


@pytest.mark.parametrize("num_workers", [0, 1])
def test_live_runtimes_are_runtimes(num_workers: int) -> None:
    envs = gym.make_vec("AWM/spotify-v0", num_envs=2, num_workers=num_workers)
    try:
        assert isinstance(envs.runtime, Runtime)
        assert type(envs.runtime) is (ShardedRuntime if num_workers else WorldRuntime)
    finally:
        envs.close()


def test_something_else_is_not_a_runtime() -> None:
    assert not isinstance(object(), Runtime)
