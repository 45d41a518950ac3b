"""A worker process that may run world code: how it is started, and how it is ended.

:class:`WorkerProcess` starts ``python -I`` on a module (:func:`worker_command`: no
``PYTHONPATH``, user site or working directory on its import path) with two pipes of its own,
passed as descriptors 3+ (requests in, replies out; every other descriptor is closed),
``/dev/null`` as stdin, a log file in its scratch directory as stdout and stderr (so nothing
world code prints reaches a reader of the caller), its own session (a signal to its group
reaches only it), and, when contained, the scrubbed environment
(:func:`awm_gym.containment.scrubbed_environment`). The scratch directory
(``/tmp/awm-world-*``) and the worker's area in ``/dev/shm`` are created and removed by the
caller: :meth:`WorkerProcess.kill` removes them, also after the worker died. The shard workers
(:mod:`awm_gym.envs.shards`) and ``awm check``'s worker (:mod:`awm_gym.manager.check_worker`)
use it. A shard worker skips the package's ``__init__`` (``runs_package_init=False``): that is
the public face, which imports Gymnasium and NumPy and registers the built-in worlds, half of a
worker's imports (0.30 -> 0.14 s on a 2-core VM), and the worker uses none of it.

Example:
    >>> worker_command("awm_gym.envs.shard_worker", "3")[:2] == [sys.executable, "-I"]
    True
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
import tempfile
from typing import BinaryIO

from awm_gym import containment
from awm_gym.boundary import closing_on_error

logger = logging.getLogger(__name__)

__all__ = ["WorkerProcess", "open_worker_streams", "shared_memory_area", "worker_command"]


def worker_command(module: str, *args: str, runs_package_init: bool = True) -> list[str]:
    """``python -I`` running ``module`` as ``__main__`` with ``args``: only the interpreter's
    own paths and the directory this awm_gym was imported from (a checkout on ``PYTHONPATH``,
    an editable install) are on its import path. ``runs_package_init=False``: the ``awm_gym``
    package is entered without running its ``__init__`` (its submodules import as usual; the
    names only ``__init__`` defines, such as ``awm_gym.EnvConfig``, do not exist there)."""
    home = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    enter = ("import importlib.util; sys.modules['awm_gym'] = importlib.util.module_from_spec("
             "importlib.util.find_spec('awm_gym')); " if not runs_package_init else "")
    boot = (f"import sys; sys.path.insert(0, {home!r}); {enter}import runpy; "
            f"runpy.run_module({module!r}, run_name='__main__', alter_sys=True)")
    return [sys.executable, "-I", "-u", "-c", boot, *args]


def shared_memory_area() -> str:
    """A new private directory in ``/dev/shm`` (the temp directory where that is not
    writable): a worker's only writable place there (its verifier pool's database copies)."""
    shm = "/dev/shm"
    root = shm if os.path.isdir(shm) and os.access(shm, os.W_OK | os.X_OK) else None
    return tempfile.mkdtemp(prefix="awm-world-", dir=root)


class WorkerProcess:
    """A started worker: ``proc``, ``requests`` (write end), ``replies`` (read end, unbuffered),
    its ``scratch`` directory and its ``shm`` area (:func:`shared_memory_area`). The module's
    ``__main__`` gets ``request_fd reply_fd scratch shm`` as arguments; ``runs_package_init``
    as for :func:`worker_command`."""

    def __init__(self, module: str, *, contained: bool, runs_package_init: bool = True) -> None:
        self.scratch = tempfile.mkdtemp(prefix="awm-world-")
        self.shm = shared_memory_area()
        request_r, request_w = os.pipe()
        _widen_pipe(request_w)
        reply_r, reply_w = os.pipe()
        env = containment.scrubbed_environment(self.scratch) if contained else None

        def discard() -> None:
            for fd in (request_w, reply_r):
                os.close(fd)
            for path in (self.scratch, self.shm):
                shutil.rmtree(path, ignore_errors=True)

        try:
            with closing_on_error(discard), \
                    open(os.path.join(self.scratch, "worker.log"), "ab") as log:
                self.proc = subprocess.Popen(
                    worker_command(module, str(request_r), str(reply_w), self.scratch,
                                   self.shm, runs_package_init=runs_package_init),
                    stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=env,
                    pass_fds=(request_r, reply_w), start_new_session=True)
        finally:
            os.close(request_r)
            os.close(reply_w)
        self.requests: BinaryIO = os.fdopen(request_w, "wb", buffering=0)
        self.replies: BinaryIO = os.fdopen(reply_r, "rb", buffering=0)

    def __repr__(self) -> str:
        return f"WorkerProcess(pid={self.proc.pid}, scratch={self.scratch!r})"

    def kill(self) -> None:
        """SIGKILL the worker, close its pipes, remove its scratch and shm areas. Safe twice.
        A worker that had exited on its own with an error has its log's end logged first (text
        world code may have written: logged, never parsed)."""
        exited = self.proc.poll()
        if exited is None:
            self.proc.kill()
        self.proc.wait()
        if exited not in (None, 0) and os.path.isdir(self.scratch):
            logger.warning("worker %d exited with status %s; the end of its log:\n%s",
                           self.proc.pid, exited, self.log_tail())
        for stream in (self.requests, self.replies):
            try:
                stream.close()
            except OSError:
                pass
        for path in (self.scratch, self.shm):
            shutil.rmtree(path, ignore_errors=True)


    def log_tail(self, size: int = 4000) -> str:
        """The last ``size`` bytes of the worker's stdout/stderr log, as text."""
        try:
            with open(os.path.join(self.scratch, "worker.log"), "rb") as f:
                f.seek(0, os.SEEK_END)
                f.seek(max(0, f.tell() - size))
                return f.read().decode("utf-8", "replace")
        except OSError:
            return ""


_REQUEST_PIPE_BYTES = 2**20
"""The request pipe's buffer (Linux; 64 KiB by default): an init request naming 1,000 worlds and
their content hashes is ~100 KB, and a write that does not fit blocks the caller until the
worker, still importing, reads it, so the next worker would start only then."""


def _widen_pipe(fd: int) -> None:
    """Ask for a :data:`_REQUEST_PIPE_BYTES` buffer on pipe ``fd`` where the platform allows it
    (a refusal only costs the wait above)."""
    import fcntl

    size_op = getattr(fcntl, "F_SETPIPE_SZ", None)
    if size_op is not None:
        try:
            fcntl.fcntl(fd, size_op, _REQUEST_PIPE_BYTES)
        except OSError:
            pass


def open_worker_streams(request_fd: int, reply_fd: int) -> tuple[BinaryIO, BinaryIO]:
    """The worker side: its request and reply pipes, kept from any process it starts."""
    for fd in (request_fd, reply_fd):
        os.set_inheritable(fd, False)
    return os.fdopen(request_fd, "rb", buffering=0), os.fdopen(reply_fd, "wb", buffering=0)
