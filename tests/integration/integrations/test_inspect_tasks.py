"""AWM worlds as Inspect AI tasks, run by ``inspect_ai.eval`` with Inspect's mock model.

The mock model plays a scripted policy (the reference solution of even tasks, a wrong answer on
odd ones) through the world's Inspect tools; the same policy runs in ``World.evaluate`` on the
same seeds. Every sample's verifier score and reward must equal the World's episode for that
seed, and the log must hold the episode's tool calls with the world's replies. A verifier that
crashes (the tiny set's defect_lab, contained by default) is unscored, not I.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

pytest.importorskip("inspect_ai", reason="the inspect extra: pip install 'awm-gym[inspect]'")

from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.log import read_eval_log  # noqa: E402
from inspect_ai.model import ModelOutput, ModelUsage, get_model  # noqa: E402

from awm_gym import World  # noqa: E402
from awm_gym import info_keys as K  # noqa: E402
from awm_gym.envs.registration import get_world_set  # noqa: E402
from awm_gym.integrations.inspect_tasks import awm_task  # noqa: E402
from awm_gym.tools.actions import solution_turns  # noqa: E402

WORLD = "spotify"
WRONG = "I could not find it."
USAGE = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)


def _plan(task_idx: int) -> list[tuple[str, dict[str, Any]] | str]:
    """The scripted policy: even tasks replay the reference solution, odd ones answer wrong."""
    solution = get_world_set()[WORLD].solutions[task_idx]
    if task_idx % 2 or solution is None:
        return [WRONG]
    return [*((c.tool, dict(c.arguments)) for c in solution.calls),
            solution.final_answer or "Done."]


class ScriptedPolicy:
    """The plan as text actions, for ``World``."""

    name = "scripted"

    def __init__(self) -> None:
        self.pos: dict[int, int] = {}

    def set_env(self, env: Any) -> None:
        pass

    def set_seed(self, seed: int | None) -> None:
        pass

    def get_action(self, infos: dict[str, Any]) -> list[str | None]:
        out: list[str | None] = []
        for i, active in enumerate(infos[K.ACTIVE]):
            if not active:
                out.append(None)
                continue
            if infos[K.EPISODE_RESTARTED][i]:
                self.pos[i] = 0
            task = int(infos[K.TASK_IDX][i])
            solution = get_world_set()[WORLD].solutions[task]
            turns = [WRONG] if task % 2 or solution is None else solution_turns(solution)
            out.append(turns[min(self.pos[i], len(turns) - 1)])
            self.pos[i] += 1
        return out


def scripted_model():
    """Inspect's mock model answering as the scripted policy (task found from the user turn)."""
    by_text = {text: t for t, text in enumerate(get_world_set()[WORLD].tasks)}

    def generate(messages, tools, tool_choice, config) -> ModelOutput:
        task = next(by_text[m.text] for m in messages if m.role == "user")
        turn = sum(m.role == "assistant" for m in messages)
        step = _plan(task)[turn]
        if isinstance(step, str):
            out = ModelOutput.from_content("mockllm/model", step)
        else:
            out = ModelOutput.for_tool_call("mockllm/model", step[0], step[1])
        out.usage = USAGE  # without usage the mock model downloads a tiktoken file
        return out

    return get_model("mockllm/model", custom_outputs=generate)


def test_scores_equal_world_evaluate(tmp_path):
    episodes, seed = 6, 40
    world = World(f"AWM/{WORLD}-v0", num_envs=2, max_episode_steps=12, verbose=0)
    world.set_policy(ScriptedPolicy())
    expected = world.evaluate(episodes, seed=seed)
    world.close()

    [log] = inspect_eval(awm_task(worlds=WORLD, episodes=episodes, seed=seed,
                                  max_episode_steps=12),
                         model=scripted_model(), log_dir=str(tmp_path), display="none")
    assert log.status == "success", log.error
    log = read_eval_log(log.location)              # what `inspect view` reads back
    by_seed = {s.metadata["seed"]: s for s in log.samples}
    assert sorted(by_seed) == list(expected["seeds"]) == list(range(seed, seed + episodes))
    for k, s in enumerate(expected["seeds"]):
        sample = by_seed[s]
        verdict, reward = sample.scores["awm_verifier"], sample.scores["awm_reward"]
        assert (verdict.value == "C") == bool(expected["episode_successes"][k]), s
        assert reward.value == pytest.approx(expected["rewards"][k]), s
        assert verdict.explanation == ("complete" if verdict.value == "C" else "others")
    assert {"C", "I"} == {s.scores["awm_verifier"].value for s in log.samples}  # both kinds

    # the episode's tool calls and the world's replies are in the log
    solved = next(s for s in log.samples if s.scores["awm_verifier"].value == "C")
    calls = [c for m in solved.messages if m.role == "assistant" for c in (m.tool_calls or [])]
    replies = [m for m in solved.messages if m.role == "tool"]
    plan = _plan(solved.metadata["task_idx"])
    assert [c.function for c in calls] == [p[0] for p in plan[:-1]]
    assert len(replies) == len(calls) and all(not r.error for r in replies)
    assert any(e.event == "tool" for e in solved.events)
    metrics = {m.name: m.value for m in log.results.scores[0].metrics.values()}
    assert metrics["accuracy"] == pytest.approx(expected["success_rate"])


def test_a_crashing_verifier_is_unscored(tmp_path, tiny_path):
    def answer(messages, tools, tool_choice, config) -> ModelOutput:
        out = ModelOutput.from_content("mockllm/model", "It costs 12.25.")
        out.usage = USAGE
        return out

    [log] = inspect_eval(awm_task(worlds="defect_lab", worlds_dir=tiny_path, task_indices=[1, 0]),
                         model=get_model("mockllm/model", custom_outputs=answer),
                         log_dir=str(tmp_path), display="none")
    assert log.status == "success", log.error
    scores = {s.metadata["task_idx"]: s.scores["awm_verifier"] for s in log.samples}
    assert math.isnan(scores[1].value) and scores[1].explanation == "verifier_error"
    assert scores[0].value in ("C", "I")                          # a working verifier scores
    [accuracy] = [m for m in log.results.scores[0].metrics.values() if m.name == "accuracy"]
    assert accuracy.value in (0.0, 1.0)                           # the NaN is left out
