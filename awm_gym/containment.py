"""Contain untrusted code in the process that runs it: limits, environment, files, network, processes.

A world's tool handlers and verifiers are code written by an LLM (or whoever published the set).
Where they run in a worker process (the shard workers of a contained vector env, the verifier
workers), that process calls :func:`contain_this_process` once, after it has loaded what it needs
and before it runs untrusted code. Each layer comes from the platform; a layer the kernel or the
installation lacks is reported (and warned about once), never faked:

================  ===========================================================================
layer             what it stops
================  ===========================================================================
rlimits           ``RLIMIT_AS`` (memory: an allocation past it is a ``MemoryError``),
                  ``RLIMIT_CPU`` (optional), ``RLIMIT_FSIZE`` (a file past the scratch quota:
                  ``EFBIG``), ``RLIMIT_CORE`` 0; each with hard = soft, so contained code may
                  lower a limit but never raise it
scratch_fs        (``scratch_fs_mb``) the process enters a user and mount namespace of its own
                  (and a network namespace, when it blocks the network) and its scratch
                  directory becomes a tmpfs of that size: a write past it fails with ``ENOSPC``
                  while it happens. ``/dev/shm`` becomes another tmpfs of that size with only
                  the process's own area in it (the host's is out of sight), and a log its
                  stdout/stderr wrote below the scratch directory moves onto the tmpfs. It
                  holds no capability outside its namespaces, a root caller's process neither
environment       every variable except a short allow-list is removed (API keys, tokens,
                  cloud credentials), and the start-up block ``/proc/self/environ`` shows is
                  wiped; ``HOME``/``TMPDIR`` point at the scratch directory. Workers are also
                  started with :func:`scrubbed_environment`.
Landlock          reads only below the Python installation, the awm_gym package, system
                  libraries and the paths the caller allows (never its working directory or
                  ``$HOME``); writes only below the scratch directory and allowed paths; from
                  ABI 6 on, no signals to any process and no connection to any abstract unix
                  socket outside the worker's domain
seccomp           ``execve`` (no ``subprocess``/``os.system``), ``fork``/``vfork``/``clone``
                  without ``CLONE_THREAD`` (with ``blocks_threads``: every ``clone``),
                  ``unshare``/``setns``/``mount`` (the new mount API too), non-local sockets
                  (``AF_INET``/``AF_INET6``/``AF_PACKET``; with ``socket_families``: every
                  family not listed) and ``pidfd_send_signal`` fail with ``EPERM``; without
                  Landlock signal scoping, ``kill``/``tkill``/``tgkill``/``rt_*sigqueueinfo``
                  to other processes too. Always: io_uring and AIO (work the filter would
                  never see), every keyring call, ``ptrace``/``process_vm_*``/``kcmp``/
                  ``pidfd_getfd``/``process_madvise``, ``sethostname``/``setdomainname``, and
                  ``prlimit64``/``sched_set*``/``setpriority``/``ioprio_set``/
                  ``migrate_pages``/``move_pages`` on any process but itself (the kernel asks
                  only for the same uid, and every contained process has its caller's)
audit hook        messages, not a boundary: turns the attempts above into clear
                  ``PermissionError`` messages before the kernel refuses them
================  ===========================================================================

Landlock and seccomp are called through ``ctypes`` (:mod:`awm_gym.kernel_sandbox`): a plain
``pip install awm-gym`` on Linux (x86_64, aarch64) has every layer the kernel offers.

The module imports only the standard library, so the stdlib-only verifier worker can load it
(and :mod:`awm_gym.kernel_sandbox` beside it) by path.

Example:
    >>> policy = ContainmentPolicy(scratch_dir="/tmp", memory_mb=None)
    >>> policy.memory_mb is None and policy.blocks_network
    True
"""

from __future__ import annotations

import errno
import importlib.util
import os
import sys
import sysconfig
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ContainmentPolicy", "ContainmentReport", "contain_this_process", "describe_layers",
           "scrubbed_environment", "warn_missing_layers"]

_ENV_ALLOW = ("PATH", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ", "PYTHONHASHSEED",
              "PYTHONIOENCODING", "PYTHONUTF8", "PYTHONPATH", "VIRTUAL_ENV")
