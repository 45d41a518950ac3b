"""Nothing of a call runs after it answers: what a contained shard worker checks after an action.

World code may try to keep running once its action has answered: threads (refused by seccomp in
a contained worker, :mod:`awm_gym.containment`, where the kernel has it), interval timers, POSIX
timers and handlers of the signals the kernel sends by itself (which would run world code while
the worker waits for its next request). :class:`LeftoverWork` notes the process's state once
containment is applied and :meth:`LeftoverWork.found` names what an action left behind; the
worker then ends itself before it answers, so the caller restarts it and replays its episodes
without that action (as for a worker that died in it: :mod:`awm_gym.envs.shards`), and the
action reads that it ended its worker. :meth:`LeftoverWork.idle` and :meth:`LeftoverWork.busy`
hold the worker to :data:`IDLE_CPU_S` CPU-seconds between an answer and the next request
(``RLIMIT_CPU``: past it the kernel ends the worker with ``SIGXCPU``), a backstop for work none
of the checks sees. Cost: ~12 us per action (CPU time, 2-core VM) where threads are refused.

``awm check``'s worker (:mod:`awm_gym.manager.check_worker`) checks after each world and reports
what it found as a finding of that world; a verifier worker
(:mod:`awm_gym.scoring.verifier_worker`, which loads this file by path) checks after each
verification, every signal's handler included, and is replaced when something is left.

Example:
    >>> fence = LeftoverWork(counts_threads=False)
    >>> _ = signal.setitimer(signal.ITIMER_VIRTUAL, 60)  # what a handler could leave
    >>> fence.found()
    'a timer still armed'
    >>> _ = signal.setitimer(signal.ITIMER_VIRTUAL, 0)
"""

from __future__ import annotations

import os
import resource
import signal
import sys
from collections.abc import Sequence

if __package__:
    from awm_gym import kernel_sandbox
else:  # loaded by path in the stdlib-only verifier worker (awm_gym.scoring.verifier_worker),
    kernel_sandbox = sys.modules["_awm_kernel_sandbox"]  # after awm_gym.containment loaded it

__all__ = ["EXIT_STATUS", "IDLE_CPU_S", "REASON", "LeftoverWork", "WorkLeftRunning"]

EXIT_STATUS = 70
"""The status a worker ends with when an action left work running (its caller reads it)."""
REASON = "left work running after it answered"
"""How the caller names that cause (``info["worker_error"]``, the action's observation)."""


class WorkLeftRunning(EOFError):
    """The caller's side: the worker ended itself with :data:`EXIT_STATUS` (an ``EOFError``,
    handled as a worker that died, but named for what the action did)."""

IDLE_CPU_S = 2
"""CPU-seconds a worker may use between answering and its next request (reading it)."""
_TIMERS = (signal.ITIMER_REAL, signal.ITIMER_VIRTUAL, signal.ITIMER_PROF)
# what the kernel sends a process without a timer of its own: a handler for one of these could
# run world code between calls (O_ASYNC on a descriptor, a closed pipe, RLIMIT_CPU, ...); a
# handler for any other signal needs a timer or a thread to fire, and those are checked
_SIGNALS = tuple(getattr(signal, name) for name in (
    "SIGIO", "SIGURG", "SIGPIPE", "SIGCHLD", "SIGXCPU", "SIGXFSZ", "SIGWINCH", "SIGHUP")
    if hasattr(signal, name))
_PROC_TIMERS = "/proc/self/timers"


def _handlers(signals: tuple[int, ...]) -> tuple[object, ...]:
    return tuple(signal.getsignal(s) for s in signals)


class LeftoverWork:
    """The state of this process when it is idle (built after containment): its thread count
    and signal handlers, no timer armed.

    Args:
        counts_threads: count threads after each action (where the kernel did not refuse
            them: a worker with the LLM judge, a kernel without seccomp).
        signals: the signals whose handlers are compared (default: those the kernel sends
            unasked; a verifier worker, whose code nothing resets between calls, watches all).
    """

    def __init__(self, *, counts_threads: bool = True,
                 signals: Sequence[int] = _SIGNALS) -> None:
        self.counts_threads = counts_threads
        self.signals = tuple(signals)
        self.threads = kernel_sandbox.thread_count()
        self.handlers = _handlers(self.signals)
        _, self.cpu_hard = resource.getrlimit(resource.RLIMIT_CPU)
        self._timers_fd, self._timers_id = -1, (0, 0)
        try:  # kept open: a pread costs ~1 us where an open costs ~15
            self._timers_fd = os.open(_PROC_TIMERS, os.O_RDONLY | os.O_CLOEXEC)
            st = os.fstat(self._timers_fd)
            self._timers_id = (st.st_dev, st.st_ino)
        except OSError:  # a kernel without it: the CPU limit is the backstop
            pass

    def _posix_timers(self) -> bool:
        if self._timers_fd < 0:
            return False
        try:
            st = os.fstat(self._timers_fd)
            if (st.st_dev, st.st_ino) == self._timers_id:
                return bool(os.pread(self._timers_fd, 1, 0))
        except OSError:
            pass
        try:  # world code closed or replaced the descriptor: read it anew
            with open(_PROC_TIMERS, "rb") as f:
                return bool(f.read(1))
        except OSError:
            return True  # cannot tell: count it as left

    def begin(self) -> None:
        """An action starts: threads counted now (the worker's own, such as the LLM judge's
        client, may have started between actions) are not its."""
        if self.counts_threads:
            self.threads = kernel_sandbox.thread_count()

    def found(self) -> str | None:
        """What the action since :meth:`begin` left running (None: nothing): threads, timers,
        signal handlers."""
        if self.counts_threads:
            threads = kernel_sandbox.thread_count()
            if threads > self.threads:
                return f"{threads - self.threads} thread(s) still running"
        if any(signal.getitimer(t) != (0.0, 0.0) for t in _TIMERS) or self._posix_timers():
            return "a timer still armed"
        handlers = _handlers(self.signals)
        if handlers != self.handlers:
            changed = next(s for s, h, k in zip(self.signals, handlers, self.handlers,
                                                strict=True) if h is not k)
            return f"a handler for signal {changed} installed"
        return None

    def idle(self) -> None:
        """From now until :meth:`busy`, at most :data:`IDLE_CPU_S` more CPU-seconds."""
        used = resource.getrusage(resource.RUSAGE_SELF)
        limit = int(used.ru_utime + used.ru_stime) + IDLE_CPU_S
        if self.cpu_hard == resource.RLIM_INFINITY or limit < self.cpu_hard:
            resource.setrlimit(resource.RLIMIT_CPU, (limit, self.cpu_hard))

    def busy(self) -> None:
        """A request is being served: no CPU limit beyond the caller's deadlines."""
        resource.setrlimit(resource.RLIMIT_CPU, (self.cpu_hard, self.cpu_hard))
