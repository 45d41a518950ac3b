"""Run task verifiers in a persistent pool of worker processes, with a timeout per verification.

AWM ``exec``s verifier code in the trainer's own process, with no timeout and a racy chmod as
its only "read-only" protection (awm.md section 8, item 12). Here a :class:`VerifierPool` keeps
``num_workers`` long-lived processes (started on the first :meth:`VerifierPool.run`, never one
interpreter per call) and feeds them :class:`VerifyJob` s, one at a time per worker:

* **Load.** A worker ``exec``s a verifier's source once, with AWM's globals
  ``{sqlite3, json, os, re, __builtins__}``, and caches the function by the sha256 of the source
  (LRU, 4,096 entries). The entry point is ``VerifyJob.function_name``, resolved by the loader:
  AWM's "first line starting with ``def verify_``" rule (item 15) is the loader's business.
* **Call.** As AWM does: by keyword when the signature names ``initial_db_path`` and
  ``final_db_path``, else positionally. Code mode also passes ``final_answer`` (by keyword when
  named, else as a third positional argument when there is room); sql mode passes the two paths.
  Stripping ``<think>`` text from ``final_answer`` (item 16) is the caller's job.
* **Databases.** Each job gets its own pair of files, written from the serialized bytes into the
  worker's private directory (``/dev/shm`` when writable) with mode 0o444 and deleted after the
  call. With an ``initial_key`` a worker keeps the initial file per key (LRU) and the parent stops
  resending its bytes. The copies are read-only twice over, since root ignores file modes: the
  worker's ``sqlite3.connect`` opens them with ``mode=ro``. A verifier that tries to write gets
  ``sqlite3.OperationalError``, which is its exception, not a pool failure. A pool removes its
  directories on close; the next pool sweeps those of a pool whose process was SIGKILLed.
* **Results.** Workers reply in JSON the pool checks (never a pickle: a worker runs verifier
  code). A bad verifier is data, not a crash (STYLE b.4): an exception, a bad return
  value, a syntax error, a timeout or a dead worker each come back as the label
  ``verifier_error`` with an ``error_kind``, never as a silent ``others``. A job that runs past
  ``timeout_s`` has its worker SIGKILLed; a dead worker is replaced; the rest of the batch goes on.
  sql-mode verifiers return evidence for an LLM judge: the label is then ``awaiting_judge``.

Workers start (:mod:`~awm_gym.scoring.verifier_launcher`) from the ``forkserver`` context on
Linux (``spawn`` elsewhere), so they never
inherit the caller's threads, sqlite connections or CUDA state. A worker runs this file on its
own (``runpy.run_path``) rather than importing the ``awm_gym`` package, so it loads only the
standard library. Unlike a plain spawn/forkserver child it does not import the caller's
``__main__`` module (the start hides it from multiprocessing's preparation data), so scripts
without an ``if __name__ == "__main__":`` guard work. This is isolation, not a
sandbox: verifier code runs with full builtins and ``os``, as the caller's user.

The pool itself raises :class:`~awm_gym.errors.VerifierError` only for misuse (bad arguments, a
closed pool) and for failures of its own (a worker that cannot start).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import threading
import time
import weakref
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from typing import Any, Literal

from awm_gym import containment
from awm_gym.boundary import reraise_as
from awm_gym.errors import VerifierError
from awm_gym.scoring.verifier_launcher import (
    WorkerLauncher,
    default_state_root,
    main_module_hidden,
)
from awm_gym.scoring.verifier_spawner import Spawner
from awm_gym.scoring.verifier_worker import KeyLRU
from awm_gym.vocab import VERIFIER_KINDS, VerifierLabel, VerifierMode, coerce_enum

__all__ = ["VerifierErrorKind", "VerifyJob", "VerifierResult", "VerifierPool"]

VerifierErrorKind = Literal["exception", "bad_output", "timeout", "crash", "compile"]

_START_TIMEOUT_S = 60.0  # a worker that is not ready by then means the pool is broken
_MAX_REPLY_BYTES = 64 * 2**20  # a longer reply counts as a crash


@dataclass(frozen=True, slots=True)
class VerifyJob:
    """One verification: a verifier's source, its entry point, and the two database states.

    Attributes:
        code: the verifier's Python source.
        function_name: the entry function in ``code`` (resolved by the loader).
        mode: :attr:`~awm_gym.vocab.VerifierMode.CODE` (returns ``{"result": "complete" |
            "others"}``) or :attr:`~awm_gym.vocab.VerifierMode.SQL` (returns evidence for an LLM
            judge); the string ``"code"`` / ``"sql"`` is accepted.
        initial_db: ``sqlite3.Connection.serialize()`` bytes of the state before the episode.
        final_db: serialized bytes of the state after the episode.
        final_answer: the agent's final answer (code mode only; ignored in sql mode).
        initial_key: optional cache key naming ``initial_db``'s content (e.g. the template's
            content hash). Jobs with the same key must carry the same bytes: a worker keeps the
            file per key and the pool stops resending it.

    Example:
        >>> job = VerifyJob("def verify_x(a, b):\\n    return {}\\n", "verify_x", "sql", b"", b"")
        >>> job.mode is VerifierMode.SQL, job.final_answer
        (True, None)
    """

    code: str = field(repr=False)
    function_name: str
    mode: VerifierMode
    initial_db: bytes = field(repr=False)
    final_db: bytes = field(repr=False)
    final_answer: str | None = None
    initial_key: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "mode", coerce_enum(
            VerifierMode, self.mode, field="VerifyJob.mode", error=VerifierError,
            allowed=VERIFIER_KINDS))
        if not isinstance(self.code, str):
            raise VerifierError(
                "VerifyJob.code must be the verifier source as str, got "
                f"{type(self.code).__name__}."
            )
        if not isinstance(self.function_name, str) or not self.function_name.isidentifier():
            raise VerifierError(
                f"VerifyJob.function_name={self.function_name!r} is not a Python identifier; pass "
                "the name of the verifier function defined in `code` (e.g. 'verify_task')."
            )
        for name in ("initial_db", "final_db"):
            value = getattr(self, name)
            if not isinstance(value, bytes):
                raise VerifierError(
                    f"VerifyJob.{name} must be bytes from sqlite3.Connection.serialize(), got "
                    f"{type(value).__name__}; wrap it with bytes(...) if it is a buffer."
                )
        if self.final_answer is not None and not isinstance(self.final_answer, str):
            raise VerifierError(
                "VerifyJob.final_answer must be str or None, got "
                f"{type(self.final_answer).__name__}."
            )
        if not isinstance(self.initial_key, str):
            raise VerifierError(
                f"VerifyJob.initial_key must be str ('' for no caching), got {self.initial_key!r}."
            )


@dataclass(frozen=True, slots=True)
class VerifierResult:
    """What one verification produced.

    Attributes:
        label: ``complete`` | ``others`` (code mode), ``awaiting_judge`` (sql mode ran; the
            evidence in ``output`` awaits the LLM judge) or ``verifier_error``.
        error_kind: ``None`` unless the label is ``verifier_error``; then ``exception`` (the
            verifier raised), ``bad_output`` (wrong shape or not JSON-serialisable), ``timeout``,
            ``crash`` (the worker died) or ``compile`` (the source or entry point is broken).
        error: one line of detail: exception type, message and the verifier line it came from.
        output: a JSON-safe copy of what the verifier returned (``json`` round trip with
            ``default=str``), or ``None`` when nothing usable came back.
        elapsed_s: seconds the job took in the worker (for timeouts and crashes: as seen by
            the pool, dispatch to detection).

    Example:
        >>> result = VerifierResult(VerifierLabel.COMPLETE, None, None, {"result": "complete"}, 0.0)
        >>> result.is_complete
        True
    """

    label: VerifierLabel
    error_kind: VerifierErrorKind | None
    error: str | None
    output: Any
    elapsed_s: float

    @property
    def is_complete(self) -> bool:
        """True when a code verifier said ``complete``."""
        return self.label == VerifierLabel.COMPLETE

    @property
    def is_error(self) -> bool:
        """True when no verdict came back (label ``verifier_error``)."""
        return self.label == VerifierLabel.VERIFIER_ERROR


# ---------------------------------------------------------------------------------------------
# Worker side: everything below up to VerifierPool runs inside the worker processes.


@dataclass(slots=True, eq=False)  # eq=False: workers compare by identity
class _Worker:
    """The pool's handle on one worker process."""

    process: Any  # multiprocessing BaseProcess
    conn: Connection
    workdir: str
    lock_fd: int | None  # flock on workdir, held while this worker lives (verifier_launcher)
    deadline: float  # start-up deadline until ready, then the running job's deadline
    is_ready: bool = False
    job: int | None = None  # index in the running batch
    sent_at: float = 0.0
    initial_keys: KeyLRU = field(default_factory=KeyLRU)


