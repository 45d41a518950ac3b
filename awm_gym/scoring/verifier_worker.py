"""The worker half of the verifier pool: runs verifier code in its own process, stdlib only.

:class:`~awm_gym.scoring.verifier_pool.VerifierPool` starts each worker with
``runpy.run_path`` of this file (never an import of ``awm_gym``), so a worker loads only the
standard library. A worker loads a verifier's source once (AWM's globals ``{sqlite3, json, os, re,
__builtins__}``, cached by the source's sha256), writes each job's databases as read-only files
in its private directory, calls the entry point the way AWM does, and sends back a plain dict per
job. Everything it catches becomes data: an exception, a bad return value or a syntax error is a
``verifier_error`` result with its ``error_kind``.
"""

from __future__ import annotations

import builtins
import hashlib
import inspect
import json
import os
import re
import shutil
import signal
import sqlite3
import sys
import time
import traceback
import warnings
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

try:
    import fcntl
except ImportError:  # not POSIX: no stale-directory sweep
    fcntl = None  # type: ignore[assignment]

WORKER_RUN_NAME = "__awm_verify_worker__"
# The worker loads only the standard library, so it speaks awm_gym.vocab's words as the plain
# strings they stand for (VerifierMode, VerifierLabel); the pool turns its replies into members.
_MODES: tuple[str, ...] = ("code", "sql")
_CODE_LABELS = frozenset({"complete", "others"})  # the only labels a code verifier may return
_FUNCTION_CACHE_SIZE = 4096  # compiled verifiers per worker
_INITIAL_CACHE_ENTRIES = 32  # initial-state files a worker keeps per initial_key ...
_INITIAL_CACHE_BYTES = 256 * 2**20  # ... and their total size (they live in RAM on /dev/shm)
_START_TIMEOUT_S = 60.0  # a worker that is not ready by then means the pool is broken
_MAX_ERROR_CHARS = 2000
_FILE_SIZE_MB = 1024  # largest file a contained verifier may write (RLIMIT_FSIZE)
_SCRATCH_FS_MB = 1024  # its work directory's tmpfs: the cached initial files, a job's two
# files and what the verifier writes (swept after each job)
_PATH_ARGS = ("initial_db_path", "final_db_path")

class KeyLRU:
    """Initial-state keys a worker holds as files, bounded by count and bytes.

    The pool keeps an identical mirror per worker (same class, same call sequence) to know which
    keys it need not resend; if they ever disagree the worker asks for the bytes again.
    """

    __slots__ = ("_entries", "_total")

    def __init__(self) -> None:
        self._entries: OrderedDict[str, tuple[int, str]] = OrderedDict()  # key -> (size, path)
        self._total = 0

    def lookup(self, key: str) -> str | None:
        entry = self._entries.get(key)
        if entry is None:
            return None
        self._entries.move_to_end(key)
        return entry[1]

    def paths(self) -> set[str]:
        return {path for _, path in self._entries.values()}

    def admit(self, key: str, size: int, path: str = "") -> list[str] | None:
        """Add ``key``; return the evicted paths, or ``None`` when it is too big to keep."""
        if size > _INITIAL_CACHE_BYTES // 4:
            return None
        evicted = []
        old = self._entries.pop(key, None)
        if old is not None:
            self._total -= old[0]
            evicted.append(old[1])
        self._entries[key] = (size, path)
        self._total += size
        while len(self._entries) > _INITIAL_CACHE_ENTRIES or self._total > _INITIAL_CACHE_BYTES:
            _, (old_size, old_path) = self._entries.popitem(last=False)
            self._total -= old_size
            evicted.append(old_path)
        return evicted


@dataclass(frozen=True, slots=True)
class _Loaded:
    """A compiled verifier: the function and how to call it per mode, or why it cannot load."""

    fn: Callable[..., Any] | None
    error: str | None
    plans: dict[str, tuple[tuple[str, ...], tuple[str, ...]]]  # mode -> (positional, keyword)


