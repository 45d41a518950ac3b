"""One vector step of 1,024 instances, beside its floors (see docs/benchmarks/index.md).

Groups ``step-read``, ``step-write`` and ``step-list_tools`` each hold our vector step and the
floors under it, from the cheapest up:

* ``raw_sqlite``: the exact SQL the handler runs (traced once, parameters expanded) through
  raw ``sqlite3``, all rows read;
* ``endpoint_direct``: the generated endpoint function called bare with the instance database
  bound (its coroutine driven by hand), arguments validated once outside the timing;
* ``host_call``: ``ToolHost.call``, our dispatch (validation, routing, serialization, MCP text);
* ``vector_1024_num_workers_2``: our vector step with the instances sharded over 2 worker
  processes (``num_workers=2``), the only line here that uses both cores;
* ``mcp_asgi``: fastapi_mcp's ``_execute_api_tool`` through ``httpx.ASGITransport`` into the app,
  what AWM's MCP layer does per call, on fewer instances because each call costs more.

Group ``dispatch`` calls one read tool on one instance: ``host.call`` against the bare endpoint,
interleaved, and records their ratio (the goal is <= 1.2x).

Each benchmark checks every measured round after the timing (``bench_support.Recorded``): our
steps answered every instance ``ok`` (a read with the same text as ``ToolHost.call`` on a fresh
instance), each floor returned what our path returns (the endpoint's JSON, the ASGI path's
text, the same rows from raw SQL on every instance), so a broken floor cannot post a good number.
"""

from __future__ import annotations

import json
import statistics
import time

import numpy as np
import pytest
from bench_support import (
    LIST_TOOLS_ACTION,
    N,
    Recorded,
    assert_steps_answered,
    call_endpoint,
    replay_sql,
    reset_slots,
    tool_action,
)
from fastapi.encoders import jsonable_encoder

from awm_gym.tools.actions import ListTools, parse_action

N_ASGI = 128
"""Calls per round on the ASGI path (each costs a few times a direct call)."""
WRITE_ROUNDS = 7
DISPATCH_CALLS = 200
DISPATCH_REPEATS = 15


def _round_info(benchmark, calls: int, **extra) -> None:
    benchmark.extra_info["calls"] = calls
    benchmark.extra_info.update(extra)


def _read_text(workload) -> str:
    """The read call's reply on a fresh instance (a read leaves the database as it was)."""
    slot = workload.new_slot()
    try:
        result = workload.host.call(slot, *workload.read)
    finally:
        slot.conn.close()
    assert result.outcome == "ok", result.text
    return result.text


def _assert_same_rows(rounds: list[list[list[list[tuple]]]], workload, statements) -> None:
    """Every instance of every round read the rows a fresh database gives (and a read found
    some), so the SQL floor did the work it stands for."""
    slot = workload.new_slot()
    try:
        expected = replay_sql(slot.conn, statements)
    finally:
        slot.conn.close()
    assert rounds and any(expected), "no round recorded, or the SQL read no row"
    for per_slot in rounds:
        assert all(rows == expected for rows in per_slot), "raw SQL read other rows"


# -- read ---------------------------------------------------------------------------------------
@pytest.mark.benchmark(group="step-read")
def test_step_read_vector_1024(benchmark, stepping_env, workload):
    tool, args = workload.read
    actions = [tool_action(tool, args)] * N
    _round_info(benchmark, N, tool=tool, arguments=json.dumps(args))
    step = Recorded(stepping_env.step)
    benchmark(step, actions)
    assert_steps_answered(step.results, "tool_call", tool, _read_text(workload))


@pytest.mark.benchmark(group="step-read")
def test_step_read_vector_1024_num_workers_2(benchmark, sharded_env, workload):
    tool, args = workload.read
    actions = [tool_action(tool, args)] * N
    _round_info(benchmark, N)
    step = Recorded(sharded_env.step)
    benchmark(step, actions)
    assert_steps_answered(step.results, "tool_call", tool, _read_text(workload))


@pytest.mark.benchmark(group="step-read")
def test_step_read_host_call_1024(benchmark, workload, slots):
    tool, args = workload.read
    host = workload.host

    def run():
        return [host.call(slot, tool, args) for slot in slots]

    _round_info(benchmark, N)
    recorded = Recorded(run)
    benchmark(recorded)
    expected = _read_text(workload)
    assert all(r.outcome == "ok" and r.text == expected
               for results in recorded.results for r in results)