_SYSTEM_READ = ("/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin", "/etc/ld.so.cache",
                "/etc/localtime", "/etc/ssl", "/etc/mime.types", "/proc/self", "/sys/devices/system/cpu")
_DEVICES_RW = ("/dev/null", "/dev/zero", "/dev/urandom", "/dev/random")  # not /dev/shm: a
# worker writes only its own area there (a write path of its policy)
_CLONE_THREAD = 0x00010000
_AF_UNIX, _AF_INET, _AF_INET6, _AF_PACKET = 1, 2, 10, 17
_FAMILY_NAMES = {_AF_UNIX: "unix", _AF_INET: "inet", _AF_INET6: "inet6"}
_WARNED: set[str] = set()
_ORIGINAL_HOME = os.environ.get("HOME", "")  # before any scrub: never part of a read set
try:
    _ORIGINAL_CWD = os.getcwd()
except OSError:  # a working directory removed under us
    _ORIGINAL_CWD = ""


def _load_kernel_sandbox() -> Any:
    """:mod:`awm_gym.kernel_sandbox`, loaded by path (this module may be loaded by path too)."""
    name = "_awm_kernel_sandbox"
    if name not in sys.modules:
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernel_sandbox.py")
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # dataclasses look their module up while defining
        spec.loader.exec_module(module)
    return sys.modules[name]


_kernel = _load_kernel_sandbox()


@dataclass(frozen=True)
class ContainmentPolicy:
    """What contained code may use.

    Attributes:
        scratch_dir: the only directory it may write (besides ``write_paths``); also its
            ``HOME`` and ``TMPDIR``.
        memory_mb: address-space limit of the process (None: no limit).
        cpu_s: CPU-seconds limit of the process (None: none; the caller's timeouts still apply).
        read_paths: extra paths it may read (a world set's directory, the template cache).
        write_paths: extra paths it may write (the template cache, a verifier's work directory).
        blocks_network: refuse non-local sockets.
        blocks_processes: refuse ``execve`` and ``fork``.
        file_size_mb: largest file it may write (``RLIMIT_FSIZE``; None: no limit).
        import_paths: directories it imports from besides the interpreter's (read-only).
        signals_helpers: it signals processes it starts after containment (a verifier pool);
            matters only where the kernel lacks Landlock signal scoping (see
            :func:`_signal_rules`).
        blocks_threads: refuse new threads (every ``clone``): nothing of a call can run on
            after it answered. Only for a process whose own code starts no thread later.
        socket_families: the only address families ``socket`` may create (``AF_UNIX`` is 1,
            ``AF_INET`` 2, ``AF_INET6`` 10); ``socketpair`` only with ``AF_UNIX`` among them
            or ``allows_socketpair``. None: only ``blocks_network``'s rule.
        allows_socketpair: with ``socket_families``, ``socketpair`` stays allowed (a connected
            pair reaches nothing else; asyncio's event loop makes one).
        scratch_fs_mb: make ``scratch_dir`` a tmpfs of this size in a user and mount namespace
            of the process's own (:func:`awm_gym.kernel_sandbox.mount_scratch`); None: the
            directory stays where it is. Where the kernel refuses, the layer is missing (and
            warned about), never faked.
    """

    scratch_dir: str
    memory_mb: int | None = 4096
    cpu_s: int | None = None
    read_paths: tuple[str, ...] = ()
    write_paths: tuple[str, ...] = ()
    blocks_network: bool = True
    blocks_processes: bool = True
    file_size_mb: int | None = None
    import_paths: tuple[str, ...] = ()
    signals_helpers: bool = False
    blocks_threads: bool = False
    socket_families: tuple[int, ...] | None = None
    allows_socketpair: bool = False
    scratch_fs_mb: int | None = None


@dataclass
class ContainmentReport:
    """Which layers are active in this process (``layer -> description``), and which are not."""

    active: dict[str, str] = field(default_factory=dict)
    missing: dict[str, str] = field(default_factory=dict)

    def summary(self) -> str:
        """One line, e.g. ``rlimits, env, landlock(abi 7), seccomp(signals); missing: none``."""
        on = ", ".join(f"{k}({v})" if v else k for k, v in self.active.items()) or "none"
        off = ", ".join(f"{k} ({v})" for k, v in self.missing.items()) or "none"
        return f"{on}; missing: {off}"

    def to_dict(self) -> dict[str, dict[str, str]]:
        return {"active": dict(self.active), "missing": dict(self.missing)}


