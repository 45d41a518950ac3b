"""How one vector step scales with worker processes: median step time of ``get_track`` calls on
the built-in spotify world for 16-1,024 instances, in-process (``num_workers=0``) against 1 and 2
shard workers (trusted, ``isolation="none"``), the default (``num_workers="auto"``, which picks
:func:`awm_gym.envs.vector_env.trusted_workers`), 2 and 4 Ray actors on this machine
(``backend="ray"``: a local Ray cluster started with 4 logical CPUs, so 4 one-CPU actors fit on
a 2-core machine, the stand-in for more cores; skipped without the ``ray`` extra; since issue 31
each actor relays to a worker process it starts, contained or not), 2 contained Ray actors and
the contained default
(``isolation="process"``: :func:`~awm_gym.envs.vector_env.contained_workers`). Every call is
checked to have answered ``ok``. docs/benchmarks/containment.md reports the table.

Run: ``python tests/benchmarks/workers_scaling_probe.py [--sizes 16 64 256 1024] [--setups ...]``
(prints a Markdown table; the cells say which runtime each setup got, so the same file run
against an older checkout shows what its default was).
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import statistics
import time

import gymnasium as gym

import awm_gym  # noqa: F401

READ = '<tool_call>{"name": "get_track", "arguments": {"track_id": 1}}</tool_call>'
SIZES = (16, 64, 256, 1024)
SETUPS = {"in-process": {"isolation": "none", "num_workers": 0},
          "1 worker": {"isolation": "none", "num_workers": 1},
          "2 workers": {"isolation": "none", "num_workers": 2},
          "default": {"isolation": "none"},
          "2 Ray actors": {"isolation": "none", "num_workers": 2, "backend": "ray"},
          "4 Ray actors": {"isolation": "none", "num_workers": 4, "backend": "ray"},
          "2 Ray actors, contained": {"isolation": "process", "num_workers": 2,
                                      "backend": "ray"},
          "contained default": {"isolation": "process"}}


def _shards(runtime: object) -> str:
    """How many workers a runtime has, from its repr (``num_workers=k``; in-process: 0)."""
    found = re.search(r"num_workers=(\d+)", repr(runtime))
    return found.group(1) if found else "0"


def median_step_ms(n: int, setup: dict, rounds: int = 7) -> tuple[float, str]:
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
        return statistics.median(times), _shards(envs.runtime)
    finally:
        envs.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--setups", nargs="+", default=list(SETUPS), choices=list(SETUPS))
    parser.add_argument("--rounds", type=int, default=7, help="timed steps per cell")
    opts = parser.parse_args(argv)
    setups = [s for s in opts.setups
              if "Ray" not in s or importlib.util.find_spec("ray") is not None]
    if any("Ray" in s for s in setups):
        import ray

        ray.init(num_cpus=4, include_dashboard=False, log_to_driver=False)
    print("| instances | " + " | ".join(setups) + " |")
    print("|---:|" + "---:|" * len(setups))
    for n in opts.sizes:
        cells = []
        for name in setups:
            ms, workers = median_step_ms(n, SETUPS[name], opts.rounds)
            cells.append(f"{ms:.1f} ms ({workers} w)")
        print(f"| {n} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
