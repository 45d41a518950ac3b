"""The SkyRL bridge, driven through skyrl-gym's own API (``register`` / ``make`` / ``init`` /
``step`` / ``get_metrics`` / ``aggregate_metrics``), as SkyRL's generator drives it.

Every observation and reward must equal the in-process env's (``gym.make``) for the same seed and
texts: the reference solution scores 1.0, a wrong answer 0.0, a malformed call -1.0, and running
out of ``max_turns`` ends the episode as truncated.
"""

from __future__ import annotations

import gymnasium as gym
import pytest

skyrl_gym = pytest.importorskip("skyrl_gym", reason="the skyrl extra: pip install 'awm-gym[skyrl]'")

import awm_gym  # noqa: E402,F401 - registers AWM/spotify-v0
from awm_gym.envs.registration import get_world_set  # noqa: E402
from awm_gym.integrations.skyrl import ENV_CLASS, dataset_rows, register  # noqa: E402
from awm_gym.tools.actions import solution_turns  # noqa: E402

WORLD = "spotify"
CONFIG = {"gym_id": f"AWM/{WORLD}-v0", "capacity": 4}


def _in_process(seed: int, task_idx: int, texts: list[str]) -> list[tuple[str, float, bool]]:
    env = gym.make(f"AWM/{WORLD}-v0")
    try:
        env.reset(seed=seed, options={"task_idx": task_idx})
        out = []
        for text in texts:
            obs, reward, terminated, truncated, _ = env.step(text)
            out.append((obs, float(reward), bool(terminated or truncated)))
            if terminated or truncated:
                break
        return out
    finally:
        env.close()


def _skyrl(row: dict, texts: list[str], **config) -> tuple[list[tuple[str, float, bool]], dict]:
    env = skyrl_gym.make(row["env_class"], env_config={**CONFIG, **config}, extras=row)
    try:
        prompt, _ = env.init(row["prompt"])
        assert prompt == row["prompt"]
        out = []
        for text in texts:
            step = env.step(text)
            content = step["observations"][0]["content"] if step["observations"] else None
            out.append((content, step["reward"], step["done"], step["metadata"]))
            if step["done"]:
                break
        return out, env.get_metrics()
    finally:
        env.close()


def test_episodes_equal_in_process():
    register()
    register()                                            # a second call is a no-op
    assert ENV_CLASS in skyrl_gym.registry
    solutions = get_world_set()[WORLD].solutions
    cases = [(0, solution_turns(solutions[0]), "complete", 1.0),
             (3, ["I could not do it."], "others", 0.0),
             (2, ["<tool_call>{not json</tool_call>"], "format_error", -1.0),
             (1, ['<tool_call>{"name": "no_such_tool", "arguments": {}}</tool_call>',
                  "Done."], "others", 0.0)]
    metrics = []
    for task_idx, texts, label, reward in cases:
        [row] = dataset_rows(f"AWM/{WORLD}-v0", task_indices=[task_idx], seeds=[5], capacity=4)
        assert row["extra_info"] == {"gym_id": f"AWM/{WORLD}-v0", "world": WORLD,
                                     "task_idx": task_idx, "seed": 5}
        assert row["prompt"][1]["content"] == get_world_set()[WORLD].tasks[task_idx]
        got, m = _skyrl(row, texts)
        expected = _in_process(5, task_idx, texts)
        assert [(r, d) for _, r, d, _ in got] == [(r, d) for _, r, d in expected]
        assert [o for o, _, d, _ in got if not d] == [o for o, _, d in expected if not d]
        assert got[-1][3]["label"] == label and got[-1][1] == reward
        assert m["awm/success"] == (label == "complete") and m["awm/turns"] == len(texts)
        metrics.append(m)
    total = skyrl_gym.envs.base_text_env.BaseTextEnv.aggregate_metrics(metrics)
    assert total["awm/success"] == 0.25 and total["awm/format_error"] == 0.25


def test_max_turns_truncates():
    [row] = dataset_rows(f"AWM/{WORLD}-v0", task_indices=[0], capacity=4)
    call = '<tool_call>{"name": "list_playlists", "arguments": {}}</tool_call>'
    got, metrics = _skyrl(row, [call] * 5, max_turns=2)
    assert [d for _, _, d, _ in got] == [False, True]
    assert got[-1][3]["label"] == "truncated" and got[-1][1] == 0.0
    assert metrics["awm/truncated"] == 1.0


def test_tools_in_the_prompt_and_bad_settings():
    [row] = dataset_rows(f"AWM/{WORLD}-v0", task_indices=[2], capacity=4,
                         tool_names=["list_followed_artists"])
    system = row["prompt"][0]["content"]
    assert '"name": "list_followed_artists"' in system and "<tool_call>" in system
    with pytest.raises(awm_gym.errors.EnvUsageError, match="unknown keys"):
        skyrl_gym.make(ENV_CLASS, env_config={"gym_idd": "x"}, extras=row)
    with pytest.raises(awm_gym.errors.EnvUsageError, match="may open"):
        dataset_rows(f"AWM/{WORLD}-v0", task_indices=[99], capacity=4)
