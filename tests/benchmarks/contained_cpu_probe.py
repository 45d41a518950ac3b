"""CPU time per tool call, in-process against the contained default's worker plus its caller:
``INSTANCES`` instances of the built-in spotify world's ``get_track``, 20 steps after a warm-up.
CPU time is what a loaded machine inflates least (wall times moved 2x between runs there); the
median step's wall time per call is printed beside it. The
worker's time is read from ``/proc/<pid>/stat``; its pid through ``runtime._shards`` (private,
present since issue 23, so the file runs against older checkouts on ``PYTHONPATH``).

Run: ``PYTHONPATH=TREE python tests/benchmarks/contained_cpu_probe.py [INSTANCES]`` (Linux).
docs/benchmarks/containment.md, *Containment round 2 (issue 31)*, reports it.
"""

from __future__ import annotations

import os
import sys
import time

import gymnasium as gym

import awm_gym  # noqa: F401

READ = '<tool_call>{"name": "get_track", "arguments": {"track_id": 1}}</tool_call>'
SETUPS = {"in-process": {"isolation": "none", "num_workers": 0},
          "contained, 1 worker": {"isolation": "process", "num_workers": 1}}


def _cpu_s(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def main(n: int = 64, steps: int = 20) -> None:
    for name, setup in SETUPS.items():
        envs = gym.make_vec("AWM/spotify-v0", num_envs=n, max_episode_steps=10**6, **setup)
        try:
            envs.reset(seed=list(range(n)))
            envs.step([READ] * n)
            pids = [s.worker.proc.pid for s in getattr(envs.runtime, "_shards", [])]
            worker, caller = sum(map(_cpu_s, pids)), time.process_time()
            walls = []
            for _ in range(steps):
                start = time.perf_counter()
                _, _, _, _, info = envs.step([READ] * n)
                walls.append(time.perf_counter() - start)
                assert (info["tool_outcome"] == "ok").all(), set(info["tool_outcome"])
            worker, caller = sum(map(_cpu_s, pids)) - worker, time.process_time() - caller
        finally:
            envs.close()
        per_call = 1e6 / (n * steps)
        wall = sorted(walls)[len(walls) // 2] * 1e6 / n
        print(f"{name}: caller {caller * per_call:.0f} us/call, worker {worker * per_call:.0f} "
              f"us/call, total {(caller + worker) * per_call:.0f} us/call, "
              f"wall {wall:.0f} us/call (median step)")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:2]))
