"""Tests for awm_gym/server/cli.py, config.py and process.py's argument building, and the
client's URL handling (awm_gym/remote/client.py): no server needed."""

from __future__ import annotations

import argparse
import re

import pytest

from awm_gym import EnvConfig
from awm_gym.cli_config import field_docs
from awm_gym.remote import RemoteError, session_url
from awm_gym.remote.runtime import env_config_from
from awm_gym.server import ServerConfig
from awm_gym.server.cli import add_subcommands, server_config
from awm_gym.server.process import server_arguments


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="awm")
    add_subcommands(parser.add_subparsers(dest="command"))
    return parser.parse_args(list(argv))


def test_start_arguments_become_a_server_config() -> None:
    config = server_config(parse("env", "start", "--world", "spotify", "--port", "0",
                                 "--max-sessions", "4", "--idle-timeout", "2.5",
                                 "--tool-timeout", "0.5", "--verifier-mode", "code"))
    assert config == ServerConfig(world="spotify", port=0, max_sessions=4, idle_timeout_s=2.5,
                                  env=EnvConfig(tool_timeout_s=0.5, verifier_mode="code"))


def test_config_to_arguments_and_back_is_the_identity() -> None:
    config = ServerConfig(world="notes_app", worlds_dir="/tmp/worlds", port=0, max_sessions=3,
                          max_message_bytes=4096, env=EnvConfig(max_episode_steps=5,
                                                                 num_workers=2))
    argv = server_arguments(config)
    assert argv[:2] == ["--world", "notes_app"]
    assert server_config(parse("env", "start", *argv)) == config
    with pytest.raises(ValueError, match=re.escape("ServerConfig.env.record_timings=True")):
        server_arguments(ServerConfig(world="x", env=EnvConfig(record_timings=True)))


def test_protocol_flag_round_trips() -> None:
    config = server_config(parse("env", "start", "--world", "spotify", "--protocol", "openenv"))
    assert config.protocol == "openenv"
    assert server_arguments(config) == ["--world", "spotify", "--protocol", "openenv"]
    with pytest.raises(SystemExit):  # argparse lists the choices
        parse("env", "start", "--world", "spotify", "--protocol", "grpc")


def test_help_comes_from_the_field_docstrings() -> None:
    assert field_docs(ServerConfig)["port"].startswith("TCP port; 0 picks a free one")
    parser = argparse.ArgumentParser(prog="awm")
    add_subcommands(parser.add_subparsers(dest="command"))
    start = parser._subparsers._group_actions[0].choices["env"]._subparsers \
        ._group_actions[0].choices["start"]
    text = start.format_help()
    assert "TCP port; 0 picks a free one" in text and "(default: 8001)" in text
    assert "Wall-clock limit of one tool call" in text  # an EnvConfig field


@pytest.mark.parametrize("kwargs, field", [
    ({"world": ""}, "ServerConfig.world"),
    ({"port": -1}, "ServerConfig.port=-1"),
    ({"max_sessions": 0}, "ServerConfig.max_sessions=0"),
    ({"idle_timeout_s": -1.0}, "ServerConfig.idle_timeout_s=-1.0"),
    ({"max_message_bytes": 10}, "ServerConfig.max_message_bytes=10"),
    ({"protocol": "grpc"}, "ServerConfig.protocol='grpc': choose one of 'awm', 'openenv'"),
])
def test_bad_server_configs_name_the_field(kwargs: dict, field: str) -> None:
    with pytest.raises(ValueError, match=re.escape(field)):
        ServerConfig(**{"world": "spotify", **kwargs})


def test_loopback_detection() -> None:
    assert ServerConfig(world="w").is_loopback
    assert not ServerConfig(world="w", host="0.0.0.0").is_loopback


@pytest.mark.parametrize("url, expected", [
    ("http://127.0.0.1:8001", "ws://127.0.0.1:8001/ws"),
    ("http://127.0.0.1:8001/", "ws://127.0.0.1:8001/ws"),
    ("http://127.0.0.1:8001/mcp", "ws://127.0.0.1:8001/ws"),
    ("https://worlds.example:443/ws", "wss://worlds.example:443/ws"),
    ("ws://[::1]:9/ws", "ws://[::1]:9/ws"),
])
def test_session_url_accepts_the_forms_users_paste(url: str, expected: str) -> None:
    assert session_url(url) == expected


@pytest.mark.parametrize("url", ["127.0.0.1:8001", "ftp://host/ws", "http://"])
def test_session_url_rejects_what_is_not_a_server_address(url: str) -> None:
    with pytest.raises(RemoteError, match="awm env start"):
        session_url(url)


def test_env_config_travels_as_json_and_ignores_fields_it_does_not_know() -> None:
    import dataclasses
    import json

    config = EnvConfig(max_episode_steps=7, tool_timeout_s=1.5)
    fields = json.loads(json.dumps(dataclasses.asdict(config)))
    fields["from_a_newer_server"] = 1
    fields["rewards"]["also_new"] = 2.0
    assert env_config_from(fields) == config


def test_remote_envs_need_a_url_and_a_reachable_server() -> None:
    import gymnasium as gym

    from awm_gym import EnvUsageError
    from awm_gym.remote import SessionClient, SessionLostError

    with pytest.raises(EnvUsageError, match=re.escape("url=None: AWM/remote-v0 needs")):
        gym.make("AWM/remote-v0")
    with pytest.raises(EnvUsageError, match="url="):
        gym.make_vec("AWM/remote-v0", num_envs=2)
    with pytest.raises(SessionLostError, match=re.escape(
            "cannot open a session at ws://127.0.0.1:9/ws")) as lost:
        SessionClient("http://127.0.0.1:9", connect_timeout_s=5)  # nothing listens on port 9
    assert lost.value.code is None
