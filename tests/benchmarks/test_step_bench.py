"""One vector step of 1,024 instances, beside its floors (see docs/benchmarks.md).

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
"""

from __future__ import annotations

import json
import statistics
import time

import numpy as np
import pytest
from bench_support import LIST_TOOLS_ACTION, N, call_endpoint, replay_sql, reset_slots, tool_action
from fastapi.encoders import jsonable_encoder

from awm_gym.tools.actions import parse_action

N_ASGI = 128
"""Calls per round on the ASGI path (each costs a few times a direct call)."""
WRITE_ROUNDS = 7
DISPATCH_CALLS = 200
DISPATCH_REPEATS = 15


def _round_info(benchmark, calls: int, **extra) -> None:
    benchmark.extra_info["calls"] = calls
    benchmark.extra_info.update(extra)


def _assert_step_ok(out, kind: str) -> None:
    info = out[4]
    assert (info["action_kind"] == kind).all(), set(info["action_kind"])
    if kind == "tool_call":
        assert (info["tool_outcome"] == "ok").all(), set(info["tool_outcome"])


# -- read ---------------------------------------------------------------------------------------
@pytest.mark.benchmark(group="step-read")
def test_step_read_vector_1024(benchmark, stepping_env, workload):
    tool, args = workload.read
    actions = [tool_action(tool, args)] * N
    _round_info(benchmark, N, tool=tool, arguments=json.dumps(args))
    out = benchmark(stepping_env.step, actions)
    _assert_step_ok(out, "tool_call")


@pytest.mark.benchmark(group="step-read")
def test_step_read_vector_1024_num_workers_2(benchmark, sharded_env, workload):
    tool, args = workload.read
    actions = [tool_action(tool, args)] * N
    _round_info(benchmark, N)
    out = benchmark(sharded_env.step, actions)
    _assert_step_ok(out, "tool_call")


@pytest.mark.benchmark(group="step-read")
def test_step_read_host_call_1024(benchmark, workload, slots):
    tool, args = workload.read
    host = workload.host

    def run():
        return [host.call(slot, tool, args) for slot in slots]

    _round_info(benchmark, N)
    results = benchmark(run)
    assert all(r.outcome == "ok" for r in results)


@pytest.mark.benchmark(group="step-read")
def test_step_read_endpoint_direct_1024(benchmark, workload, slots):
    tool, args = workload.read
    endpoint, kwargs = workload.endpoint(tool), workload.kwargs(tool, args)
    expected = json.loads(workload.host.call(slots[0], tool, args).text)
    assert jsonable_encoder(call_endpoint(endpoint, slots[0], kwargs)) == expected

    def run():
        for slot in slots:
            call_endpoint(endpoint, slot, kwargs)

    _round_info(benchmark, N)
    benchmark(run)


@pytest.mark.benchmark(group="step-read")
def test_step_read_raw_sqlite_1024(benchmark, workload, slots):
    statements = list(workload.read_sql)

    def run():
        for slot in slots:
            replay_sql(slot.conn, statements)

    _round_info(benchmark, N, sql=statements)
    benchmark(run)


@pytest.mark.benchmark(group="step-read")
def test_step_read_mcp_asgi_128(benchmark, workload, slots, mcp_path):
    tool, args = workload.read
    subset = slots[:N_ASGI]
    assert mcp_path.call_many(subset[:1], tool, args)[0] == workload.host.call(
        subset[0], tool, args).text  # the same text a model reads
    _round_info(benchmark, N_ASGI)
    benchmark(mcp_path.call_many, subset, tool, args)


# -- write (every round starts from the initial state) -----------------------------------------
@pytest.mark.benchmark(group="step-write")
def test_step_write_vector_1024(benchmark, stepping_env, workload):
    tool, args = workload.write
    actions = [tool_action(tool, args)] * N
    mask = np.ones(N, dtype=np.bool_)

    def setup():
        stepping_env.reset(seed=list(range(N)), options={"reset_mask": mask})

    _round_info(benchmark, N, tool=tool, arguments=json.dumps(args))
    out = benchmark.pedantic(stepping_env.step, args=(actions,), setup=setup,
                             rounds=WRITE_ROUNDS, iterations=1)
    _assert_step_ok(out, "tool_call")


@pytest.mark.benchmark(group="step-write")
def test_step_write_vector_1024_num_workers_2(benchmark, sharded_env, workload):
    tool, args = workload.write
    actions = [tool_action(tool, args)] * N
    mask = np.ones(N, dtype=np.bool_)

    def setup():
        sharded_env.reset(seed=list(range(N)), options={"reset_mask": mask})

    _round_info(benchmark, N)
    out = benchmark.pedantic(sharded_env.step, args=(actions,), setup=setup,
                             rounds=WRITE_ROUNDS, iterations=1)
    _assert_step_ok(out, "tool_call")


