"""The verifiers bridge, evaluated by verifiers' own machinery against a loopback model server.

A real OpenAI-compatible HTTP server on 127.0.0.1 (``ScriptedLLM``) answers with native tool
calls: for one task it replays the reference solution, for others it makes the mistakes a model
makes. ``AWMToolEnv.evaluate_sync`` (what ``vf-eval`` runs) drives the rollouts through verifiers'
OpenAI client, and its rubric scores them with the world's verifiers: the solved task must score
1.0, the wrong answer 0.0, a malformed call -1.0, and a rollout that never answers is truncated.

The ``vf-eval`` command itself runs in the opt-in test (``AWM_RUN_VF_EVAL=1``, about a minute:
it starts verifiers' environment server processes).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("verifiers", reason="the verifiers extra: pip install 'awm-gym[verifiers]'")

import awm_gym  # noqa: E402
from awm_gym.integrations.verifiers import load_environment  # noqa: E402

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "synth"
if str(FIXTURES) not in sys.path:
    sys.path.insert(0, str(FIXTURES))

from scripted_llm import Reply, ScriptedLLM  # noqa: E402

KEY_VAR = "AWM_SCRIPTED_KEY"
SOLVED, WRONG, MALFORMED, UNKNOWN, LOOPING = 0, 2, 1, 6, 4
"""Spotify tasks, each scripted to end one way."""


def call(name: str, arguments: dict | str) -> Reply:
    return Reply(tool_calls=({"name": name, "arguments": arguments},))


def script(server: ScriptedLLM) -> None:
    """One script per task, keyed by the task text every request of its rollout carries."""
    world = awm_gym.get_world_set(None)["spotify"]
    solution = world.solutions[SOLVED]
    server.script_text(world.tasks[SOLVED], *[call(c.tool, c.arguments) for c in solution.calls],
                       Reply(solution.final_answer))
    server.script_text(world.tasks[WRONG], call("list_followed_artists", {}),
                       Reply("Paper Satellites, with 12 monthly listeners."))
    server.script_text(world.tasks[MALFORMED], call("search_tracks", "[1, 2]"))
    server.script_text(world.tasks[UNKNOWN], call("get_top_tracks", {}), Reply("I do not know."))
    server.script_text(world.tasks[LOOPING], call("list_devices", {}))  # the last reply repeats


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[ScriptedLLM]:
    monkeypatch.setenv(KEY_VAR, "not-a-secret")
    s = ScriptedLLM().start()
    script(s)
    yield s
    s.stop()


def test_rubric_scores_the_verifier_outcome(server: ScriptedLLM) -> None:
    from verifiers.legacy.types import ClientConfig

    env = load_environment("AWM/spotify-v0", task_indices=[SOLVED, WRONG, MALFORMED, UNKNOWN,
                                                            LOOPING],
                           tool_names=["search_artists", "list_artist_albums",
                                       "list_followed_artists"], description_lines=1,
                           env_kwargs={"max_episode_steps": 5})
    client = ClientConfig(api_base_url=server.base_url, api_key_var=KEY_VAR, max_retries=0)
    out = env.evaluate_sync(client=client, model="scripted", state_columns=["awm"])
    by_task = {o["info"]["task_idx"]: o for o in out["outputs"]}
    assert sorted(by_task) == sorted([SOLVED, WRONG, MALFORMED, UNKNOWN, LOOPING])
    for o in by_task.values():
        assert o.get("error") is None, o["error"]

    solved = by_task[SOLVED]
    assert solved["reward"] == 1.0 and solved["metrics"]["success"] == 1.0
    assert solved["awm"]["label"] == "complete" and solved["awm"]["turns"] == 3
    # the tool results the model read came from the world's database
    assert "Moonlit Letters" in solved["completion"][3]["content"]

    wrong = by_task[WRONG]
    assert wrong["reward"] == 0.0 and wrong["metrics"]["success"] == 0.0
    assert wrong["awm"]["label"] == "others" and wrong["metrics"]["reward_valid"] == 1.0

    malformed = by_task[MALFORMED]  # arguments that are not an object: the env's format error
    assert malformed["reward"] == -1.0 and malformed["metrics"]["format_error"] == 1.0
    assert malformed["awm"]["label"] == "format_error"

    unknown = by_task[UNKNOWN]  # AWM's reply to an unknown tool; the episode goes on
    assert "Unknown tool 'get_top_tracks'" in unknown["completion"][1]["content"]
    assert unknown["awm"]["label"] == "others" and unknown["reward"] == 0.0

    looping = by_task[LOOPING]  # never answers: the env's step limit ends it, unrewarded
    assert looping["awm"] == {"reward": 0.0, "reward_valid": True, "success": False,
                              "label": "truncated", "turns": 5}
    assert out["metadata"]["avg_reward"] == pytest.approx((1.0 + 0.0 - 1.0 + 0.0 + 0.0) / 5)
    # every offered tool went to the server as an OpenAI function tool
    tools = server.requests[0]["body"]["tools"]
    assert [t["function"]["name"] for t in tools] == ["search_artists", "list_artist_albums",
                                                      "list_followed_artists"]


def test_rollouts_beyond_capacity_wait_for_an_instance(server: ScriptedLLM) -> None:
    from verifiers.legacy.types import ClientConfig

    env = load_environment("AWM/spotify-v0", task_indices=[SOLVED, WRONG], capacity=1,
                           tool_names=["search_artists", "list_artist_albums"])
    client = ClientConfig(api_base_url=server.base_url, api_key_var=KEY_VAR, max_retries=0)
    out = env.evaluate_sync(client=client, model="scripted")
    assert {o["info"]["task_idx"]: o["reward"] for o in out["outputs"]} == {SOLVED: 1.0,
                                                                             WRONG: 0.0}
    assert env.host.free == 1


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("AWM_RUN_VF_EVAL") != "1",
                    reason="opt-in: set AWM_RUN_VF_EVAL=1 (runs the vf-eval command, ~1 min)")
def test_vf_eval_command(server: ScriptedLLM, tmp_path: Path) -> None:
    vf_eval = Path(sys.executable).parent / "vf-eval"
    args = {"gym_id": "AWM/spotify-v0", "task_indices": [SOLVED, WRONG],
            "tool_names": ["search_artists", "list_artist_albums", "list_followed_artists"],
            "description_lines": 1}
    root = Path(awm_gym.__file__).resolve().parents[1]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(root),
                                                                    os.environ.get("PYTHONPATH")])))
    done = subprocess.run(
        [str(vf_eval), "awm_gym.integrations.verifiers", "-a", json.dumps(args), "-m",
         "scripted", "-b", server.base_url, "-k", KEY_VAR, "-n", "2", "-r", "1", "--disable-tui",
         "--save-results", "-o", str(tmp_path), "--max-retries", "0"],
        env=env, capture_output=True, text=True, timeout=280, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    [results] = tmp_path.glob("evals/*/*/results.jsonl")
    rows = [json.loads(line) for line in results.read_text().splitlines()]
    rewards = {r["info"]["task_idx"]: r["reward"] for r in rows}
    assert rewards == {SOLVED: 1.0, WRONG: 0.0}
