"""Measure, in a fresh process, the rows of the scale table over a large world set.

Run by ``test_scale_bench.py``; prints one JSON object. ``--mode parse`` is the floor the
register goal is stated against: ``json.loads`` of every row of every file. ``--mode awm``
times ``import awm_gym``, ``register_worlds(path)``, ``gym.make_vec("AWM/mix-v0",
num_envs=--n, world_set=path)``, and the first ``reset`` plus one ``list_tools`` step of every
instance, and reports the peak resident set of this process and of its worker processes
(``ru_maxrss``).

    python tests/benchmarks/scale_probe.py --world-set /tmp/awm-1k --mode awm --n 1024
"""

from __future__ import annotations

import time

_T0 = time.perf_counter()

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import resource  # noqa: E402

LIST_TOOLS = '<tool_call>{"name": "list_tools", "arguments": {}}</tool_call>'


def peak_rss_mb() -> tuple[float, float]:
    """(this process, the largest finished child) peak resident set, in MB."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return own, children


def parse_all(root: str) -> dict[str, float | int]:
    started = time.perf_counter()
    rows = size = 0
    for file in sorted(os.listdir(root)):
        if file.endswith(".jsonl"):
            with open(os.path.join(root, file), "rb") as f:
                for line in f:
                    if line.strip():
                        json.loads(line)
                        rows += 1
                        size += len(line)
    return {"parse_s": time.perf_counter() - started, "rows": rows, "bytes": size}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--world-set", required=True)
    parser.add_argument("--mode", choices=("awm", "parse"), default="awm")
    parser.add_argument("--n", type=int, default=1024)
    parser.add_argument("--isolation", default="auto")
    opts = parser.parse_args()
    if opts.mode == "parse":
        print(json.dumps(parse_all(opts.world_set)))
        return

    import gymnasium as gym

    import awm_gym

    t_import = time.perf_counter()
    ids = awm_gym.register_worlds(opts.world_set)
    t_register = time.perf_counter()
    envs = gym.make_vec("AWM/mix-v0", num_envs=opts.n, world_set=opts.world_set,
                        isolation=opts.isolation, max_episode_steps=10**9)
    t_make = time.perf_counter()
    envs.reset(seed=list(range(opts.n)))
    _, _, _, _, info = envs.step([LIST_TOOLS] * opts.n)
    t_step = time.perf_counter()
    worlds_used = len(set(info["world"].tolist()))
    assert (info["action_kind"] == "list_tools").all()
    envs.close()
    own, children = peak_rss_mb()
    print(json.dumps({
        "n": opts.n, "registered": len(ids), "worlds_used": worlds_used,
        "import_s": t_import - _T0, "register_s": t_register - t_import,
        "make_vec_s": t_make - t_register, "reset_and_list_tools_s": t_step - t_make,
        "peak_rss_mb": own, "peak_rss_children_mb": children,
    }))


if __name__ == "__main__":
    main()
