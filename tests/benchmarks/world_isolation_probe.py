"""What one worker per world costs: a multi-world env with ``isolation="process"`` (worlds share
the contained workers) against ``isolation="world"`` (each world in a worker of its own), in a
fresh process: make_vec, the first reset, a ``list_tools`` step (no world code), a step of one
read call per instance (each world's first tool without required arguments), close, and the
worker processes' count and memory (summed PSS and RSS of every process this one started, read
after the steps).

Prints one JSON object. Public API only (``gym.make_vec``), so an older checkout first on
``PYTHONPATH`` runs the same file (there ``isolation="world"`` does not exist).

    python tests/benchmarks/world_isolation_probe.py --isolation world            # 8 built-ins
    python tests/benchmarks/scale_support.py /tmp/awm-1k 1000
    python tests/benchmarks/world_isolation_probe.py --world-set /tmp/awm-1k --worlds 64 \\
        --n 1024 --isolation world
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

LIST_TOOLS = '<tool_call>{"name": "list_tools", "arguments": {}}</tool_call>'


def _descendants(root: int) -> list[int]:
    """Every live process below ``root``."""
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(name))
    out, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), ()):
            out.append(child)
            todo.append(child)
    return out


def _memory_mb(pids: list[int]) -> tuple[float, float]:
    """Summed (PSS, RSS) of ``pids`` in MB (``/proc/PID/smaps_rollup``)."""
    pss = rss = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/smaps_rollup") as f:
                for line in f:
                    if line.startswith("Pss:"):
                        pss += int(line.split()[1])
                    elif line.startswith("Rss:"):
                        rss += int(line.split()[1])
        except OSError:
            pass
    return pss / 1024, rss / 1024


def _read_call(envs, i: int, cache: dict[str, str]) -> str:  # noqa: ANN001
    """A call of instance ``i``'s world's first tool that needs no argument."""
    world = envs.runtime.instance_world(i)[0]
    if world not in cache:
        tool = next(t for t in envs.tools(i) if not t["inputSchema"].get("required"))
        cache[world] = json.dumps({"name": tool["name"], "arguments": {}})
    return f"<tool_call>{cache[world]}</tool_call>"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--world-set", default=None, help="None: the built-in worlds")
    parser.add_argument("--worlds", type=int, default=None,
                        help="the set's first N worlds (every copy 0 first, then copy 1, ...)")
    parser.add_argument("--n", type=int, default=64, help="instances")
    parser.add_argument("--isolation", default="process")
    parser.add_argument("--rounds", type=int, default=3)
    opts = parser.parse_args()

    import gymnasium as gym

    import awm_gym

    kwargs: dict = {"max_episode_steps": 10**9, "isolation": opts.isolation}
    if opts.world_set is not None:
        awm_gym.register_worlds(opts.world_set)
        kwargs["world_set"] = opts.world_set
    if opts.worlds is not None:  # copies of the 8 built-ins interleaved (scale_support's names)
        from awm_gym.envs.registration import get_world_set

        names = sorted(get_world_set(opts.world_set).names(),
                       key=lambda name: (name.rsplit("_", 1)[-1], name))
        kwargs["worlds"] = names[:opts.worlds]
    t0 = time.perf_counter()
    envs = gym.make_vec("AWM/mix-v0", num_envs=opts.n, **kwargs)
    t_make = time.perf_counter()
    envs.reset(seed=list(range(opts.n)))
    t_reset = time.perf_counter()
    _, _, _, _, info = envs.step([LIST_TOOLS] * opts.n)
    t_list = time.perf_counter()
    cache: dict[str, str] = {}
    reads = [_read_call(envs, i, cache) for i in range(opts.n)]
    times = []
    for k in range(opts.rounds + 1):
        start = time.perf_counter()
        _, _, _, _, info = envs.step(reads)
        if k:  # the first runs each world's code for the first time
            times.append(time.perf_counter() - start)
    ok = int((info["tool_outcome"] == "ok").sum())
    pids = _descendants(os.getpid())
    pss, rss = _memory_mb(pids)
    out = {"n": opts.n, "isolation": opts.isolation, "runtime": type(envs.runtime).__name__,
           "worlds": len(envs.runtime.worlds), "worlds_used": len(cache), "reads_ok": ok,
           "make_vec_s": t_make - t0, "first_reset_s": t_reset - t_make,
           "list_tools_s": t_list - t_reset, "read_step_s": statistics.median(times),
           "processes": len(pids), "children_pss_mb": pss, "children_rss_mb": rss}
    t_close = time.perf_counter()
    envs.close()
    out["close_s"] = time.perf_counter() - t_close
    out["load"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(json.dumps(out))


if __name__ == "__main__":
    main()