def _plan_call(fn: Callable[..., Any], mode: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Which arguments go positionally and which by keyword, AWM style (see module docstring)."""
    wanted = _PATH_ARGS + (("final_answer",) if mode == "code" else ())
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):  # no signature to read: positional, as AWM's fallback
        return wanted[:2], ()
    kinds = inspect.Parameter
    by_name = (kinds.POSITIONAL_OR_KEYWORD, kinds.KEYWORD_ONLY)
    keywordable = {p.name for p in params if p.kind in by_name}
    has_var_kw = any(p.kind is kinds.VAR_KEYWORD for p in params)
    if set(_PATH_ARGS) <= keywordable:
        extra = tuple(n for n in wanted[2:] if n in keywordable or has_var_kw)
        return (), _PATH_ARGS + extra
    if any(p.kind is kinds.VAR_POSITIONAL for p in params):
        return wanted, ()
    by_position = (kinds.POSITIONAL_ONLY, kinds.POSITIONAL_OR_KEYWORD)
    n_positional = sum(p.kind in by_position for p in params)
    positional = wanted[: max(2, n_positional)]
    keyword = tuple(n for n in wanted[len(positional):] if n in keywordable)
    return positional, keyword


def _load(code: str, function_name: str) -> _Loaded:
    """Exec ``code`` once with AWM's globals and pick out ``function_name``."""
    namespace: dict[str, Any] = {"sqlite3": sqlite3, "json": json, "os": os, "re": re,
                                 "__builtins__": builtins}
    # not awm_gym.boundary.capture: this worker runs on the standard library alone
    try:
        exec(compile(code, "<verifier>", "exec"), namespace)
    except BaseException as e:  # noqa: BLE001 - the verifier's load-time fault is data
        return _Loaded(None, f"source does not load: {_describe_exception(e, code)}", {})
    fn = namespace.get(function_name)
    if not callable(fn):
        defined = sorted(n for n, v in namespace.items() if callable(v) and n.startswith("verify"))
        return _Loaded(None, f"no function {function_name!r} in the source; it defines "
                             f"{defined or 'no verify* function'}", {})
    return _Loaded(fn, None, {mode: _plan_call(fn, mode) for mode in _MODES})


def _describe_exception(exc: BaseException, code: str) -> str:
    """``Type: message (line N in fn: `source`)`` for the deepest frame in the verifier."""
    try:
        text = f"{type(exc).__name__}: {exc}"
    except Exception:  # noqa: BLE001 - a broken __str__ (boundary.describe, stdlib-only here)
        text = type(exc).__name__
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if f.filename == "<verifier>"]
    if isinstance(exc, SyntaxError) and exc.filename == "<verifier>":
        text = f"SyntaxError: {exc.msg} (line {exc.lineno})"
    elif ours or frames:
        frame = (ours or frames)[-1]
        where = f"line {frame.lineno} in {frame.name}"
        if frame.filename == "<verifier>" and frame.lineno:
            lines = code.splitlines()
            if 0 < frame.lineno <= len(lines):
                where += f": `{lines[frame.lineno - 1].strip()}`"
        text += f" ({where})"
    return text if len(text) <= _MAX_ERROR_CHARS else text[: _MAX_ERROR_CHARS - 3] + "..."


