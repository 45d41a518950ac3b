"""backend="ray": shards as Ray actors on a local cluster give the in-process results, world
code runs in the contained worker process an actor starts (never in the Ray worker process), and
a killed actor costs only its own instances."""

from __future__ import annotations

import json
import os
import re
import signal
import sys
from collections.abc import Iterator
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from awm_gym.envs.config import EnvConfig
from awm_gym.envs.vector_env import AWMVectorEnv
from awm_gym.errors import EnvUsageError


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[None]:
    """One local Ray cluster on 127.0.0.1 for the module (starting one costs seconds)."""
    ray = pytest.importorskip("ray", reason="the ray extra is not installed "
                                            "(pip install 'awm-gym[ray]'); CI installs it")
    ray.init(address="local", num_cpus=2, include_dashboard=False, _node_ip_address="127.0.0.1",
             object_store_memory=100 * 2**20, log_to_driver=False)
    yield
    ray.shutdown()


def _call(name: str, arguments: dict | None = None) -> str:
    return "<tool_call>" + json.dumps({"name": name, "arguments": arguments or {}}) + "</tool_call>"


def _plain(info: dict[str, Any]) -> dict[str, list[Any]]:
    return {key: np.asarray(value).tolist() for key, value in sorted(info.items())}


def _dump(conn: Any) -> list[str]:
    return list(conn.iterdump())


# notes_app task 1 asks for a note 'Call the plumber' in notebook 2: instance 0 writes it and
# answers (verifier: success), 1 writes it in the wrong notebook (verifier: failure), 2 reads,
# 3 answers at once, 2 sends a malformed call last.
_PLUMBER = {"notebook_id": 2, "title": "Call the plumber", "body": "Tuesday at 9am"}
_ACTIONS = [
    [_call("list_notebooks"), _call("create_note", {**_PLUMBER, "notebook_id": 1}),
     _call("search_notes", {"q": "budget"}), "I give up."],
    [_call("create_note", _PLUMBER), "I created the note.", _call("get_note", {"note_id": 1}),
     None],
    ["I created the note 'Call the plumber'.", None, '<tool_call>{"name": </tool_call>', None],
]


def _run(envs: AWMVectorEnv) -> list[Any]:
    obs, info = envs.reset(seed=[5, 6, 7, 8], options={"task_idx": 1})
    run: list[Any] = [(obs, _plain(info))]
    for actions in _ACTIONS:
        if actions is _ACTIONS[-1]:  # the databases after the writes, before the episodes end
            run.append([_dump(envs.runtime.database(i)) for i in range(envs.num_envs)])
        obs, reward, terminated, truncated, info = envs.step(actions)
        run.append((obs, reward.tolist(), terminated.tolist(), truncated.tolist(), _plain(info)))
    return run


def test_ray_actors_match_in_process(ray_cluster: None, tiny_path: str) -> None:
    kwargs = {"world_set": tiny_path, "worlds": ["notes_app"], "verifier_workers": 1}
    local = AWMVectorEnv(num_envs=4, num_workers=0, isolation="none", **kwargs)
    try:
        expected = _run(local)
    finally:
        local.close()
    envs = AWMVectorEnv(num_envs=4, num_workers=2, backend="ray", **kwargs)  # contained actors
    try:
        assert [repr(s) for s in envs.runtime._shards] == ["RayShard(instances 0-1)",
                                                           "RayShard(instances 2-3)"]
        got = _run(envs)
        assert envs.runtime.containment is not None
        active = envs.runtime.containment["active"]
        # the world runs in a worker process of the actor's, contained as a local one
        assert "as=4096MB" in active["rlimits"]
        if "seccomp" in active:
            assert "network" in active["seccomp"]
    finally:
        envs.close()
    assert got == expected
    # the run holds what the test means to compare: a DB write, then its verified reward
    _, _, step2, databases, step3 = expected
    assert step2[4]["tool"][0] == "create_note"
    assert any("Call the plumber" in row for row in databases[0])
    assert step3[1][0] == 1.0 and step3[4]["verifier_label"][0] == "complete"
    assert step2[4]["verifier_label"][1] != "complete" and step2[2] == [False, True, False, False]