@pytest.mark.benchmark(group="step-read")
def test_step_read_endpoint_direct_1024(benchmark, workload, slots):
    tool, args = workload.read
    endpoint, kwargs = workload.endpoint(tool), workload.kwargs(tool, args)
    expected = json.loads(workload.host.call(slots[0], tool, args).text)
    assert jsonable_encoder(call_endpoint(endpoint, slots[0], kwargs)) == expected

    def run():
        return [call_endpoint(endpoint, slot, kwargs) for slot in slots]

    _round_info(benchmark, N)
    recorded = Recorded(run)
    benchmark(recorded)
    assert all(jsonable_encoder(r) == expected for results in recorded.results for r in results)


@pytest.mark.benchmark(group="step-read")
def test_step_read_raw_sqlite_1024(benchmark, workload, slots):
    statements = list(workload.read_sql)

    def run():
        return [replay_sql(slot.conn, statements) for slot in slots]

    _round_info(benchmark, N, sql=statements)
    recorded = Recorded(run)
    benchmark(recorded)
    _assert_same_rows(recorded.results, workload, statements)


@pytest.mark.benchmark(group="step-read")
def test_step_read_mcp_asgi_128(benchmark, workload, slots, mcp_path):
    tool, args = workload.read
    subset = slots[:N_ASGI]
    expected = workload.host.call(subset[0], tool, args).text
    assert mcp_path.call_many(subset[:1], tool, args)[0] == expected  # the text a model reads
    _round_info(benchmark, N_ASGI)
    call_many = Recorded(mcp_path.call_many)
    benchmark(call_many, subset, tool, args)
    assert all(text == expected for texts in call_many.results for text in texts)


# -- write (every round starts from the initial state) -----------------------------------------
@pytest.mark.benchmark(group="step-write")
def test_step_write_vector_1024(benchmark, stepping_env, workload):
    tool, args = workload.write
    actions = [tool_action(tool, args)] * N
    mask = np.ones(N, dtype=np.bool_)

    def setup():
        stepping_env.reset(seed=list(range(N)), options={"reset_mask": mask})

    _round_info(benchmark, N, tool=tool, arguments=json.dumps(args))
    step = Recorded(stepping_env.step)
    benchmark.pedantic(step, args=(actions,), setup=setup, rounds=WRITE_ROUNDS, iterations=1)
    assert_steps_answered(step.results, "tool_call", tool)
    assert all(len(set(out[0])) == 1 for out in step.results)  # one reply: same state, same call


@pytest.mark.benchmark(group="step-write")
def test_step_write_vector_1024_num_workers_2(benchmark, sharded_env, workload):
    tool, args = workload.write
    actions = [tool_action(tool, args)] * N
    mask = np.ones(N, dtype=np.bool_)

    def setup():
        sharded_env.reset(seed=list(range(N)), options={"reset_mask": mask})

    _round_info(benchmark, N)
    step = Recorded(sharded_env.step)
    benchmark.pedantic(step, args=(actions,), setup=setup, rounds=WRITE_ROUNDS, iterations=1)
    assert_steps_answered(step.results, "tool_call", tool)
    assert all(len(set(out[0])) == 1 for out in step.results)  # one reply: same state, same call


@pytest.mark.benchmark(group="step-write")
def test_step_write_host_call_1024(benchmark, workload, slots):
    tool, args = workload.write
    host = workload.host

    def run():
        return [host.call(slot, tool, args) for slot in slots]

    _round_info(benchmark, N)
    recorded = Recorded(run)
    benchmark.pedantic(recorded, setup=lambda: reset_slots(slots, workload.template),
                       rounds=WRITE_ROUNDS, iterations=1)
    reset_slots(slots[:1], workload.template)
    expected = host.call(slots[0], tool, args).text
    reset_slots(slots, workload.template)
    assert all(r.outcome == "ok" and r.text == expected
               for results in recorded.results for r in results)


@pytest.mark.benchmark(group="step-write")
def test_step_write_endpoint_direct_1024(benchmark, workload, slots):
    tool, args = workload.write
    endpoint, kwargs = workload.endpoint(tool), workload.kwargs(tool, args)
    reset_slots(slots[:1], workload.template)
    expected = json.loads(workload.host.call(slots[0], tool, args).text)
    reset_slots(slots[:1], workload.template)
    assert jsonable_encoder(call_endpoint(endpoint, slots[0], kwargs)) == expected

    def run():
        return [call_endpoint(endpoint, slot, kwargs) for slot in slots]

    _round_info(benchmark, N)
    recorded = Recorded(run)
    benchmark.pedantic(recorded, setup=lambda: reset_slots(slots, workload.template),
                       rounds=WRITE_ROUNDS, iterations=1)
    reset_slots(slots, workload.template)
    assert all(jsonable_encoder(r) == expected for results in recorded.results for r in results)


