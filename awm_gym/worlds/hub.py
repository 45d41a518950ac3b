"""Name a world set by its Hugging Face dataset id: fetched into the Hub cache, then a path.

Every place that takes a world set path (``register_worlds``, ``world_set=``, ``load_world_set``,
the ``awm`` commands) also takes a dataset id, ``org/name`` or ``org/name@revision``
(``Snowflake/AgentWorldModel-1K``). :func:`resolve_world_set` tells them apart:

1. an existing path wins (a directory ``org/name`` under the working directory stays a path);
2. otherwise a string shaped ``org/name[@revision]`` is a dataset id: its ``gen_*.jsonl`` files
   are fetched with ``huggingface_hub.snapshot_download(repo_type="dataset")`` into the normal
   Hub cache and the snapshot directory is returned. That honours ``HF_HUB_OFFLINE`` (the cached
   snapshot, no request), ``HF_HOME`` / ``HF_HUB_CACHE``, ``HF_ENDPOINT``, a token from
   ``HF_TOKEN`` or ``hf auth login``, and shows huggingface_hub's progress bars;
3. anything else is returned unchanged, for the loader to say it does not exist.

A fetch happens once per id per process (later calls reuse the directory), and the set is then
indexed lazily as any directory is.

Example:
    >>> parse_dataset_id("Snowflake/AgentWorldModel-1K@v1")
    ('Snowflake/AgentWorldModel-1K', 'v1')
    >>> parse_dataset_id("./outputs") is None, parse_dataset_id("/data/a/b") is None
    (True, True)
    >>> resolve_world_set(".") == "."  # an existing path is returned as given
    True
"""

from __future__ import annotations

import logging
import os
import re
import threading

from awm_gym.errors import WorldSetFormatError

__all__ = ["parse_dataset_id", "resolve_world_set", "WORLD_SET_PATTERNS"]

logger = logging.getLogger(__name__)

WORLD_SET_PATTERNS = ("gen_*.jsonl", "*.md")
"""What is fetched of a dataset: the world set files and its card (nothing else is read)."""

_ID = re.compile(r"(?P<repo>[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*)(?:@(?P<revision>[\w./-]+))?")
_FETCHED: dict[str, str] = {}
_LOCK = threading.Lock()


def parse_dataset_id(ref: str) -> tuple[str, str | None] | None:
    """``(repo_id, revision)`` when ``ref`` has the shape of a dataset id, else None."""
    match = _ID.fullmatch(ref)
    if match is None or ".." in ref:
        return None
    return match["repo"], match["revision"]


def resolve_world_set(ref: str | os.PathLike[str], *, argument: str = "path") -> str:
    """The directory of the world set ``ref`` names: a path, or a Hub dataset id fetched now.

    Args:
        ref: a directory, or a dataset id ``org/name`` / ``org/name@revision``.
        argument: how the caller calls ``ref``, named in errors (``world_set``, ``--worlds-dir``).

    Returns:
        ``ref`` itself when it exists or is not id-shaped; else the snapshot directory in the
        Hub cache.

    Raises:
        WorldSetFormatError: ``ref`` is id-shaped but no such directory exists and the dataset
            cannot be fetched (not on the Hub, offline without a cached copy, no access, or
            huggingface_hub missing); the message names ``argument`` and the fix.
    """
    path = os.fspath(ref)
    if os.path.exists(path):
        return path
    parsed = parse_dataset_id(path)
    if parsed is None:
        return path
    with _LOCK:
        if path not in _FETCHED:
            _FETCHED[path] = _fetch(*parsed, ref=path, argument=argument)
        return _FETCHED[path]


def _fetch(repo_id: str, revision: str | None, *, ref: str, argument: str) -> str:
    where = (f"{argument}={ref!r}: there is no directory {os.path.abspath(ref)}, so it was "
             f"taken for the Hugging Face dataset {repo_id}"
             + (f" at revision {revision}" if revision else ""))
    try:
        from huggingface_hub import snapshot_download
        from huggingface_hub.errors import (
            GatedRepoError,
            LocalEntryNotFoundError,
            RepositoryNotFoundError,
            RevisionNotFoundError,
        )
    except ImportError as e:  # a dependency of the default install; missing only if removed
        raise WorldSetFormatError(f"{where}, but huggingface_hub is not installed: pip install "
                                  "huggingface_hub, or pass a directory.") from e
    logger.info("fetching the world set %s%s into the Hugging Face cache", repo_id,
                f"@{revision}" if revision else "")
    try:
        return snapshot_download(repo_id, repo_type="dataset", revision=revision,
                                 allow_patterns=list(WORLD_SET_PATTERNS))
    except RevisionNotFoundError as e:
        raise WorldSetFormatError(f"{where}, which has no revision {revision!r}. Use a branch, "
                                  "tag or commit of the dataset, or leave @revision off.") from e
    except GatedRepoError as e:
        raise WorldSetFormatError(f"{where}, which is gated: accept its terms on the Hub and log "
                                  "in (`hf auth login` or HF_TOKEN).") from e
    except RepositoryNotFoundError as e:
        raise WorldSetFormatError(f"{where}, which the Hub does not have (or it is private: log "
                                  "in with `hf auth login` or set HF_TOKEN). Pass an existing "
                                  "directory of gen_*.jsonl files, or a dataset id such as "
                                  "'Snowflake/AgentWorldModel-1K'.") from e
    except LocalEntryNotFoundError as e:
        raise WorldSetFormatError(f"{where}, which is not in the Hugging Face cache and cannot "
                                  f"be fetched now ({str(e).splitlines()[0]}). Unset "
                                  "HF_HUB_OFFLINE and connect once to fetch it, or pass a "
                                  "directory.") from e