def contain_this_process(policy: ContainmentPolicy,
                         start_helpers: Callable[[], None] | None = None) -> ContainmentReport:
    """Apply every available layer of ``policy`` to this process, for good (cannot be undone).

    Call it after the process has imported and opened what it needs (files opened before stay
    usable) and before it runs untrusted code. ``start_helpers`` runs after the file and signal
    layers and before the syscall filter: processes it starts (a verifier pool's forkserver)
    share this process's Landlock domain, so it may still signal them. Missing layers are
    warned about once per process.
    """
    report = ContainmentReport()
    os.makedirs(policy.scratch_dir, exist_ok=True)
    _limit_resources(policy, report)
    _scrub_environment(policy, report)
    _mount_scratch(policy, report)  # before Landlock: a Landlocked process may not mount
    _restrict_files(policy, report)
    if start_helpers is not None:
        start_helpers()
    _restrict_syscalls(policy, report)
    sys.addaudithook(_audit_hook(policy))
    report.active["audit_hook"] = "messages"
    for layer, why in report.missing.items():
        if layer not in _WARNED:
            _WARNED.add(layer)
            warnings.warn(f"awm_gym containment: {layer} is not active ({why}); untrusted world "
                          "code is less contained. See docs/runtime.md, 'Untrusted code'.",
                          RuntimeWarning, stacklevel=2)
    return report


def scrubbed_environment(scratch_dir: str, environ: Mapping[str, str] | None = None
                         ) -> dict[str, str]:
    """The environment a contained process starts with: the allow-list of ``environ``
    (default ``os.environ``), ``HOME`` and ``TMPDIR`` set to ``scratch_dir``.

    Example:
        >>> scrubbed_environment("/s", {"PATH": "/bin", "OPENAI_API_KEY": "sk-1"})
        {'PATH': '/bin', 'HOME': '/s', 'TMPDIR': '/s'}
    """
    source = os.environ if environ is None else environ
    kept = {k: v for k, v in source.items() if k in _ENV_ALLOW or k.startswith("LC_")}
    return {**kept, "HOME": scratch_dir, "TMPDIR": scratch_dir}


def warn_missing_layers(who: str, missing: Mapping[str, str] | None = None) -> None:
    """Warn once per process for each kernel layer ``who`` lacks: those in ``missing`` (a
    :class:`ContainmentReport`'s, from a worker), else those this machine cannot give."""
    if missing is None:
        missing = {layer: why for layer, (available, why) in (
            ("landlock", _landlock_status()), ("seccomp", _seccomp_status())) if not available}
    for layer, why in missing.items():
        if layer not in _WARNED:
            _WARNED.add(layer)
            warnings.warn(f"awm_gym containment: {layer} is not active for {who} ({why}); "
                          "untrusted code is less contained. See docs/runtime.md, "
                          "'Untrusted code'.", RuntimeWarning, stacklevel=3)


def describe_layers() -> dict[str, str]:
    """What this machine offers, without applying anything: ``{"landlock": "abi 7", ...}``."""
    return {"landlock": _landlock_status()[1], "seccomp": _seccomp_status()[1]}


def _within_hard_limit(kind: int, limit: int) -> int:
    """``limit`` capped by the process's hard limit for ``kind``."""
    import resource

    _, hard = resource.getrlimit(kind)
    return limit if hard == resource.RLIM_INFINITY else min(limit, hard)


