"""Run every call into the world runtime on one thread: the one that calls :meth:`RuntimeLoop.run`.

Why one dedicated thread, and why the main one. The runtime binds each instance's database
through a ``ContextVar`` and stops a runaway tool call with ``SIGALRM``, which Python delivers only
to the main thread (``awm_gym.tools.dispatch._Deadline``; off the main thread only the SQLite progress
handler remains, which cannot stop ``while True: pass``). So :func:`awm_gym.server.serve` runs the
network (uvicorn's event loop) on a background thread and this loop on the main thread: the event
loop never executes generated code, keeps answering pings, health checks and new connections
while a tool hangs, and hands each request over here as a job. Jobs that arrive together run as
one batch: their steps go through a single ``runtime.step`` call, so final answers of different
sessions are verified in one verifier-pool batch, as in a vector env.

The price is one thread hop per request (tens of microseconds), small next to a tool call.

Example:
    >>> import asyncio, threading
    >>> from awm_gym import EnvConfig, get_world_set
    >>> from awm_gym.envs.runtime import WorldRuntime
    >>> runtime = WorldRuntime(get_world_set(), ["spotify"], 1, EnvConfig())
    >>> jobs = RuntimeLoop(runtime)
    >>> async def episode():
    ...     obs, info = await jobs.submit_reset(0, seed=0, task_idx=0)
    ...     out = await jobs.submit_step(0, "I give up.")
    ...     jobs.stop()
    ...     return info["task_idx"], out.terminated
    >>> result = []
    >>> client = threading.Thread(target=lambda: result.append(asyncio.run(episode())))
    >>> client.start(); jobs.run(); client.join()
    >>> result
    [(0, True)]
    >>> runtime.close()
"""

from __future__ import annotations

import asyncio
import logging
import queue
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from awm_gym.boundary import Failure, capture
from awm_gym.errors import EnvUsageError

logger = logging.getLogger(__name__)

__all__ = ["RuntimeLoop"]

_STEP, _RESET, _CALL = "step", "reset", "call"


@dataclass(slots=True)
class _Job:
    kind: str
    args: tuple[Any, ...]
    future: asyncio.Future
    loop: asyncio.AbstractEventLoop


def _settle(future: asyncio.Future, result: Any, error: BaseException | None) -> None:
    if future.cancelled():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


class RuntimeLoop:
    """A job queue in front of one runtime (``WorldRuntime`` or ``ShardedRuntime``).

    ``submit_*`` are called from an asyncio event loop and return futures of that loop;
    :meth:`run` executes the jobs on the calling thread until :meth:`stop` or ``should_stop()``.

    Args:
        runtime: the runtime every job goes to (owned by the caller).
        poll_s: how often :meth:`run` checks ``should_stop`` while no job arrives.
    """

    runtime: Any
    batches: int
    steps: int

    def __init__(self, runtime: Any, poll_s: float = 0.2) -> None:
        self.runtime, self.poll_s = runtime, poll_s
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self.batches = self.steps = 0

    def __repr__(self) -> str:
        return f"RuntimeLoop({self.runtime!r}, batches={self.batches}, steps={self.steps})"

    # -- event loop side ----------------------------------------------------------------------
    def _submit(self, kind: str, args: tuple[Any, ...]) -> asyncio.Future:
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        self._jobs.put(_Job(kind, args, future, loop))
        return future

    def submit_reset(self, instance: int, seed: int | None, task_idx: int | None
                     ) -> asyncio.Future:
        """Reset one instance; resolves to ``(observation, info)``."""
        return self._submit(_RESET, (instance, seed, task_idx))

    def submit_step(self, instance: int, action: str) -> asyncio.Future:
        """Step one instance; resolves to a :class:`~awm_gym.envs.runtime.StepOutcome`."""
        return self._submit(_STEP, (instance, action))

    def submit_call(self, fn: Callable[..., Any], *args: Any) -> asyncio.Future:
        """Run ``fn(*args)`` on the runtime thread (tool calls of MCP sessions, clean-ups)."""
        return self._submit(_CALL, (fn, *args))

    def stop(self) -> None:
        """Make :meth:`run` return once the jobs queued before this call are done."""
        self._jobs.put(None)

    # -- runtime thread side ------------------------------------------------------------------
    def run(self, should_stop: Callable[[], bool] = lambda: False) -> None:
        """Execute jobs on this thread until :meth:`stop` is called or ``should_stop()`` is true."""
        while not should_stop():
            try:
                first = self._jobs.get(timeout=self.poll_s)
            except queue.Empty:
                continue
            batch, stopping = [], first is None
            if first is not None:
                batch.append(first)
            while True:  # take everything that is already waiting: one batch
                try:
                    job = self._jobs.get_nowait()
                except queue.Empty:
                    break
                if job is None:
                    stopping = True
                else:
                    batch.append(job)
            if batch:
                self._run_batch(batch)
            if stopping:
                return

    def _run_batch(self, batch: list[_Job]) -> None:
        self.batches += 1
        steps = [job for job in batch if job.kind == _STEP]
        try:
            for job in batch:
                if job.kind == _RESET:
                    self._deliver(job, self._reset_one, *job.args)
                elif job.kind == _CALL:
                    self._deliver(job, *job.args)
            if steps:
                self._run_steps(steps)
        except BaseException as e:  # noqa: BLE001 - Ctrl-C, SystemExit: fail the batch, re-raise
            for job in batch:
                if not job.future.done():
                    self._post(job, None, RuntimeError(f"the server stopped: {e!r}"))
            raise

    def _run_steps(self, steps: list[_Job]) -> None:
        """Step the batch once; every job gets exactly one reply and is never run twice.

        The runtime turns anything an action does into that instance's outcome, and raises
        :class:`EnvUsageError` only before touching any instance: then (and only then) the jobs
        are stepped one by one, so the bad one gets its error and the others their outcome. Any
        other error may come after some instances ran (their tool calls applied), so replaying
        would apply them twice: every job of the batch gets the error instead.
        """
        self.steps += len(steps)
        try:
            outcomes = self.runtime.step([j.args[0] for j in steps], [j.args[1] for j in steps])
        except EnvUsageError:
            logger.debug("batched step refused; stepping its %d jobs one by one", len(steps),
                         exc_info=True)
            for job in steps:
                self._deliver(job, self._step_one, *job.args)
            return
        except Exception as e:  # noqa: BLE001 - the boundary: the error goes back to every caller
            logger.exception("a batched step of %d jobs failed; none is replayed", len(steps))
            for job in steps:
                self._post(job, None, e)
            return
        for job, outcome in zip(steps, outcomes, strict=True):
            self._post(job, outcome, None)

    def _reset_one(self, i: int, seed: int | None, task_idx: int | None) -> Any:
        return self.runtime.reset([i], [seed], [task_idx], [None])[0]

    def _step_one(self, i: int, action: str) -> Any:
        return self.runtime.step([i], [action])[0]

    def _deliver(self, job: _Job, fn: Callable[..., Any], *args: Any) -> None:
        result = capture(fn, *args)  # an error goes back to the caller
        if isinstance(result, Failure):
            self._post(job, None, result.error)
        else:
            self._post(job, result, None)

    @staticmethod
    def _post(job: _Job, result: Any, error: BaseException | None) -> None:
        try:
            job.loop.call_soon_threadsafe(_settle, job.future, result, error)
        except RuntimeError:  # the event loop is closed: nobody waits for this result any more
            logger.debug("dropped the result of a %s job: its event loop is closed", job.kind)
