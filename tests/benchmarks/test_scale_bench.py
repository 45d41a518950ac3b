"""A 1,000-world set: register, make_vec of AWM/mix-v0, first reset and list_tools, peak memory
(see docs/benchmarks/scale.md, "Scale").

The world set is built from the built-in worlds in a temporary directory
(``scale_support.build_scale_world_set``: renamed copies, each with its own content hash) and
measured by ``scale_probe.py`` in fresh processes, against a template cache in another temporary
directory: the first run builds every world (cold), the later ones start warm. Group ``scale``:

* ``parse_floor``: ``json.loads`` of every row of every file, the floor the register goal
  (<= 0.25x of it) is stated against;
* ``cold`` / ``warm``: one probe run each; ``extra_info`` has register, make_vec, first reset +
  list_tools, and peak RSS of the process and of its largest worker (MB);
* ``spotify_ready``: ``ready_probe.py`` on 1,024 spotify instances, the reference the make_vec
  goal (<= 2x of it) is stated against.

Set ``AWM_SCALE_WORLDS`` to use fewer worlds (a cold build of 1,000 takes minutes per core).
Every probe run is checked: it exited 0, read every row, registered every world and answered
``list_tools`` on every instance (``scale_probe.py`` asserts that last part itself).
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
PROBE = os.path.join(HERE, "scale_probe.py")
READY_PROBE = os.path.join(HERE, "ready_probe.py")
NUM_WORLDS = int(os.environ.get("AWM_SCALE_WORLDS", "1000"))
WARM_ROUNDS = 3


@pytest.fixture(scope="module")
def scale_dirs():
    from scale_support import build_scale_world_set

    with tempfile.TemporaryDirectory(prefix="awm-scale-") as tmp:
        world_set, cache = os.path.join(tmp, "worlds"), os.path.join(tmp, "cache")
        build_scale_world_set(world_set, NUM_WORLDS)
        yield world_set, cache


def _probe(script: str, *args: str, cache: str) -> dict:
    env = dict(os.environ, AWM_GYM_CACHE=cache)
    done = subprocess.run([sys.executable, script, *args], capture_output=True, text=True,
                          env=env, timeout=7200, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _assert_ready(run: dict) -> None:
    """One ``scale_probe.py --mode awm`` run: every world registered, every instance stepped."""
    assert run["registered"] >= NUM_WORLDS and run["n"] == 1024 and run["worlds_used"] >= 1, run


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


@pytest.mark.benchmark(group="scale")
def test_scale_parse_floor(benchmark, scale_dirs):
    world_set, cache = scale_dirs
    probe = Recorded(_probe)
    result = benchmark.pedantic(probe, args=(PROBE, "--world-set", world_set, "--mode", "parse"),
                                kwargs={"cache": cache}, rounds=WARM_ROUNDS, iterations=1)
    benchmark.extra_info.update(result, load=_load())
    assert probe.results and all(r["rows"] >= NUM_WORLDS and r["bytes"] > 0
                                 for r in probe.results), probe.results


@pytest.mark.benchmark(group="scale")
def test_scale_cold_then_warm(benchmark, scale_dirs):
    world_set, cache = scale_dirs
    cold = _probe(PROBE, "--world-set", world_set, cache=cache)
    runs: list[dict] = []

    def warm() -> None:
        runs.append(_probe(PROBE, "--world-set", world_set, cache=cache))

    benchmark.pedantic(warm, rounds=WARM_ROUNDS, iterations=1)
    benchmark.extra_info.update(cold={k: v for k, v in cold.items()}, warm=runs, load=_load())
    assert runs, "no warm run recorded"
    for run in (cold, *runs):
        _assert_ready(run)


@pytest.mark.benchmark(group="scale")
def test_scale_spotify_ready_reference(benchmark, scale_dirs):
    _, cache = scale_dirs
    runs: list[dict] = []

    def ready() -> None:
        runs.append(_probe(READY_PROBE, "--env-id", "AWM/spotify-v0", "--mode", "awm",
                           "--n", "1024", cache=cache))

    ready()  # builds spotify's template and catalogue in this cache
    runs.clear()
    benchmark.pedantic(ready, rounds=WARM_ROUNDS, iterations=1)
    benchmark.extra_info.update(runs=runs, load=_load())
    assert runs and all(r["n"] == 1024 and r["template_bytes"] > 0 for r in runs), runs
