"""openenv-core's own client plays episodes against ``awm env start --protocol openenv``.

The server is a real ``awm env start`` process on 127.0.0.1; the client is openenv-core's
``EnvClient`` (our typed subclass). Every observation, reward and info must equal what the
in-process env (``gym.make("AWM/spotify-v0")``) returns for the same seed and actions, and 64
concurrent sessions must not see each other's databases.
"""

from __future__ import annotations

import asyncio

import gymnasium as gym
import httpx
import pytest

pytest.importorskip("openenv.core", reason="the OpenEnv bridge needs pip install 'awm-gym[openenv]'")

import awm_gym  # noqa: E402,F401 - registers AWM/spotify-v0
from awm_gym.envs.registration import get_world_set  # noqa: E402
from awm_gym.integrations.openenv import AWMAction, AWMEnvClient, AWMEnvironment  # noqa: E402
from awm_gym.server import ServerConfig  # noqa: E402
from awm_gym.server.process import ServerProcess  # noqa: E402
from awm_gym.tools.actions import solution_turns  # noqa: E402

WORLD = "spotify"
SESSIONS = 64


def _plans() -> list[list[str]]:
    """Per task: its reference solution, then the final answer (all but the last touch the db)."""
    world = get_world_set()[WORLD]
    return [["Done."] if s is None else solution_turns(s) for s in world.solutions]


def _in_process(seed: int, task_idx: int, turns: list[str]) -> list[tuple]:
    env = gym.make(f"AWM/{WORLD}-v0")
    try:
        obs, info = env.reset(seed=seed, options={"task_idx": task_idx})
        out = [(obs, None, False, False, info)]
        for turn in turns:
            obs, reward, terminated, truncated, info = env.step(turn)
            out.append((obs, reward, terminated, truncated, info))
            if terminated or truncated:
                break
        return out
    finally:
        env.close()


async def _served(url: str, seed: int, task_idx: int, turns: list[str]) -> list[tuple]:
    async with AWMEnvClient(base_url=url, message_timeout_s=120) as client:
        result = await client.reset(seed=seed, task_idx=task_idx)
        o = result.observation
        out = [(o.text, None, False, False, o.info)]
        assert o.tools_text and "list_tools" not in o.text
        for turn in turns:
            result = await client.step(AWMAction(text=turn))
            o = result.observation
            assert result.done == (o.terminated or o.truncated)
            out.append((o.text, result.reward, o.terminated, o.truncated, o.info))
            if result.done:
                break
        state = await client.state()
        assert state.step_count == len(out) - 1 and state.task_idx == task_idx
        return out


@pytest.fixture(scope="module")
def server_url():
    config = ServerConfig(world=WORLD, port=0, protocol="openenv", max_sessions=SESSIONS)
    with ServerProcess(config) as server:
        yield server.url


def test_routes_are_openenvs(server_url):
    with httpx.Client(base_url=server_url, timeout=30) as http:
        assert http.get("/health").json()["status"] == "healthy"
        schema = http.get("/schema").json()
        assert {"text", "tool_call"} <= set(schema["action"]["properties"])
        assert {"text", "info", "terminated"} <= set(schema["observation"]["properties"])
        assert http.get("/metadata").json()["name"] == f"awm-gym/{WORLD}"
        reset = http.post("/reset", json={"seed": 4, "task_idx": 2}).json()
        assert reset["observation"]["task_idx"] == 2 and reset["done"] is False
        # a web page must not reach a loopback world (DNS rebinding)
        assert http.get("/metadata", headers={"Host": "evil.example"}).status_code == 421


def test_episodes_equal_in_process(server_url):
    plans = _plans()
    cases = [(7, 0, plans[0]), (3, 1, plans[1]),
             (11, 2, ["<tool_call>{not json</tool_call>"]),           # malformed: -1, ends
             (5, 3, ['<tool_call>{"name": "no_such_tool", "arguments": {}}</tool_call>',
                     "I could not do it."])]
    for seed, task_idx, turns in cases:
        expected = _in_process(seed, task_idx, turns)
        got = asyncio.run(_served(server_url, seed, task_idx, turns))
        assert got == expected, (seed, task_idx)
    assert expected[-1][1] == 0.0 and expected[-1][2]  # the wrong final answer was scored
    assert asyncio.run(_served(server_url, 7, 0, plans[0]))[-1][1] == 1.0  # the solution solves


