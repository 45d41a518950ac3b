"""World code that tries to escape is contained by default (world sets loaded from disk): every
attempt is an observation or an unscored result, the other instances step on untouched, and the
caller's process lives. The world is tests/fixtures/make_hostile_world.py."""

from __future__ import annotations

import json
import os
import socket
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import awm_gym  # noqa: F401 - registers AWM/mix-v0
from awm_gym.containment import describe_layers

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "fixtures"))
from make_hostile_world import write_hostile_world  # noqa: E402

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux containment")


def call(tool: str, **arguments: object) -> str:
    return "<tool_call>" + json.dumps({"name": tool, "arguments": arguments}) + "</tool_call>"


ADD = call("add_note", body="hello")
COUNT = call("count_notes")


@pytest.fixture(scope="module")
def envs(tmp_path_factory: pytest.TempPathFactory):
    root = write_hostile_world(tmp_path_factory.mktemp("hostile"))
    os.environ["AWM_TEST_SECRET"] = "sk-do-not-leak"
    envs = gym.make_vec("AWM/mix-v0", num_envs=3, world_set=str(root), tool_timeout_s=1.0,
                        max_episode_steps=100)
    envs.reset(seed=[0, 1, 2], options={"task_idx": [0, 0, 0]})
    yield envs
    envs.close()


def _notes(envs, i: int) -> int:  # noqa: ANN001
    obs, *_ = envs.step([COUNT if k == i else None for k in range(3)])
    return int(json.loads(obs[i])["result"])


def test_world_sets_from_disk_run_contained_with_every_layer_this_kernel_has(envs) -> None:  # noqa: ANN001
    assert type(envs.runtime).__name__ == "ShardedRuntime"
    active = envs.runtime.containment["active"]
    assert {"rlimits", "env", "audit_hook"} <= set(active)
    for layer, status in describe_layers().items():  # what the machine offers is in force
        if "abi" in status or status == "on":
            assert layer in active, (layer, envs.runtime.containment)


@pytest.mark.parametrize("hostile, outcome", [
    (call("read_file", path="/etc/passwd"), "crash"),
    (call("read_file", path=str(Path.home() / ".ssh" / "id_rsa")), "crash"),
    (call("write_file", path="/tmp/awm-hostile-pwned.txt"), "crash"),
    (call("connect", port=9), "crash"),
    (call("run_process"), "crash"),
    (call("do_fork"), "crash"),
    (call("raise_system_exit"), "crash"),
    (call("raise_interrupt"), "crash"),
    (call("allocate", gigabytes=10), "crash"),
    (call("exit_process"), "worker_died"),
    (call("hang"), "worker_timed_out"),
])
def test_an_escape_attempt_is_an_observation_and_the_neighbours_step_on(envs, hostile: str,  # noqa: ANN001
                                                                         outcome: str) -> None:
    before = [_notes(envs, i) for i in range(3)]
    obs, reward, terminated, truncated, info = envs.step([hostile, ADD, COUNT])
    assert obs[0].startswith("Error: ") and "root:" not in obs[0]
    assert info["tool_outcome"][0] == outcome
    assert not terminated[0] and not truncated[0] and reward[0] == 0.0
    assert json.loads(obs[1])["result"] == f"{before[1] + 1} notes"  # applied exactly once
    assert json.loads(obs[2])["result"] == str(before[2])
    assert [_notes(envs, i) for i in range(3)] == [before[0], before[1] + 1, before[2]]
    assert not Path("/tmp/awm-hostile-pwned.txt").exists()


def test_secrets_in_the_environment_are_not_visible(envs) -> None:  # noqa: ANN001
    obs, *_ = envs.step([call("read_env", name="AWM_TEST_SECRET"), None, None])
    assert json.loads(obs[0])["result"] is None


def test_the_culprit_keeps_its_state_and_goes_on(envs) -> None:  # noqa: ANN001
    envs.step([ADD, None, None])
    mine = _notes(envs, 0)
    obs, *_ = envs.step([call("exit_process"), None, None])
    assert "restored" in obs[0]
    assert _notes(envs, 0) == mine


