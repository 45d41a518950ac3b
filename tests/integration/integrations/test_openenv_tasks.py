"""OpenEnv as its users have it: the typed verdict, the task API and ``openenv validate``.

Against a real ``awm env start --protocol openenv`` process on 127.0.0.1:

* on either OpenEnv line (``openenv`` 0.10, ``openenv-core`` 0.3): the verdict of an episode
  travels in the typed ``AWMObservation.verdict`` field and equals the in-process env's info;
  ``reset(split=..., index=...)`` through OpenEnv's client starts the split's task;
* on either line, OpenEnv's JSON-RPC ``/mcp`` route lists the world's tools;
* on ``openenv`` 0.10 only: the task API routes (``/awm-spotify/splits``, ``/tasks``,
  ``/num_tasks``, ``/task``, ``/task_range``) list the world's splits, ``openenv validate
  --url`` passes every check, and OpenEnv's ``MCPToolClient`` plays an episode (its 0.3 client
  sends tool calls as ``step`` actions, which our typed action is not).
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import subprocess
import sys

import httpx
import pytest

pytest.importorskip("openenv.core",
                    reason="the OpenEnv bridge needs pip install 'awm-gym[openenv]'")

import gymnasium as gym  # noqa: E402

import awm_gym  # noqa: E402,F401 - registers AWM/spotify-v0
from awm_gym.envs.registration import get_world_set  # noqa: E402
from awm_gym.integrations.openenv import AWMAction, AWMEnvClient  # noqa: E402
from awm_gym.integrations.openenv.tasks import WorldTasks  # noqa: E402
from awm_gym.server import ServerConfig  # noqa: E402
from awm_gym.server.process import ServerProcess  # noqa: E402
from awm_gym.tools.actions import format_tool_call, solution_turns  # noqa: E402
from awm_gym.worlds.splits import split_worlds  # noqa: E402

WORLD = "spotify"
ENV_NAME = f"awm-{WORLD}"
HAS_TASK_API = importlib.util.find_spec("openenv.validation") is not None
"""openenv 0.10 serves the task API and ships ``openenv validate``; openenv-core 0.3 does not."""
needs_010 = pytest.mark.skipif(not HAS_TASK_API, reason="openenv 0.10 (pip install "
                               "'awm-gym[openenv]'); this environment has openenv-core 0.3")


@pytest.fixture(scope="module")
def server_url():
    with ServerProcess(ServerConfig(world=WORLD, port=0, protocol="openenv",
                                    max_sessions=4)) as server:
        yield server.url


async def _play(url: str, turns: list[str], **reset_kwargs):
    async with AWMEnvClient(base_url=url, message_timeout_s=120) as client:
        first = await client.reset(seed=1, **reset_kwargs)
        observations = [first.observation]
        for turn in turns:
            result = await client.step(AWMAction(text=turn))
            observations.append(result.observation)
            if result.done:
                break
        return observations


def test_verdict_is_a_typed_field_on_the_wire(server_url):
    solution = solution_turns(get_world_set()[WORLD].solutions[0])
    solved = asyncio.run(_play(server_url, solution, task_idx=0))
    wrong = asyncio.run(_play(server_url, ["I could not do it."], task_idx=3))
    malformed = asyncio.run(_play(server_url, ["<tool_call>{not json</tool_call>"], task_idx=2))

    assert all(o.verdict is None for o in solved[:-1])          # only the last step has one
    verdict = solved[-1].verdict
    assert type(verdict).__name__ == "AWMVerdict"                # parsed, not a dict
    assert (verdict.label, verdict.reward, verdict.scored, verdict.success) == (
        "complete", 1.0, True, True)
    assert verdict.label == solved[-1].info["verifier_label"]
    v = wrong[-1].verdict
    assert (v.label, v.reward, v.scored, v.success, v.error) == ("others", 0.0, True, False, None)
    v = malformed[-1].verdict
    assert (v.label, v.reward, v.scored, v.success) == ("format_error", -1.0, True, False)
    assert v.error and v.error == malformed[-1].info["error"]


def test_reset_by_split_and_index_through_the_client(server_url):
    tasks = WorldTasks.of(WORLD)
    spec = tasks.get_task("val_tasks", 1)
    [first] = asyncio.run(_play(server_url, [], split="val_tasks", index=1))
    assert first.task_idx == spec["task_idx"] and first.text == spec["task"]

    async def bad_index():
        async with AWMEnvClient(base_url=server_url) as client:
            await client.reset(split="val_tasks", index=99)

    with pytest.raises(RuntimeError, match="has 2 task"):
        asyncio.run(bad_index())


def test_task_api_follows_the_split():
    split = split_worlds(None, val_worlds=0.2, val_tasks=0.2, seed=0)
    held_out = next(iter(split.val_worlds))
    tasks = WorldTasks.of(held_out)
    assert [s["name"] for s in tasks.list_splits()] == ["all", "val_worlds"]  # no train tasks
    assert tasks.num_tasks("val_worlds") == tasks.num_tasks("all") == len(
        split.val_worlds[held_out])
    assert [t["task_idx"] for t in tasks.get_task_range("all", 2, 4)] == [2, 3]
    with pytest.raises(IndexError):
        tasks.get_task("all", 10_000)
    other = WorldTasks.of(WORLD, split=split_worlds(None, val_worlds=0.0, val_tasks=0.5, seed=3))
    assert other.num_tasks("train") == other.num_tasks("val_tasks") == 5


@needs_010
def test_task_api_routes(server_url):
    tasks = WorldTasks.of(WORLD)
    with httpx.Client(base_url=server_url, timeout=60) as http:
        assert http.get("/list_environments").json() == [ENV_NAME]
        splits = http.get(f"/{ENV_NAME}/splits").json()
        assert [(s["name"], s["type"], s["num_tasks"]) for s in splits] == [
            ("all", "test", 10), ("train", "train", 8), ("val_tasks", "validation", 2)]
        listed = http.post(f"/{ENV_NAME}/tasks", json={"split": "train"}).json()["tasks"]
        assert [t["task_idx"] for t in listed] == list(tasks.splits["train"])
        assert http.post(f"/{ENV_NAME}/num_tasks", json={"split": "val_tasks"}).json() == {
            "num_tasks": 2}
        one = http.post(f"/{ENV_NAME}/task", json={"split": "all", "index": 4}).json()["task"]
        assert one == tasks.get_task("all", 4) and one["task"] == get_world_set()[WORLD].tasks[4]
        some = http.post(f"/{ENV_NAME}/task_range",
                         json={"split": "all", "start": 8, "stop": 20}).json()["tasks"]
        assert [t["index"] for t in some] == [8, 9]
        assert http.post(f"/{ENV_NAME}/task",
                         json={"split": "all", "index": 10}).status_code == 400
        unknown = http.post(f"/{ENV_NAME}/tasks", json={"split": "test"})
        assert unknown.status_code == 400 and "'val_tasks'" in unknown.json()["detail"]


@needs_010
def test_openenv_validate_url_passes(server_url):
    done = _openenv_cli("validate", "--url", server_url, "--json", "--timeout", "60")
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["passed"] is True, report
    checks = {c["id"]: c["passed"] for c in report["criteria"]}
    assert checks == {name: True for name in (
        "openapi_version_available", "health_endpoint", "metadata_endpoint", "schema_endpoint",
        "mcp_endpoint", "mode_endpoint_consistency")}


def _world_tools() -> list[dict]:
    env = gym.make(f"AWM/{WORLD}-v0")
    try:
        return env.unwrapped.runtime.tools(WORLD)
    finally:
        env.close()


def test_mcp_route_lists_the_world_tools(server_url):
    with httpx.Client(base_url=server_url, timeout=60) as http:
        reply = http.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list",
                                        "params": {}}).json()
        assert reply["result"]["tools"] == _world_tools()
        early = http.post("/mcp", json={"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                                        "params": {"name": "get_current_user"}}).json()
        assert "call reset(...) first" in early["error"]["message"]    # no episode: an error


@needs_010
def test_openenv_mcp_client_plays_an_episode(server_url):
    from openenv.core.mcp_client import MCPToolClient

    solution = get_world_set()[WORLD].solutions[0]

    async def play():
        async with MCPToolClient(base_url=server_url, message_timeout_s=120) as client:
            tools = await client.list_tools()
            started = await client.reset(seed=1, task_idx=0)
            replies = [await client.call_tool(c.tool, **dict(c.arguments))
                       for c in solution.calls]
            state = await client.state()
            final = await client.step(AWMAction(text=solution.final_answer or "Done."))
            return tools, started, replies, state, final

    tools, started, replies, state, final = asyncio.run(play())
    assert [(t.name, t.description, t.input_schema) for t in tools] == [
        (t["name"], t["description"], t["inputSchema"]) for t in _world_tools()]
    assert started.observation.text == get_world_set()[WORLD].tasks[0]
    assert state.step_count == len(solution.calls)             # each call was a turn

    env = gym.make(f"AWM/{WORLD}-v0")                          # the same calls in-process
    env.reset(seed=1, options={"task_idx": 0})
    expected = [env.step(format_tool_call(c.tool, dict(c.arguments)))[0] for c in solution.calls]
    env.close()
    assert replies == expected
    verdict = final.observation.verdict                        # a dict: the client is generic
    assert final.done and final.reward == 1.0
    assert (verdict["label"], verdict["scored"], verdict["success"]) == ("complete", True, True)


PACKAGE = os.path.join(os.path.dirname(__file__), "..", "..", "..", "examples", "openenv_package")


def _openenv_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", "import sys; from openenv.cli.__main__ import main; "
         "sys.argv[0] = 'openenv'; sys.exit(main())", *args],
        capture_output=True, text=True, timeout=240,
        env={**os.environ, "NO_COLOR": "1", "COLUMNS": "200"})


@needs_010
def test_the_openenv_package_passes_the_static_level():
    done = _openenv_cli("validate", PACKAGE, "--level", "static", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["verdict"] == "pass" and report["levels_run"] == [1]
    assert [(r["check_id"], r["status"]) for r in report["results"]] == [
        ("static.manifest", "pass")]
    # runtime.task_declaration_accuracy is not implemented in 0.10: check the counts ourselves
    declared = report["manifest"]["capabilities"]["declared_task_count"]
    assert declared == {s["name"]: s["num_tasks"] for s in WorldTasks.of(WORLD).list_splits()}


def test_the_openenv_package_app_is_our_server():
    code = ("from server.app import app, server; "
            "print(type(server).__name__, server.world); server.close()")
    done = subprocess.run([sys.executable, "-c", code], cwd=PACKAGE, capture_output=True,
                          text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["OpenEnvWorldServer", WORLD]
