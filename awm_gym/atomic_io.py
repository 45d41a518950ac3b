"""Atomic file writes: a temporary file in the target's directory, then ``os.replace``.

A reader sees the old file or the new one, never a half-written one; a failed write leaves no
temporary file behind. Outputs get the modes an ordinary ``open`` or ``mkdir`` would give under
the process umask (0644 files and 0755 directories under umask 022), so a team can share them:
``mkstemp`` and ``mkdtemp`` create 0600 / 0700, and the mode is set before the rename.

Example:
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "out.txt"
    >>> write_text_atomic(path, "hello")
    >>> path.read_text()
    'hello'
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import threading
from pathlib import Path

from awm_gym.boundary import closing_on_error

__all__ = ["write_bytes_atomic", "write_text_atomic", "make_temp_dir", "shared_mode",
           "process_umask"]

_UMASK_LOCK = threading.Lock()


def process_umask() -> int:
    """The process umask, read without changing it where Linux shows it (``/proc``), else by
    setting and restoring it under a lock.

    Example:
        >>> 0 <= process_umask() <= 0o777
        True
    """
    try:
        with open("/proc/self/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    with _UMASK_LOCK:  # os.umask can only be read by setting it
        mask = os.umask(0o022)
        os.umask(mask)
    return mask


def shared_mode(is_dir: bool = False) -> int:
    """The mode ``open`` (0o666) or ``mkdir`` (0o777) would give a new file or directory under
    the process umask.

    Example:
        >>> old = os.umask(0o022)
        >>> oct(shared_mode()), oct(shared_mode(is_dir=True))
        ('0o644', '0o755')
        >>> _ = os.umask(old)
    """
    return (0o777 if is_dir else 0o666) & ~process_umask()


def make_temp_dir(parent: str | os.PathLike[str], prefix: str) -> Path:
    """A new temporary directory in ``parent`` with the umask's ordinary mode (``mkdtemp``
    gives 0700), to fill and then ``os.replace`` onto its final name.

    Example:
        >>> import tempfile
        >>> tmp = make_temp_dir(tempfile.mkdtemp(), ".out.")
        >>> tmp.is_dir(), tmp.name.startswith(".out.")
        (True, True)
    """
    path = Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
    os.chmod(path, shared_mode(is_dir=True))
    return path


def write_bytes_atomic(path: str | os.PathLike[str], data: bytes, *, fsync: bool = False) -> None:
    """Write ``data`` to ``path`` atomically (creating its directory); ``fsync`` makes it durable."""
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(path)}.", suffix=".tmp")
    with closing_on_error(lambda: _remove_quietly(tmp)):
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            if fsync:
                handle.flush()
                os.fsync(handle.fileno())
        os.chmod(tmp, shared_mode())  # mkstemp made it 0600
        os.replace(tmp, path)


def _remove_quietly(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


def write_text_atomic(path: str | os.PathLike[str], text: str, *, fsync: bool = False) -> None:
    """Write ``text`` as UTF-8 (newlines as given) to ``path`` atomically."""
    write_bytes_atomic(path, text.encode("utf-8"), fsync=fsync)