@pytest.mark.parametrize("task", [1, 2, 3])
def test_a_hostile_verifier_is_unscored_and_leaks_nothing(envs, task: int) -> None:  # noqa: ANN001
    envs.reset(seed=[5, 6, 7], options={"task_idx": [task, 0, 0]})
    envs.step([ADD, ADD, None])
    obs, reward, terminated, _, info = envs.step(["Done.", "Done.", None])
    assert terminated[:2].all()
    assert info["verifier_label"][0] == "verifier_error" and not info["reward_valid"][0]
    assert "root:" not in str(info["verifier_error"][0])
    assert info["verifier_label"][1] == "complete" and reward[1] == 1.0
    envs.reset(seed=[0, 1, 2], options={"task_idx": [0, 0, 0]})


def test_a_verifier_does_not_see_the_callers_secrets(envs) -> None:  # noqa: ANN001
    envs.reset(seed=[5, 6, 7], options={"task_idx": [4, 4, 4]})
    _, reward, _, _, info = envs.step(["Done.", "Done.", "Done."])
    assert np.array_equal(reward, [1.0, 1.0, 1.0]), info
    envs.reset(seed=[0, 1, 2], options={"task_idx": [0, 0, 0]})


def test_in_process_exits_and_interrupts_raised_by_handlers_are_500s(tmp_path: Path) -> None:
    root = write_hostile_world(tmp_path / "trusted")
    envs = gym.make_vec("AWM/mix-v0", num_envs=2, world_set=str(root), isolation="none")
    try:
        envs.reset(seed=[0, 1], options={"task_idx": [0, 0]})
        obs, _, _, _, info = envs.step([call("raise_system_exit"), call("raise_interrupt")])
        assert list(info["tool_outcome"]) == ["crash", "crash"]
        assert all(o.startswith("Error: Error calling") for o in obs)
    finally:
        envs.close()


# -- issue 31: sockets, threads and timers (items 2 and 4) ----------------------------------------

def _step_attack(envs, hostile: str) -> tuple:  # noqa: ANN001
    """Step ``hostile`` on instance 0 beside an ``add_note`` and a ``count_notes``; the
    neighbours read exactly what they would have read without it."""
    before = [_notes(envs, i) for i in range(3)]
    obs, reward, terminated, truncated, info = envs.step([hostile, ADD, COUNT])
    assert obs[0].startswith("Error: "), obs[0]
    assert not terminated[0] and not truncated[0] and reward[0] == 0.0
    assert json.loads(obs[1])["result"] == f"{before[1] + 1} notes"
    assert json.loads(obs[2])["result"] == str(before[2])
    assert list(reward[1:]) == [0.0, 0.0]
    assert [_notes(envs, i) for i in range(3)] == [before[0], before[1] + 1, before[2]]
    return obs, info


@pytest.mark.parametrize("kind", ["path", "abstract"])
def test_a_handler_cannot_reach_a_unix_socket_of_the_host(envs, tmp_path: Path,  # noqa: ANN001
                                                          kind: str) -> None:
    """Before: both connected and sent data (a vLLM engine's IPC socket, Ray's raylet, Docker's
    socket are such sockets on a training host)."""
    address = str(tmp_path / "host.sock") if kind == "path" else f"@awm-host-{os.getpid()}"
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(address if kind == "path" else "\0" + address[1:])
    listener.listen()
    listener.setblocking(False)
    try:
        obs, info = _step_attack(envs, call("unix_connect", address=address))
        assert info["tool_outcome"][0] == "crash"  # the handler's PermissionError: a 500
        with pytest.raises(BlockingIOError):
            listener.accept()  # nobody connected
    finally:
        listener.close()


def test_a_handler_cannot_open_a_socket_of_another_family(envs) -> None:  # noqa: ANN001
    obs, info = _step_attack(envs, call("other_socket", family=socket.AF_NETLINK))
    assert info["tool_outcome"][0] == "crash" and "500" in obs[0]


def test_a_handler_cannot_leave_threads_running(envs) -> None:  # noqa: ANN001
    """Before: two threads spun in the worker after the call answered, nothing reported."""
    worker = envs.runtime._shards[0].worker
    obs, info = _step_attack(envs, call("spin_threads", threads=2))
    assert info["tool_outcome"][0] == "crash" and "500" in obs[0]  # "can't start new thread"
    assert envs.runtime._shards[0].worker is worker  # refused in the handler: no restart
    assert len(os.listdir(f"/proc/{worker.proc.pid}/task")) == 1


