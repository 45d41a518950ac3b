"""A rollout drives any vector env through the Runtime protocol, a world server's included.

``run_episodes`` takes a :class:`~awm_gym.manager.scheduler.Scheduler` and a policy, not a World,
so it runs over ``AWM/remote-v0`` (a real ``awm env start`` process on 127.0.0.1) as it does in
process. A database diff needs the world's initial database, which ``Runtime.template`` gives:
the remote runtime answers None (the databases live in the server), so remote episodes carry no
diff instead of failing on a method the runtime lacks.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

import gymnasium as gym
import pytest

import awm_gym
from awm_gym.manager.episode import DEFAULT_INFO_KEYS, Episode
from awm_gym.manager.rollout import run_episodes
from awm_gym.manager.scheduler import Scheduler
from awm_gym.server import ServerConfig
from awm_gym.server.process import ServerProcess


@pytest.fixture(scope="module")
def server(spotify_id: str) -> Iterator[ServerProcess]:
    with ServerProcess(ServerConfig(world="spotify", port=0)) as process:
        yield process


class ReplayPolicy:
    """Plays each spotify task's reference solution, then its final answer (the env is not read:
    a remote runtime has no world set to read solutions from)."""

    name = "replay"

    def __init__(self) -> None:
        self._solutions = awm_gym.get_world_set()["spotify"].solutions
        self._turn: dict[int, int] = {}

    def set_env(self, env: Any) -> None:
        pass

    def set_seed(self, seed: int | None) -> None:
        pass

    def get_action(self, infos: dict[str, Any]) -> Sequence[str | None]:
        actions: list[str | None] = []
        for i, active in enumerate(infos["active"]):
            if not active:
                actions.append(None)
                continue
            t = 0 if infos["episode_restarted"][i] else self._turn[i]
            self._turn[i] = t + 1
            solution = self._solutions[int(infos["task_idx"][i])]
            calls = [{"name": c.tool, "arguments": dict(c.arguments)} for c in solution.calls]
            actions.append(f"<tool_call>{json.dumps(calls[t])}</tool_call>" if t < len(calls)
                           else solution.final_answer or "Done.")
        return actions


def _run(envs: gym.vector.VectorEnv, capture_db_diff: bool) -> list[Episode]:
    policy = ReplayPolicy()
    assert isinstance(policy, awm_gym.Policy)
    stream = run_episodes(Scheduler(envs), policy, 4, seed=3, info_keys=DEFAULT_INFO_KEYS,
                          capture_db_diff=capture_db_diff)
    return sorted(stream, key=lambda e: e.episode_idx)


def test_remote_episodes_equal_in_process_ones_and_carry_no_db_diff(server, spotify_id) -> None:
    remote = gym.make_vec("AWM/remote-v0", num_envs=2, url=server.url)
    try:
        assert remote.runtime.template("spotify") is None
        remote_eps = _run(remote, capture_db_diff=True)
    finally:
        remote.close()
    local = gym.make_vec(spotify_id, num_envs=3)
    try:
        local_eps = _run(local, capture_db_diff=True)
    finally:
        local.close()
    assert [e.seed for e in remote_eps] == [3, 4, 5, 6]
    assert all(e.success for e in remote_eps)
    assert [e.db_diff for e in remote_eps] == [None] * 4
    assert all(e.db_diff is not None for e in local_eps)  # in process the diff is there
    assert [(e.world, e.task_idx, e.task, e.turns) for e in remote_eps] == \
        [(e.world, e.task_idx, e.task, e.turns) for e in local_eps]
