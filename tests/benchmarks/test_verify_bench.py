"""Verifier throughput: 256 jobs through ``VerifierPool`` (2 workers) beside the same verifier
called in this process (see docs/benchmarks/index.md).

The job is a real one: the first task of the world whose code verifier says ``complete`` after
its reference solution is replayed through ``ToolHost.call`` (final answer: the tool replies).
Floors: the verifier function on two database files written once, and the same with the final
database written to a new file per job (what a worker does besides the call).
"""

from __future__ import annotations

import inspect
import json
import os
import re
import sqlite3
import statistics
import tempfile
import time
from dataclasses import dataclass
from typing import Any

import pytest
from bench_support import Recorded

import awm_gym
from awm_gym.scoring.verifier_pool import VerifierPool, VerifyJob

JOBS = 256
WORKERS = 2
ROUNDS = 5


@dataclass(frozen=True)
class Verification:
    task_idx: int
    job: VerifyJob
    function: Any  # the verifier, exec'd here with AWM's globals

    def call(self, initial_path: str, final_path: str) -> Any:
        values = {"initial_db_path": initial_path, "final_db_path": final_path,
                  "final_answer": self.job.final_answer}
        params = inspect.signature(self.function).parameters
        if "initial_db_path" in params and "final_db_path" in params:
            return self.function(**{k: v for k, v in values.items() if k in params})
        return self.function(initial_path, final_path, self.job.final_answer)


def _load(code: str, name: str) -> Any:
    namespace: dict[str, Any] = {"sqlite3": sqlite3, "json": json, "os": os, "re": re}
    exec(compile(code, "<verifier>", "exec"), namespace)
    return namespace[name]


def _write(directory: str, name: str, data: bytes) -> str:
    path = os.path.join(directory, name)
    with open(path, "wb") as f:
        f.write(data)
    os.chmod(path, 0o444)
    return path


@pytest.fixture(scope="module")
def verification(workload, tmp_path_factory) -> Verification:
    world = awm_gym.get_world_set(workload.world.world_set)[workload.world.name]
    tmp = str(tmp_path_factory.mktemp("verify"))
    for idx, (solution, verifier) in enumerate(zip(world.solutions, world.code_verifiers,
                                                   strict=True)):
        if solution is None or verifier is None or not verifier.code:
            continue
        slot = workload.new_slot()
        replies = [workload.host.call(slot, c.tool, dict(c.arguments)).text
                   for c in solution.calls]
        final = slot.conn.serialize()
        slot.conn.close()
        job = VerifyJob(verifier.code, verifier.function_name, "code", workload.template, final,
                        "\n".join(replies), initial_key=f"bench-{workload.world.name}")
        found = Verification(idx, job, _load(verifier.code, verifier.function_name))
        paths = (_write(tmp, f"i{idx}.db", job.initial_db), _write(tmp, f"f{idx}.db", final))
        if found.call(*paths) == {"result": "complete"}:
            return found
    pytest.skip(f"{workload.world.name}: no task whose code verifier accepts its solution")


@pytest.fixture(scope="module")
def pool():
    with VerifierPool(num_workers=WORKERS, timeout_s=30.0) as p:
        yield p


@pytest.mark.benchmark(group="verify")
def test_verify_pool_2_workers_256_jobs(benchmark, pool, verification):
    jobs = [verification.job] * JOBS
    start = time.perf_counter()
    first = pool.run(jobs)  # starts the workers, loads the verifier, caches the initial file
    cold_s = time.perf_counter() - start
    assert [r.label for r in first] == ["complete"] * JOBS, first[0]
    benchmark.extra_info.update(calls=JOBS, workers=WORKERS, task_idx=verification.task_idx,
                                cold_first_batch_s=round(cold_s, 3),
                                worker_job_ms=round(statistics.median(
                                    r.elapsed_s for r in first) * 1e3, 3))
    run = Recorded(pool.run)
    benchmark.pedantic(run, args=(jobs,), rounds=ROUNDS, iterations=1)
    assert run.results and all(len(results) == JOBS and all(r.label == "complete" for r in results)
                               for results in run.results)


@pytest.mark.benchmark(group="verify")
def test_verify_in_process_256_floor(benchmark, verification, tmp_path):
    initial = _write(str(tmp_path), "initial.db", verification.job.initial_db)
    final = _write(str(tmp_path), "final.db", verification.job.final_db)

    def run():
        return [verification.call(initial, final) for _ in range(JOBS)]

    benchmark.extra_info["calls"] = JOBS
    recorded = Recorded(run)
    benchmark(recorded)
    assert recorded.results and all(r == {"result": "complete"}
                                    for results in recorded.results for r in results)


@pytest.mark.benchmark(group="verify")
def test_verify_in_process_with_final_file_per_job_256_floor(benchmark, verification, tmp_path):
    shm = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
    directory = tempfile.mkdtemp(prefix="awm-bench-verify-", dir=shm)
    initial = _write(directory, "initial.db", verification.job.initial_db)
    data = verification.job.final_db

    def run():
        out = []
        for i in range(JOBS):
            final = _write(directory, f"f{i}.db", data)
            out.append(verification.call(initial, final))
            os.unlink(final)
        return out

    benchmark.extra_info.update(calls=JOBS, directory=os.path.dirname(directory))
    recorded = Recorded(run)
    try:
        benchmark(recorded)
    finally:
        os.unlink(initial)
        os.rmdir(directory)
    assert recorded.results and all(r == {"result": "complete"}
                                    for results in recorded.results for r in results)
