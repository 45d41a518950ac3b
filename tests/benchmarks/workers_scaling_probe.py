"""How one vector step scales with worker processes: median step time of ``get_track`` calls on
the built-in spotify world for 16-1,024 instances, in-process against 1 and 2 shard workers
(trusted, ``isolation="none"``) and the contained default (``isolation="process"``,
``num_workers=0``: :func:`awm_gym.envs.vector_env.contained_workers`). Every call is checked
to have answered ``ok``. docs/benchmarks.md reports the table.

Run: ``python tests/benchmarks/workers_scaling_probe.py`` (prints a Markdown table)
"""

from __future__ import annotations

import statistics
import time

import gymnasium as gym

import awm_gym  # noqa: F401
from awm_gym.envs.vector_env import contained_workers

READ = '<tool_call>{"name": "get_track", "arguments": {"track_id": 1}}</tool_call>'
SIZES = (16, 64, 256, 1024)
SETUPS = {"in-process": {"isolation": "none"},
          "1 worker": {"isolation": "none", "num_workers": 1},
          "2 workers": {"isolation": "none", "num_workers": 2},
          "contained default": {"isolation": "process"}}


def median_step_ms(n: int, setup: dict, rounds: int = 7) -> float:
    envs = gym.make_vec("AWM/spotify-v0", num_envs=n, max_episode_steps=10**6, **setup)
    try:
        envs.reset(seed=list(range(n)))
        times = []
        for k in range(rounds + 1):
            start = time.perf_counter()
            _, _, terminated, truncated, info = envs.step([READ] * n)
            elapsed = time.perf_counter() - start
            assert (info["tool_outcome"] == "ok").all(), set(info["tool_outcome"])
            assert not terminated.any() and not truncated.any()
            if k:  # the first step is a warm-up
                times.append(elapsed * 1000)
        return statistics.median(times)
    finally:
        envs.close()


def main() -> None:
    print("| instances | " + " | ".join(SETUPS) + " |")
    print("|---:|" + "---:|" * len(SETUPS))
    for n in SIZES:
        cells = []
        for name, setup in SETUPS.items():
            ms = median_step_ms(n, setup)
            extra = f" ({contained_workers(n)} w)" if name == "contained default" else ""
            cells.append(f"{ms:.1f} ms{extra}")
        print(f"| {n} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