_LABELS = frozenset(VerifierLabel) - {VerifierLabel.NO_VERIFIER}  # what a worker may reply
_KINDS = frozenset({None, "exception", "bad_output", "timeout", "crash", "compile"})


def _checked_reply(data: bytes) -> tuple[Any, ...]:
    """A worker's JSON reply, checked: ``ready``, ``need_initial`` or ``done`` with a label, an
    error kind, an error line, a JSON output and seconds. Anything else is a ``ValueError`` (the
    worker is then treated as crashed)."""
    reply = json.loads(data)
    if not isinstance(reply, list) or not reply:
        raise ValueError("a verifier worker's reply is not a list")
    tag = reply[0]
    if tag == "ready" and len(reply) == 2 and type(reply[1]) is int:
        return tuple(reply)
    if tag == "need_initial" and len(reply) == 1:
        return tuple(reply)
    if (tag == "done" and len(reply) == 6 and reply[1] in _LABELS and reply[2] in _KINDS
            and (reply[3] is None or isinstance(reply[3], str))
            and type(reply[5]) in (int, float)):
        return tuple(reply)
    raise ValueError("a verifier worker's reply has the wrong shape")


def _stop_workers(slots: list[_Worker | None], owner_pid: int) -> None:
    """Kill every worker and remove its directory (the pool's finaliser; safe to call twice)."""
    if os.getpid() != owner_pid:  # a forked child must not kill its parent's workers
        return
    workers = [w for w in slots if w is not None]
    slots[:] = [None] * len(slots)
    for w in workers:
        _kill_process_group(w.process)
        try:
            w.process.kill()
        except (OSError, ValueError, AttributeError):
            pass
    for w in workers:
        try:
            w.process.join(5.0)
        except (OSError, ValueError, AssertionError):
            pass
        w.conn.close()
        shutil.rmtree(w.workdir, ignore_errors=True)
        if w.lock_fd is not None:
            os.close(w.lock_fd)


