"""The kernel's sandboxing calls (Landlock, seccomp) through ``ctypes``: no package to install.

:mod:`awm_gym.containment` uses these on Linux (x86_64 and aarch64) so that a plain
``pip install awm-gym`` contains world code: a Landlock ruleset (files, and signal scoping from
ABI 6 on), a hand-written seccomp BPF filter (processes, network, signals to other
processes, io_uring, keyrings, other processes' limits and scheduling, memory files outside
the quota, SysV IPC and POSIX message queues, bpf, perf events, userfaultfd), the scratch and
``/dev/shm`` tmpfs in namespaces of the process's own, and a fresh session keyring. Standard
library only: the verifier worker loads this file by path.

Example:
    >>> rules = [SyscallRule("socket", arg=0, values=(2, 10), if_in=deny(1), otherwise=ALLOW)]
    >>> len(build_filter(rules, arch="x86_64")) > 4
    True
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import struct
from dataclasses import dataclass

__all__ = ["ALLOW", "SHM", "SyscallRule", "build_filter", "deny", "install_filter",
           "join_new_session_keyring", "landlock_abi", "mount_scratch", "restrict_files",
           "seccomp_arch", "thread_count"]

ALLOW = 0x7FFF0000  # SECCOMP_RET_ALLOW
_RET_ERRNO = 0x00050000
_PR_SET_NO_NEW_PRIVS, _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 38, 22, 2
_LD_W_ABS, _JEQ, _JGE, _JSET, _RET = 0x20, 0x15, 0x35, 0x45, 0x06
_ARCHES = {  # machine -> (AUDIT_ARCH_*, syscall numbers)
    "x86_64": (0xC000003E, {"kill": 62, "tkill": 200, "tgkill": 234, "pidfd_send_signal": 424,
                            "rt_sigqueueinfo": 129, "rt_tgsigqueueinfo": 297,
                            "pidfd_open": 434, "execve": 59, "execveat": 322, "fork": 57,
                            "vfork": 58, "clone": 56, "clone3": 435, "socket": 41,
                            "socketpair": 53, "unshare": 272, "setns": 308, "mount": 165,
                            "umount2": 166, "pivot_root": 155, "chroot": 161,
                            "open_tree": 428, "move_mount": 429, "fsopen": 430,
                            "fsconfig": 431, "fsmount": 432, "fspick": 433,
                            "mount_setattr": 442, "io_uring_setup": 425,
                            "io_uring_enter": 426, "io_uring_register": 427, "io_setup": 206,
                            "add_key": 248, "request_key": 249, "keyctl": 250,
                            "prlimit64": 302, "sched_setaffinity": 203,
                            "sched_setscheduler": 144, "sched_setparam": 142,
                            "sched_setattr": 314, "setpriority": 141, "ioprio_set": 251,
                            "migrate_pages": 256, "move_pages": 279, "ptrace": 101,
                            "process_vm_readv": 310, "process_vm_writev": 311, "kcmp": 312,
                            "pidfd_getfd": 438, "process_madvise": 440, "sethostname": 170,
                            "setdomainname": 171, "memfd_create": 319, "memfd_secret": 447,
                            "bpf": 321, "perf_event_open": 298, "userfaultfd": 323,
                            "shmget": 29, "shmat": 30, "shmctl": 31, "shmdt": 67,
                            "semget": 64, "semop": 65, "semctl": 66, "semtimedop": 220,
                            "msgget": 68, "msgsnd": 69, "msgrcv": 70, "msgctl": 71,
                            "mq_open": 240}),
    "aarch64": (0xC00000B7, {"kill": 129, "tkill": 130, "tgkill": 131,
                             "pidfd_send_signal": 424, "rt_sigqueueinfo": 138,
                             "rt_tgsigqueueinfo": 240, "pidfd_open": 434, "execve": 221,
                             "execveat": 281, "clone": 220, "clone3": 435, "socket": 198,
                             "socketpair": 199, "unshare": 97, "setns": 268, "mount": 40,
                             "umount2": 39, "pivot_root": 41, "chroot": 51, "open_tree": 428,
                             "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432,
                             "fspick": 433, "mount_setattr": 442, "io_uring_setup": 425,
                             "io_uring_enter": 426, "io_uring_register": 427, "io_setup": 0,
                             "add_key": 217, "request_key": 218, "keyctl": 219,
                             "prlimit64": 261, "sched_setaffinity": 122,
                             "sched_setscheduler": 119, "sched_setparam": 118,
                             "sched_setattr": 274, "setpriority": 140, "ioprio_set": 30,
                             "migrate_pages": 238, "move_pages": 239, "ptrace": 117,
                             "process_vm_readv": 270, "process_vm_writev": 271, "kcmp": 272,
                             "pidfd_getfd": 438, "process_madvise": 440, "sethostname": 161,
                             "setdomainname": 162, "memfd_create": 279, "memfd_secret": 447,
                             "bpf": 280, "perf_event_open": 241, "userfaultfd": 282,
                             "shmget": 194, "shmat": 196, "shmctl": 195, "shmdt": 197,
                             "semget": 190, "semop": 193, "semctl": 191, "semtimedop": 192,
                             "msgget": 186, "msgsnd": 189, "msgrcv": 188, "msgctl": 187,
                             "mq_open": 180}),
}
_LANDLOCK_CREATE, _LANDLOCK_ADD_RULE, _LANDLOCK_RESTRICT = 444, 445, 446  # same on every arch
_SCOPE_ABSTRACT_UNIX, _SCOPE_SIGNAL = 0x1, 0x2
_CLONE_NEWNS, _CLONE_NEWUSER, _CLONE_NEWNET = 0x00020000, 0x10000000, 0x40000000
_MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 2, 4, 8


def deny(err: int = errno.EPERM) -> int:
    """The seccomp action that fails the call with ``err``."""
    return _RET_ERRNO | (err & 0xFFFF)


@dataclass(frozen=True)
class SyscallRule:
    """One syscall's verdict: ``if_in`` when the low 32 bits of argument ``arg`` equal one of
    ``values`` (or, with ``mask``, have any of its bits set) and each ``(arg, values)`` pair
    of ``also`` holds the same way, else ``otherwise``; with ``arg=None``, always ``if_in``.
    Syscalls the machine lacks (``fork`` on aarch64) are skipped."""

    name: str
    if_in: int
    arg: int | None = None
    values: tuple[int, ...] = ()
    mask: int = 0
    otherwise: int = ALLOW
    also: tuple[tuple[int, tuple[int, ...]], ...] = ()


def seccomp_arch() -> str | None:
    """This machine's architecture if the filter supports it, else None."""
    machine = platform.machine()
    return machine if machine in _ARCHES and hasattr(os, "getpid") else None


