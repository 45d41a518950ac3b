"""A call to a tool the world does not have: AWM's reply and the episode goes on (the default),
or a format error (``EnvConfig.unknown_tool="format_error"``). Real worlds, real verifiers."""

from __future__ import annotations

import json
import re
from typing import Any

import gymnasium as gym
import pytest

import awm_gym
from awm_gym import EnvUsageError
from awm_gym.envs.config import EnvConfig
from awm_gym.envs.vector_env import AWMVectorEnv


def tool_call(name: str, arguments: dict[str, Any] | None = None) -> str:
    return "<tool_call>" + json.dumps({"name": name, "arguments": arguments or {}}) + "</tool_call>"


UNKNOWN = [
    tool_call("close_tickets", {"ticket_id": 1}),                       # a direct name
    tool_call("call_tool", {"tool_name": "mcp_tool_close_tickets",      # AWM's meta-tool
                            "arguments": json.dumps({"ticket_id": 1})}),
    tool_call("mcp_tool_delete_ticket", {"ticket_id": 1}),              # a prefixed name
]
AWM_REPLIES = [
    "Error: Unknown tool 'close_tickets'. Only 'list_tools' and 'call_tool' are available.",
    "Error: Tool 'close_tickets' not found",
    "Error: Tool 'delete_ticket' not found",
]


def test_an_unknown_tool_is_answered_as_awm_does_and_the_episode_goes_on(triage_path: str
                                                                           ) -> None:
    envs = AWMVectorEnv(num_envs=3, world_set=triage_path, worlds=["schema_zoo"],
                        verifier_workers=1)
    try:
        envs.reset(seed=0, options={"task_idx": 0})
        template = envs.runtime.template("schema_zoo")
        obs, reward, terminated, truncated, info = envs.step(UNKNOWN)
        assert list(obs) == AWM_REPLIES
        assert reward.tolist() == [0.0] * 3 and not terminated.any() and not truncated.any()
        assert info["tool_outcome"].tolist() == ["unknown_tool"] * 3
        assert info["tool"].tolist() == ["close_tickets", "close_tickets", "delete_ticket"]
        assert info["action_kind"].tolist() == ["tool_call"] * 3
        assert info["tool_status"].tolist() == [-1] * 3
        assert "format_error" not in info or not info["_format_error"].any()
        # our own hint stays in info for logs: the closest real tool
        assert info["error"][0] == ("unknown tool 'close_tickets'. Did you mean 'close_ticket'? "
                                    "Call list_tools to see every tool.")
        assert all(envs.runtime.database(i).serialize() == template for i in range(3))
        # the episode goes on: the right call, then the answer, is scored as usual
        obs, *_ = envs.step([tool_call("close_ticket", {"ticket_id": 1})] * 3)
        assert json.loads(obs[0])["status"] == "closed"
        _, reward, terminated, _, info = envs.step(["Closed."] * 3)
        assert terminated.all() and reward.tolist() == [1.0] * 3
        assert info["verifier_label"].tolist() == ["complete"] * 3
    finally:
        envs.close()


def test_unknown_tool_format_error_ends_the_episode(triage_path: str) -> None:
    envs = AWMVectorEnv(num_envs=3, world_set=triage_path, worlds=["schema_zoo"],
                        verifier_workers=1, unknown_tool="format_error")
    try:
        envs.reset(seed=0)
        obs, reward, terminated, _, info = envs.step(UNKNOWN)
        assert reward.tolist() == [-1.0] * 3 and terminated.all()
        assert info["format_error"].tolist() == [True] * 3
        assert info["action_kind"].tolist() == ["malformed"] * 3
        assert obs[0] == ("Error: unknown tool 'close_tickets'. Did you mean 'close_ticket'? "
                          "Call list_tools to see every tool.")
    finally:
        envs.close()


def test_the_unknown_tool_step_limit_still_truncates(triage_path: str) -> None:
    awm_gym.register_worlds(triage_path)
    env = gym.make("AWM/schema_zoo-v0", max_episode_steps=2, verifier_workers=1)
    try:
        env.reset(seed=0)
        assert env.step(UNKNOWN[0])[2:4] == (False, False)
        _, reward, terminated, truncated, info = env.step(UNKNOWN[1])
        assert (reward, terminated, truncated) == (0.0, False, True)
        assert info["tool_outcome"] == "unknown_tool"
    finally:
        env.close()


def test_unknown_tool_option_is_validated() -> None:
    with pytest.raises(ValueError, match=re.escape(
            "EnvConfig.unknown_tool='end': choose one of 'observe', 'format_error'.")):
        EnvConfig(unknown_tool="end")  # type: ignore[arg-type]


def test_a_bad_unknown_tool_option_through_make_names_the_field(triage_path: str) -> None:
    awm_gym.register_worlds(triage_path)
    with pytest.raises((EnvUsageError, ValueError), match="unknown_tool"):
        gym.make("AWM/schema_zoo-v0", unknown_tool="crash")
