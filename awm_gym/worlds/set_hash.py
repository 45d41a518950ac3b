"""The content hash of a world set: what a split file and an exclusion file are made for.

:func:`world_set_hash` is a sha256 over the sorted names and bytes of the set's ``gen_*.jsonl``
files. Splits (:mod:`awm_gym.worlds.splits`) and exclusion files
(:mod:`awm_gym.worlds.exclusions`) both record it, so a file made for another version of the
set is refused; it lives apart from both so that neither imports the other for it.
"""

from __future__ import annotations

import hashlib
import os

from awm_gym.errors import SplitError
from awm_gym.worlds.records import BUILTIN_WORLDS_DIR
from awm_gym.worlds.world_set import WorldSet

__all__ = ["world_set_hash"]


_HASH_CACHE: dict[tuple[str, tuple[tuple[str, int, int], ...]], str] = {}


def world_set_hash(path: str | os.PathLike[str] | WorldSet | None = None) -> str:
    """``sha256:<hex>`` over the sorted names and bytes of the set's ``gen_*.jsonl`` files.

    Each name and each file's bytes are length-prefixed, so no two different sets hash alike.
    Cached per process by file names, sizes and modification times.

    Args:
        path: the world set directory, or a loaded :class:`WorldSet` (None: the built-ins).

    Raises:
        SplitError: the directory holds no ``gen_*.jsonl`` file.

    Example:
        >>> world_set_hash(None).startswith("sha256:")
        True
    """
    root = path.root if isinstance(path, WorldSet) else os.fspath(path or BUILTIN_WORLDS_DIR)
    root = os.path.realpath(root)
    try:
        names = sorted(n for n in os.listdir(root)
                       if n.startswith("gen_") and n.endswith(".jsonl"))
    except OSError as e:
        raise SplitError(f"world set {root}: cannot list its files ({e}); give the directory "
                         "that holds the gen_*.jsonl files.") from e
    if not names:
        raise SplitError(f"world set {root} holds no gen_*.jsonl file; give the directory that "
                         "holds the AWM files (gen_tasks.jsonl, gen_envs.jsonl, ...).")
    stats = tuple((n, (st := os.stat(os.path.join(root, n))).st_size, st.st_mtime_ns)
                  for n in names)
    key = (root, stats)
    cached = _HASH_CACHE.get(key)
    if cached is not None:
        return cached
    h = hashlib.sha256(b"awm-gym/world-set/v1\0")
    for name in names:
        encoded = name.encode("utf-8", "surrogateescape")
        h.update(len(encoded).to_bytes(8, "big") + encoded)
        with open(os.path.join(root, name), "rb") as f:
            size = os.fstat(f.fileno()).st_size
            h.update(size.to_bytes(8, "big"))
            while chunk := f.read(1 << 20):
                h.update(chunk)
    digest = _HASH_CACHE[key] = "sha256:" + h.hexdigest()
    return digest