def _json_safe(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def _classify(mode: str, value: Any) -> tuple[str, str | None, str | None, Any]:
    """Turn a verifier's return value into (label, error_kind, error, output)."""
    try:
        output = _json_safe(value)
    except (TypeError, ValueError, RecursionError) as e:
        return "verifier_error", "bad_output", f"return value is not JSON-serialisable: {e}", None
    if mode == "sql":
        return "awaiting_judge", None, None, output
    verdict = value.get("result") if isinstance(value, dict) else None
    if isinstance(verdict, str) and verdict in _CODE_LABELS:
        return verdict, None, None, output
    shown = repr(value)
    shown = shown if len(shown) <= 200 else shown[:197] + "..."
    return ("verifier_error", "bad_output",
            f"expected a dict with 'result' in {sorted(_CODE_LABELS)}, got {shown}", output)


class _WorkerState:
    """A worker's caches and its private directory."""

    def __init__(self, workdir: str) -> None:
        self.workdir = workdir
        self.functions: OrderedDict[tuple[bytes, str], _Loaded] = OrderedDict()
        self.initial = KeyLRU()
        self.seq = 0
        self.job_paths: frozenset[str] = frozenset()  # the running job's database files

    def function(self, code: str, function_name: str) -> _Loaded:
        key = (hashlib.sha256(code.encode("utf-8", "surrogatepass")).digest(), function_name)
        loaded = self.functions.get(key)
        if loaded is None:
            loaded = self.functions[key] = _load(code, function_name)
            if len(self.functions) > _FUNCTION_CACHE_SIZE:
                self.functions.popitem(last=False)
        else:
            self.functions.move_to_end(key)
        return loaded

    def write(self, name: str, data: bytes) -> str:
        """Write a read-only database file (mode set at creation: never a writable window)."""
        path = os.path.join(self.workdir, name)
        if data[18:20] == b"\x02\x02":  # WAL header: readers would need -shm/-wal beside it
            data = data[:18] + b"\x01\x01" + data[20:]
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o444)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
        return path

    def initial_path(self, key: str, data: bytes | None) -> str | None:
        """Path of the job's initial file; ``None`` if the pool sent no bytes for an unknown key.

        A file this does not cache is the job's alone, and :meth:`sweep` deletes it after.
        """
        if data is None:  # the pool believes this worker holds `key`
            return self.initial.lookup(key)
        if key:
            cached = self.initial.lookup(key)
            if cached is not None:
                return cached
            path = self.write(f"k{self.seq}.db", data)
            for old in self.initial.admit(key, len(data), path) or ():
                if old != path:
                    _unlink(old)
            return path
        return self.write(f"i{self.seq}.db", data)

    def sweep(self) -> None:
        """Remove whatever the job left in the directory (journals, files a verifier made)."""
        keep = self.initial.paths()
        with os.scandir(self.workdir) as entries:
            for entry in entries:
                if entry.path not in keep:
                    if entry.is_dir(follow_symlinks=False):
                        shutil.rmtree(entry.path, ignore_errors=True)
                    else:
                        _unlink(entry.path)

    def execute(self, message: tuple[Any, ...]) -> tuple[Any, ...]:
        """Run one job; reply ``("done", label, error_kind, error, output, elapsed_s)``."""
        code, function_name, mode, initial, key, final, final_answer = message
        start = time.perf_counter()
        self.seq += 1
        try:
            initial_path = self.initial_path(key, initial)
            if initial_path is None:
                return ("need_initial",)
            final_path = self.write(f"f{self.seq}.db", final)
            self.job_paths = frozenset((initial_path, final_path))
        except OSError as e:
            self.sweep()
            return ("done", "verifier_error", "crash",
                    f"the worker could not write the database files: {e}", None,
                    time.perf_counter() - start)
        try:
            loaded = self.function(code, function_name)
            if loaded.fn is None:
                outcome = ("verifier_error", "compile", loaded.error, None)
            else:
                values = {"initial_db_path": initial_path, "final_db_path": final_path,
                          "final_answer": final_answer}
                positional, keyword = loaded.plans[mode]
                try:
                    value = loaded.fn(*[values[n] for n in positional],
                                      **{n: values[n] for n in keyword})
                except BaseException as e:  # noqa: BLE001 - SystemExit too: a bad verifier is data
                    outcome = ("verifier_error", "exception", _describe_exception(e, code), None)
                else:
                    outcome = _classify(mode, value)
                    del value  # close sqlite handles the verifier returned before the sweep
        finally:
            self.job_paths = frozenset()
            self.sweep()
        return ("done", *outcome, time.perf_counter() - start)


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def _load_by_path(name: str, path: str) -> Any:
    """The module at ``path``, loaded as ``name`` (this worker never imports awm_gym)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while defining
    spec.loader.exec_module(module)
    return module


def _contain(workdir: str, containment_path: str | None) -> Any:
    """Apply :mod:`awm_gym.containment` (loaded by path: this worker never imports awm_gym):
    the verifier may read the Python installation and write its work directory, nothing else;
    no processes, no threads, no new socket of any family, no secrets in the environment. Its
    work directory and ``/dev/shm`` are tmpfs of :data:`_SCRATCH_FS_MB` in a user, mount and
    network namespace of its own, whatever the caller's isolation: it holds no capability
    outside them (a root caller's verifier cannot rename the host or lift a hard limit).

    Returns the worker's :class:`~awm_gym.envs.leftover_work.LeftoverWork` (None when not
    contained): what a verifier leaves running is checked after each verification."""
    if containment_path is None:
        return None
    module = _load_by_path("_awm_containment", containment_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the pool reports missing layers once, in the caller
        report = module.contain_this_process(module.ContainmentPolicy(
            scratch_dir=workdir, memory_mb=None, file_size_mb=_FILE_SIZE_MB,
            socket_families=(), blocks_threads=True,  # no socket, no thread after its pipe
            scratch_fs_mb=_SCRATCH_FS_MB))
    leftovers = _load_by_path("_awm_leftover_work", os.path.join(
        os.path.dirname(containment_path), "envs", "leftover_work.py"))
    # every handler: nothing resets one between verifications (a shard worker's tool timeout
    # puts SIGALRM's back after each call), so one could run in another world's verification
    return leftovers.LeftoverWork(
        counts_threads="threads" not in report.active.get("seccomp", ""),
        signals=[s for s in signal.valid_signals() if s not in (signal.SIGKILL, signal.SIGSTOP)])


def _harden_worker(workdir: str, memory_limit_mb: int | None, recursion_limit: int) -> None:
    """Limits and hygiene for a worker: runaway verifiers die instead of eating the machine."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the pool's to handle, not ours
    if hasattr(os, "setsid"):
        # Our own session and process group (pgid = our pid): a verifier's os.killpg(0, ...)
        # reaches only this worker and what it started, never the caller; the pool kills the
        # whole group on close, so children a verifier forked go with it.
        try:
            os.setsid()
        except OSError:  # already a group leader (not the case for a forked worker)
            pass
    sys.setrecursionlimit(recursion_limit)
    sys.stdout = open(os.devnull, "w")  # generated verifiers print; keep the trainer's console
    devnull = os.open(os.devnull, os.O_RDWR)  # and fds 0-2, which a verifier could write raw
    for fd in (0, 1, 2):  # (the caller's terminal or a shard worker's log): nowhere
        os.dup2(devnull, fd)
    os.close(devnull)
    os.chdir(workdir)  # files a verifier writes by relative path land here and are swept
    if sys.platform.startswith("linux"):
        _die_with_the_pool()
    if memory_limit_mb is not None:
        try:
            import resource

            with open("/proc/self/statm") as f:  # headroom over the start-up size (see pool docs)
                start_bytes = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        except (ImportError, OSError, ValueError):
            return
        limit = start_bytes + memory_limit_mb * 2**20
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        try:  # the hard limit too: a verifier may not raise it again
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        except (OSError, ValueError):  # a stricter limit is already in force: keep it
            pass


