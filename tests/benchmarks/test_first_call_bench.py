"""The first tool call of an episode against a warm one (see docs/benchmarks/scale.md).

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

The goal is ``after_reset`` within 1.2x of ``warm``. Every measured round is checked after the
timing: each call answered ``ok`` with the text of a fresh instance, and each SQL replay read the
rows of a fresh database.
"""

from __future__ import annotations

import pytest
from bench_support import N, Recorded, replay_sql

ROUNDS = 5


def _slots(workload, count: int) -> list:
    return [workload.new_slot() for _ in range(count)]


def _fresh(workload, run) -> object:
    """``run(slot)`` on a new instance database (the reply or rows every round must match)."""
    slot = workload.new_slot()
    try:
        return run(slot)
    finally:
        slot.conn.close()


def _assert_calls_ok(recorded: Recorded, workload) -> None:
    expected = _fresh(workload, lambda slot: workload.host.call(slot, *workload.read)).text
    assert recorded.results, "no round recorded"
    assert all(r.outcome == "ok" and r.text == expected
               for results in recorded.results for r in results)


def _assert_rows(recorded: Recorded, workload) -> None:
    expected = _fresh(workload, lambda slot: replay_sql(slot.conn, workload.read_sql))
    assert recorded.results and any(expected), "no round recorded, or the SQL read no row"
    assert all(rows == expected for per_slot in recorded.results for rows in per_slot)


@pytest.mark.benchmark(group="first-call")
def test_first_call_after_reset_1024(benchmark, workload, slots):
    tool, args = workload.read

    def setup():
        for slot in slots:
            slot.conn.deserialize(workload.template)

    def run():
        return [workload.host.call(slot, tool, args) for slot in slots]

    benchmark.extra_info["calls"] = N
    recorded = Recorded(run)
    benchmark.pedantic(recorded, setup=setup, rounds=ROUNDS, iterations=1)
    _assert_calls_ok(recorded, workload)


@pytest.mark.benchmark(group="first-call")
def test_first_call_warm_1024(benchmark, workload, slots):
    tool, args = workload.read

    def setup():
        for slot in slots:
            slot.conn.deserialize(workload.template)
            workload.host.call(slot, tool, args)  # the episode's first call, untimed

    def run():
        return [workload.host.call(slot, tool, args) for slot in slots]

    benchmark.extra_info["calls"] = N
    recorded = Recorded(run)
    benchmark.pedantic(recorded, setup=setup, rounds=ROUNDS, iterations=1)
    _assert_calls_ok(recorded, workload)


@pytest.mark.benchmark(group="first-call")
def test_first_call_new_slot_1024(benchmark, workload):
    tool, args = workload.read
    made: list = []

    def setup():
        while made:
            made.pop().conn.close()
        made.extend(_slots(workload, N))

    def run():
        return [workload.host.call(slot, tool, args) for slot in made]

    benchmark.extra_info["calls"] = N
    recorded = Recorded(run)
    try:
        benchmark.pedantic(recorded, setup=setup, rounds=ROUNDS, iterations=1)
    finally:
        while made:
            made.pop().conn.close()
    _assert_calls_ok(recorded, workload)


@pytest.mark.benchmark(group="first-call")
def test_first_call_raw_sqlite_after_reset_1024(benchmark, workload, slots):
    def setup():
        for slot in slots:
            slot.conn.deserialize(workload.template)

    def run():
        return [replay_sql(slot.conn, workload.read_sql) for slot in slots]

    benchmark.extra_info["calls"] = N
    recorded = Recorded(run)
    benchmark.pedantic(recorded, setup=setup, rounds=ROUNDS, iterations=1)
    _assert_rows(recorded, workload)


@pytest.mark.benchmark(group="first-call")
def test_first_call_raw_sqlite_warm_1024(benchmark, workload, slots):
    def setup():
        for slot in slots:
            slot.conn.deserialize(workload.template)
            replay_sql(slot.conn, workload.read_sql)

    def run():
        return [replay_sql(slot.conn, workload.read_sql) for slot in slots]

    benchmark.extra_info["calls"] = N
    recorded = Recorded(run)
    benchmark.pedantic(recorded, setup=setup, rounds=ROUNDS, iterations=1)
    _assert_rows(recorded, workload)
