"""Helpers of the runtime benchmarks: the world, its workload, and the floors' machinery.

The benchmarks run on the built-in ``spotify`` world when it is registered, else on the test
fixture world ``notes_app`` (``tests/fixtures/worlds/tiny``; ``AWM_BENCH_FIXTURE_WORLD=1``
forces it). The read and write calls come from the world's reference solutions (the first GET,
and the first POST/PUT/PATCH/DELETE, that succeed on the initial state), so the same code
measures whichever world is present.

Every benchmark sets ``extra_info["calls"]`` (calls per round) so ``summarize.py`` can turn a
round's time into microseconds per call and calls per second, and asserts that every measured
call succeeded: pytest-benchmark keeps only one result (that of an extra, untimed call after the
rounds for ``benchmark(fn)``), so the timed function is wrapped in :class:`Recorded`, which keeps
the result of every round for the asserts after the timing.

Run on demand (the default suite ignores this folder)::

    /work/venv/bin/python -m pytest tests/benchmarks -q --benchmark-only \
        --benchmark-json=bench.json
"""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import sqlite3
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import pytest

import awm_gym
from awm_gym.tools.db_routing import DatabaseSlot, bind_database
from awm_gym.worlds.clock import FrozenClock
from awm_gym.worlds.template_db import open_database

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TINY_WORLDS = os.path.join(REPO_ROOT, "tests", "fixtures", "worlds", "tiny")
N = 1024
"""Instances per vector env, the size the brief measures."""
NO_TRUNCATION = 10**9
"""max_episode_steps for benchmark envs: steps must never end an episode mid-measurement."""
SHARDS = 2
"""Worker processes of the sharded env (``num_workers``): this machine's core count."""
BODY_METHODS = ("POST", "PUT", "PATCH")


@dataclass(frozen=True)
class BenchWorld:
    """The world under test: its Gymnasium id, world set path (None: built-ins) and name."""

    env_id: str
    world_set: str | None
    name: str


def pick_world() -> BenchWorld:
    """``spotify`` when the built-in world set has it, else the fixture world ``notes_app``
    (forced with ``AWM_BENCH_FIXTURE_WORLD=1``)."""
    if "AWM/spotify-v0" in gym.registry and not os.environ.get("AWM_BENCH_FIXTURE_WORLD"):
        return BenchWorld("AWM/spotify-v0", None, "spotify")
    awm_gym.register_worlds(TINY_WORLDS)
    return BenchWorld("AWM/notes_app-v0", TINY_WORLDS, "notes_app")


def tool_action(tool: str, arguments: dict[str, Any]) -> str:
    """The action string a policy sends for one tool call."""
    return "<tool_call>" + json.dumps({"name": tool, "arguments": arguments}) + "</tool_call>"


LIST_TOOLS_ACTION = tool_action("list_tools", {})


class Recorded:
    """``fn`` that keeps what each call returned (``results``), so a benchmark can check every
    measured round after the timing. It adds one Python call and a list append per round
    (under a microsecond; a round here is a millisecond or more).

    Example::

        step = Recorded(envs.step)
        benchmark(step, actions)
        assert all((out[4]["tool_outcome"] == "ok").all() for out in step.results)
    """

    def __init__(self, fn: Any) -> None:
        self.fn = fn
        self.results: list[Any] = []

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        result = self.fn(*args, **kwargs)
        self.results.append(result)
        return result


def assert_steps_answered(outs: list[Any], kind: str, tool: str | None = None,
                          observation: str | None = None) -> None:
    """Every recorded vector step answered every instance: each action read as ``kind``, each
    tool call answered ``ok`` by ``tool`` (when given), no episode ended, reward 0, and (when
    given) every observation equal to ``observation``."""
    assert outs, "no step was recorded"
    for observations, reward, terminated, truncated, info in outs:
        assert (info["action_kind"] == kind).all(), set(info["action_kind"])
        if kind == "tool_call":
            assert (info["tool_outcome"] == "ok").all(), set(info["tool_outcome"])
        if tool is not None:
            assert (info["tool"] == tool).all(), set(info["tool"])
        assert not terminated.any() and not truncated.any() and not reward.any()
        if observation is not None:
            wrong = [i for i, text in enumerate(observations) if text != observation]
            assert not wrong, f"{len(wrong)} observations differ, e.g. {observations[wrong[0]]!r}"