def _limit_resources(policy: ContainmentPolicy, report: ContainmentReport) -> None:
    """Each limit is set with its hard limit equal to its soft one: contained code may lower a
    limit, never raise it again (raising a hard limit needs ``CAP_SYS_RESOURCE`` in the
    initial user namespace, which a process in a user namespace of its own lacks even when its
    caller is root). The only soft limit below its hard one is the one a shard worker moves
    between requests itself (``RLIMIT_CPU``, :mod:`awm_gym.envs.leftover_work`)."""
    import resource
    import signal

    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    parts = []
    for kind, name, value in ((resource.RLIMIT_AS, "as", policy.memory_mb),
                              (resource.RLIMIT_CPU, "cpu", policy.cpu_s),
                              (resource.RLIMIT_FSIZE, "fsize", policy.file_size_mb)):
        if value is None:
            continue
        if kind == resource.RLIMIT_FSIZE:  # a write past it fails with EFBIG (not SIGXFSZ)
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        unit = 1 if kind == resource.RLIMIT_CPU else 2**20
        limit = _within_hard_limit(kind, value * unit)
        resource.setrlimit(kind, (limit, limit))
        parts.append(f"{name}={limit // unit}" + ("s" if unit == 1 else "MB"))
    report.active["rlimits"] = " ".join(parts)


def _scrub_environment(policy: ContainmentPolicy, report: ContainmentReport) -> None:
    keep = scrubbed_environment(policy.scratch_dir)
    removed = [k for k in os.environ if k not in keep]
    for key in removed:
        del os.environ[key]
    wiped = _wipe_initial_environment()
    os.environ.update(keep)  # putenv again: libc's copies pointed into the wiped block
    report.active["env"] = f"{len(removed)} removed" + (", start block wiped" if wiped else "")


def _wipe_initial_environment() -> bool:
    """Zero the environment block the process was started with (what ``/proc/self/environ``
    shows): a process forked from one started with secrets (a forkserver) still holds them."""
    try:
        with open("/proc/self/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        start, end = int(fields[47]), int(fields[48])  # env_start, env_end (stat fields 50, 51)
        if 0 < start < end:
            import ctypes

            ctypes.memset(start, 0, end - start)
            return True
    except (OSError, ValueError, IndexError):
        pass
    return False


def _mount_scratch(policy: ContainmentPolicy, report: ContainmentReport) -> None:
    """The scratch directory and ``/dev/shm`` become tmpfs of ``scratch_fs_mb`` each in
    namespaces of the process's own; the policy's directories below ``/dev/shm`` (its own
    area there) are made anew on the new one. A log the process's stdout and stderr write
    below the scratch directory (a worker's ``worker.log``, opened by its caller) would be
    hidden under the tmpfs, yet still grow on the host's disk: they move to the same name on
    the tmpfs (what was written before stays in the caller's file)."""
    if policy.scratch_fs_mb is None:
        return
    shm = os.path.join(_kernel.SHM, "")
    shm_dirs = tuple(p for p in (policy.scratch_dir, *policy.write_paths)
                     if os.path.join(os.path.abspath(p), "").startswith(shm))
    logs = _logs_below(policy.scratch_dir)
    try:
        cwd = os.getcwd()
    except OSError:
        cwd = ""
    try:
        _kernel.mount_scratch(policy.scratch_dir, policy.scratch_fs_mb * 2**20,
                              own_network=policy.blocks_network, shm_dirs=shm_dirs)
    except (OSError, AttributeError) as e:  # AttributeError: no libc unshare (not Linux)
        report.missing["scratch_fs"] = (f"no namespace of its own ({e}); the scratch quota is "
                                        "measured after each action only, /dev/shm has none")
        return
    if cwd:  # a working directory below a new mount: the same path, on the mount
        try:
            os.chdir(cwd)
        except OSError:
            pass
    _move_logs(logs)
    report.active["scratch_fs"] = f"tmpfs {policy.scratch_fs_mb}MB" + (
        ", /dev/shm" if os.path.isdir(_kernel.SHM) else "") + (
        ", own netns" if policy.blocks_network else "")


def _logs_below(directory: str) -> dict[int, str]:
    """Which of descriptors 1 and 2 write a regular file below ``directory``: fd -> path."""
    import stat

    below, logs = os.path.join(os.path.realpath(directory), ""), {}
    for fd in (1, 2):
        try:
            path = os.readlink(f"/proc/self/fd/{fd}")
            if path.startswith(below) and stat.S_ISREG(os.fstat(fd).st_mode):
                logs[fd] = path
        except OSError:
            continue
    return logs


def _move_logs(logs: Mapping[int, str]) -> None:
    opened: dict[str, int] = {}
    for fd, path in logs.items():
        try:
            if path not in opened:
                opened[path] = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND
                                       | os.O_CLOEXEC, 0o600)
            os.dup2(opened[path], fd)  # dup2 leaves fd inheritable, as stdout/stderr are
        except OSError:
            continue
    for new in opened.values():
        os.close(new)


