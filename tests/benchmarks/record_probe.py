"""Record oracle rollouts with ``World.record_dataset`` in a fresh process; print one JSON object.

Run by ``test_record_bench.py``. Reports rows, episodes, seconds, rows/s and the peak resident set
(``ru_maxrss``) beside the resident set once the World is ready, so the growth caused by
recording can be compared across episode counts (streaming keeps it flat).

    python tests/benchmarks/record_probe.py --episodes 10000 --num-envs 256 --out /tmp/rec
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env-id", default="AWM/spotify-v0")
    parser.add_argument("--episodes", type=int, default=10_000)
    parser.add_argument("--num-envs", type=int, default=256)
    parser.add_argument("--out", required=True, help="datasets directory")
    opts = parser.parse_args()

    from agents.policies import OraclePolicy
    from awm_gym import World
    from awm_gym.manager.recording import META_FILE

    world = World(opts.env_id, num_envs=opts.num_envs, verbose=0)
    world.set_policy(OraclePolicy())
    world.evaluate(episodes=opts.num_envs, seed=0)  # warm: code loaded, verifier pool started
    ready_rss = rss_bytes()
    start = time.perf_counter()
    path = world.record_dataset("bench", episodes=opts.episodes, seed=0, cache_dir=opts.out,
                                mode="overwrite")
    seconds = time.perf_counter() - start
    world.close()
    with open(os.path.join(path, META_FILE)) as f:
        meta = json.load(f)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    size = sum(os.path.getsize(os.path.join(path, "data", s)) for s in meta["shards"])
    print(json.dumps({"episodes": meta["episodes"], "rows": meta["rows"], "seconds": seconds,
                      "rows_per_s": meta["rows"] / seconds,
                      "episodes_per_s": meta["episodes"] / seconds, "ready_rss": ready_rss,
                      "peak_rss": peak, "dataset_bytes": size, "num_envs": opts.num_envs}))


if __name__ == "__main__":
    main()
