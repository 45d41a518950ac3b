"""num_workers: instances sharded over worker processes; a dying or hanging world hurts only its shard."""

from __future__ import annotations

import json

import pytest

from awm_gym.envs.vector_env import AWMVectorEnv


def _call(name: str, arguments: dict | None = None) -> str:
    return "<tool_call>" + json.dumps({"name": name, "arguments": arguments or {}}) + "</tool_call>"


@pytest.fixture()
def sharded(tiny_path: str):
    envs = AWMVectorEnv(num_envs=4, world_set=tiny_path, worlds=["defect_lab"], num_workers=2,
                        tool_timeout_s=1.0, verifier_timeout_s=2.0)
    yield envs
    envs.close()


def test_a_process_killing_tool_only_affects_its_own_instance(sharded: AWMVectorEnv) -> None:
    sharded.reset(seed=[0, 1, 2, 3])
    read = _call("get_item_v2", {"item_id": 1})
    obs, reward, terminated, truncated, info = sharded.step(
        [read, _call("crash_process"), _call("hang"), read])
    # shard 0 = instances 0, 1: instance 1 killed the process; the worker is restarted, instance
    # 0 is rebuilt by replay and its read runs again; shard 1 = instances 2, 3 (in-worker timeout)
    assert truncated.tolist() == [False] * 4 and terminated.tolist() == [False] * 4
    assert info["tool_outcome"].tolist() == ["ok", "worker_died", "timeout", "ok"]
    assert info["worker_error"][1] == "died" and not info["_worker_error"][[0, 2, 3]].any()
    assert obs[1].startswith("Error: the tool call ended the process running it")
    assert json.loads(obs[0])["id"] == 1 and json.loads(obs[3])["id"] == 1
    # every episode goes on, the crashed turn counted
    obs, _, _, _, info = sharded.step([read, read, read, read])
    assert all(json.loads(o)["id"] == 1 for o in obs)
    assert info["step"].tolist() == [2, 2, 2, 2]


def test_sharded_matches_in_process(tiny_path: str) -> None:
    kwargs = dict(world_set=tiny_path, worlds=["notes_app"], verifier_workers=1)
    actions = [[_call("list_notebooks"), _call("search_notes", {"q": "budget"}), "hi", "x"],
               [_call("get_note", {"note_id": 1}), "The title is Budget Q3", None, None]]
    results = []
    for workers in (0, 2):
        envs = AWMVectorEnv(num_envs=4, num_workers=workers, **kwargs)
        try:
            run = [envs.reset(seed=[5, 6, 7, 8], options={"task_idx": 0})[0]]
            for step in actions:
                obs, reward, term, trunc, info = envs.step(step)
                run.append((obs, reward.tolist(), term.tolist(), trunc.tolist(),
                            info["verifier_label"].tolist() if "verifier_label" in info else None))
            results.append(run)
        finally:
            envs.close()
    assert results[0] == results[1]


def test_a_contained_set_uses_a_worker_per_32_instances_by_default(tiny_path: str) -> None:
    from awm_gym.envs.vector_env import contained_workers

    envs = AWMVectorEnv(num_envs=64, world_set=tiny_path, worlds=["notes_app"])
    try:
        assert len(envs.runtime._shards) == contained_workers(64) >= 1
        obs, _ = envs.reset(seed=list(range(64)), options={"task_idx": 0})
        obs, reward, *_ = envs.step([_call("list_notebooks")] * 64)
        assert len(set(obs)) == 1 and reward.tolist() == [0.0] * 64  # every shard answers alike
    finally:
        envs.close()
