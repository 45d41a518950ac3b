"""Batch atomicity under hostile actions (issue 17, item 2): nothing an action contains raises out
of ``step``, every instance of a batch gets its outcome exactly once, and no write is applied twice
(also when the server's job loop meets a failing batch). Real tiny worlds, real SQLite."""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from awm_gym import EnvConfig, EnvUsageError
from awm_gym.envs.registration import get_world_set
from awm_gym.envs.runtime import WorldRuntime
from awm_gym.envs.vector_env import AWMVectorEnv
from awm_gym.server.executor import RuntimeLoop
from awm_gym.tools.actions import format_tool_call

NUM = 4
_titles = itertools.count()


def create(title: str) -> str:
    return format_tool_call("create_note", {"notebook_id": 2, "title": title})


class HostileText(str):
    """A string whose methods fail the way an overflowing parser would (our code's own bug
    stands in as any exception between parsing and acting)."""

    def find(self, *args: Any) -> int:  # type: ignore[override]
        raise RecursionError("maximum recursion depth exceeded (stand-in)")


HOSTILE = [
    "<tool_call>" + "[" * 100_000 + "</tool_call>",
    '<tool_call>{"name": "' + "x" * 1_000_000 + '"}</tool_call>',
    "<tool_call>" + "\n" * 5_000,
    "<tool_call>" + '{"name": "create_note", "arguments": ' + "{" * 50_000 + "</tool_call>",
    HostileText("<tool_call>{}</tool_call>"),
    12345,
]


def titles_in(runtime: WorldRuntime, i: int, title: str) -> int:
    return runtime.database(i).execute("SELECT count(*) FROM notes WHERE title = ?",
                                       (title,)).fetchone()[0]


@pytest.fixture(scope="module")
def runtime(tiny_path: str) -> Iterator[WorldRuntime]:
    rt = WorldRuntime(get_world_set(tiny_path), ["notes_app"], NUM,
                      EnvConfig(max_episode_steps=1000, max_text_length=2_000,
                                max_action_chars=20_000_000))
    rt.reset(list(range(NUM)), [0] * NUM, [None] * NUM, [None] * NUM)
    yield rt
    rt.close()


@pytest.mark.timeout(60)
def test_a_hostile_action_does_not_lose_its_neighbours_results(runtime: WorldRuntime) -> None:
    title = "neighbour of a nested action"
    outcomes = runtime.step([0, 1, 2], [create(title), HOSTILE[0], HostileText("x")])
    assert json.loads(outcomes[0].observation)["title"] == title
    assert outcomes[1].info["format_error"] is True and "nested too deeply" in outcomes[1].info[
        "error"]
    assert outcomes[2].terminated and outcomes[2].info["reward_valid"] is False
    assert "RecursionError" in outcomes[2].observation
    assert titles_in(runtime, 0, title) == 1
    runtime.reset([1, 2], [0, 0], [None, None], [None, None])


@pytest.mark.timeout(120)
@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.lists(st.one_of(st.just("write"), st.sampled_from(range(len(HOSTILE)))),
                         min_size=NUM, max_size=NUM), min_size=1, max_size=3))
def test_random_batches_apply_every_write_exactly_once(runtime: WorldRuntime,
                                                       batches: list[list[Any]]) -> None:
    for batch in batches:
        actions, written = [], {}
        for i, kind in enumerate(batch):
            if kind == "write":
                title = f"write {next(_titles)}"
                written[i] = title
                actions.append(create(title))
            else:
                actions.append(HOSTILE[kind])
        outcomes = runtime.step(list(range(NUM)), actions)
        assert len(outcomes) == NUM
        for i, out in enumerate(outcomes):
            assert len(out.observation) <= runtime.config.max_text_length
            if i in written:
                assert json.loads(out.observation)["title"] == written[i]
                assert titles_in(runtime, i, written[i]) == 1
            elif batch[i] == 1:  # a (huge) unknown tool name: AWM's reply, the episode goes on
                assert not out.terminated and out.observation.startswith("Error: Unknown tool")
            else:
                assert out.terminated and out.observation.startswith("Error:")
        done = [i for i, out in enumerate(outcomes) if out.terminated or out.truncated]
        if done:
            runtime.reset(done, [0] * len(done), [None] * len(done), [None] * len(done))


class _BrokenPool:
    """A verifier pool whose batch run fails: an error raised after a batch's tool calls ran."""

    def run(self, jobs: list[Any]) -> list[Any]:
        raise RuntimeError("the verifier pool is gone")

    def close(self) -> None:
        pass