def _insn(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("HBBI", code, jt, jf, k & 0xFFFFFFFF)


def build_filter(rules: list[SyscallRule], arch: str) -> list[bytes]:
    """The BPF program (one 8-byte instruction each): a foreign architecture and the x32 ABI
    are refused, each rule is checked in turn, anything else is allowed."""
    audit_arch, numbers = _ARCHES[arch]
    prog = [_insn(_LD_W_ABS, 0, 0, 4), _insn(_JEQ, 1, 0, audit_arch), _insn(_RET, 0, 0, deny())]
    if arch == "x86_64":  # x32 syscalls carry bit 30 and would bypass the numbers below
        prog += [_insn(_LD_W_ABS, 0, 0, 0), _insn(_JGE, 0, 1, 0x40000000),
                 _insn(_RET, 0, 0, deny())]
    for rule in rules:
        nr = numbers.get(rule.name)
        if nr is None:
            continue
        if rule.arg is None:
            body = [_insn(_RET, 0, 0, rule.if_in)]
        elif rule.mask:
            body = [_insn(_LD_W_ABS, 0, 0, 16 + 8 * rule.arg), _insn(_JSET, 1, 0, rule.mask),
                    _insn(_RET, 0, 0, rule.otherwise), _insn(_RET, 0, 0, rule.if_in)]
        else:  # per condition: load, compare (a match skips to the next), else `otherwise`
            body = []
            for arg, values in ((rule.arg, rule.values), *rule.also):
                n = len(values)
                body.append(_insn(_LD_W_ABS, 0, 0, 16 + 8 * arg))
                body += [_insn(_JEQ, n - i, 0, v) for i, v in enumerate(values)]
                body.append(_insn(_RET, 0, 0, rule.otherwise))
            body.append(_insn(_RET, 0, 0, rule.if_in))
        prog += [_insn(_LD_W_ABS, 0, 0, 0), _insn(_JEQ, 0, len(body), nr), *body]
    prog.append(_insn(_RET, 0, 0, ALLOW))
    return prog


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _no_new_privs(libc: ctypes.CDLL) -> None:
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")


def install_filter(rules: list[SyscallRule]) -> None:
    """Load the filter of ``rules`` into this process (and every thread and child it starts
    later), for good. Raises ``OSError`` where the kernel refuses it."""
    arch = seccomp_arch()
    if arch is None:
        raise OSError(errno.ENOSYS, f"no seccomp filter for {platform.machine()}")
    prog = build_filter(rules, arch)
    code = ctypes.create_string_buffer(b"".join(prog))

    class _Prog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    fprog = _Prog(len(prog), ctypes.cast(code, ctypes.c_void_p))
    libc = _libc()
    _no_new_privs(libc)
    if libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP) failed")