def test_structured_tool_call_equals_text(server_url):
    first = get_world_set()[WORLD].solutions[0].calls[0]

    async def both():
        async with AWMEnvClient(base_url=server_url) as a, AWMEnvClient(base_url=server_url) as b:
            await a.reset(seed=0, task_idx=0)
            await b.reset(seed=0, task_idx=0)
            ra = await a.step(AWMAction(tool_call={"name": first.tool,
                                                   "arguments": first.arguments}))
            rb = await b.step(AWMAction(text=solution_turns(get_world_set()[WORLD].solutions[0])[0]))
            return ra.observation, rb.observation

    oa, ob = asyncio.run(both())
    assert oa.text == ob.text and oa.info == ob.info and oa.info["tool_outcome"] == "ok"


def test_step_outside_an_episode_is_a_clear_error(server_url):
    async def step_first():
        async with AWMEnvClient(base_url=server_url) as client:
            await client.step(AWMAction(text="hello"))

    with pytest.raises(RuntimeError, match="before the first reset"):
        asyncio.run(step_first())


def test_http_step_without_a_session_is_a_400_naming_the_session_client(server_url):
    # before: openenv-core's stateless /step raised out of the handler, a bare 500
    with httpx.Client(base_url=server_url, timeout=30) as http:
        assert http.post("/reset", json={"seed": 0}).status_code == 200
        reply = http.post("/step", json={"action": {"text": "hello"}})
    assert reply.status_code == 400, reply.text
    detail = reply.json()["detail"]
    assert "before the first reset" in detail and "stateless" in detail
    assert "AWMEnvClient" in detail and "WebSocket" in detail


def test_64_concurrent_sessions_are_isolated(server_url):
    plans = _plans()
    n_tasks = len(plans)
    expected = {t: _in_process(100 + t, t, plans[t]) for t in range(n_tasks)}

    async def all_sessions():
        # every session holds its instance at once: each writes its task's changes to its own db
        return await asyncio.gather(*(_served(server_url, 100 + i % n_tasks, i % n_tasks,
                                              plans[i % n_tasks]) for i in range(SESSIONS)))

    results = asyncio.run(all_sessions())
    for i, got in enumerate(results):
        assert got == expected[i % n_tasks], i
    assert all(r[-1][1] == 1.0 for r in results)


def test_in_process_environment_matches_gym_and_exposes_the_rubric():
    plans = _plans()
    env = AWMEnvironment(WORLD)
    try:
        obs = env.reset(seed=7, task_idx=0)
        got = [(obs.text, None, False, False, obs.info)]
        for turn in plans[0]:
            o = env.step(AWMAction(text=turn))
            got.append((o.text, o.reward, o.terminated, o.truncated, o.info))
        assert got == _in_process(7, 0, plans[0])
        names = dict(env.rubric.named_rubrics())
        assert set(names) == {"code", "judge"}
        assert env.rubric.last_score == 1.0 and names["code"].last_score == 1.0
        assert names["judge"].last_score is None
        assert env.get_metadata().name == f"awm-gym/{WORLD}"
        assert AWMEnvironment.SUPPORTS_CONCURRENT_SESSIONS
    finally:
        env.close()


def test_configured_rubric_is_mirrored_node_for_node():
    from awm_gym import EnvConfig
    from awm_gym.scoring.rubrics import AnswerFormatRubric, CodeVerifierRubric, Gate, WeightedSum

    rubric = WeightedSum([Gate(CodeVerifierRubric()), AnswerFormatRubric(pattern="Done")],
                         [0.5, 0.5], name="reward")
    env = AWMEnvironment(WORLD, config=EnvConfig(rubric=rubric))
    try:
        env.reset(seed=1, task_idx=0)
        obs = env.step(AWMAction(text="Not done."))
        names = dict(env.rubric.named_rubrics())
        assert list(names) == ["reward", "reward.gate", "reward.gate.code", "reward.format"]
        assert {k: r.last_score for k, r in names.items()} == obs.info["reward_components"]
        assert env.rubric.last_score == obs.reward == 0.0
    finally:
        env.close()