@pytest.mark.timeout(60)
def test_the_job_loop_never_replays_a_batch_that_ran(tiny_path: str) -> None:
    rt = WorldRuntime(get_world_set(tiny_path), ["notes_app"], 2, EnvConfig(),
                      verifier_pool=_BrokenPool())
    rt.reset([0, 1], [0, 0], [None, None], [None, None])
    title = "applied once by the server"
    jobs = RuntimeLoop(rt)

    async def client() -> list[Any]:
        futures = [jobs.submit_step(0, create(title)), jobs.submit_step(1, "My final answer.")]
        results = await asyncio.gather(*futures, return_exceptions=True)
        jobs.stop()
        return results

    results: list[Any] = []
    thread = threading.Thread(target=lambda: results.extend(asyncio.run(client())))
    thread.start()
    jobs.run()
    thread.join()
    try:
        assert titles_in(rt, 0, title) == 1  # before: the batch was replayed job by job -> 2
        assert rt._instances[0].steps == 1  # noqa: SLF001 - the step counter advanced once
        assert all(isinstance(r, RuntimeError) for r in results), results
    finally:
        rt.close()


def test_a_done_instance_in_a_batch_touches_no_other_instance(runtime: WorldRuntime) -> None:
    title = "not written: the batch was refused"
    runtime.step([3], [HOSTILE[0]])  # instance 3's episode ends
    with pytest.raises(EnvUsageError, match="Instance 3 was stepped after its episode ended"):
        runtime.step([0, 3], [create(title), create(title)])
    assert titles_in(runtime, 0, title) == 0
    runtime.reset([3], [0], [None], [None])


# -- the vector env's edge (issue 17, item 6) ------------------------------------------------------


@pytest.fixture(scope="module")
def envs(tiny_path: str) -> Iterator[AWMVectorEnv]:
    e = AWMVectorEnv(num_envs=2, world_set=tiny_path, worlds=["notes_app"], max_action_chars=500)
    yield e
    e.close()


@pytest.mark.parametrize("batch", [(a for a in ["x", "y"]), 7, None, {"x", "y"}],
                         ids=["generator", "int", "None", "set"])
def test_a_batch_that_is_not_a_list_is_a_usage_error(envs: AWMVectorEnv, batch: Any) -> None:
    envs.reset(seed=0)
    with pytest.raises(EnvUsageError, match="step\\(\\) needs a list or tuple of 2 actions"):
        envs.step(batch)


def test_tools_before_the_first_reset_answer_the_only_world(tiny_path: str) -> None:
    fresh = AWMVectorEnv(num_envs=2, world_set=tiny_path, worlds=["notes_app"])
    mixed = AWMVectorEnv(num_envs=2, world_set=tiny_path, worlds=["notes_app", "judge_only"])
    try:
        assert "create_note" in {t["name"] for t in fresh.tools(1)}
        assert "create_note" in fresh.tools_text(0)
        with pytest.raises(EnvUsageError, match="instance 0 has no world before its first reset"):
            mixed.tools(0)
        with pytest.raises(EnvUsageError, match="instance index 5"):
            fresh.tools(5)
    finally:
        fresh.close()
        mixed.close()


def test_an_action_over_the_cap_is_malformed_and_names_it(envs: AWMVectorEnv) -> None:
    envs.reset(seed=0)
    obs, reward, terminated, _, info = envs.step(["<tool_call>" + " " * 600, "fine, done"])
    assert obs[0] == ("Error: the action is 611 characters long; the limit is 500 "
                      "(EnvConfig.max_action_chars)")
    assert reward[0] == -1.0 and terminated[0] and info["format_error"][0]


def test_a_huge_tool_name_stays_inside_the_observation_space(tiny_path: str) -> None:
    e = AWMVectorEnv(num_envs=1, world_set=tiny_path, worlds=["notes_app"])
    try:
        e.reset(seed=0)
        obs, *_ = e.step([format_tool_call("n" * 1_000_000, {})])
        assert e.single_observation_space.contains(obs[0]) and len(obs[0]) < 300
    finally:
        e.close()


def test_numpy_batches_still_work(envs: AWMVectorEnv) -> None:
    envs.reset(seed=0)
    _, _, terminated, _, _ = envs.step(np.array(["done", "done"], dtype=object))
    assert terminated.all()
