"""Start one verifier worker process: its private directory, its pipe, the process itself.

A :class:`WorkerLauncher` is how verifier workers come to exist, in two places:

* a :class:`~awm_gym.scoring.verifier_pool.VerifierPool` starts its workers with its own
  launcher (while its process may still start processes);
* a pool's :class:`~awm_gym.scoring.verifier_spawner.Spawner` helper, started before
  containment, starts the replacements with a launcher made from the same arguments
  (:attr:`WorkerLauncher.args`) in the helper's process.

So the pool and the spawner both import this module, and it imports neither. A worker runs
:mod:`awm_gym.scoring.verifier_worker` with ``runpy.run_path`` (standard library only), from the
``forkserver`` context on Linux (``spawn`` elsewhere), with ``__main__`` hidden so the child
never re-imports the caller's script. Each worker gets a directory of its own under the state
root, held by an exclusive ``flock`` while it lives: a directory nobody holds was left by a pool
that was SIGKILLed, and the first start of a launcher sweeps those away.

Example:
    >>> launcher = WorkerLauncher(default_state_root(), memory_limit_mb=None,
    ...                           recursion_limit=1000, containment_path=None)
    >>> sorted(launcher.args)
    ['containment_path', 'memory_limit_mb', 'recursion_limit', 'state_root']
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import runpy
import shutil
import sys
import tempfile
from collections.abc import Iterator
from multiprocessing.connection import Connection
from typing import Any

try:
    import fcntl
except ImportError:  # not POSIX: no stale-directory sweep
    fcntl = None  # type: ignore[assignment]

from awm_gym.boundary import closing_on_error, describe, reraise_as
from awm_gym.errors import VerifierError
from awm_gym.scoring import verifier_worker
from awm_gym.scoring.verifier_worker import WORKER_RUN_NAME

__all__ = ["WorkerLauncher", "default_state_root", "main_module_hidden"]

_DIR_PREFIX = "awm-verify-"


def default_state_root() -> str:
    """Where workers write their databases by default: ``/dev/shm`` when writable, else the
    temp directory."""
    shm = "/dev/shm"
    if os.path.isdir(shm) and os.access(shm, os.W_OK | os.X_OK):
        return shm
    return tempfile.gettempdir()


class WorkerLauncher:
    """Starts verifier worker processes, each in a directory of its own under ``state_root``.

    Args:
        state_root: where each worker's private directory is made.
        memory_limit_mb: address space a worker may grow by beyond its start-up size (None: no
            limit).
        recursion_limit: ``sys.setrecursionlimit`` inside workers.
        containment_path: the file of :mod:`awm_gym.containment` a worker applies before it runs
            verifier code; None for none.
    """

    def __init__(self, state_root: str, memory_limit_mb: int | None, recursion_limit: int,
                 containment_path: str | None) -> None:
        self.state_root = state_root
        self.memory_limit_mb = memory_limit_mb
        self.recursion_limit = recursion_limit
        self.containment_path = containment_path
        method = "forkserver" if sys.platform.startswith("linux") else "spawn"
        self.context = multiprocessing.get_context(method)
        """The multiprocessing context workers start from."""
        if method == "forkserver":
            self.context.set_forkserver_preload([])  # never import the caller's __main__ there
        self._has_swept = False

    def __repr__(self) -> str:
        return (f"WorkerLauncher(state_root={self.state_root!r}, "
                f"start_method={self.context.get_start_method()!r})")

    @property
    def args(self) -> dict[str, Any]:
        """The keyword arguments that make the same launcher in another process (plain values:
        the spawner's helper gets them before it may import anything of ``awm_gym``)."""
        return {"state_root": self.state_root, "memory_limit_mb": self.memory_limit_mb,
                "recursion_limit": self.recursion_limit,
                "containment_path": self.containment_path}

    def start_worker(self) -> tuple[Any, Connection, str, int | None]:
        """Start one worker: ``(process, connection, directory, directory lock fd)``.

        Raises:
            VerifierError: no directory could be claimed, or the process did not start.
        """
        if not self._has_swept:
            _sweep_stale_dirs(self.state_root)
            self._has_swept = True
        workdir, lock_fd = _claim_dir(self.state_root)
        parent_conn, child_conn = self.context.Pipe(duplex=True)
        args = {"conn": child_conn, "workdir": workdir, "memory_limit_mb": self.memory_limit_mb,
                "recursion_limit": self.recursion_limit,
                "containment_path": self.containment_path}
        process = self.context.Process(
            target=runpy.run_path, args=(verifier_worker.__file__,), daemon=True,
            name="awm-verify-worker",
            kwargs={"init_globals": {"_WORKER_ARGS": args}, "run_name": WORKER_RUN_NAME},
        )

        def discard() -> None:
            parent_conn.close()
            shutil.rmtree(workdir, ignore_errors=True)
            if lock_fd is not None:
                os.close(lock_fd)

        try:
            with closing_on_error(discard), reraise_as(VerifierError, lambda e: (
                    f"could not start a verifier worker ({describe(e)}); check free memory "
                    "and the process limit (`ulimit -u`).")), main_module_hidden():
                process.start()
        finally:
            child_conn.close()  # the worker holds its own copy; ours would hide its death
        return process, parent_conn, workdir, lock_fd


def _claim_dir(root: str) -> tuple[str, int | None]:
    """Create a worker directory and hold an exclusive ``flock`` on it; return (path, lock fd).

    The lock is how :func:`_sweep_stale_dirs` tells a live pool's directory from one left by a
    pool whose process was SIGKILLed before its finaliser could run.
    """
    for _ in range(3):
        path = tempfile.mkdtemp(prefix=_DIR_PREFIX, dir=root)
        if fcntl is None:
            return path, None
        fd = os.open(path, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if os.path.isdir(path):  # not swept between mkdtemp and flock
                return path, fd
        except BlockingIOError:
            pass
        os.close(fd)
    raise VerifierError(f"could not claim a worker directory under {root!r}; pass another "
                        "state_dir to VerifierPool.")


def _sweep_stale_dirs(root: str) -> None:
    """Remove worker directories that no live pool holds (left behind by a killed process)."""
    if fcntl is None:
        return
    try:
        names = [n for n in os.listdir(root) if n.startswith(_DIR_PREFIX)]
    except OSError:
        return
    for name in names:
        path = os.path.join(root, name)
        try:
            fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            pass  # held: a live pool's
        else:
            shutil.rmtree(path, ignore_errors=True)
        finally:
            os.close(fd)


@contextlib.contextmanager
def main_module_hidden() -> Iterator[None]:
    """Hide ``__main__``'s file and spec while a process starts, so multiprocessing does not
    make the child re-import the caller's script (the target is ``runpy.run_path`` of a file of
    ours: a verifier worker's, or the spawner helper's)."""
    main = sys.modules.get("__main__")
    saved = {k: main.__dict__[k] for k in ("__file__", "__spec__") if main is not None
             and k in main.__dict__}
    try:
        for key in saved:
            if key == "__spec__":
                main.__dict__[key] = None
            else:
                del main.__dict__[key]
        yield
    finally:
        if main is not None:
            main.__dict__.update(saved)
