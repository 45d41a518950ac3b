"""The total-size quota of a contained worker's scratch directory.

``RLIMIT_FSIZE`` caps one file (:mod:`awm_gym.containment`); many files below that cap could
still fill the disk. Where the kernel lets the worker have a user and mount namespace of its
own, its scratch directory is a tmpfs of the quota's size (the ``scratch_fs`` layer of
:mod:`awm_gym.containment`): a write past it fails with ``ENOSPC`` inside the handler, while
the action runs. Either way a contained shard worker checks its scratch directory after each
action and each MCP tool call that ran world code (:class:`ScratchQuota`): when it is past the
quota (on the tmpfs: full) it removes the files world code wrote there and the action gets an
error observation (:data:`QUOTA_OUTCOME`) instead of its result. The worker lives on: the files
are gone, the instance's database (in memory) keeps that action's writes, and the episode goes
on. Without the tmpfs (a kernel or user without unprivileged user namespaces; warned about by
name) one action can write past the quota before the check.

What it keeps: ``worker.log`` (truncated, not removed: it is the worker's stdout and stderr) and
sockets (multiprocessing's listener for the verifier pool). It measures allocated blocks, so a
sparse file counts what it uses on disk. It does not see a file that world code deleted while
keeping it open (each such file is still capped by ``RLIMIT_FSIZE``).

Example:
    >>> import tempfile
    >>> scratch = tempfile.mkdtemp()
    >>> quota = ScratchQuota(scratch, limit_mb=1)
    >>> with open(os.path.join(scratch, "big"), "wb") as f:
    ...     _ = f.write(os.urandom(2 * 2**20))
    >>> quota.exceeded(), quota.exceeded()   # the first check found it over and removed it
    (True, False)
"""

from __future__ import annotations

import os
import stat

from awm_gym.vocab import ToolOutcome

__all__ = ["QUOTA_OUTCOME", "ScratchQuota"]

QUOTA_OUTCOME = ToolOutcome.SCRATCH_QUOTA
"""``info["tool_outcome"]`` of an action after which the scratch directory was over quota."""
_LOG = "worker.log"
_FULL_MARGIN = 64 * 2**10


class ScratchQuota:
    """The quota of one scratch directory.

    Args:
        directory: the scratch directory (the worker's ``HOME`` and ``TMPDIR``).
        limit_mb: the most it may hold, in MiB (its files together).
        is_filesystem: the directory is a filesystem of ``limit_mb`` of its own (the tmpfs):
            it is measured with ``statvfs`` and counts as over quota when full.
    """

    directory: str
    limit_bytes: int

    def __init__(self, directory: str, limit_mb: int, *, is_filesystem: bool = False) -> None:
        self.directory, self.limit_bytes = directory, limit_mb * 2**20
        self.limit_mb, self.is_filesystem = limit_mb, is_filesystem

    def __repr__(self) -> str:
        return f"ScratchQuota({self.directory!r}, limit_mb={self.limit_mb})"

    def used_bytes(self) -> int:
        """Bytes allocated below the directory (files only; symbolic links are not followed)."""
        total, stack = 0, [self.directory]
        while stack:
            try:
                entries = os.scandir(stack.pop())
            except OSError:
                continue
            with entries:
                for entry in entries:
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            stack.append(entry.path)
                        else:
                            total += entry.stat(follow_symlinks=False).st_blocks * 512
                    except OSError:
                        continue
        return total

    def _is_full(self) -> bool:
        """The tmpfs has less than 64 KiB or no inode left (a write failed, or will)."""
        try:
            st = os.statvfs(self.directory)
        except OSError:
            return False
        return st.f_bavail * st.f_frsize < _FULL_MARGIN or st.f_favail == 0

    def exceeded(self) -> bool:
        """Whether the directory holds more than the quota (a tmpfs: is full); if so, it is
        emptied first (:meth:`clear`), so the next check starts from nothing."""
        if not (self._is_full() if self.is_filesystem else self.used_bytes() > self.limit_bytes):
            return False
        self.clear()
        return True

    def clear(self) -> None:
        """Remove what world code may have written: every file but sockets, ``worker.log``
        truncated, then the directories left empty."""
        for parent, dirs, files in os.walk(self.directory, topdown=False):
            for name in files:
                path = os.path.join(parent, name)
                try:
                    mode = os.lstat(path).st_mode
                    if stat.S_ISSOCK(mode):
                        continue
                    if parent == self.directory and name == _LOG:
                        os.truncate(path, 0)
                    else:
                        os.unlink(path)
                except OSError:
                    continue
            for name in dirs:
                try:
                    os.rmdir(os.path.join(parent, name))
                except OSError:  # not empty (a socket stays), or a link: left as it is
                    try:
                        if os.path.islink(os.path.join(parent, name)):
                            os.unlink(os.path.join(parent, name))
                    except OSError:
                        pass

    def message(self) -> str:
        """The error text an action that crossed the quota reads."""
        return (f"the world's scratch directory grew past its quota of {self.limit_mb} MB; "
                "the files in it were removed.")
