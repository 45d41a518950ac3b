"""Nothing of a call runs after it answers: what a contained shard worker checks after each action.

World code may try to keep running once its action has answered: threads (refused by seccomp in
a contained worker, :mod:`awm_gym.containment`, where the kernel has it), interval timers, POSIX
timers and signal handlers (which would run world code while the worker waits for its next
request). :class:`LeftoverWork` notes the process's state once containment is applied and
:meth:`LeftoverWork.found` names what an action left behind; the worker then ends itself before
it answers, so the caller restarts it and replays its episodes without that action (as for a
worker that died in it: :mod:`awm_gym.envs.shards`), and the action reads that it ended its
worker. :meth:`LeftoverWork.idle` and :meth:`LeftoverWork.busy` hold the worker to
:data:`IDLE_CPU_S` CPU-seconds between an answer and the next request (``RLIMIT_CPU``: past it the
kernel ends the worker with ``SIGXCPU``), a backstop for work none of the checks sees.

Example:
    >>> fence = LeftoverWork()
    >>> fence.found() is None
    True
"""

from __future__ import annotations

import resource
import signal

from awm_gym import kernel_sandbox

__all__ = ["IDLE_CPU_S", "LeftoverWork"]

IDLE_CPU_S = 2
"""CPU-seconds a worker may use between answering and its next request (reading it)."""
_TIMERS = (signal.ITIMER_REAL, signal.ITIMER_VIRTUAL, signal.ITIMER_PROF)
_SIGNALS = sorted(set(signal.valid_signals()) - {signal.SIGKILL, signal.SIGSTOP})


def _handlers() -> dict[int, object]:
    return {s: signal.getsignal(s) for s in _SIGNALS}


def _posix_timers() -> bool:
    try:
        with open("/proc/self/timers", "rb") as f:
            return bool(f.read(1))
    except OSError:  # a kernel without it: the CPU limit is the backstop
        return False


class LeftoverWork:
    """The state of this process when it is idle (built after containment): its thread count
    and signal handlers, no interval timer armed."""

    def __init__(self) -> None:
        self.threads = kernel_sandbox.thread_count()
        self.handlers = _handlers()
        _, self.cpu_hard = resource.getrlimit(resource.RLIMIT_CPU)

    def begin(self) -> None:
        """An action starts: threads counted now (the worker's own, such as the LLM judge's
        client, may have started between actions) are not its."""
        self.threads = kernel_sandbox.thread_count()

    def found(self) -> str | None:
        """What the action since :meth:`begin` left running (None: nothing): threads, timers,
        signal handlers."""
        threads = kernel_sandbox.thread_count()
        if threads > self.threads:
            return f"{threads - self.threads} thread(s) still running"
        if any(signal.getitimer(t) != (0.0, 0.0) for t in _TIMERS) or _posix_timers():
            return "a timer still armed"
        changed = [s for s, h in _handlers().items() if h is not self.handlers[s]]
        if changed:
            return f"a handler for signal {changed[0]} installed"
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
