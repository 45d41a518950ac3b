"""Atomic file writes: a temporary file in the target's directory, then ``os.replace``.

A reader sees the old file or the new one, never a half-written one; a failed write leaves no
temporary file behind.

Example:
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "out.txt"
    >>> write_text_atomic(path, "hello")
    >>> path.read_text()
    'hello'
"""

from __future__ import annotations

import os
import tempfile

__all__ = ["write_bytes_atomic", "write_text_atomic"]


def write_bytes_atomic(path: str | os.PathLike[str], data: bytes, *, fsync: bool = False) -> None:
    """Write ``data`` to ``path`` atomically (creating its directory); ``fsync`` makes it durable."""
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(path)}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            if fsync:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_text_atomic(path: str | os.PathLike[str], text: str, *, fsync: bool = False) -> None:
    """Write ``text`` as UTF-8 (newlines as given) to ``path`` atomically."""
    write_bytes_atomic(path, text.encode("utf-8"), fsync=fsync)
