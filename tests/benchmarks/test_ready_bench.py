"""Creating and resetting 1,024 instances, beside raw sqlite3; time to ready and memory per
instance in a fresh process (see docs/benchmarks/index.md).

Group ``ready``: ``make_vec`` + first ``reset`` of 1,024 instances in this process (the world's
code is already loaded, as after the first env of a process), and ``reset`` with an all-true
``reset_mask`` on an existing env; floors: 1,024 x (``connect(":memory:")`` + ``deserialize``)
and 1,024 x ``deserialize`` on open connections.

Group ``fresh-process``: ``ready_probe.py`` in a new interpreter, import to ready, with the
resident-set growth per instance beside the template size (``extra_info``).

Every measured round is checked after the timing: each reset gave N observations of the world,
each floor's connections hold the template (its tables, byte for byte where cheap to compare),
and each probe reported N instances ready.
"""

from __future__ import annotations

import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile

import gymnasium as gym
import numpy as np
import pytest
from bench_support import N, Recorded, tool_action

PROBE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ready_probe.py")
ROUNDS = 5
PROBE_ROUNDS = 3


def _tables(conn) -> int:
    return conn.execute("SELECT count(*) FROM sqlite_master WHERE type = 'table'").fetchone()[0]


def _template_tables(template: bytes) -> int:
    import sqlite3

    conn = sqlite3.connect(":memory:")
    try:
        conn.deserialize(template)
        return _tables(conn)
    finally:
        conn.close()


@pytest.mark.benchmark(group="ready")
@pytest.mark.parametrize("setup_name", ["in_process", "default"])
def test_ready_make_vec_and_first_reset_1024(benchmark, bench_world, workload, setup_name):
    """``default``: make_vec's own ``num_workers="auto"`` (on 2 cores, 2 shard workers started
    and closed every round); ``in_process``: ``num_workers=0``."""
    made = []
    options = {"num_workers": 0} if setup_name == "in_process" else {}

    def setup():
        while made:
            made.pop().close()
        gc.collect()

    def create_and_reset():
        envs = gym.make_vec(bench_world.env_id, num_envs=N, **options)
        made.append(envs)
        return envs.reset(seed=list(range(N)))

    benchmark.extra_info["calls"] = N
    probe = gym.make_vec(bench_world.env_id, num_envs=N, **options)
    benchmark.extra_info["runtime"] = repr(probe.runtime)  # which runtime the setup got
    probe.close()
    recorded = Recorded(create_and_reset)
    benchmark.pedantic(recorded, setup=setup, rounds=ROUNDS, iterations=1)
    try:
        assert recorded.results and all(
            len(obs) == N and all(obs) and (info["world"] == bench_world.name).all()
            for obs, info in recorded.results)
        tool, args = workload.read
        out = made[-1].step([tool_action(tool, args)] * N)  # ready: every instance answers
        assert (out[4]["tool_outcome"] == "ok").all()
    finally:
        setup()


@pytest.mark.benchmark(group="ready")
def test_ready_reset_all_mask_1024(benchmark, bench_world):
    envs = gym.make_vec(bench_world.env_id, num_envs=N, num_workers=0)
    seeds = list(range(N))
    mask = np.ones(N, dtype=np.bool_)
    envs.reset(seed=seeds)
    benchmark.extra_info["calls"] = N
    try:
        reset = Recorded(envs.reset)
        benchmark(reset, seed=seeds, options={"reset_mask": mask})
        assert reset.results and all(
            len(obs) == N and all(obs) and (info["world"] == bench_world.name).all()
            for obs, info in reset.results)
    finally:
        envs.close()


@pytest.mark.benchmark(group="ready")
def test_ready_floor_connect_deserialize_1024(benchmark, workload):
    import sqlite3

    template = workload.template
    tables = _template_tables(template)
    held = []
    checked = []

    def setup():  # checks the last round's connections, then closes them
        if held:
            assert len(held) == N and all(_tables(conn) == tables for conn in held)
            checked.append(len(held))
        while held:
            held.pop().close()

    def create():
        for _ in range(N):
            conn = sqlite3.connect(":memory:")
            conn.deserialize(template)
            held.append(conn)

    benchmark.extra_info["calls"] = N
    benchmark.pedantic(create, setup=setup, rounds=ROUNDS * 2, iterations=1)
    setup()
    assert checked, "no round recorded"


@pytest.mark.benchmark(group="ready")
def test_ready_floor_deserialize_existing_1024(benchmark, workload, slots):
    template = workload.template
    conns = [slot.conn for slot in slots]

    def reset():
        for conn in conns:
            conn.deserialize(template)

    benchmark.extra_info["calls"] = N
    benchmark(reset)
    assert all(conn.serialize() == template for conn in conns)  # each round overwrote the last


def _probe(bench_world, mode: str, cache_dir: str) -> dict:
    cmd = [sys.executable, PROBE, "--env-id", bench_world.env_id, "--mode", mode, "--n", str(N)]
    if bench_world.world_set:
        cmd += ["--world-set", bench_world.world_set]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=240,
                          env={**os.environ, "AWM_GYM_CACHE": cache_dir})
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.benchmark(group="fresh-process")
def test_fresh_process_ready_time_and_memory_per_instance(benchmark, bench_world):
    """Wall time of a new interpreter from start to 1,024 reset instances (warm template
    cache); ``extra_info`` has the phases, the cold-cache ready time, and memory per instance
    for our runtime and for raw sqlite3 (medians of the rounds)."""
    with tempfile.TemporaryDirectory(prefix="awm-bench-cache-") as cache:
        cold = _probe(bench_world, "awm", cache)  # builds the template into the empty cache
        warm_runs: list[dict] = []
        benchmark.pedantic(lambda: warm_runs.append(_probe(bench_world, "awm", cache)),
                           rounds=PROBE_ROUNDS, iterations=1)
        raw_runs = [_probe(bench_world, "raw", cache) for _ in range(PROBE_ROUNDS)]

    def med(runs: list[dict], key: str) -> float:
        return statistics.median(r[key] for r in runs)

    benchmark.extra_info.update(
        calls=1, instances=N, world=cold["world"], template_bytes=cold["template_bytes"],
        cold_cache_ready_s=round(cold["ready_s"], 3),
        import_s=round(med(warm_runs, "import_s"), 3),
        make_vec_s=round(med(warm_runs, "make_vec_s"), 3),
        first_reset_s=round(med(warm_runs, "first_reset_s"), 4),
        ready_s=round(med(warm_runs, "ready_s"), 3),
        rss_per_instance_bytes=round(med(warm_runs, "rss_per_instance")),
        raw_rss_per_instance_bytes=round(med(raw_runs, "rss_per_instance")),
        raw_create_s=round(med(raw_runs, "first_reset_s"), 4))
    assert cold["template_bytes"] > 0 and len(warm_runs) >= 1
    assert all(r["n"] == N and r["template_bytes"] == cold["template_bytes"]
               for r in warm_runs + raw_runs)
