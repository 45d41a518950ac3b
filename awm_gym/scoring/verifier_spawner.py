"""Start verifier workers for a pool whose own process may no longer open a socket.

A contained shard worker (:mod:`awm_gym.containment`) opens no socket and starts no process once
world code may run, yet its :class:`~awm_gym.scoring.verifier_pool.VerifierPool` must replace a
worker that a verifier hung or crashed. multiprocessing's forkserver wants a new unix connection
and a pickle per process, and anything that can reach it can have it run any code in a process
without the worker's syscall filter. So such a pool starts a :class:`Spawner` first, before
containment: a helper process (from the same forkserver, inside the worker's Landlock domain and
namespaces) holding one end of a socketpair made then. It reads one-byte requests and starts one
verifier worker each, always with the arguments it got at start (a
:class:`~awm_gym.scoring.verifier_launcher.WorkerLauncher` made like the pool's), so world code
that finds the socket can ask for a contained verifier worker and nothing else (at most
:data:`MAX_ALIVE` alive at once). The worker's pid and directory travel back as JSON, its pipe,
exit sentinel and directory lock as descriptors (``SCM_RIGHTS``).

The helper runs this file with ``runpy`` (as the verifier workers run theirs), so it does not
import the caller's ``__main__`` or ``awm_gym``'s package ``__init__``.
"""

from __future__ import annotations

import json
import multiprocessing.process
import os
import runpy
import signal
import socket
import sys
import weakref
from typing import Any

__all__ = ["MAX_ALIVE", "RemoteProcess", "Spawner"]

MAX_ALIVE = 16
"""Verifier workers one spawner keeps alive at most (a request past it is refused)."""
_RUN_NAME = "__awm_verifier_spawner__"


class RemoteProcess:
    """A verifier worker started by a :class:`Spawner`: the part of ``multiprocessing.Process``
    the pool uses (``pid``, ``sentinel``, ``exitcode``, ``join``, ``kill``). The forkserver
    reaps it and writes its exit status to ``sentinel``."""

    def __init__(self, pid: int, sentinel: int) -> None:
        self.pid, self.sentinel, self._code = pid, sentinel, None
        self._finalizer = weakref.finalize(self, os.close, sentinel)

    def __repr__(self) -> str:
        return f"RemoteProcess(pid={self.pid}, exitcode={self._code})"

    @property
    def exitcode(self) -> int | None:
        if self._code is None and self.join(0):
            pass
        return self._code

    def join(self, timeout: float | None = None) -> bool:
        """Wait up to ``timeout`` s for it to end; True once its exit status is known."""
        from multiprocessing.connection import wait
        from multiprocessing.forkserver import read_signed

        if self._code is None and self._finalizer.alive and wait([self.sentinel], timeout):
            try:
                status = read_signed(self.sentinel)
            except (EOFError, OSError):
                status = 255
            self._code = status if status < 256 else 255
        return self._code is not None

    def kill(self) -> None:
        if self.exitcode is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


class Spawner:
    """The caller's side: starts the helper (call it before containment) and asks it for
    workers.

    Args:
        context: the pool's ``forkserver`` multiprocessing context.
        launcher_args: the keyword arguments of the helper's own
            :class:`~awm_gym.scoring.verifier_launcher.WorkerLauncher`, which starts each worker
            (the pool's launcher's :attr:`~awm_gym.scoring.verifier_launcher.WorkerLauncher.args`).
    """

    def __init__(self, context: Any, launcher_args: dict[str, Any]) -> None:
        mine, theirs = socket.socketpair()
        home = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        self.process = context.Process(
            target=runpy.run_path, args=(__file__,), daemon=True, name="awm-verify-spawner",
            kwargs={"init_globals": {"_SPAWNER_ARGS": {"channel": theirs, "home": home,
                                                       "launcher_args": launcher_args}},
                    "run_name": _RUN_NAME})
        try:
            self.process.start()
        finally:
            theirs.close()
        self.channel = mine
        self._finalizer = weakref.finalize(self, _stop, mine, self.process)

    def start_worker(self) -> tuple[RemoteProcess, Any, str, int | None]:
        """A new worker: ``(process, connection, directory, directory lock fd)``; ``OSError``
        where the helper is gone or refuses."""
        from multiprocessing.connection import Connection

        self.channel.sendall(b"s")
        data, fds, _, _ = socket.recv_fds(self.channel, 4096, 3)
        if not data:
            raise OSError("the verifier spawner is gone")
        reply = json.loads(data)
        if "error" in reply or len(fds) != reply.get("fds"):
            for fd in fds:
                os.close(fd)
            raise OSError(f"the verifier spawner refused: {reply.get('error', 'bad reply')}")
        conn_fd, sentinel, *lock = fds
        return (RemoteProcess(int(reply["pid"]), sentinel), Connection(conn_fd),
                str(reply["workdir"]), lock[0] if lock else None)

    def close(self) -> None:
        self._finalizer()


def _stop(channel: socket.socket, process: Any) -> None:
    channel.close()  # the helper ends at EOF
    try:
        process.kill()
        process.join(5.0)
    except (OSError, ValueError, AttributeError, AssertionError):
        pass


def _serve(channel: socket.socket, home: str, launcher_args: dict[str, Any]) -> None:
    """The helper: one verifier worker per request byte, until EOF."""
    import importlib.util

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # started as a daemon (its caller's exit does not wait for it), yet it starts processes
    multiprocessing.process.current_process().daemon = False
    sys.path.insert(0, home)
    if "awm_gym" not in sys.modules:  # submodules only, as in a shard worker
        sys.modules["awm_gym"] = importlib.util.module_from_spec(
            importlib.util.find_spec("awm_gym"))
    # imported here, once the path and the package stand-in are set up
    from awm_gym.scoring.verifier_launcher import WorkerLauncher

    launcher = WorkerLauncher(**launcher_args)
    started: list[int] = []
    while True:
        try:
            request = channel.recv(1)
        except OSError:
            break
        if not request:
            break
        started = [pid for pid in started if os.path.exists(f"/proc/{pid}")]  # reaped by
        # the forkserver as they end
        if len(started) >= MAX_ALIVE:
            channel.sendall(json.dumps({"error": f"{MAX_ALIVE} workers alive"}).encode())
            continue
        try:
            process, conn, workdir, lock_fd = launcher.start_worker()
        except Exception as e:  # noqa: BLE001 - reported to the caller, which raises
            channel.sendall(json.dumps({"error": str(e)[:500]}).encode())
            continue
        fds = [conn.fileno(), os.dup(process.sentinel)]
        if lock_fd is not None:
            fds.append(lock_fd)
        socket.send_fds(channel, [json.dumps({"pid": process.pid, "workdir": workdir,
                                              "fds": len(fds)}).encode()], fds)
        started.append(process.pid)
        for fd in fds[1:]:
            os.close(fd)
        conn.close()
        # never polled here: its exit status is the caller's to read from the sentinel
        multiprocessing.process._children.discard(process)  # noqa: SLF001


if __name__ == _RUN_NAME:
    _serve(**globals()["_SPAWNER_ARGS"])