def test_a_handler_cannot_leave_a_timer_running_world_code(envs) -> None:  # noqa: ANN001
    """A SIGALRM handler with an interval timer would run world code between the calls: the
    worker ends itself after that action, and the caller restarts it and replays its episodes
    without the action. Before: the timer's handler spun in the idle worker."""
    pid = envs.runtime._shards[0].worker.proc.pid
    obs, info = _step_attack(envs, call("spin_on_timer"))
    assert info["tool_outcome"][0] == "worker_died"
    assert info["worker_error"][0] == "left work running after it answered"
    assert "left work running after it answered" in obs[0] and "restored" in obs[0]
    assert envs.runtime._shards[0].worker.proc.pid != pid


def test_a_verifier_cannot_leave_a_timer_for_the_next_verification(tmp_path: Path) -> None:
    """Task 7's verifier arms an interval timer whose SIGALRM handler makes its worker's
    ``sqlite3`` open an empty database: its result is a crash naming what it left running, its
    worker is replaced, and the next verification (task 0's, after the note was added) gives
    its correct result. Before: task 7 read ``others`` and task 0's verifier, run in the same
    worker, failed on the empty database (``verifier_error``)."""
    root = write_hostile_world(tmp_path / "world")
    envs = gym.make_vec("AWM/mix-v0", num_envs=2, world_set=str(root), verifier_workers=1,
                        max_episode_steps=100)
    try:
        envs.reset(seed=[0, 1], options={"task_idx": [7, 0]})
        _, reward, terminated, _, info = envs.step(["Done.", ADD])
        assert terminated[0] and not terminated[1]
        assert info["verifier_label"][0] == "verifier_error" and not info["reward_valid"][0]
        assert "left work running after it answered (a timer still armed)" in str(
            info["verifier_error"][0]), info["verifier_error"][0]
        _, reward, terminated, _, info = envs.step([None, "Done."])
        assert terminated[1] and info["verifier_label"][1] == "complete", info["verifier_error"]
        assert reward[1] == 1.0 and info["reward_valid"][1]
    finally:
        envs.close()


class _AttackThenSolve:
    """Episode k of ``World.evaluate``: an attack (on even k) or nothing, then the task (add a
    note that says hello, answer)."""

    name = "attack_then_solve"

    def __init__(self, attacks: list[str]) -> None:
        self.attacks, self.turn, self.episode, self.started = attacks, {}, {}, 0

    def set_env(self, env: object) -> None:
        pass

    def set_seed(self, seed: int | None) -> None:
        pass

    def get_action(self, infos: dict) -> list[str | None]:
        actions: list[str | None] = []
        for i, active in enumerate(infos["active"]):
            if infos["episode_restarted"][i] or i not in self.turn:
                self.turn[i], self.episode[i] = 0, self.started
                self.started += 1
            if not active:
                actions.append(None)
                continue
            k, t = self.episode[i], self.turn[i]
            script = ([self.attacks[k // 2 % len(self.attacks)]] if k % 2 == 0 else [])
            script += [ADD, "Done."]
            actions.append(script[min(t, len(script) - 1)])
            self.turn[i] += 1
        return actions


def test_world_evaluate_scores_as_without_the_attacks(tmp_path: Path) -> None:
    """Issue 31 through ``World.evaluate``: episodes whose first action attacks (a unix socket
    of the host, spinning threads, a timer) score as the others do, nothing connects, and no
    worker runs a thread of the world's after the episodes."""
    from awm_gym import World

    root = write_hostile_world(tmp_path / "world")
    address = str(tmp_path / "host.sock")
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(address)
    listener.listen()
    listener.setblocking(False)
    attacks = [call("unix_connect", address=address), call("spin_threads", threads=2),
               call("spin_on_timer")]
    try:
        with World("AWM/mix-v0", num_envs=2, verbose=0, world_set=str(root),
                   tool_timeout_s=2.0) as world:
            world.set_policy(_AttackThenSolve(attacks))
            result = world.evaluate(episodes=6, seed=0, options={"task_idx": 0})
            assert list(result["rewards"]) == [1.0] * 6 and result["unscored"] == 0, result
            for shard in world.envs.runtime._shards:
                assert len(os.listdir(f"/proc/{shard.worker.proc.pid}/task")) == 1
        with pytest.raises(BlockingIOError):
            listener.accept()
    finally:
        listener.close()