# -- the floors' machinery ---------------------------------------------------------------------
def endpoint_kwargs(route: Any, arguments: dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments FastAPI would pass the endpoint for ``arguments`` (validated once,
    outside any timing), so the endpoint can be called bare."""
    dep = route.dependant
    if dep.dependencies:
        pytest.skip(f"{route.path}: endpoint with Depends(...) cannot be called bare")
    args = dict(arguments)
    kwargs: dict[str, Any] = {}
    for field in (*dep.path_params, *dep.query_params):
        loc = (field.field_info.in_.value, field.alias)
        raw = args.pop(field.alias) if field.alias in args else None
        value, errors = field.validate(raw if raw is not None else field.default, {}, loc=loc)
        assert not errors, errors
        kwargs[field.name] = value
    body_fields = dep.body_params
    if len(body_fields) == 1 and not route._embed_body_fields:
        value, errors = body_fields[0].validate(args, {}, loc=("body",))
        assert not errors, errors
        kwargs[body_fields[0].name] = value
    else:
        for field in body_fields:
            value, errors = field.validate(args.get(field.alias, field.default), {},
                                           loc=("body", field.alias))
            assert not errors, errors
            kwargs[field.name] = value
    return kwargs


def call_endpoint(endpoint: Any, slot: DatabaseSlot, kwargs: dict[str, Any]) -> Any:
    """Call a generated endpoint directly on ``slot``'s database, driving its coroutine by hand."""
    with bind_database(slot):
        result = endpoint(**kwargs)
        if inspect.iscoroutine(result):
            try:
                result.send(None)
            except StopIteration as stop:
                result = stop.value
            else:
                raise RuntimeError(f"{endpoint.__name__} suspended: it needs an event loop")
    slot.open_sessions.clear()  # the handler closed its sessions; drop the tracking references
    return result


def capture_sql(host: Any, slot: DatabaseSlot, tool: str, arguments: dict[str, Any],
                template: bytes) -> list[str]:
    """The SQL statements (parameters expanded) one call of ``tool`` runs on a fresh database.

    A first call warms the connection (SQLAlchemy's per-connection set-up), the database is
    reset, and the second call is traced.
    """
    host.call(slot, tool, arguments)
    slot.conn.deserialize(template)
    statements: list[str] = []
    slot.conn.set_trace_callback(statements.append)
    try:
        result = host.call(slot, tool, arguments)
    finally:
        slot.conn.set_trace_callback(None)
    slot.conn.deserialize(template)
    assert result.outcome == "ok", result.text
    return statements


def replay_sql(conn: sqlite3.Connection, statements: list[str]) -> list[list[tuple]]:
    """Run captured statements through raw sqlite3, reading every row (the SQL floor); returns
    each statement's rows."""
    return [conn.execute(statement).fetchall() for statement in statements]


class McpPath:
    """A tool call the way AWM's MCP layer makes it: fastapi_mcp 0.4.0's ``_execute_api_tool``,
    an HTTP request through ``httpx.ASGITransport`` into the app, in-process."""

    def __init__(self, app: Any) -> None:
        from fastapi_mcp import FastApiMCP

        self.mcp = FastApiMCP(app)
        self.loop = asyncio.new_event_loop()

    async def _calls(self, slots: list[DatabaseSlot], tool: str, arguments: dict[str, Any]
                     ) -> list[str]:
        texts = []
        for slot in slots:
            with bind_database(slot):
                content = await self.mcp._execute_api_tool(
                    self.mcp._http_client, tool, arguments, self.mcp.operation_map)
            slot.open_sessions.clear()
            if slot.conn.in_transaction:
                slot.conn.rollback()
            texts.append(content[0].text)
        return texts

    def call_many(self, slots: list[DatabaseSlot], tool: str, arguments: dict[str, Any]
                  ) -> list[str]:
        return self.loop.run_until_complete(self._calls(slots, tool, arguments))

    def close(self) -> None:
        self.loop.run_until_complete(self.mcp._http_client.aclose())
        self.loop.close()


@dataclass(frozen=True)
class Workload:
    """One world's benchmark calls and what the floors need for them."""

    world: BenchWorld
    template: bytes
    host: Any  # ToolHost
    clock: FrozenClock
    read: tuple[str, dict[str, Any]]
    write: tuple[str, dict[str, Any]]
    read_sql: tuple[str, ...]
    write_sql: tuple[str, ...]

    def new_slot(self) -> DatabaseSlot:
        return DatabaseSlot(open_database(self.template, self.clock))

    def endpoint(self, tool: str) -> Any:
        return self.host.operations[tool].route.endpoint

    def kwargs(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return endpoint_kwargs(self.host.operations[tool].route, arguments)


def choose_calls(world: BenchWorld, host: Any, slot: DatabaseSlot, template: bytes
                  ) -> tuple[tuple[str, dict[str, Any]], tuple[str, dict[str, Any]]]:
    """The first GET and the first write among the reference solutions that succeed on the
    initial state, endpoint-callable (no ``Depends``) and on the direct dispatch path."""
    solutions = awm_gym.get_world_set(world.world_set)[world.name].solutions
    read = write = None
    for solution in solutions:
        for call in (solution.calls if solution is not None else ()):
            op = host.operations.get(call.tool)
            if op is None or op.route is None or op.route.dependant.dependencies:
                continue
            if (read if op.method == "GET" else write) is not None:
                continue
            slot.conn.deserialize(template)
            if host.call(slot, call.tool, dict(call.arguments)).outcome != "ok":
                continue
            if op.method == "GET":
                read = (call.tool, dict(call.arguments))
            elif write is None or op.method in BODY_METHODS:
                write = (call.tool, dict(call.arguments))
    slot.conn.deserialize(template)
    if read is None or write is None:
        pytest.skip(f"{world.name}: its solutions have no successful read and write call")
    return read, write


def reset_slots(slots: list[DatabaseSlot], template: bytes) -> None:
    """Reset instance databases to the template (as ``WorldRuntime.reset`` does)."""
    for slot in slots:
        slot.conn.deserialize(template)
