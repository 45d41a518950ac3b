"""Measure, in a fresh process, the time to a ready vector env and the memory per instance.

Run by ``test_ready_bench.py``; prints one JSON object. ``--mode awm`` times ``import awm_gym``,
``gym.make_vec`` (the world's code is executed once per process; its template comes from the
template cache, or is built when the cache is cold) and the first ``reset`` of ``--n`` instances,
and reads the resident set size (``/proc/self/statm``) around the reset. ``--mode raw`` is the
floor: ``--n`` times ``sqlite3.connect(":memory:")`` + ``deserialize(template)``, held open.

    python tests/benchmarks/ready_probe.py --env-id AWM/spotify-v0 --mode awm --n 1024
"""

from __future__ import annotations

import time

_T0 = time.perf_counter()

import argparse  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env-id", required=True)
    parser.add_argument("--world-set", default=None, help="world set to register first")
    parser.add_argument("--mode", choices=("awm", "raw"), default="awm")
    parser.add_argument("--n", type=int, default=1024)
    opts = parser.parse_args()

    import gymnasium as gym

    import awm_gym

    if opts.world_set:
        awm_gym.register_worlds(opts.world_set)
    t_import = time.perf_counter()
    out: dict[str, float | int | str] = {"mode": opts.mode, "n": opts.n,
                                         "import_s": t_import - _T0}
    if opts.mode == "awm":
        envs = gym.make_vec(opts.env_id, num_envs=opts.n, num_workers=0)  # memory measured here
        t_make = time.perf_counter()
        gc.collect()
        rss_before = rss_bytes()
        t_reset0 = time.perf_counter()
        obs, _ = envs.reset(seed=list(range(opts.n)))
        t_ready = time.perf_counter()
        assert len(obs) == opts.n and all(obs), "the reset did not give every instance a task"
        gc.collect()
        rss_after = rss_bytes()
        world = envs.runtime.worlds[0]
        template = envs.runtime.prepared(world).template
        out.update(world=world, make_vec_s=t_make - t_import, first_reset_s=t_ready - t_reset0,
                   ready_s=t_ready - _T0)
    else:
        import sqlite3

        envs = gym.make_vec(opts.env_id, num_envs=1, num_workers=0)
        template = envs.runtime.prepared(envs.runtime.worlds[0]).template
        gc.collect()
        rss_before = rss_bytes()
        t_reset0 = time.perf_counter()
        conns = []
        for _ in range(opts.n):
            conn = sqlite3.connect(":memory:")
            conn.deserialize(template)
            conns.append(conn)
        out["first_reset_s"] = time.perf_counter() - t_reset0
        assert all(c.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] for c in conns)
        gc.collect()
        rss_after = rss_bytes()
    out.update(template_bytes=len(template), rss_before=rss_before, rss_after=rss_after,
               rss_per_instance=(rss_after - rss_before) / opts.n)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
