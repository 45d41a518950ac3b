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
                  ``RLIMIT_CPU`` (optional), ``RLIMIT_CORE`` 0
environment       every variable except a short allow-list is removed (API keys, tokens,
                  cloud credentials); ``HOME``/``TMPDIR`` point at the scratch directory
Landlock (fs)     reads only below the Python installation, system libraries and the paths the
                  caller allows; writes only below the scratch directory and allowed paths
                  (``/etc/passwd``, ``~/.ssh``, your project files: ``PermissionError``)
seccomp           ``execve`` (no ``subprocess``/``os.system``), ``fork``/``vfork``/``clone``
                  without ``CLONE_THREAD``, and non-local sockets (``AF_INET``/``AF_INET6``/
                  ``AF_PACKET``) fail with ``EPERM``; threads and ``AF_UNIX`` pipes keep working
audit hook        not a boundary: turns the attempts above into clear ``PermissionError``
                  messages before the kernel refuses them
================  ===========================================================================

The module imports only the standard library (plus the optional ``landlock`` and ``pyseccomp``
packages, the ``sandbox`` extra), so the stdlib-only verifier worker can load it by path.

Example:
    >>> policy = ContainmentPolicy(scratch_dir="/tmp", memory_mb=None)
    >>> policy.memory_mb is None and policy.blocks_network
    True
"""

from __future__ import annotations

import errno
import os
import sys
import sysconfig
import warnings
from dataclasses import dataclass, field

__all__ = ["ContainmentPolicy", "ContainmentReport", "contain_this_process", "describe_layers",
           "warn_missing_layers"]

_ENV_ALLOW = ("PATH", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ", "PYTHONHASHSEED",
              "PYTHONIOENCODING", "PYTHONUTF8", "PYTHONPATH", "VIRTUAL_ENV")
_SYSTEM_READ = ("/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin", "/etc/ld.so.cache",
                "/etc/localtime", "/etc/ssl", "/etc/mime.types", "/proc/self", "/sys/devices/system/cpu")
_DEVICES_RW = ("/dev/null", "/dev/zero", "/dev/urandom", "/dev/random", "/dev/shm")
_CLONE_THREAD = 0x00010000
_AF_INET, _AF_INET6, _AF_PACKET = 2, 10, 17
_WARNED: set[str] = set()


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
    """

    scratch_dir: str
    memory_mb: int | None = 4096
    cpu_s: int | None = None
    read_paths: tuple[str, ...] = ()
    write_paths: tuple[str, ...] = ()
    blocks_network: bool = True
    blocks_processes: bool = True


@dataclass
class ContainmentReport:
    """Which layers are active in this process (``layer -> description``), and which are not."""

    active: dict[str, str] = field(default_factory=dict)
    missing: dict[str, str] = field(default_factory=dict)

    def summary(self) -> str:
        """One line, e.g. ``rlimits, env, landlock(abi 7), seccomp; missing: none``."""
        on = ", ".join(f"{k}({v})" if v else k for k, v in self.active.items()) or "none"
        off = ", ".join(f"{k} ({v})" for k, v in self.missing.items()) or "none"
        return f"{on}; missing: {off}"

    def to_dict(self) -> dict[str, dict[str, str]]:
        return {"active": dict(self.active), "missing": dict(self.missing)}


def contain_this_process(policy: ContainmentPolicy) -> ContainmentReport:
    """Apply every available layer of ``policy`` to this process, for good (cannot be undone).

    Call it after the process has imported and opened what it needs (files opened before stay
    usable) and before it runs untrusted code. Missing layers are warned about once per process.
    """
    report = ContainmentReport()
    os.makedirs(policy.scratch_dir, exist_ok=True)
    _limit_resources(policy, report)
    _scrub_environment(policy, report)
    _restrict_files(policy, report)
    _restrict_syscalls(policy, report)
    sys.addaudithook(_audit_hook(policy))
    report.active["audit_hook"] = ""
    for layer, why in report.missing.items():
        if layer not in _WARNED:
            _WARNED.add(layer)
            warnings.warn(f"awm_gym containment: {layer} is not active ({why}); untrusted world "
                          "code is less contained. See docs/runtime.md, 'Untrusted code'.",
                          RuntimeWarning, stacklevel=2)
    return report


def warn_missing_layers(who: str) -> None:
    """Warn once per process for each kernel layer this machine cannot give ``who``."""
    for layer, (available, why) in (("landlock", _landlock_status()),
                                    ("seccomp", _seccomp_status())):
        if not available and layer not in _WARNED:
            _WARNED.add(layer)
            warnings.warn(f"awm_gym containment: {layer} is not active for {who} ({why}); "
                          "untrusted code is less contained. See docs/runtime.md, "
                          "'Untrusted code'.", RuntimeWarning, stacklevel=3)


def describe_layers() -> dict[str, str]:
    """What this machine offers, without applying anything: ``{"landlock": "abi 7", ...}``."""
    return {"landlock": _landlock_status()[1], "seccomp": _seccomp_status()[1]}


