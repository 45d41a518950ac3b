"""One vector step of 1,024 mixed instances (``AWM/mix-v0``, every built-in world) per backend.

Group ``step-mix`` steps the same reset env three ways: in this process, sharded over
``num_workers=2`` local worker processes, and over 2 Ray actors (``backend="ray"`` on a local
Ray cluster of 2 CPUs; skipped without the ``ray`` extra). Each instance sends the first call of
its task's reference solution (a real tool call of its own world), the same every round;
episodes never truncate. ``extra_info["steps_per_s"]`` is 1,024 over the mean round time.
Every measured round is checked after the timing: no worker error, no episode ended, and every
tool call answered by its world: ``ok`` in the first round (the initial state), ``ok`` or the
world's own HTTP error later (a repeated write may be refused, as the world would refuse it).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import gymnasium as gym
import pytest
from bench_support import LIST_TOOLS_ACTION, NO_TRUNCATION, SHARDS, N, Recorded, tool_action

import awm_gym  # noqa: F401 - registers AWM/mix-v0

_BACKENDS = {
    "in_process": {"num_workers": 0},
    "num_workers_2": {"num_workers": SHARDS},
    "ray_actors_2": {"num_workers": SHARDS, "backend": "ray"},
}


def _solution_actions(envs: Any, info: dict[str, Any]) -> list[str]:
    """Per instance, the first call of its task's reference solution (else ``list_tools``)."""
    world_set = envs.runtime.world_set
    actions = []
    for world, task in zip(info["world"], info["task_idx"], strict=True):
        solution = world_set[world].solutions[task]
        if solution is not None and solution.calls:
            call = solution.calls[0]
            actions.append(tool_action(call.tool, dict(call.arguments)))
        else:
            actions.append(LIST_TOOLS_ACTION)
    return actions


@pytest.fixture(scope="module", params=list(_BACKENDS))
def mix_env(request: pytest.FixtureRequest) -> Iterator[tuple[Any, list[str]]]:
    """A reset N-instance ``AWM/mix-v0`` env on one backend, and its actions."""
    ray = None
    if request.param == "ray_actors_2":
        ray = pytest.importorskip("ray", reason="the ray extra is not installed "
                                                "(pip install 'awm-gym[ray]')")
        ray.init(address="local", num_cpus=SHARDS, include_dashboard=False,
                 _node_ip_address="127.0.0.1", log_to_driver=False)
    envs = gym.make_vec("AWM/mix-v0", num_envs=N, max_episode_steps=NO_TRUNCATION,
                        **_BACKENDS[request.param])
    try:
        _, info = envs.reset(seed=list(range(N)))
        yield envs, _solution_actions(envs, info)
    finally:
        envs.close()
        if ray is not None:
            ray.shutdown()


@pytest.mark.benchmark(group="step-mix")
def test_step_mix_1024(benchmark: Any, mix_env: tuple[Any, list[str]]) -> None:
    envs, actions = mix_env
    worlds = len(envs.runtime.worlds)
    step = Recorded(envs.step)
    benchmark(step, actions)
    assert step.results, "no round recorded"
    for k, (_, _, terminated, truncated, info) in enumerate(step.results):
        assert "_worker_error" not in info and not terminated.any() and not truncated.any()
        assert set(info["action_kind"]) <= {"tool_call", "list_tools"}
        calls = info["action_kind"] == "tool_call"
        answered = {"ok"} if k == 0 else {"ok", "http_error"}
        assert set(info["tool_outcome"][calls]) <= answered, (k, set(info["tool_outcome"]))
    benchmark.extra_info.update(calls=N, worlds=worlds)
    if benchmark.stats is not None:  # None under --benchmark-disable (the smoke run)
        benchmark.extra_info["steps_per_s"] = round(N / benchmark.stats.stats.mean, 1)
