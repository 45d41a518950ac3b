"""A frame world code writes to the reply descriptor in place of the worker's own reply, in the
JSON format the caller reads: a wrong number of results makes the worker count as dead (an
observation for its instances, the env goes on), and an observation past ``max_text_length``
is cut as the worker would have cut it."""

from __future__ import annotations

import json

import gymnasium as gym

import awm_gym  # noqa: F401 - registers the built-in worlds
from awm_gym.envs import shards, wire
from awm_gym.envs.process_shard import ProcessShard

READ = '<tool_call>{"name": "get_track", "arguments": {"track_id": 1}}</tool_call>'


def _forged(payload: object) -> tuple[str, object]:
    """What the caller decodes from ``["ok", payload]`` written by world code."""
    body = json.dumps(["ok", payload]).encode()
    return wire.decode_reply("step", body, len(body), 0)[1]


class _ForgingShard(ProcessShard):
    """A real worker whose next step reply is replaced by ``forged`` (then the real one is
    read and dropped, as the caller would see the forged frame first)."""

    forged: object = None

    def reply(self, deadline, on_progress=None):  # noqa: ANN001, ANN201
        real = super().reply(deadline, on_progress)
        if self._kind == "step" and _ForgingShard.forged is not None:
            forged, _ForgingShard.forged = _ForgingShard.forged, None
            return forged
        return real


def _envs(monkeypatch) -> gym.vector.VectorEnv:  # noqa: ANN001
    monkeypatch.setitem(shards._SHARD_BACKENDS, "local", lambda config, n: _ForgingShard)
    envs = gym.make_vec("AWM/spotify-v0", num_envs=2, num_workers=1, max_text_length=500,
                        max_episode_steps=100)
    envs.reset(seed=[0, 1])
    return envs


def test_a_reply_with_too_few_results_is_a_dead_worker_not_an_exception(monkeypatch) -> None:  # noqa: ANN001
    envs = _envs(monkeypatch)
    try:
        _ForgingShard.forged = _forged([["forged"], [[0, 1.0, True, False, {}]]])
        obs, reward, terminated, truncated, info = envs.step([READ, READ])
        assert "forged" not in list(obs) and not terminated.any()
        assert reward.tolist() != [1.0, 1.0]
        obs, *_ = envs.step([READ, READ])  # the restarted worker answers
        assert all(json.loads(o)["id"] == 1 for o in obs)
    finally:
        envs.close()


def test_an_observation_past_the_limit_is_cut(monkeypatch) -> None:  # noqa: ANN001
    envs = _envs(monkeypatch)
    try:
        huge = "x" * 100_000
        _ForgingShard.forged = _forged([[huge], [[0, 0.0, False, False, {}]] * 2])
        obs, *_ = envs.step([READ, READ])
        assert all(len(o) == 500 and o.endswith("[... truncated to 500 characters]")
                   for o in obs)
    finally:
        envs.close()


def test_a_catalogue_reference_to_another_world_is_a_dead_worker(monkeypatch) -> None:  # noqa: ANN001
    # a list_tools observation travels as its world's name (issue 33): the caller puts back
    # only the catalogues of this env's worlds
    envs = _envs(monkeypatch)
    try:
        _ForgingShard.forged = _forged([[], [[-1, 0.0, False, False, {}]] * 2, ["gmail"]])
        obs, reward, terminated, *_ = envs.step([READ, READ])
        assert not any(o.startswith("Available MCP Tools") for o in obs)
        assert not terminated.any()
        obs, *_ = envs.step([READ, READ])  # the restarted worker answers
        assert all(json.loads(o)["id"] == 1 for o in obs)
    finally:
        envs.close()