@pytest.mark.benchmark(group="step-write")
def test_step_write_host_call_1024(benchmark, workload, slots):
    tool, args = workload.write
    host = workload.host

    def run():
        return [host.call(slot, tool, args) for slot in slots]

    _round_info(benchmark, N)
    results = benchmark.pedantic(run, setup=lambda: reset_slots(slots, workload.template),
                                 rounds=WRITE_ROUNDS, iterations=1)
    assert all(r.outcome == "ok" for r in results)
    reset_slots(slots, workload.template)


@pytest.mark.benchmark(group="step-write")
def test_step_write_endpoint_direct_1024(benchmark, workload, slots):
    tool, args = workload.write
    endpoint, kwargs = workload.endpoint(tool), workload.kwargs(tool, args)
    reset_slots(slots[:1], workload.template)
    expected = json.loads(workload.host.call(slots[0], tool, args).text)
    reset_slots(slots[:1], workload.template)
    assert jsonable_encoder(call_endpoint(endpoint, slots[0], kwargs)) == expected

    def run():
        for slot in slots:
            call_endpoint(endpoint, slot, kwargs)

    _round_info(benchmark, N)
    benchmark.pedantic(run, setup=lambda: reset_slots(slots, workload.template),
                       rounds=WRITE_ROUNDS, iterations=1)
    reset_slots(slots, workload.template)


@pytest.mark.benchmark(group="step-write")
def test_step_write_raw_sqlite_1024(benchmark, workload, slots):
    statements = list(workload.write_sql)

    def run():
        for slot in slots:
            replay_sql(slot.conn, statements)

    _round_info(benchmark, N, sql=statements)
    benchmark.pedantic(run, setup=lambda: reset_slots(slots, workload.template),
                       rounds=WRITE_ROUNDS, iterations=1)
    reset_slots(slots, workload.template)


@pytest.mark.benchmark(group="step-write")
def test_step_write_mcp_asgi_128(benchmark, workload, slots, mcp_path):
    tool, args = workload.write
    subset = slots[:N_ASGI]
    reset_slots(subset, workload.template)
    expected = workload.host.call(subset[0], tool, args).text
    reset_slots(subset, workload.template)
    assert mcp_path.call_many(subset[:1], tool, args)[0] == expected
    _round_info(benchmark, N_ASGI)
    benchmark.pedantic(mcp_path.call_many, args=(subset, tool, args),
                       setup=lambda: reset_slots(subset, workload.template),
                       rounds=WRITE_ROUNDS, iterations=1)
    reset_slots(subset, workload.template)


# -- list_tools ---------------------------------------------------------------------------------
@pytest.mark.benchmark(group="step-list_tools")
def test_step_list_tools_vector_1024(benchmark, stepping_env):
    actions = [LIST_TOOLS_ACTION] * N
    _round_info(benchmark, N)
    out = benchmark(stepping_env.step, actions)
    _assert_step_ok(out, "list_tools")


@pytest.mark.benchmark(group="step-list_tools")
def test_step_list_tools_vector_1024_num_workers_2(benchmark, sharded_env):
    actions = [LIST_TOOLS_ACTION] * N
    _round_info(benchmark, N)
    out = benchmark(sharded_env.step, actions)
    _assert_step_ok(out, "list_tools")


@pytest.mark.benchmark(group="step-list_tools")
def test_step_list_tools_parse_action_1024(benchmark, workload):
    """Floor: parsing the 1,024 actions (the reply text itself is a cached string)."""
    names = frozenset(workload.host._tools_by_name)

    def run():
        return [parse_action(LIST_TOOLS_ACTION, names) for _ in range(N)]

    _round_info(benchmark, N)
    benchmark(run)


# -- per-call dispatch overhead on one instance -------------------------------------------------
@pytest.mark.benchmark(group="dispatch")
def test_dispatch_read_host_call_vs_endpoint_direct(benchmark, workload, slots):
    """``host.call`` on one instance, with the bare endpoint timed in alternation beside it;
    ``extra_info`` keeps the per-call times and their ratio (medians of the repeats)."""
    tool, args = workload.read
    host, slot = workload.host, slots[0]
    endpoint, kwargs = workload.endpoint(tool), workload.kwargs(tool, args)

    def via_host():
        for _ in range(DISPATCH_CALLS):
            host.call(slot, tool, args)

    def via_endpoint():
        for _ in range(DISPATCH_CALLS):
            call_endpoint(endpoint, slot, kwargs)

    host_us, direct_us = [], []
    for _ in range(DISPATCH_REPEATS):
        for fn, sink in ((via_endpoint, direct_us), (via_host, host_us)):
            start = time.perf_counter()
            fn()
            sink.append((time.perf_counter() - start) / DISPATCH_CALLS * 1e6)
    ratios = [h / d for h, d in zip(host_us, direct_us, strict=True)]
    _round_info(benchmark, DISPATCH_CALLS, tool=tool,
                host_call_us=round(statistics.median(host_us), 1),
                endpoint_direct_us=round(statistics.median(direct_us), 1),
                ratio_host_over_endpoint=round(statistics.median(ratios), 3))
    benchmark(via_host)
