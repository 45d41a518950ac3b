"""Tests for awm_gym/server/sessions.py (capacity, slots, reaping) and awm_gym/server/executor.py
(the runtime job loop), with a real runtime on the tiny fixture world."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest

from awm_gym import EnvConfig, EnvUsageError
from awm_gym.envs.runtime import WorldRuntime
from awm_gym.server.executor import RuntimeLoop
from awm_gym.server.sessions import Session, SessionTable


def test_capacity_and_lowest_free_slot_reuse() -> None:
    table = SessionTable(capacity=3, idle_timeout_s=0)
    a, b, c = (table.open("ws") for _ in range(3))
    assert [a.slot, b.slot, c.slot] == [0, 1, 2] and table.is_full
    assert table.open("mcp") is None and table.refused == 1
    table.release(b)
    table.release(b)  # idempotent: the slot is not freed twice
    assert table.open("mcp").slot == 1 and table.is_full
    assert table.counts() == {"ws": 2, "mcp": 1} and len(table) == 3
    assert len({a.session_id, b.session_id, c.session_id}) == 3


def test_only_idle_sessions_without_requests_in_flight_are_reaped() -> None:
    expired: list[str] = []

    async def expire(session: Session) -> None:
        expired.append(session.session_id)

    async def scenario() -> tuple[int, int]:
        table = SessionTable(capacity=3, idle_timeout_s=60.0)
        idle = table.open("ws", expire=expire)
        busy = table.open("ws", expire=expire)
        fresh = table.open("mcp", expire=expire)
        busy.begin()  # a long tool call: not idle however long it takes
        idle.last_active -= 120  # two minutes without a request (stamps moved, no clock waited)
        busy.last_active -= 120
        reaped = await table.reap_once()
        assert idle.expired and not busy.expired and not fresh.expired
        assert expired == [idle.session_id] and table.reaped == 1
        busy.end()
        return reaped, len(table)

    assert asyncio.run(scenario()) == (1, 2)


def test_reaping_is_off_with_a_zero_timeout() -> None:
    table = SessionTable(capacity=1, idle_timeout_s=0)
    table.open("ws").last_active -= 10**6
    assert table.idle_sessions() == []
    asyncio.run(table.reap_forever())  # returns at once instead of looping


def test_a_failing_expire_callback_still_frees_the_slot() -> None:
    async def broken(_: Session) -> None:
        raise OSError("socket already gone")

    table = SessionTable(capacity=1, idle_timeout_s=0.01)
    table.open("ws", expire=broken).last_active -= 1
    assert asyncio.run(table.reap_once()) == 1
    assert not table.is_full


@pytest.fixture()
def runtime(tiny_set: Any) -> Any:
    rt = WorldRuntime(tiny_set, ["notes_app"], 4, EnvConfig(verifier_workers=1))
    yield rt
    rt.close()


def drive(jobs: RuntimeLoop, scenario: Any) -> Any:
    """Run ``scenario(jobs)`` on an event loop in a thread while this thread runs the jobs."""
    result: list[Any] = []

    def client() -> None:
        async def main() -> Any:
            try:
                return await scenario(jobs)
            finally:
                jobs.stop()
        result.append(asyncio.run(main()))

    thread = threading.Thread(target=client)
    thread.start()
    jobs.run()
    thread.join()
    return result[0]


def test_jobs_that_arrive_together_run_as_one_batch_on_the_running_thread(runtime) -> None:
    jobs = RuntimeLoop(runtime)
    ran_on: list[str] = []

    async def scenario(jobs: RuntimeLoop) -> Any:
        await asyncio.gather(*(jobs.submit_reset(i, i, 0) for i in range(4)))
        steps = [jobs.submit_step(i, "I give up.") for i in range(4)]
        where = jobs.submit_call(lambda: ran_on.append(threading.current_thread().name))
        outcomes = await asyncio.gather(*steps)
        await where
        return outcomes

    before = jobs.batches
    outcomes = drive(jobs, scenario)
    assert [o.terminated for o in outcomes] == [True] * 4
    assert {o.info["verifier_label"] for o in outcomes} == {"others"}
    assert ran_on == [threading.current_thread().name]  # generated code runs here, not there
    assert jobs.steps == 4 and jobs.batches - before <= 3  # resets, then steps + call together


def test_one_bad_job_fails_alone_and_the_batch_goes_on(runtime) -> None:
    jobs = RuntimeLoop(runtime)

    async def scenario(jobs: RuntimeLoop) -> Any:
        await jobs.submit_reset(0, 0, 0)
        good = jobs.submit_step(0, '<tool_call>{"name": "list_tools"}</tool_call>')
        bad = jobs.submit_step(1, "never reset")  # the runtime refuses: instance 1 is done
        boom = jobs.submit_call(lambda: 1 / 0)
        results = await asyncio.gather(good, bad, boom, return_exceptions=True)
        return results

    good, bad, boom = drive(jobs, scenario)
    assert good.observation.startswith("Available MCP Tools")
    assert isinstance(bad, EnvUsageError) and "Reset it first" in str(bad)
    assert isinstance(boom, ZeroDivisionError)


def test_run_returns_when_asked_to_stop_without_jobs(runtime) -> None:
    jobs = RuntimeLoop(runtime, poll_s=0.01)
    deadline = time.monotonic() + 0.05
    jobs.run(should_stop=lambda: time.monotonic() > deadline)
    assert jobs.batches == 0
