"""The verifiers (0.4) bridge, evaluated by verifiers' own machinery against a loopback server.

A real OpenAI-compatible HTTP server on 127.0.0.1 (``ScriptedLLM``) answers with native tool
calls: for one task it replays the reference solution, for others it makes the mistakes a model
makes. ``run_eval`` (what ``vf-eval`` runs in-process) loads the taskset by its id, sends every
model call of ``AWMHarness`` through verifiers' interception server, and scores each trace with
``AWMTask``'s reward and metrics: the solved task must score 1.0, the wrong answer 0.0, a
malformed call -1.0, and a rollout that never answers is truncated.

The ``vf-eval`` command itself runs in the opt-in test (``AWM_RUN_VF_EVAL=1``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("verifiers.v1", reason="the verifiers extra (0.4): "
                    "pip install 'awm-gym[verifiers]'")

import asyncio  # noqa: E402

from verifiers.v1.cli.eval.runner import run_eval  # noqa: E402

import awm_gym  # noqa: E402
from awm_gym.integrations.verifiers import (  # noqa: E402
    TASKSET_ID,
    close_hosts,
    eval_config,
    host_for,
)

ROOT = Path(awm_gym.__file__).resolve().parents[1]
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
    close_hosts()


def evaluate(server: ScriptedLLM, tmp_path: Path, max_turns: int | None = None,
             **taskset: object) -> dict[int, object]:
    """Run the taskset as ``vf-eval`` does; the one trace of each task, by task index."""
    config = eval_config("scripted", server.base_url, KEY_VAR, output_dir=tmp_path,
                         max_turns=max_turns, gym_id="AWM/spotify-v0", **taskset)
    episodes = asyncio.run(run_eval(config))
    traces = [t for e in episodes for t in e.traces]
    for t in traces:
        assert not t.errors, t.errors
    return {t.task.data.task_idx: t for t in traces}


def test_rubric_scores_the_verifier_outcome(server: ScriptedLLM, tmp_path: Path) -> None:
    tasks = [SOLVED, WRONG, MALFORMED, UNKNOWN, LOOPING]
    by_task = evaluate(server, tmp_path, task_indices=tasks,
                       tool_names=["search_artists", "list_artist_albums",
                                   "list_followed_artists"], description_lines=1,
                       env_kwargs={"max_episode_steps": 5})
    assert sorted(by_task) == sorted(tasks)

    def reward(t: object) -> float:
        return t.rewards["awm_reward"].score  # type: ignore[attr-defined]

    solved = by_task[SOLVED]
    assert reward(solved) == 1.0 and solved.metrics["success"] == 1.0
    assert solved.info["awm"]["label"] == "complete"

    wrong = by_task[WRONG]  # answered, but not what the verifier checks
    assert reward(wrong) == 0.0 and wrong.metrics["success"] == 0.0
    assert wrong.metrics["reward_valid"] == 1.0

    malformed = by_task[MALFORMED]  # arguments that are not a JSON object end the episode
    assert reward(malformed) == -1.0 and malformed.metrics["format_error"] == 1.0

    unknown = by_task[UNKNOWN]  # AWM's "Unknown tool" text, then an answer the verifier rejects
    assert unknown.info["awm"]["label"] == "others" and reward(unknown) == 0.0

    looping = by_task[LOOPING]  # never answers: the env's step limit ends it, unrewarded
    assert looping.info["awm"] == {"reward": 0.0, "reward_valid": True, "success": False,
                                   "label": "truncated", "turns": 5}
    # every offered tool went through verifiers' interception to the server as a function tool
    tools = server.requests[0]["body"]["tools"]
    assert [t["function"]["name"] for t in tools] == ["search_artists", "list_artist_albums",
                                                      "list_followed_artists"]
    # the run's results file, as vf-eval writes it
    [results] = tmp_path.glob("**/traces.jsonl")
    assert len(results.read_text().splitlines()) == len(tasks)


def test_rollouts_beyond_capacity_wait_for_an_instance(server: ScriptedLLM,
                                                       tmp_path: Path) -> None:
    by_task = evaluate(server, tmp_path, task_indices=[SOLVED, WRONG], capacity=1,
                       tool_names=["search_artists", "list_artist_albums"])
    assert {k: t.rewards["awm_reward"].score for k, t in by_task.items()} == {SOLVED: 1.0,
                                                                           WRONG: 0.0}
    assert host_for("AWM/spotify-v0", capacity=1).free == 1


def test_max_turns_truncates(server: ScriptedLLM, tmp_path: Path) -> None:
    by_task = evaluate(server, tmp_path, max_turns=3, task_indices=[LOOPING],
                       tool_names=["list_devices"])
    looping = by_task[LOOPING]  # three model turns, three tool calls; the fourth is refused
    assert looping.stop_condition is not None
    assert looping.info["awm"] == {"reward": 0.0, "reward_valid": True, "success": False,
                                   "label": "truncated", "turns": 3}
    assert looping.rewards["awm_reward"].score == 0.0


def test_import_awm_gym_does_not_import_verifiers() -> None:
    code = "import sys, awm_gym; print('verifiers' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.stdout.strip() == "False"


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("AWM_RUN_VF_EVAL") != "1",
                    reason="opt-in: set AWM_RUN_VF_EVAL=1 (runs the vf-eval command)")
def test_vf_eval_command(server: ScriptedLLM, tmp_path: Path) -> None:
    vf_eval = Path(sys.executable).parent / "vf-eval"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT),
                                                                    os.environ.get("PYTHONPATH")])))
    done = subprocess.run(
        [str(vf_eval), TASKSET_ID, "--env.taskset.gym-id", "AWM/spotify-v0",
         "--env.taskset.task-indices", str(SOLVED), str(WRONG),
         "--env.taskset.tool-names", "search_artists", "list_artist_albums",
         "list_followed_artists", "--env.taskset.description-lines", "1",
         "--env.agent.runtime.type", "subprocess", "-m", "scripted",
         "--client.base-url", server.base_url, "--client.api-key-var", KEY_VAR,
         "-r", "1", "--no-push", "-o", str(tmp_path)],
        env=env, capture_output=True, text=True, timeout=280, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    [results] = tmp_path.glob("**/traces.jsonl")
    episodes = [json.loads(line) for line in results.read_text().splitlines()]  # one per line
    traces = [t for e in episodes for t in e["traces"]]
    rewards = {t["task"]["data"]["task_idx"]: t["rewards"]["awm_reward"]["score"] for t in traces}
    assert rewards == {SOLVED: 1.0, WRONG: 0.0}