def _kill_process_group(process: Any) -> None:
    """SIGKILL the worker's process group (its own, from ``os.setsid`` in the worker), so every
    process a verifier started goes with it. Safe while the worker is unreaped: its pid, and so
    the group id, cannot have been reused."""
    pid = getattr(process, "pid", None)
    if pid is None or not hasattr(os, "killpg"):
        return
    try:
        if os.getpgid(pid) != pid:  # not (yet) its own group leader: never kill a shared group
            return
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, OSError):
        pass


def _exit_description(process: Any) -> str:
    process.join(1.0)
    code = process.exitcode
    if code is None:
        process.kill()
        process.join(5.0)
        return "the worker closed its pipe and hung; killed"
    if code < 0:
        try:
            return f"the worker was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"the worker was killed by signal {-code}"
    return f"the worker exited with code {code}"


class VerifierPool:
    """A persistent pool of worker processes that run verifiers with a timeout.

    Workers start on the first :meth:`run` and then persist; each runs one job at a time, and a
    batch is spread over all of them. A job past ``timeout_s`` is reported as a ``timeout`` and its
    worker is SIGKILLed and replaced; a worker that dies mid-job reports a ``crash``. Close the pool
    (or use it as a context manager); a finaliser kills the workers if it is garbage-collected or
    the interpreter exits first.

    Args:
        num_workers: worker processes (at least 1).
        timeout_s: wall-clock seconds one verification may take, enforced by the pool.
        state_dir: where workers write the database files (default: ``/dev/shm`` when writable,
            else the temp directory); each worker gets a private directory inside it.
        memory_limit_mb: address space (RLIMIT_AS) a worker may grow by beyond its start-up
            size, so a runaway verifier raises ``MemoryError`` instead of exhausting the machine;
            ``None`` for no limit. Linux only.
        recursion_limit: ``sys.setrecursionlimit`` inside workers.

    Raises:
        VerifierError: on a bad argument.

    Example:
        >>> import sqlite3
        >>> db = sqlite3.connect(":memory:")
        >>> _ = db.execute("CREATE TABLE t (x)")
        >>> state = db.serialize()
        >>> code = (
        ...     "def verify_task_completion(initial_db_path, final_db_path, final_answer=None):\\n"
        ...     "    return {'result': 'complete' if final_answer == '42' else 'others'}\\n"
        ... )
        >>> jobs = [VerifyJob(code, "verify_task_completion", "code", state, state, answer)
        ...         for answer in ("42", "41")]
        >>> with VerifierPool(num_workers=1, timeout_s=5.0) as pool:
        ...     [result.label for result in pool.run(jobs)]
        ['complete', 'others']
    """

    def __init__(self, num_workers: int = 2, timeout_s: float = 10.0, *,
                 state_dir: str | None = None, memory_limit_mb: int | None = 2048,
                 recursion_limit: int = 1000, contained: bool = True) -> None:
        if not isinstance(num_workers, int) or isinstance(num_workers, bool) or num_workers < 1:
            raise VerifierError(f"VerifierPool(num_workers={num_workers!r}): need an int >= 1.")
        if not isinstance(timeout_s, (int, float)) or not 0 < timeout_s < float("inf"):
            raise VerifierError(
                f"VerifierPool(timeout_s={timeout_s!r}): need a finite number of seconds > 0."
            )
        if state_dir is not None and not os.path.isdir(state_dir):
            raise VerifierError(
                f"VerifierPool(state_dir={state_dir!r}): not a directory; create it or pass None "
                "to use /dev/shm (or the temp directory)."
            )
        if memory_limit_mb is not None and (not isinstance(memory_limit_mb, int)
                                            or memory_limit_mb < 64):
            raise VerifierError(
                f"VerifierPool(memory_limit_mb={memory_limit_mb!r}): need an int >= 64, or None "
                "for no limit."
            )
        if not isinstance(recursion_limit, int) or recursion_limit < 100:
            raise VerifierError(
                f"VerifierPool(recursion_limit={recursion_limit!r}): need an int >= 100."
            )
        self._num_workers = num_workers
        self._timeout_s = float(timeout_s)
        if contained:
            containment.warn_missing_layers("verifier workers")
        self._launcher = WorkerLauncher(
            state_dir if state_dir is not None else default_state_root(), memory_limit_mb,
            recursion_limit, containment.__file__ if contained else None)
        self._spawner: Spawner | None = None  # see start(spawner=True)
        self._slots: list[_Worker | None] = [None] * num_workers
        self._lock = threading.Lock()  # one batch at a time: workers carry one job each
        self._owner_pid = os.getpid()
        self._finalizer = weakref.finalize(self, _stop_workers, self._slots, self._owner_pid)

    @property
    def num_workers(self) -> int:
        """Number of worker processes."""
        return self._num_workers

    @property
    def timeout_s(self) -> float:
        """Seconds one verification may run before it is reported as a timeout."""
        return self._timeout_s

    @property
    def closed(self) -> bool:
        """True after :meth:`close`."""
        return not self._finalizer.alive

    @property
    def worker_pids(self) -> tuple[int, ...]:
        """Process ids of the running workers (empty before the first :meth:`run`)."""
        return tuple(w.process.pid for w in self._slots if w is not None)

    def __repr__(self) -> str:
        state = "closed" if self.closed else f"{len(self.worker_pids)} running"
        return (f"VerifierPool(num_workers={self._num_workers}, timeout_s={self._timeout_s:g}, "
                f"workers={state})")

    def __enter__(self) -> VerifierPool:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def start(self, *, spawner: bool = False) -> None:
        """Start every worker now rather than at the first :meth:`run`: a process about to
        give up starting processes (:mod:`awm_gym.containment`) calls this first; later
        replacements come from the forkserver it started, or, with ``spawner`` (a process
        about to give up opening sockets too), from a
        :class:`~awm_gym.scoring.verifier_spawner.Spawner` started now."""
        if self.closed:
            raise VerifierError("VerifierPool.start: the pool is closed; create a new one.")
        with self._lock:
            for k, w in enumerate(self._slots):
                if w is None:
                    self._slots[k] = self._start_worker()
        context = self._launcher.context
        if spawner and self._spawner is None and context.get_start_method() == "forkserver":
            with main_module_hidden():
                self._spawner = Spawner(context, self._launcher.args)

    def close(self) -> None:
        """Kill the workers and remove their files. Safe to call more than once."""
        self._finalizer()
        if self._spawner is not None:
            self._spawner.close()

    def run(self, jobs: Sequence[VerifyJob]) -> list[VerifierResult]:
        """Run a batch of verifications concurrently over the workers; block until all are done.

        Args:
            jobs: the verifications to run.

        Returns:
            One :class:`VerifierResult` per job, in job order. Verifier faults (exception, bad
            output, syntax error, timeout, crash) are results with label ``verifier_error``.

        Raises:
            VerifierError: the pool is closed, ``jobs`` holds something that is not a
                :class:`VerifyJob`, or a worker cannot be started.
        """
        jobs = list(jobs)
        for i, job in enumerate(jobs):
            if not isinstance(job, VerifyJob):
                raise VerifierError(
                    f"VerifierPool.run: jobs[{i}] is a {type(job).__name__}, not a VerifyJob; "
                    "build one with VerifyJob(code, function_name, mode, initial_db, final_db)."
                )
        with self._lock:
            if self.closed:
                raise VerifierError(
                    "VerifierPool.run: the pool is closed; create a new VerifierPool."
                )
            if os.getpid() != self._owner_pid:
                raise VerifierError(
                    f"VerifierPool.run: this pool belongs to process {self._owner_pid}, not to "
                    f"this forked child {os.getpid()}; create a new VerifierPool in the child."
                )
            if not jobs:
                return []
            return self._run_batch(jobs)

    # -- batch loop ------------------------------------------------------------------------------

    def _run_batch(self, jobs: list[VerifyJob]) -> list[VerifierResult]:
        results: list[VerifierResult | None] = [None] * len(jobs)
        pending = deque(range(len(jobs)))
        slots = self._slots
        try:
            while True:
                for i in range(len(slots)):
                    if pending and slots[i] is None:
                        slots[i] = self._start_worker()
                    w = slots[i]
                    if pending and w is not None and w.is_ready and w.job is None:
                        index = pending.popleft()
                        if not self._dispatch(w, index, jobs):  # died idle: not the job's fault
                            pending.appendleft(index)
                            self._retire(i)
                watched = [w for w in slots if w is not None and (w.job is not None or
                                                                  (pending and not w.is_ready))]
                if not watched:
                    if pending:
                        continue
                    break
                timeout = max(0.0, min(w.deadline for w in watched) - time.monotonic())
                ready = set(wait([w.conn for w in watched] + [w.process.sentinel for w in watched],
                                 timeout))
                for w in watched:
                    self._handle(w, ready, jobs, results)
        finally:
            for i, w in enumerate(slots):
                if w is not None and w.job is not None:  # interrupted: its reply would be stale
                    self._retire(i)
        assert all(r is not None for r in results)
        return results  # type: ignore[return-value]  # every slot filled, checked above

    def _handle(self, w: _Worker, ready: set[Any], jobs: list[VerifyJob],
                results: list[VerifierResult | None]) -> None:
        """React to one watched worker: a message, a death, or a passed deadline."""
        if w.conn in ready or (w.process.sentinel in ready and w.conn.poll(0)):
            try:
                reply = _checked_reply(w.conn.recv_bytes(_MAX_REPLY_BYTES))
            except (EOFError, OSError, ValueError):  # gone, or a reply of the wrong shape
                reply = None
            if reply is None:
                self._on_death(w, results)
            elif reply[0] == "ready":
                w.is_ready = True
            elif reply[0] == "need_initial":  # caches disagreed: resend with the bytes
                if not self._dispatch(w, w.job, jobs, send_initial=True):
                    self._on_death(w, results)
            else:
                _, label, kind, error, output, elapsed_s = reply
                results[w.job] = VerifierResult(VerifierLabel(label), kind, error, output,
                                                elapsed_s)
                w.job = None
                if kind == "crash":  # the worker says it cannot go on (a verifier left work
                    # running, or its directory cannot take the databases): a new one next
                    self._retire(self._slots.index(w))
        elif w.process.sentinel in ready:
            self._on_death(w, results)
        elif time.monotonic() >= w.deadline:
            if w.job is None:
                self._retire(self._slots.index(w))
                raise VerifierError(
                    f"a verifier worker did not start within {_START_TIMEOUT_S:g} s; the machine "
                    "may be out of memory or processes. Check `ulimit -u` and free memory."
                )
            results[w.job] = VerifierResult(
                VerifierLabel.VERIFIER_ERROR, "timeout",
                f"the verifier ran past timeout_s={self._timeout_s:g}; its worker was killed", None,
                time.monotonic() - w.sent_at,
            )
            self._retire(self._slots.index(w))

    def _on_death(self, w: _Worker, results: list[VerifierResult | None]) -> None:
        index = self._slots.index(w)
        _kill_process_group(w.process)  # before the worker is reaped: what it started goes too
        if w.job is None:  # died before it was ready: the pool cannot work
            detail = _exit_description(w.process)
            self._retire(index)
            raise VerifierError(
                f"a verifier worker died while starting ({detail}). It imports only the standard "
                "library and your __main__ module: check that __main__ imports cleanly in a fresh "
                "process (guard scripts with `if __name__ == '__main__':`) and that memory is free."
            )
        elapsed_s = time.monotonic() - w.sent_at
        results[w.job] = VerifierResult(
            VerifierLabel.VERIFIER_ERROR, "crash",
            f"{_exit_description(w.process)} during the verifier call", None, elapsed_s,
        )
        self._retire(index)

    def _dispatch(self, w: _Worker, index: int, jobs: list[VerifyJob], *,
                  send_initial: bool = False) -> bool:
        """Send ``jobs[index]`` to ``w``; False if the worker is gone."""
        job = jobs[index]
        initial: bytes | None = job.initial_db
        if job.initial_key and not send_initial:
            if w.initial_keys.lookup(job.initial_key) is not None:
                initial = None
            else:
                w.initial_keys.admit(job.initial_key, len(job.initial_db))
        w.job = index
        w.sent_at = time.monotonic()
        w.deadline = w.sent_at + self._timeout_s
        try:
            # plain str: the worker loads only the standard library, not awm_gym.vocab
            w.conn.send((job.code, job.function_name, job.mode.value, initial, job.initial_key,
                         job.final_db, job.final_answer))
        except (OSError, ValueError):
            return False
        return True

    def _start_worker(self) -> _Worker:
        if self._spawner is not None:  # the process may no longer start processes itself
            with reraise_as(VerifierError, lambda e: f"could not start a verifier worker ({e})"):
                process, conn, workdir, lock_fd = self._spawner.start_worker()
        else:
            process, conn, workdir, lock_fd = self._launcher.start_worker()
        return _Worker(process, conn, workdir, lock_fd,
                       deadline=time.monotonic() + _START_TIMEOUT_S)

    def _retire(self, index: int) -> None:
        """Kill the worker in ``slots[index]`` and free the slot (a new one starts when needed)."""
        w = self._slots[index]
        self._slots[index] = None
        if w is not None:
            _stop_workers([w], self._owner_pid)