def _die_with_the_pool() -> None:
    """Make the kernel SIGKILL this worker once the pool's process is gone, even mid-verifier.

    The worker's parent is the forkserver, so ask for SIGKILL when it exits
    (``PR_SET_PDEATHSIG``). The forkserver exits when every holder of its "alive" pipe has gone,
    and each child it forks holds one; this worker starts no processes, so it closes its copy
    and leaves the pool's process as the one that keeps the forkserver up.
    """
    try:
        import ctypes

        if ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL) != 0:  # PR_SET_PDEATHSIG
            return
        from multiprocessing import forkserver

        server = forkserver._forkserver  # private, stable since 3.4; skipped if it ever changes
        if isinstance(server._forkserver_alive_fd, int):
            os.close(server._forkserver_alive_fd)
            server._forkserver_alive_fd = None
    except (OSError, AttributeError, ImportError):
        pass


def _open_databases_read_only(state: _WorkerState) -> None:
    """Make ``sqlite3.connect`` open the running job's files with ``mode=ro``.

    File mode 0o444 does not stop root (the usual user in training containers), so the worker
    also opens the job's databases read-only at the SQLite level: a write then fails with
    "attempt to write a readonly database" whoever runs it. This patches the worker's own
    ``sqlite3`` module, which is also what ``import sqlite3`` inside a verifier returns.
    """
    from urllib.parse import quote

    real_connect = sqlite3.connect

    def connect(database: Any, *args: Any, **kwargs: Any) -> sqlite3.Connection:
        if isinstance(database, (str, os.PathLike)) and not kwargs.get("uri") and len(args) < 7:
            path = os.path.abspath(os.fspath(database))
            if path in state.job_paths:
                database, kwargs["uri"] = f"file:{quote(path)}?mode=ro", True
        return real_connect(database, *args, **kwargs)

    sqlite3.connect = sqlite3.dbapi2.connect = connect  # type: ignore[assignment]


def _worker_main(conn: Connection, workdir: str, memory_limit_mb: int | None,
                 recursion_limit: int, containment_path: str | None = None) -> None:
    """Serve jobs until the pool closes the pipe."""
    _harden_worker(workdir, memory_limit_mb, recursion_limit)
    state = _WorkerState(workdir)
    _open_databases_read_only(state)
    leftovers = _contain(workdir, containment_path)
    _send(conn, ("ready", os.getpid()))
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        reply = state.execute(message)
        left = leftovers.found() if leftovers is not None and reply[0] == "done" else None
        if left is None:
            _send(conn, reply)
            continue
        # a timer, a signal handler or a thread would run in a later verification: this one
        # is a crash, and the pool replaces the worker (a "crash" reply retires it)
        signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())  # no handler from now
        _send(conn, ("done", "verifier_error", "crash", f"the verifier left work running "
                     f"after it answered ({left}); its worker was replaced", None, reply[-1]))
        os._exit(sys.modules["_awm_leftover_work"].EXIT_STATUS)


def _send(conn: Connection, reply: tuple[Any, ...]) -> None:
    """Replies travel as JSON (the pool checks them; it never unpickles what a worker, which
    runs verifier code, sends)."""
    conn.send_bytes(json.dumps(reply).encode("utf-8", "surrogatepass"))


# ---------------------------------------------------------------------------------------------
# Parent side.




if __name__ == WORKER_RUN_NAME:  # started by VerifierPool._start_worker through runpy.run_path
    _worker_main(**_WORKER_ARGS)  # type: ignore[name-defined]  # noqa: F821 - from init_globals