def _python_roots(policy: ContainmentPolicy) -> list[str]:
    """What contained code may read to run Python: the interpreter's prefixes and install
    paths, the awm_gym package, ``policy.import_paths``, and those ``sys.path`` entries that
    lie below them; never the caller's working directory or ``$HOME`` itself."""
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
             os.path.dirname(os.path.abspath(__file__)), *policy.import_paths}
    roots.update(p for p in sysconfig.get_paths().values() if p)
    under = tuple(os.path.join(os.path.realpath(r), "") for r in roots)
    roots.update(p for p in sys.path if p and os.path.isdir(p)
                 and os.path.join(os.path.realpath(p), "").startswith(under))
    refused = {os.path.realpath(p) for p in (_ORIGINAL_HOME, _ORIGINAL_CWD, "/") if p}
    return sorted(r for r in roots if os.path.realpath(r) not in refused)


def _landlock_status() -> tuple[bool, str]:
    abi = _kernel.landlock_abi()
    if abi < 1:
        return False, "the kernel offers no Landlock (Linux 5.13 or later, enabled in the LSM list)"
    return True, f"abi {abi}" + ("" if abi >= 6 else ", no signal scoping")


def _restrict_files(policy: ContainmentPolicy, report: ContainmentReport) -> None:
    available, status = _landlock_status()
    if not available:
        report.missing["landlock"] = status
        return
    read = [*_python_roots(policy), *_SYSTEM_READ, *policy.read_paths]
    write = [policy.scratch_dir, *_DEVICES_RW, *policy.write_paths]
    try:
        _kernel.restrict_files(read, write, scope_signals=True)
    except OSError as e:
        report.missing["landlock"] = f"the kernel refused the ruleset ({e})"
        return
    report.active["landlock"] = status


def _seccomp_status() -> tuple[bool, str]:
    if _kernel.seccomp_arch() is None:
        return False, f"no seccomp filter for this platform ({sys.platform} {os.uname().machine})"
    return True, "on"