def landlock_abi() -> int:
    """The kernel's Landlock ABI version (0: none, or not Linux)."""
    if not os.path.exists("/proc/self"):
        return 0
    try:
        libc = _libc()
    except OSError:
        return 0
    abi = libc.syscall(_LANDLOCK_CREATE, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    return max(int(abi), 0)


_FILE_RIGHTS = 1 | 2 | 4 | 16384 | 32768  # execute, write, read, truncate, ioctl_dev
_READ_DIR_RIGHTS, _READ_FILE_RIGHTS = 1 | 4 | 8, 1 | 4


def _handled_fs(abi: int) -> int:
    bits = (1 << 13) - 1  # ABI 1: execute .. make_sym
    if abi >= 2:
        bits |= 1 << 13  # refer
    if abi >= 3:
        bits |= 1 << 14  # truncate
    if abi >= 5:
        bits |= 1 << 15  # ioctl_dev
    return bits


def restrict_files(read: list[str], write: list[str], *, scope_signals: bool = True) -> int:
    """Landlock this process: read (and execute) only below ``read``, write only below
    ``write``; from ABI 6 on, also no signals to processes outside its domain and no connection
    to an abstract unix socket made outside it. Paths that do not exist are skipped. Returns
    the ABI used; raises ``OSError`` where Landlock is missing."""
    abi = landlock_abi()
    if abi < 1:
        raise OSError(errno.ENOSYS, "the kernel offers no Landlock")
    libc = _libc()
    handled = _handled_fs(abi)
    scoped = _SCOPE_SIGNAL | _SCOPE_ABSTRACT_UNIX if scope_signals and abi >= 6 else 0
    attr = struct.pack("QQQ", handled, 0, scoped)
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8
    buf = ctypes.create_string_buffer(attr[:size])
    fd = libc.syscall(_LANDLOCK_CREATE, buf, ctypes.c_size_t(size), ctypes.c_uint32(0))
    if fd < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset failed")
    try:
        dir_all = handled
        for paths, dir_rights, file_rights in ((read, _READ_DIR_RIGHTS, _READ_FILE_RIGHTS),
                                                (write, dir_all, _FILE_RIGHTS)):
            for path in paths:
                _add_path(libc, fd, path, dir_rights & handled, file_rights & handled)
        _no_new_privs(libc)
        if libc.syscall(_LANDLOCK_RESTRICT, fd, ctypes.c_uint32(0)) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")
    finally:
        os.close(fd)
    return abi


def _add_path(libc: ctypes.CDLL, ruleset: int, path: str, dir_rights: int,
              file_rights: int) -> None:
    try:
        target = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return
    try:
        rights = dir_rights if os.path.isdir(path) else file_rights
        attr = ctypes.create_string_buffer(struct.pack("=Qi", rights, target))
        libc.syscall(_LANDLOCK_ADD_RULE, ruleset, ctypes.c_uint32(1), attr, ctypes.c_uint32(0))
    finally:
        os.close(target)


def thread_count() -> int:
    """The threads of this process (``/proc/self/task``; 1 where that cannot be read)."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return 1


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


SHM = "/dev/shm"


def mount_scratch(path: str, size_bytes: int, *, own_network: bool,
                  shm_dirs: tuple[str, ...] | None = None) -> None:
    """Move this process into a user and mount namespace of its own (and, with
    ``own_network``, a network namespace with nothing in it: no route out, no abstract unix
    socket of the host) and mount a tmpfs of ``size_bytes`` at ``path``: a write past it fails
    with ``ENOSPC``. With ``shm_dirs`` (a tuple, even empty), ``/dev/shm`` becomes a tmpfs of
    ``size_bytes`` too, holding only those directories (made anew, mode 0700; ``path`` itself
    may be one): what the process writes there is held to the size and goes with the
    namespace, and the host's ``/dev/shm`` is out of its sight. The process keeps its uid and
    gid, and loses every capability outside the new user namespace (a root caller's too). Must
    run while it has one thread, before Landlock (a Landlocked process may not mount). Raises
    ``OSError`` where the kernel or the user cannot (no unprivileged user namespaces, a sandbox
    that refuses ``unshare``)."""
    if thread_count() != 1:
        raise OSError(errno.EINVAL, "the process has more than one thread")
    uid, gid = os.getuid(), os.getgid()
    libc = _libc()
    flags = _CLONE_NEWUSER | _CLONE_NEWNS | (_CLONE_NEWNET if own_network else 0)
    if libc.unshare(ctypes.c_int(flags)) != 0:
        raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWUSER | CLONE_NEWNS) failed")
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"{uid} {uid} 1")
    _write("/proc/self/gid_map", f"{gid} {gid} 1")
    if shm_dirs is not None and os.path.isdir(SHM):
        _mount_tmpfs(libc, SHM, size_bytes, b"awm-shm")
        for directory in shm_dirs:
            os.makedirs(directory, mode=0o700, exist_ok=True)
    _mount_tmpfs(libc, path, size_bytes, b"awm-scratch")


def _mount_tmpfs(libc: ctypes.CDLL, path: str, size_bytes: int, source: bytes) -> None:
    inodes = max(1024, size_bytes // 16384)  # an empty file costs kernel memory too
    options = f"size={size_bytes},nr_inodes={inodes},mode=0700".encode()
    if libc.mount(source, os.fsencode(path), b"tmpfs",
                  ctypes.c_ulong(_MS_NOSUID | _MS_NODEV), options) != 0:
        raise OSError(ctypes.get_errno(), f"mounting a tmpfs at {path} failed")


_KEYCTL = {"x86_64": 250, "aarch64": 219}
_KEYCTL_JOIN_SESSION_KEYRING = 1


def join_new_session_keyring() -> None:
    """Give this process a new, empty, anonymous session keyring: the one it inherited (its
    caller's, with whatever keys the caller's session holds) is no longer possessed. Raises
    ``OSError`` where the kernel refuses (no keyrings, the user's key quota spent)."""
    nr = _KEYCTL.get(platform.machine())
    if nr is None:
        raise OSError(errno.ENOSYS, f"no keyctl number for {platform.machine()}")
    libc = _libc()
    if libc.syscall(nr, _KEYCTL_JOIN_SESSION_KEYRING, None) < 0:
        raise OSError(ctypes.get_errno(), "keyctl(KEYCTL_JOIN_SESSION_KEYRING) failed")