def test_tool_timeouts_work_inside_an_actor(ray_cluster: None, tiny_path: str) -> None:
    # SIGALRM reaches only the main thread: the actor runs its calls there
    envs = AWMVectorEnv(num_envs=2, world_set=tiny_path, worlds=["defect_lab"], num_workers=2,
                        backend="ray", isolation="none", tool_timeout_s=1.0)
    try:
        envs.reset(seed=0)
        _, _, terminated, truncated, info = envs.step([_call("hang"),
                                                         _call("get_item_v2", {"item_id": 1})])
        assert info["tool_outcome"].tolist() == ["timeout", "ok"]
        assert not terminated.any() and not truncated.any() and "_worker_error" not in info
    finally:
        envs.close()


def test_a_killed_actor_costs_only_its_own_instances(ray_cluster: None, tiny_path: str) -> None:
    envs = AWMVectorEnv(num_envs=4, world_set=tiny_path, worlds=["defect_lab"], num_workers=2,
                        backend="ray", isolation="none")
    read = _call("get_item_v2", {"item_id": 1})
    try:
        envs.reset(seed=[0, 1, 2, 3])
        envs.step([read] * 4)
        dead = envs.runtime._shards[0]
        old_pid = dead.pid()
        os.kill(old_pid, signal.SIGKILL)
        obs, _, _, truncated, info = envs.step([read, None, read, read])
        assert truncated.tolist() == [True, False, False, False]
        assert info["worker_error"][0] == "died" and info["_worker_error"].tolist() == [
            True, False, False, False]
        assert obs[0].startswith("Error: the worker process running this instance died")
        assert json.loads(obs[2])["id"] == 1 and info["step"][2:].tolist() == [2, 2]
        assert dead.pid() != old_pid  # a new actor serves the shard
        # instance 1 (same shard, not stepped then) lost its episode too: told on its next step
        obs, _, _, truncated, info = envs.step([None, read, read, read])
        assert truncated.tolist() == [False, True, False, False]
        assert info["worker_error"][1] == "died" and info["step"][2:].tolist() == [3, 3]
        with pytest.raises(Exception, match="episode has ended"):
            envs.step([read, None, None, None])
        # a fresh reset brings the shard's instances back
        mask = np.array([True, True, False, False])
        envs.reset(seed=[10, 11, 0, 0], options={"reset_mask": mask})
        obs, _, _, truncated, info = envs.step([read] * 4)
        assert all(json.loads(o)["id"] == 1 for o in obs) and not truncated.any()
        assert info["step"].tolist() == [1, 1, 4, 4]
    finally:
        envs.close()


def test_a_hung_worker_is_named_and_its_neighbours_replayed(ray_cluster: None,
                                                            tmp_path: Any) -> None:
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "fixtures"))
    from make_hostile_world import write_hostile_world

    root = write_hostile_world(tmp_path)
    # one actor, two instances: the actor keeps the per-action deadline (1 + 5 s) and names
    # the culprit, as the caller of a local worker does
    envs = AWMVectorEnv(num_envs=2, world_set=str(root), num_workers=1, backend="ray",
                        tool_timeout_s=1.0, verifier_timeout_s=1.0)
    add, count = _call("add_note", {"body": "hi"}), _call("count_notes")
    try:
        envs.reset(seed=0, options={"task_idx": 0})
        obs, *_ = envs.step([count, add])
        seeded = int(json.loads(obs[0])["result"])
        hang = _call("hang")  # ignores SIGALRM and spins
        obs, _, _, truncated, info = envs.step([hang, count])
        assert info["tool_outcome"].tolist() == ["worker_timed_out", "ok"]
        assert not truncated.any() and info["_worker_error"].tolist() == [True, False]
        assert obs[0].startswith("Error: the tool call ran past its timeout")
        assert json.loads(obs[1])["result"] == str(seeded + 1)  # its write replayed once
        obs, _, _, truncated, _ = envs.step([count, count])  # both go on in the new actor
        assert [json.loads(o)["result"] for o in obs] == [str(seeded), str(seeded + 1)]
    finally:
        envs.close()


