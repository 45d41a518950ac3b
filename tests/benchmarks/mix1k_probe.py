"""Time, in a fresh process, the 1,000-world mix with the default runtime: make_vec, the first
reset, ``list_tools`` steps, close, and the peak memory of the caller and of its workers.

Run by ``test_mix1k_bench.py``; prints one JSON object. It uses only the public API
(``awm_gym.register_worlds``, ``gym.make_vec``), so the same file measures an older checkout
put first on ``PYTHONPATH``. The world set comes from ``scale_support.py`` (the eight built-in
worlds copied under 125 names each); the template cache is ``$AWM_GYM_CACHE`` and should be warm
(run the probe once first).

    python tests/benchmarks/scale_support.py /tmp/awm-1k 1000
    AWM_GYM_CACHE=/tmp/awm-cache python tests/benchmarks/mix1k_probe.py --world-set /tmp/awm-1k

Fields: ``import_s``, ``register_s``, ``make_vec_s``, ``first_reset_s``, ``list_tools_s`` (the
first ``list_tools`` step of every instance) and ``list_tools_again_s`` (a second one),
``close_s``; ``runtime`` and ``workers`` (what make_vec built); ``worlds_used`` and
``distinct_texts`` (distinct catalogues in the step); ``peak_rss_mb`` (this process) and
``peak_rss_worker_mb`` (the largest worker process, read after close).
"""

from __future__ import annotations

import time

_T0 = time.perf_counter()

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import resource  # noqa: E402

LIST_TOOLS = '<tool_call>{"name": "list_tools", "arguments": {}}</tool_call>'


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--world-set", required=True)
    parser.add_argument("--n", type=int, default=1024)
    parser.add_argument("--isolation", default=None, help="EnvConfig.isolation (default: its own)")
    parser.add_argument("--num-workers", default=None, help="EnvConfig.num_workers (default: its own)")
    opts = parser.parse_args()

    import gymnasium as gym

    import awm_gym

    t_import = time.perf_counter()
    awm_gym.register_worlds(opts.world_set)
    t_register = time.perf_counter()
    kwargs: dict = {"max_episode_steps": 10**9}
    if opts.isolation is not None:
        kwargs["isolation"] = opts.isolation
    if opts.num_workers is not None:
        kwargs["num_workers"] = int(opts.num_workers) if opts.num_workers.isdigit() \
            else opts.num_workers
    envs = gym.make_vec("AWM/mix-v0", num_envs=opts.n, world_set=opts.world_set, **kwargs)
    t_make = time.perf_counter()
    obs, info = envs.reset(seed=list(range(opts.n)))
    t_reset = time.perf_counter()
    assert len(obs) == opts.n and all(obs), "the reset did not give every instance a task"
    obs, _, _, _, info = envs.step([LIST_TOOLS] * opts.n)
    t_step = time.perf_counter()
    envs.step([LIST_TOOLS] * opts.n)
    t_again = time.perf_counter()
    assert (info["action_kind"] == "list_tools").all(), "an instance did not list its tools"
    assert all(o.startswith("Available MCP Tools") for o in obs), "an observation is not a catalogue"
    runtime = envs.runtime
    shards = getattr(runtime, "_shards", ())
    out = {
        "n": opts.n, "runtime": type(runtime).__name__, "workers": len(shards),
        "worlds_used": len(set(info["world"].tolist())), "distinct_texts": len(set(obs)),
        "import_s": t_import - _T0, "register_s": t_register - t_import,
        "make_vec_s": t_make - t_register, "first_reset_s": t_reset - t_make,
        "list_tools_s": t_step - t_reset, "list_tools_again_s": t_again - t_step,
    }
    envs.close()
    out["close_s"] = time.perf_counter() - t_again
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    out["peak_rss_worker_mb"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    out["load"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(json.dumps(out))


if __name__ == "__main__":
    main()
