"""The 1,000-world mix with the default runtime (issue 33): make_vec, the first reset, list_tools
steps and peak memory in fresh processes, and a shard worker's start phase by phase (see
docs/benchmarks/scale.md, "The 1,000-world mix: default runtime").

The world set is the eight built-in worlds copied under 125 names each
(``scale_support.build_scale_world_set``), built in a temporary directory with a template cache
beside it; one untimed run warms the cache. Group ``mix1k``:

* ``default``: ``mix1k_probe.py`` with no runtime options (contained worker processes, one per
  32 instances up to one per core); ``extra_info`` holds every run's fields;
* ``trusted_workers`` / ``in_process``: the same with ``isolation="none"`` over the same number
  of worker processes, and in this process: what containment adds, and what workers add;
* ``worker_start``: ``worker_start_probe.py`` with and without the kernel layers.

Every run is checked: exit status 0, every instance answered with its world's catalogue,
and the default runtime was the one measured (``ShardedRuntime``, contained). Set
``AWM_SCALE_WORLDS`` to use fewer worlds.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

import pytest
from bench_support import Recorded

HERE = os.path.dirname(os.path.abspath(__file__))
PROBE = os.path.join(HERE, "mix1k_probe.py")
WORKER_PROBE = os.path.join(HERE, "worker_start_probe.py")
NUM_WORLDS = int(os.environ.get("AWM_SCALE_WORLDS", "1000"))
ROUNDS = 3


@pytest.fixture(scope="module")
def mix1k():
    from scale_support import build_scale_world_set

    with tempfile.TemporaryDirectory(prefix="awm-mix1k-") as tmp:
        world_set, cache = os.path.join(tmp, "worlds"), os.path.join(tmp, "cache")
        build_scale_world_set(world_set, NUM_WORLDS)
        _run(PROBE, "--world-set", world_set, cache=cache)  # cold: builds every content once
        yield world_set, cache


def _run(script: str, *args: str, cache: str) -> dict:
    env = dict(os.environ, AWM_GYM_CACHE=cache)
    done = subprocess.run([sys.executable, script, *args], capture_output=True, text=True,
                          env=env, timeout=3600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _measure(benchmark, mix1k, *options: str) -> list[dict]:  # noqa: ANN001
    world_set, cache = mix1k
    probe = Recorded(_run)
    benchmark.pedantic(probe, args=(PROBE, "--world-set", world_set, *options),
                       kwargs={"cache": cache}, rounds=ROUNDS, iterations=1)
    runs = probe.results
    benchmark.extra_info.update(runs=runs, load=" ".join(f"{x:.2f}" for x in os.getloadavg()))
    assert len(runs) == ROUNDS and all(r["n"] == 1024 and r["worlds_used"] >= 1
                                       and r["distinct_texts"] >= 1 for r in runs), runs
    return runs


@pytest.mark.benchmark(group="mix1k")
def test_mix1k_default(benchmark, mix1k):
    runs = _measure(benchmark, mix1k)
    assert all(r["runtime"] == "ShardedRuntime" and r["workers"] >= 1 for r in runs), runs


@pytest.mark.benchmark(group="mix1k")
def test_mix1k_trusted_workers(benchmark, mix1k):
    workers = str(min(os.cpu_count() or 1, 32))  # the default's count: one per 32 instances
    runs = _measure(benchmark, mix1k, "--isolation", "none", "--num-workers", workers)
    assert all(r["runtime"] == "ShardedRuntime" for r in runs), runs


@pytest.mark.benchmark(group="mix1k")
def test_mix1k_in_process(benchmark, mix1k):
    runs = _measure(benchmark, mix1k, "--isolation", "none", "--num-workers", "0")
    assert all(r["runtime"] == "WorldRuntime" for r in runs), runs


@pytest.mark.benchmark(group="mix1k")
@pytest.mark.parametrize("layers", ["--contained", "--no-contained"])
def test_mix1k_worker_start(benchmark, mix1k, layers):
    world_set, cache = mix1k
    probe = Recorded(_run)
    benchmark.pedantic(probe, args=(WORKER_PROBE, "--world-set", world_set, layers),
                       kwargs={"cache": cache}, rounds=ROUNDS, iterations=1)
    benchmark.extra_info.update(runs=probe.results)
    assert all(r["worlds"] >= NUM_WORLDS and r["step_reply_refs_bytes"] > 0
               for r in probe.results), probe.results