def test_world_code_cannot_reach_the_ray_cluster(ray_cluster: None, tmp_path: Any) -> None:
    """A handler takes the Ray module of its process (or connects anew) and submits a task
    that writes outside its scratch directory: before, the actor ran the world's code and the
    task ran in another Ray worker with none of our layers; now the world runs in the actor's
    contained worker process, where Ray is not loaded and no socket reaches the cluster."""
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "fixtures"))
    from make_cross_world import BENIGN, HOSTILE, write_cross_world

    root = write_cross_world(tmp_path / "worlds")
    marker = tmp_path / "escaped-through-ray"
    # one actor (the cluster's other CPU is free for the task the attack submits)
    envs = AWMVectorEnv(num_envs=2, world_set=str(root), num_workers=1, backend="ray",
                        tool_timeout_s=30.0)
    try:
        shard = envs.runtime._shards[0]
        assert shard.worker_pid() not in (None, shard.pid())  # the world's own process
        envs.reset(seed=0, options={"world": [HOSTILE, BENIGN]})
        add = _call("add_row", {"body": "hello"})
        obs, reward, terminated, truncated, info = envs.step(
            [_call("submit_ray_task", {"marker": str(marker)}), add])
        assert not marker.exists(), obs[0]
        assert obs[0].startswith("Error: ") and "ran:" not in obs[0]
        # Ray is not loaded there: importing it and connecting anew fails (Landlock, seccomp),
        # as a 500 or, where loading Ray ends the worker, a restarted worker
        assert info["tool_outcome"][0] in ("crash", "worker_died")
        assert not truncated[0] and reward[0] == 0.0
        assert json.loads(obs[1])["result"] == "2 rows"  # the neighbour steps on
        obs, reward, terminated, _, info = envs.step([None, "I added it."])
        assert terminated[1] and reward[1] == 1.0 and info["verifier_label"][1] == "complete"
    finally:
        envs.close()


def test_world_and_grpo_rollouts_take_the_ray_backend(ray_cluster: None) -> None:
    from agents.config import TrainConfig
    from agents.grpo.config import RolloutConfig
    from agents.pipeline import make_envs
    from agents.policies import OraclePolicy
    from awm_gym import World
    from awm_gym.envs.ray_shards import RayShard

    metrics = []
    for options in ({}, {"num_workers": 2, "backend": "ray"}):
        world = World("AWM/spotify-v0", num_envs=4, verbose=0, **options)
        try:
            world.set_policy(OraclePolicy())
            metrics.append(world.evaluate(episodes=4, seed=0, eval_keys=["num_turns"]))
        finally:
            world.close()
    as_json = [json.dumps(m, sort_keys=True, default=lambda a: np.asarray(a).tolist())
               for m in metrics]
    assert as_json[1] == as_json[0] and metrics[0]["success_rate"] == 1.0
    cfg = TrainConfig(rollout=RolloutConfig(env_id="AWM/spotify-v0", worlds=None, num_workers=2,
                                            env_backend="ray"))
    envs = make_envs(cfg.rollout, 2)
    try:
        assert all(isinstance(s, RayShard) for s in envs.runtime._shards)
    finally:
        envs.close()


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"backend": "cluster"}, "EnvConfig.backend='cluster': choose one of 'local', 'ray'."),
    ({"ray_address": "auto"}, "EnvConfig.ray_address='auto' is only read with backend='ray'"),
    ({"backend": "ray"}, ("EnvConfig.backend='ray' with num_workers='auto': each shard is a Ray "
                          "actor, so set num_workers >= 1")),
])
def test_backend_config_errors_name_the_field_and_the_fix(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        EnvConfig(**kwargs)


def test_backend_ray_without_ray_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # what an environment without ray sees
    with pytest.raises(ValueError, match=re.escape('pip install "awm-gym[ray]"')):
        EnvConfig(backend="ray", num_workers=2)


def test_more_actors_than_the_cluster_has_cpus_is_refused_at_once(ray_cluster: None) -> None:
    """The module's cluster has 2 CPUs; a third one-CPU actor would wait for the start deadline."""
    with pytest.raises(EnvUsageError, match=r"num_workers=3 with backend='ray'.*has 2.*Lower "
                                            r"num_workers to 2"):
        gym.make_vec("AWM/spotify-v0", num_envs=6, num_workers=3, backend="ray")
    # the shards actually started count: 3 asked for over 2 instances is 2 actors, which fit
    envs = gym.make_vec("AWM/spotify-v0", num_envs=2, num_workers=3, backend="ray")
    try:
        assert len(envs.runtime._shards) == 2
    finally:
        envs.close()
