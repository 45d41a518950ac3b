"""The first tool call of an episode against a warm one (see docs/benchmarks.md).

Every reset deserializes the template into the instance's connection, so the first statement
of an episode re-reads the schema and re-prepares its statements. Group ``first-call`` times,
on the benchmark world (spotify: 22 tables), the world's read call on 1,024 instances:

* ``after_reset``: right after ``reset_slot`` (the template deserialized into the open
  connection, as every reset of a vector env does);
* ``warm``: the same call again, on a connection that has just run it;
* ``new_slot``: on a connection opened just before (what an instance of a mixed env pays when
  its next episode is in another world);
* ``raw_sqlite_after_reset`` / ``raw_sqlite_warm``: the call's SQL through raw ``sqlite3``,
  right after ``deserialize`` and again, the floor of the effect.

The goal is ``after_reset`` within 1.2x of ``warm``.
"""

from __future__ import annotations

import pytest
from bench_support import N, replay_sql

ROUNDS = 5


def _slots(workload, count: int) -> list:
    return [workload.new_slot() for _ in range(count)]


@pytest.mark.benchmark(group="first-call")
def test_first_call_after_reset_1024(benchmark, workload, slots):
    tool, args = workload.read

    def setup():
        for slot in slots:
            slot.conn.deserialize(workload.template)

    def run():
        for slot in slots:
            workload.host.call(slot, tool, args)

    benchmark.extra_info["calls"] = N
    benchmark.pedantic(run, setup=setup, rounds=ROUNDS, iterations=1)


@pytest.mark.benchmark(group="first-call")
def test_first_call_warm_1024(benchmark, workload, slots):
    tool, args = workload.read

    def setup():
        for slot in slots:
            slot.conn.deserialize(workload.template)
            workload.host.call(slot, tool, args)  # the episode's first call, untimed

    def run():
        for slot in slots:
            workload.host.call(slot, tool, args)

    benchmark.extra_info["calls"] = N
    benchmark.pedantic(run, setup=setup, rounds=ROUNDS, iterations=1)


@pytest.mark.benchmark(group="first-call")
def test_first_call_new_slot_1024(benchmark, workload):
    tool, args = workload.read
    made: list = []

    def setup():
        while made:
            made.pop().conn.close()
        made.extend(_slots(workload, N))

    def run():
        for slot in made:
            workload.host.call(slot, tool, args)

    benchmark.extra_info["calls"] = N
    try:
        benchmark.pedantic(run, setup=setup, rounds=ROUNDS, iterations=1)
    finally:
        while made:
            made.pop().conn.close()


@pytest.mark.benchmark(group="first-call")
def test_first_call_raw_sqlite_after_reset_1024(benchmark, workload, slots):
    def setup():
        for slot in slots:
            slot.conn.deserialize(workload.template)

    def run():
        for slot in slots:
            replay_sql(slot.conn, workload.read_sql)

    benchmark.extra_info["calls"] = N
    benchmark.pedantic(run, setup=setup, rounds=ROUNDS, iterations=1)


@pytest.mark.benchmark(group="first-call")
def test_first_call_raw_sqlite_warm_1024(benchmark, workload, slots):
    def setup():
        for slot in slots:
            slot.conn.deserialize(workload.template)
            replay_sql(slot.conn, workload.read_sql)

    def run():
        for slot in slots:
            replay_sql(slot.conn, workload.read_sql)

    benchmark.extra_info["calls"] = N
    benchmark.pedantic(run, setup=setup, rounds=ROUNDS, iterations=1)