def _limit_resources(policy: ContainmentPolicy, report: ContainmentReport) -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    parts = []
    if policy.memory_mb is not None:
        limit = policy.memory_mb * 2**20
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
        parts.append(f"as={limit // 2**20}MB")
    if policy.cpu_s is not None:
        resource.setrlimit(resource.RLIMIT_CPU, (policy.cpu_s, policy.cpu_s + 5))
        parts.append(f"cpu={policy.cpu_s}s")
    report.active["rlimits"] = " ".join(parts)


def _scrub_environment(policy: ContainmentPolicy, report: ContainmentReport) -> None:
    removed = [k for k in os.environ if k not in _ENV_ALLOW and not k.startswith("LC_")]
    for key in removed:
        del os.environ[key]
    os.environ["HOME"] = os.environ["TMPDIR"] = policy.scratch_dir
    report.active["env"] = f"{len(removed)} removed"


def _python_roots() -> list[str]:
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    roots.update(p for p in sysconfig.get_paths().values() if p)
    roots.update(p for p in sys.path if p and os.path.isdir(p))
    return sorted(roots)


def _landlock_status() -> tuple[bool, str]:
    try:
        import landlock
    except ImportError:
        return False, "the 'landlock' package is not installed (pip install 'awm-gym[sandbox]')"
    try:
        abi = landlock.landlock_abi_version()
    except Exception as e:  # noqa: BLE001 - kernel without Landlock, or it is disabled
        return False, f"the kernel offers no Landlock ({type(e).__name__}: {e})"
    return abi >= 1, f"abi {abi}"


def _restrict_files(policy: ContainmentPolicy, report: ContainmentReport) -> None:
    available, status = _landlock_status()
    if not available:
        report.missing["landlock"] = status
        return
    from landlock import FSAccess, Ruleset

    read_dir = FSAccess.READ_FILE | FSAccess.READ_DIR | FSAccess.EXECUTE
    read_file = FSAccess.READ_FILE | FSAccess.EXECUTE
    write_dir = FSAccess.all()
    write_file = FSAccess.all_file()
    ruleset = Ruleset()
    for path in (*_python_roots(), *_SYSTEM_READ, *policy.read_paths):
        _allow(ruleset, path, read_dir, read_file)
    for path in (policy.scratch_dir, *_DEVICES_RW, *policy.write_paths):
        _allow(ruleset, path, write_dir, write_file)
    ruleset.apply()
    report.active["landlock"] = status


def _allow(ruleset: object, path: str, dir_rights: int, file_rights: int) -> None:
    if not os.path.exists(path):
        return
    rights = dir_rights if os.path.isdir(path) else file_rights
    try:
        ruleset.allow(path, rules=rights)  # type: ignore[attr-defined]
    except OSError:  # a path Landlock cannot hold (e.g. some /proc entries): leave it out
        pass


def _seccomp_status() -> tuple[bool, str]:
    try:
        import pyseccomp
    except ImportError:
        return False, "the 'pyseccomp' package is not installed (pip install 'awm-gym[sandbox]')"
    except OSError as e:  # libseccomp.so.2 missing
        return False, f"libseccomp is not available ({e})"
    try:
        pyseccomp.get_api()
    except Exception as e:  # noqa: BLE001
        return False, f"libseccomp does not work here ({type(e).__name__}: {e})"
    return True, "on"


def _restrict_syscalls(policy: ContainmentPolicy, report: ContainmentReport) -> None:
    if not (policy.blocks_network or policy.blocks_processes):
        return
    available, status = _seccomp_status()
    if not available:
        report.missing["seccomp"] = status
        return
    import pyseccomp as sc

    refuse = sc.ERRNO(errno.EPERM)
    flt = sc.SyscallFilter(defaction=sc.ALLOW)
    blocked = []
    if policy.blocks_processes:
        for name in ("execve", "execveat", "fork", "vfork"):
            flt.add_rule(refuse, name)
        flt.add_rule(refuse, "clone", sc.Arg(0, sc.MASKED_EQ, _CLONE_THREAD, 0))
        flt.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")  # libc falls back to clone, checked above
        blocked.append("processes")
    if policy.blocks_network:
        for family in (_AF_INET, _AF_INET6, _AF_PACKET):
            flt.add_rule(refuse, "socket", sc.Arg(0, sc.EQ, family))
        blocked.append("network")
    flt.load()
    report.active["seccomp"] = "+".join(blocked)


def _audit_hook(policy: ContainmentPolicy):  # noqa: ANN202 - a sys.addaudithook callback
    """Clear messages for what the kernel layers refuse anyway (not itself a boundary)."""
    scratch = os.path.realpath(policy.scratch_dir)
    writable = tuple(os.path.realpath(p) for p in (scratch, *policy.write_paths, "/dev"))
    process_events = {"subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.fork",
                      "os.forkpty", "os.spawn", "pty.spawn"}

    def hook(event: str, args: tuple) -> None:
        if policy.blocks_processes and event in process_events:
            raise PermissionError(f"contained world code may not start processes ({event})")
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