@pytest.mark.benchmark(group="step-write")
def test_step_write_raw_sqlite_1024(benchmark, workload, slots):
    statements = list(workload.write_sql)

    def run():
        return [replay_sql(slot.conn, statements) for slot in slots]

    _round_info(benchmark, N, sql=statements)
    recorded = Recorded(run)
    benchmark.pedantic(recorded, setup=lambda: reset_slots(slots, workload.template),
                       rounds=WRITE_ROUNDS, iterations=1)
    reset_slots(slots, workload.template)
    _assert_same_rows(recorded.results, workload, statements)


@pytest.mark.benchmark(group="step-write")
def test_step_write_mcp_asgi_128(benchmark, workload, slots, mcp_path):
    tool, args = workload.write
    subset = slots[:N_ASGI]
    reset_slots(subset, workload.template)
    expected = workload.host.call(subset[0], tool, args).text
    reset_slots(subset, workload.template)
    assert mcp_path.call_many(subset[:1], tool, args)[0] == expected
    _round_info(benchmark, N_ASGI)
    call_many = Recorded(mcp_path.call_many)
    benchmark.pedantic(call_many, args=(subset, tool, args),
                       setup=lambda: reset_slots(subset, workload.template),
                       rounds=WRITE_ROUNDS, iterations=1)
    reset_slots(subset, workload.template)
    assert all(text == expected for texts in call_many.results for text in texts)


# -- list_tools ---------------------------------------------------------------------------------
@pytest.mark.benchmark(group="step-list_tools")
def test_step_list_tools_vector_1024(benchmark, stepping_env):
    actions = [LIST_TOOLS_ACTION] * N
    _round_info(benchmark, N)
    step = Recorded(stepping_env.step)
    benchmark(step, actions)
    assert_steps_answered(step.results, "list_tools", observation=step.results[0][0][0])
    assert step.results[0][0][0].startswith("Available MCP Tools")


@pytest.mark.benchmark(group="step-list_tools")
def test_step_list_tools_vector_1024_num_workers_2(benchmark, sharded_env):
    actions = [LIST_TOOLS_ACTION] * N
    _round_info(benchmark, N)
    step = Recorded(sharded_env.step)
    benchmark(step, actions)
    assert_steps_answered(step.results, "list_tools", observation=step.results[0][0][0])
    assert step.results[0][0][0].startswith("Available MCP Tools")


@pytest.mark.benchmark(group="step-list_tools")
def test_step_list_tools_parse_action_1024(benchmark, workload):
    """Floor: parsing the 1,024 actions (the reply text itself is a cached string)."""
    names = frozenset(workload.host._tools_by_name)

    def run():
        return [parse_action(LIST_TOOLS_ACTION, names) for _ in range(N)]

    _round_info(benchmark, N)
    recorded = Recorded(run)
    benchmark(recorded)
    assert all(action == ListTools() for actions in recorded.results for action in actions)


# -- per-call dispatch overhead on one instance -------------------------------------------------
@pytest.mark.benchmark(group="dispatch")
def test_dispatch_read_host_call_vs_endpoint_direct(benchmark, workload, slots):
    """``host.call`` on one instance, with the bare endpoint timed in alternation beside it;
    ``extra_info`` keeps the per-call times and their ratio (medians of the repeats)."""
    tool, args = workload.read
    host, slot = workload.host, slots[0]
    endpoint, kwargs = workload.endpoint(tool), workload.kwargs(tool, args)

    def via_host():
        return [host.call(slot, tool, args) for _ in range(DISPATCH_CALLS)]

    def via_endpoint():
        return [call_endpoint(endpoint, slot, kwargs) for _ in range(DISPATCH_CALLS)]

    host_us, direct_us = [], []
    host_results, direct_results = Recorded(via_host), Recorded(via_endpoint)
    for _ in range(DISPATCH_REPEATS):
        for fn, sink in ((direct_results, direct_us), (host_results, host_us)):
            start = time.perf_counter()
            fn()
            sink.append((time.perf_counter() - start) / DISPATCH_CALLS * 1e6)
    ratios = [h / d for h, d in zip(host_us, direct_us, strict=True)]
    _round_info(benchmark, DISPATCH_CALLS, tool=tool,
                host_call_us=round(statistics.median(host_us), 1),
                endpoint_direct_us=round(statistics.median(direct_us), 1),
                ratio_host_over_endpoint=round(statistics.median(ratios), 3))
    benchmark(host_results)
    expected = _read_text(workload)
    assert all(r.outcome == "ok" and r.text == expected
               for results in host_results.results for r in results)
    assert all(jsonable_encoder(r) == json.loads(expected)
               for results in direct_results.results for r in results)
