"""``World.record_dataset`` throughput and peak memory: oracle rollouts on spotify, in a fresh
process per run (see docs/benchmarks/recording.md).

Two sizes, 1,000 and 10,000 episodes: rows/s is the recording rate (rollout + database diff +
Parquet writing); peak RSS minus the ready RSS is what recording costs in memory, and staying
flat from 1,000 to 10,000 episodes shows that episodes are streamed to disk, not held.

    /work/venv/bin/python -m pytest tests/benchmarks/test_record_bench.py -q --benchmark-only \
        --benchmark-json=record.json
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

import pytest

PROBE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "record_probe.py")
REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run_probe(episodes: int) -> dict:
    with tempfile.TemporaryDirectory() as out:
        result = subprocess.run([sys.executable, PROBE, "--episodes", str(episodes), "--out", out],
                                capture_output=True, text=True, check=True, cwd=REPO_ROOT,
                                timeout=3600)
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.benchmark(group="record")
@pytest.mark.parametrize("episodes", [1_000, 10_000])
def test_record_dataset_oracle(benchmark, episodes):
    results = []
    benchmark.pedantic(lambda: results.append(run_probe(episodes)), rounds=1, iterations=1)
    probe = results[0]
    benchmark.extra_info.update(probe)
    benchmark.extra_info["calls"] = probe["rows"]
    assert probe["episodes"] == episodes and probe["rows"] >= episodes, probe
    assert probe["dataset_bytes"] > 0