def _ancestors() -> tuple[int, ...]:
    """This process's parent, its parent, ... up to (not including) pid 1."""
    out, pid = [], os.getppid()
    while pid > 1 and len(out) < 64:
        out.append(pid)
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                pid = int(f.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
    return tuple(out)


def _signal_rules(policy: ContainmentPolicy, scoped: bool) -> list[Any]:
    """No signals out: with Landlock's signal scoping the kernel already refuses them; without
    it, a worker that signals its own helpers (``signals_helpers``) may not signal its
    ancestors, any group or everyone (-1); any other may signal only itself."""
    k = _kernel
    me = os.getpid()
    rules = [k.SyscallRule("pidfd_send_signal", k.deny())]
    if scoped:
        return rules
    if policy.signals_helpers:
        ancestors = _ancestors()
        pids = (*ancestors, *(-p & 0xFFFFFFFF for p in ancestors), 0xFFFFFFFF)
        return rules + [k.SyscallRule(name, k.deny(), arg=0, values=pids)
                        for name in ("kill", "rt_sigqueueinfo")] + [
            k.SyscallRule(name, k.deny(), arg=0, values=ancestors or (1,))
            for name in ("tkill", "tgkill", "rt_tgsigqueueinfo")]
    own = (0, me, -me & 0xFFFFFFFF)
    return rules + [k.SyscallRule(name, k.ALLOW, arg=0, values=own, otherwise=k.deny())
                    for name in ("kill", "rt_sigqueueinfo")] + [
        k.SyscallRule(name, k.ALLOW, arg=0, values=(me,), otherwise=k.deny())
        for name in ("tkill", "tgkill", "rt_tgsigqueueinfo")]


_QUEUES = ("io_uring_setup", "io_uring_enter", "io_uring_register", "io_setup")
"""Rings that run work the filter never sees (io_uring's ``IORING_OP_SOCKET``, ``CONNECT``,
``OPENAT``, linked timeouts that write after the call answered) and Linux AIO."""
_KEYS = ("add_key", "request_key", "keyctl")
_OTHER_PROCESSES = ("ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
                    "process_madvise")
_SELF_ONLY = ("prlimit64", "sched_setaffinity", "sched_setscheduler", "sched_setparam",
              "sched_setattr", "migrate_pages", "move_pages")
"""Their first argument is a pid: 0 (or the process's own pid) only."""
_HOST_NAMES = ("sethostname", "setdomainname")
_ANONYMOUS_MEMORY_FILES = ("memfd_create", "memfd_secret")
"""Files in host memory that no quota holds (``RLIMIT_AS`` counts only what is mapped, the
scratch tmpfs only what is under it): refused with ENOSYS, which libraries take as an old
kernel and fall back from."""
_KERNEL_INTERFACES = ("bpf", "perf_event_open", "userfaultfd")
"""Kernel interfaces no tool handler needs and exploits reach for."""
_HOST_IPC = ("shmget", "shmat", "shmctl", "shmdt", "semget", "semop", "semctl", "semtimedop",
             "msgget", "msgsnd", "msgrcv", "msgctl", "mq_open")
"""SysV shared memory, semaphores and message queues, and POSIX message queues: objects in the
host's IPC namespace that outlive the process that made them (a detached segment stays in host
memory after the worker and its env are gone), and SysV ids are small numbers any process of
the uid can guess and attach. Every SysV call is refused; a POSIX queue needs ``mq_open``'s
descriptor for every other call."""
_MOUNTS = ("mount", "umount2", "open_tree", "move_mount", "fsopen", "fsconfig", "fsmount",
           "fspick", "mount_setattr", "pivot_root", "chroot")


def _process_rules(me: int) -> list[Any]:
    """Every contained process (all run as its caller's uid, which is all the kernel asks to
    act on another process of that uid): no io_uring or AIO, no keyring calls, no calls that
    read, change or reschedule another process, no new host or domain name, no memory file
    outside the quota, no SysV IPC or POSIX message queue, no bpf, perf events or
    userfaultfd."""
    k = _kernel
    own = (0, me)
    rules = [k.SyscallRule(name, k.deny()) for name in (*_QUEUES, *_KEYS, *_OTHER_PROCESSES,
                                                        *_HOST_NAMES, *_KERNEL_INTERFACES,
                                                        *_HOST_IPC)]
    rules += [k.SyscallRule(name, k.deny(errno.ENOSYS)) for name in _ANONYMOUS_MEMORY_FILES]
    rules += [k.SyscallRule(name, k.ALLOW, arg=0, values=own, otherwise=k.deny())
              for name in _SELF_ONLY]
    # setpriority(PRIO_PROCESS=0, who) and ioprio_set(IOPRIO_WHO_PROCESS=1, who): itself
    # only (PRIO_USER / IOPRIO_WHO_USER with who 0 would reach every process of the uid)
    rules += [k.SyscallRule("setpriority", k.ALLOW, arg=0, values=(0,), also=((1, own),),
                            otherwise=k.deny()),
              k.SyscallRule("ioprio_set", k.ALLOW, arg=0, values=(1,), also=((1, own),),
                            otherwise=k.deny())]
    return rules


def _restrict_syscalls(policy: ContainmentPolicy, report: ContainmentReport) -> None:
    available, status = _seccomp_status()
    if not available:
        report.missing["seccomp"] = status
        _leave_session_keyring(report)
        return
    k = _kernel
    scoped = report.active.get("landlock", "").startswith("abi") and _kernel.landlock_abi() >= 6
    rules, blocked = _signal_rules(policy, scoped), ["signals"]
    rules += _process_rules(os.getpid())
    blocked += ["io_uring", "keys", "others' processes", "memfd", "ipc", "bpf+perf+userfaultfd"]
    if policy.blocks_processes:
        rules += [k.SyscallRule(name, k.deny()) for name in (
            "execve", "execveat", "fork", "vfork", "unshare", "setns", *_MOUNTS)]
        if policy.blocks_threads:
            rules.append(k.SyscallRule("clone", k.deny(errno.EAGAIN)))
        else:
            rules.append(k.SyscallRule("clone", k.ALLOW, arg=0, mask=_CLONE_THREAD,
                                       otherwise=k.deny()))
        rules.append(k.SyscallRule("clone3", k.deny(errno.ENOSYS)))  # libc falls back to clone
        blocked.append("processes")
    if policy.blocks_threads:
        if not policy.blocks_processes:
            rules.append(k.SyscallRule("clone", k.deny(errno.EAGAIN)))
            rules.append(k.SyscallRule("clone3", k.deny(errno.ENOSYS)))
        blocked.append("threads")
    if policy.socket_families is not None:
        families = policy.socket_families
        if policy.blocks_network:
            families = tuple(f for f in families if f not in (_AF_INET, _AF_INET6, _AF_PACKET))
        rules.append(k.SyscallRule("socket", k.ALLOW, arg=0, values=families,
                                   otherwise=k.deny()) if families else
                     k.SyscallRule("socket", k.deny()))
        if _AF_UNIX not in families and not policy.allows_socketpair:
            rules.append(k.SyscallRule("socketpair", k.deny()))
        blocked.append("sockets(" + ("+".join(_FAMILY_NAMES.get(f, str(f)) for f in families)
                                     or "none") + ")")
    elif policy.blocks_network:
        rules.append(k.SyscallRule("socket", k.deny(), arg=0,
                                   values=(_AF_INET, _AF_INET6, _AF_PACKET)))
    if policy.blocks_network:
        blocked.append("network")
    try:
        k.install_filter(rules)
    except OSError as e:
        report.missing["seccomp"] = f"the kernel refused the filter ({e})"
        _leave_session_keyring(report)
        return
    report.active["seccomp"] = "+".join(blocked)


def _leave_session_keyring(report: ContainmentReport) -> None:
    """Without the filter (which refuses every keyring call), at least drop the caller's
    session keyring for an empty one. Not done where the filter is in force: each anonymous
    keyring counts against the uid's key quota (200 keys for a user other than root), which
    hundreds of workers would spend, and the caller's own keyring calls with it."""
    try:
        _kernel.join_new_session_keyring()
    except OSError as e:
        report.missing["keys"] = f"the caller's session keyring is still possessed ({e})"
        return
    report.active["keys"] = "own session keyring"


def _audit_hook(policy: ContainmentPolicy):  # noqa: ANN202 - a sys.addaudithook callback
    """Clear messages for what the kernel layers refuse anyway (not itself a boundary)."""
    scratch = os.path.realpath(policy.scratch_dir)
    writable = tuple(os.path.realpath(p) for p in (scratch, *policy.write_paths, "/dev"))
    process_events = {"subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.fork",
                      "os.forkpty", "os.spawn", "pty.spawn"}

    families = policy.socket_families

    def hook(event: str, args: tuple) -> None:
        if policy.blocks_processes and event in process_events:
            raise PermissionError(f"contained world code may not start processes ({event})")
        if policy.blocks_threads and event == "_thread.start_new_thread":
            raise PermissionError("contained world code may not start threads: nothing of a "
                                  "call may run after it answers")
        if families is not None and event == "socket.__new__" and len(args) >= 2 \
                and isinstance(args[1], int) and args[1] >= 0 and (  # -1: from a descriptor
                args[1] not in families or policy.blocks_network and args[1] != _AF_UNIX) \
                and not (args[1] == _AF_UNIX and policy.allows_socketpair):  # the kernel decides
            raise PermissionError("contained world code may not open sockets (family "
                                  f"{args[1]})")
        if policy.blocks_network and event == "socket.connect" and args:
            family = getattr(args[0], "family", None)
            if family in (_AF_INET, _AF_INET6):
                raise PermissionError("contained world code may not open network connections")
        if event == "open" and len(args) >= 2 and isinstance(args[0], str):
            mode = args[1] if isinstance(args[1], str) else ""
            if any(c in mode for c in "wax+") and not os.path.realpath(args[0]).startswith(
                    writable):
                raise PermissionError(f"contained world code may write only below {scratch}")

    return hook
