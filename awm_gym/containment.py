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
                  ``EFBIG``), ``RLIMIT_CORE`` 0
scratch_fs        (``scratch_fs_mb``) the process enters a user and mount namespace of its own
                  (and a network namespace, when it blocks the network) and its scratch
                  directory becomes a tmpfs of that size: a write past it fails with ``ENOSPC``
                  while it happens
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
                  ``unshare``/``setns``/``mount``, non-local sockets (``AF_INET``/``AF_INET6``/
                  ``AF_PACKET``; with ``socket_families``: every family not listed) and
                  ``pidfd_send_signal`` fail with ``EPERM``; without Landlock signal scoping,
                  ``kill``/``tkill``/``tgkill`` to other processes too
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


def _within_hard_limit(kind: int, limit: int) -> tuple[int, int]:
    """``(limit capped by the process's hard limit for kind, that hard limit)``."""
    import resource

    _, hard = resource.getrlimit(kind)
    return (limit if hard == resource.RLIM_INFINITY else min(limit, hard)), hard


def _limit_resources(policy: ContainmentPolicy, report: ContainmentReport) -> None:
    import resource
    import signal

    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    parts = []
    if policy.memory_mb is not None:
        limit, hard = _within_hard_limit(resource.RLIMIT_AS, policy.memory_mb * 2**20)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
        parts.append(f"as={limit // 2**20}MB")
    if policy.cpu_s is not None:
        resource.setrlimit(resource.RLIMIT_CPU, (policy.cpu_s, policy.cpu_s + 5))
        parts.append(f"cpu={policy.cpu_s}s")
    if policy.file_size_mb is not None:  # a write past it fails with EFBIG (not SIGXFSZ)
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        limit, _ = _within_hard_limit(resource.RLIMIT_FSIZE, policy.file_size_mb * 2**20)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))  # the hard limit too
        parts.append(f"fsize={limit // 2**20}MB")
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
    if policy.scratch_fs_mb is None:
        return
    try:
        _kernel.mount_scratch(policy.scratch_dir, policy.scratch_fs_mb * 2**20,
                              own_network=policy.blocks_network)
    except (OSError, AttributeError) as e:  # AttributeError: no libc unshare (not Linux)
        report.missing["scratch_fs"] = (f"no namespace of its own ({e}); the scratch quota is "
                                        "measured after each action only")
        return
    report.active["scratch_fs"] = f"tmpfs {policy.scratch_fs_mb}MB" + (
        ", own netns" if policy.blocks_network else "")


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
        return rules + [k.SyscallRule("kill", k.deny(), arg=0, values=pids),
                        k.SyscallRule("tkill", k.deny(), arg=0, values=ancestors or (1,)),
                        k.SyscallRule("tgkill", k.deny(), arg=0, values=ancestors or (1,))]
    own = (0, me, -me & 0xFFFFFFFF)
    return rules + [k.SyscallRule("kill", k.ALLOW, arg=0, values=own, otherwise=k.deny()),
                    k.SyscallRule("tkill", k.ALLOW, arg=0, values=(me,), otherwise=k.deny()),
                    k.SyscallRule("tgkill", k.ALLOW, arg=0, values=(me,), otherwise=k.deny())]


def _restrict_syscalls(policy: ContainmentPolicy, report: ContainmentReport) -> None:
    available, status = _seccomp_status()
    if not available:
        report.missing["seccomp"] = status
        return
    k = _kernel
    scoped = report.active.get("landlock", "").startswith("abi") and _kernel.landlock_abi() >= 6
    rules, blocked = _signal_rules(policy, scoped), ["signals"]
    if policy.blocks_processes:
        rules += [k.SyscallRule(name, k.deny()) for name in (
            "execve", "execveat", "fork", "vfork", "unshare", "setns", "mount", "umount2")]
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
        return
    report.active["seccomp"] = "+".join(blocked)


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
