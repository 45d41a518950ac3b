"""``World.record_dataset``: stream rollouts into a Hugging Face dataset on disk, atomically.

Layout of a dataset directory (``datasets.load_dataset(path)`` reads it; the Parquet files carry
the ``datasets`` features in their schema metadata)::

    <name>/data/train-00000.parquet ...   one row per step, shards of <= rows_per_shard rows
    <name>/awm_dataset.json               schema version, features, episodes, rows, seed ranges
    <name>/README.md                      a short dataset card

Rows: an episode of T actions has T + 1 rows. Row t < T pairs the observation the agent saw
(``o_0`` is the task) with the action it took and what that action produced (``reward``,
``terminated``, ``truncated`` and the chosen info values). The last row holds the final
observation with ``action``/``reward`` null, the episode's end flags, and ``db_diff`` (the rows
the episode changed, JSON; null on other rows). ``episode_len`` is the episode's row count
(T + 1), as in stable-worldmodel. Columns: see :func:`features`.

Atomicity: a recording is written to a hidden temporary directory next to the target and moved
into place when every episode is written; an exception, Ctrl-C or a killed process leaves either
the previous dataset or none (leftover temporary directories are removed on the next write).
Appending hard-links the existing shards into the new version and adds shards after them.

``awm_dataset.json`` keeps, per recording, the env id, policy, first seed, reset options, the
world set's directory (``world_set``, null for the built-in worlds) and the env settings a
replay needs (``replay``: :data:`REPLAY_FIELDS`), so ``awm rescore`` can replay every episode
(world, task_idx and seed are columns of every row; the verifier label of the final answer is
the ``verifier_label`` column).
One writer at a time: a writer holds ``.<name>.lock`` (``fcntl.flock``) from start to commit,
and a second recording of the same dataset (another process, or this one) fails at once with a
clear error instead of both committing and one silently replacing the other's episodes.

The default location is ``$AWM_GYM_DATASETS`` if set, else ``$XDG_CACHE_HOME/awm_gym/datasets``,
else ``~/.cache/awm_gym/datasets``.

Example:
    >>> import tempfile, datasets
    >>> from awm_gym import World
    >>> from agents.policies import OraclePolicy
    >>> world = World("AWM/spotify-v0", num_envs=2, verbose=0)
    >>> world.set_policy(OraclePolicy())
    >>> path = world.record_dataset("oracle", episodes=3, seed=0, cache_dir=tempfile.mkdtemp())
    >>> ds = datasets.load_dataset(str(path), split="train")
    >>> sorted(set(ds["episode_idx"])), ds[0]["step_idx"], ds[0]["policy"]
    ([0, 1, 2], 0, 'oracle')
    >>> world.close()
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import shutil
import time
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from awm_gym import info_keys as K
from awm_gym.atomic_io import write_text_atomic
from awm_gym.boundary import closing_on_error
from awm_gym.envs.registration import BUILTIN_WORLDS_DIR
from awm_gym.errors import EnvUsageError
from awm_gym.manager.db_diff import DatabaseDiff
from awm_gym.manager.episode import (
    DEFAULT_INFO_KEYS,
    GENERATION_KEYS,
    REQUIRED_INFO_KEYS,
    Episode,
)
from awm_gym.vocab import Turn

logger = logging.getLogger(__name__)

__all__ = ["record", "RecordingMeta", "info_columns", "features", "episode_rows",
           "load_episodes", "default_datasets_dir", "dataset_path", "DatasetWriter",
           "SCHEMA_VERSION", "REPLAY_FIELDS", "replay_settings", "world_set_dir",
           "LIST_COLUMN_TYPES"]

SCHEMA_VERSION = 1
META_FILE = "awm_dataset.json"
DATA_DIR = "data"
_MODES = ("error", "append", "overwrite")

REPLAY_FIELDS = ("max_episode_steps", "max_text_length", "max_action_chars", "unknown_tool",
                 "clock", "clock_step_s")
"""The :class:`~awm_gym.envs.config.EnvConfig` fields that decide what an action observes and
when an episode ends: a recording keeps them so that a rescoring replays under the same ones."""


def replay_settings(config: Any) -> dict[str, Any]:
    """The :data:`REPLAY_FIELDS` of an :class:`~awm_gym.envs.config.EnvConfig`."""
    return {name: getattr(config, name) for name in REPLAY_FIELDS}


def world_set_dir(runtime: Any) -> str | None:
    """The directory of the world set a vector env's runtime runs (None: the built-in worlds,
    or a remote runtime): what a recording keeps as its ``world_set``."""
    root = getattr(getattr(runtime, "world_set", None), "root", None)
    if root is None or os.path.realpath(root) == os.path.realpath(BUILTIN_WORLDS_DIR):
        return None
    return str(root)

_BASE_COLUMNS: dict[str, str] = {
    "episode_idx": "int64", "step_idx": "int32", "episode_len": "int32", "world": "string",
    "task_idx": "int32", "seed": "int64", "policy": "string", "observation": "large_string",
    "action": "large_string", "reward": "float64", "terminated": "bool", "truncated": "bool",
    "episode_reward": "float64", "episode_success": "bool", "db_diff": "large_string",
}
"""Columns every dataset has (``datasets.Value`` dtypes)."""

INFO_COLUMN_TYPES: dict[str, str] = {
    K.ACTION_KIND: "string", K.TOOL: "string", K.VERIFIER_LABEL: "string",
    K.TOOL_OUTCOME: "string", K.TOOL_STATUS: "int64", K.FORMAT_ERROR: "bool",
    K.ERROR: "large_string", K.REWARD_VALID: "bool", K.SUCCESS: "bool", K.STEP: "int32",
    K.DROPPED_CALLS: "int32", K.FINAL_ANSWER: "large_string", K.VERIFIER_ERROR: "large_string",
    K.VERIFIER_OUTPUT: "large_string", K.AWAITING_JUDGE: "bool", K.TOOL_TIME_S: "float64",
    K.VERIFY_TIME_S: "float64", "worker_error": "string", K.JUDGE_LABEL: "string",
    K.JUDGE_ERROR: "large_string",
}
"""Typed columns for known info keys; any other info key is stored as a JSON string."""
LIST_COLUMN_TYPES: dict[str, str] = dict(zip(GENERATION_KEYS, ("int32", "int32", "float32"),
                                              strict=True))
"""List columns (element dtypes): an LLM policy's token ids and log-probabilities per step
(:data:`~awm_gym.manager.episode.GENERATION_KEYS`; ``record_dataset`` adds them when the
policy exposes ``last_generations``)."""


def default_datasets_dir() -> Path:
    """``$AWM_GYM_DATASETS``, else ``$XDG_CACHE_HOME/awm_gym/datasets``, else
    ``~/.cache/awm_gym/datasets``."""
    if os.environ.get("AWM_GYM_DATASETS"):
        return Path(os.environ["AWM_GYM_DATASETS"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "awm_gym" / "datasets"


def dataset_path(dataset_name: str | os.PathLike, cache_dir: str | os.PathLike | None = None
                 ) -> Path:
    """Where ``dataset_name`` lives: a path as given if it has a directory part, else
    ``cache_dir / dataset_name`` (default :func:`default_datasets_dir`)."""
    name = os.fspath(dataset_name)
    if not name or name in (".", ".."):
        raise EnvUsageError(f"dataset_name={name!r}: give a name like 'spotify_oracle' or a path.")
    if os.sep in name or (os.altsep and os.altsep in name):
        return Path(name)
    return Path(cache_dir if cache_dir is not None else default_datasets_dir()) / name


def info_columns(info_keys: Sequence[str] | None) -> list[str]:
    """The info keys a dataset stores: the required ones, then the chosen ones in order."""
    chosen = DEFAULT_INFO_KEYS if info_keys is None else tuple(info_keys)
    clash = [k for k in chosen if k in _BASE_COLUMNS]
    if clash:
        raise EnvUsageError(f"info_keys {clash} clash with dataset columns of the same name; "
                            "drop them (they are recorded anyway).")
    return list(dict.fromkeys([*REQUIRED_INFO_KEYS, *chosen]))


def features(info_keys: Sequence[str]) -> Any:
    """The ``datasets.Features`` of a dataset storing ``info_keys`` (see :func:`info_columns`)."""
    import datasets

    columns: dict[str, Any] = {name: datasets.Value(dtype)
                               for name, dtype in _BASE_COLUMNS.items()}
    for key in info_keys:
        if key in LIST_COLUMN_TYPES:
            columns[key] = datasets.List(datasets.Value(LIST_COLUMN_TYPES[key]))
        else:
            columns[key] = datasets.Value(INFO_COLUMN_TYPES.get(key, "large_string"))
    return datasets.Features(columns)


def _is_typed(key: str) -> bool:
    return key in INFO_COLUMN_TYPES or key in LIST_COLUMN_TYPES


def _cell(key: str, value: Any) -> Any:
    if value is None or _is_typed(key):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def episode_rows(episode: Episode, info_keys: Sequence[str]) -> Iterator[dict[str, Any]]:
    """The T + 1 rows of an episode (see the module docstring)."""
    turns = episode.turns
    common = {"episode_idx": episode.episode_idx, "episode_len": len(turns) + 1,
              "world": episode.world, "task_idx": episode.task_idx, "seed": episode.seed,
              "policy": episode.policy, "episode_reward": episode.reward,
              "episode_success": episode.success}
    observation = episode.task
    for t, turn in enumerate(turns):
        row = {**common, "step_idx": t, "observation": observation, "action": turn.action,
               "reward": turn.reward, "terminated": turn.terminated, "truncated": turn.truncated,
               "db_diff": None}
        for key in info_keys:
            row[key] = _cell(key, turn.info.get(key))
        yield row
        observation = turn.observation
    last = {**common, "step_idx": len(turns), "observation": observation, "action": None,
            "reward": None, "terminated": episode.terminated, "truncated": episode.truncated,
            "db_diff": None if episode.db_diff is None else episode.db_diff.to_json()}
    for key in info_keys:
        last[key] = None
    yield last


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class DatasetWriter:
    """Write episodes as Parquet shards into a new version of a dataset directory, atomically.

    Use as a context manager: on a clean exit the new version replaces the old one; on any
    exception (Ctrl-C included) the temporary version is deleted and the old one is untouched.
    """

    def __init__(self, path: str | os.PathLike, info_keys: Sequence[str], mode: str = "error",
                 rows_per_shard: int = 200_000, rows_per_group: int = 5_000,
                 row_features: Any = None, description: str | None = None) -> None:
        if mode not in _MODES:
            raise EnvUsageError(f"mode={mode!r}: choose one of {', '.join(map(repr, _MODES))}.")
        self.path = Path(path)
        self.info_keys = list(info_keys)
        self.mode = mode
        self.rows_per_shard, self.rows_per_group = rows_per_shard, rows_per_group
        # the rows' columns: those of info_keys, or others given (a rescored dataset's)
        self.features = features(self.info_keys) if row_features is None else row_features
        self.description = description or _RECORDED
        self._schema = self.features.arrow_schema
        self._tmp: Path | None = None
        self._lock_fd: int | None = None
        self._writer: Any = None
        self._buffer: list[dict[str, Any]] = []
        self._shard_rows = 0
        self._shards: list[str] = []
        self.meta: dict[str, Any] = {}
        self.episodes = 0
        self.rows = 0

    # -- lifecycle --------------------------------------------------------------------------------
    def __enter__(self) -> DatasetWriter:
        parent = self.path.parent
        parent.mkdir(parents=True, exist_ok=True)
        self._lock()
        with closing_on_error(self._unlock):
            return self._start()

    def _lock(self) -> None:
        """Hold ``.<name>.lock`` (``fcntl.flock``) until :meth:`__exit__`: one writer at a time.

        A second writer of the same dataset, in this process or another, fails here, before any
        rollout, rather than both committing and one version silently replacing the other.
        The kernel drops the lock when its holder dies, so a crashed writer never blocks.
        """
        lock_path = self._lock_path
        while True:
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                raise EnvUsageError(
                    f"Dataset {self.path} is being written by another recording (it holds "
                    f"{lock_path}); appends to one dataset run one at a time. Wait for it to "
                    "finish and record again, or record to another dataset_name.") from None
            try:  # the holder before us may have removed the file: then lock the new one
                if os.fstat(fd).st_ino == os.stat(lock_path).st_ino:
                    break
            except FileNotFoundError:
                pass
            os.close(fd)
        self._lock_fd = fd

    @property
    def _lock_path(self) -> Path:
        return self.path.parent / f".{self.path.name}.lock"

    def _unlock(self) -> None:
        """Remove the lock file (while still holding it, so no one holds a removed file) and
        release it. A killed writer leaves the file; the next writer takes it over."""
        if self._lock_fd is not None:
            try:
                os.unlink(self._lock_path)
            except FileNotFoundError:
                pass
            os.close(self._lock_fd)  # closing the descriptor releases the flock
            self._lock_fd = None

    def _start(self) -> DatasetWriter:
        parent = self.path.parent
        self._recover()
        existing = self._existing_meta()
        if existing is not None and self.mode == "error":
            raise EnvUsageError(f"Dataset {self.path} already exists; pass mode='append' to add "
                                "episodes or mode='overwrite' to replace it.")
        self._tmp = parent / f".{self.path.name}.tmp-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        (self._tmp / DATA_DIR).mkdir(parents=True)
        if existing is not None and self.mode == "append":
            self._adopt(existing)
        else:
            self.meta = {"schema_version": SCHEMA_VERSION, "info_keys": self.info_keys,
                         "features": self.features.to_dict(), "episodes": 0, "rows": 0,
                         "shards": [], "recordings": []}
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        try:
            if exc_type is None:
                self._commit()
        finally:
            if self._writer is not None:
                self._writer.close()
                self._writer = None
            if self._tmp is not None and self._tmp.exists():
                shutil.rmtree(self._tmp, ignore_errors=True)
            self._unlock()

    def _recover(self) -> None:
        """Undo a swap interrupted between its two renames; drop dead writers' temp dirs."""
        parent, name = self.path.parent, self.path.name
        old = parent / f".{name}.old"
        if old.exists():
            if not self.path.exists():
                os.replace(old, self.path)
            else:
                shutil.rmtree(old, ignore_errors=True)
        for entry in parent.glob(f".{name}.tmp-*"):
            try:
                pid = int(entry.name.split(".tmp-", 1)[1].split("-", 1)[0])
            except ValueError:
                continue
            if not _pid_alive(pid) or pid == os.getpid():
                shutil.rmtree(entry, ignore_errors=True)

    def _existing_meta(self) -> dict[str, Any] | None:
        meta_path = self.path / META_FILE
        if not self.path.exists():
            return None
        if not meta_path.exists():
            raise EnvUsageError(f"{self.path} exists but is not an awm_gym dataset (no "
                                f"{META_FILE}); choose another dataset_name.")
        with open(meta_path, encoding="utf-8") as handle:
            return json.load(handle)

    def _adopt(self, existing: dict[str, Any]) -> None:
        if existing.get("schema_version") != SCHEMA_VERSION:
            raise EnvUsageError(f"{self.path} has schema version {existing.get('schema_version')}"
                                f"; this awm_gym writes {SCHEMA_VERSION}: record to a new name.")
        if existing["features"] != self.features.to_dict():
            raise EnvUsageError(f"Cannot append to {self.path}: it stores info_keys "
                                f"{existing['info_keys']}, this recording {self.info_keys}. Pass "
                                "the same info_keys, or record to a new dataset_name.")
        for shard in existing["shards"]:
            source, target = self.path / DATA_DIR / shard, self._tmp / DATA_DIR / shard
            try:
                os.link(source, target)
            except OSError:
                shutil.copy2(source, target)
        self.meta = existing
        self._shards = list(existing["shards"])

    # -- writing ----------------------------------------------------------------------------------
    @property
    def next_episode_idx(self) -> int:
        return int(self.meta.get("episodes", 0)) + self.episodes

    def write_episode(self, episode: Episode) -> None:
        self.write_rows(episode_rows(episode, self.info_keys))
        self.episodes += 1

    def write_rows(self, rows: Iterable[Mapping[str, Any]]) -> None:
        """Write rows as they are (one value per column of :attr:`features`); the caller counts
        the episodes they hold (:attr:`episodes`)."""
        for row in rows:
            self._buffer.append(dict(row))
            self.rows += 1
            if len(self._buffer) >= self.rows_per_group:
                self._flush()

    def _flush(self) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        if not self._buffer:
            return
        if self._writer is None:
            name = f"train-{len(self._shards):05d}.parquet"
            self._shards.append(name)
            self._writer = pq.ParquetWriter(self._tmp / DATA_DIR / name, self._schema)
            self._shard_rows = 0
        self._writer.write_table(pa.Table.from_pylist(self._buffer, schema=self._schema))
        self._shard_rows += len(self._buffer)
        self._buffer = []
        if self._shard_rows >= self.rows_per_shard:
            self._writer.close()
            self._writer = None

    def _commit(self) -> None:
        self._flush()
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        self.meta["episodes"] = int(self.meta.get("episodes", 0)) + self.episodes
        self.meta["rows"] = int(self.meta.get("rows", 0)) + self.rows
        self.meta["shards"] = self._shards
        write_text_atomic(self._tmp / META_FILE, json.dumps(self.meta, indent=2, sort_keys=True),
                          fsync=True)
        write_text_atomic(self._tmp / "README.md", _card(self.path.name, self.meta,
                                                          self.description), fsync=True)
        for shard in self._shards:
            _fsync(self._tmp / DATA_DIR / shard)
        old = self.path.parent / f".{self.path.name}.old"
        if self.path.exists():
            os.replace(self.path, old)
            os.replace(self._tmp, self.path)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(self._tmp, self.path)
        self._tmp = None


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


_RECORDED = ("Rollouts recorded with awm_gym's `World.record_dataset`: one row per step (an "
             "episode of T actions has T + 1 rows; the last holds the final observation and the "
             "database diff).")


def _card(name: str, meta: dict[str, Any], description: str = _RECORDED) -> str:
    lines = ["---", "tags:", "- awm-gym", "- tool-use", "- reinforcement-learning", "---", "",
             f"# {name}", "", description, "",
             f"- episodes: {meta['episodes']}", f"- rows: {meta['rows']}", "", "## Recordings", ""]
    for rec in meta["recordings"]:
        lines.append(f"- {rec['env']} | policy {rec['policy']} | episodes "
                     f"{rec['first_episode']}..{rec['first_episode'] + rec['episodes'] - 1} | "
                     f"seeds {rec['seed']}..{rec['seed'] + rec['episodes'] - 1}")
    return "\n".join(lines) + "\n"


@dataclass(frozen=True, slots=True)
class RecordingMeta:
    """Where one recording's episodes came from; kept in ``awm_dataset.json``'s ``recordings``.

    Example:
        >>> RecordingMeta(env="AWM/spotify-v0", policy="oracle", seed=0).options is None
        True
    """

    env: str
    """The env id the episodes ran in."""
    policy: str
    """The policy's name."""
    seed: int
    """The seed of the first episode (episode k ran with ``seed + k``)."""
    options: Mapping[str, Any] | None = None
    """The reset options of the run (per-episode lists included), stored as JSON."""
    world_set: str | None = None
    """The world set's directory (None: the built-in worlds, or not known): where
    :func:`~awm_gym.manager.rescore.rescore_dataset` replays the episodes by default."""
    replay: Mapping[str, Any] | None = None
    """The :class:`~awm_gym.envs.config.EnvConfig` fields an identical replay needs
    (:data:`REPLAY_FIELDS`: the step limit, text limits, unknown-tool mode, clock)."""


def record(episodes: Iterable[Episode], path: str | os.PathLike, meta: RecordingMeta,
           info_keys: Sequence[str] | None = None, mode: str = "error") -> Path:
    """Write ``episodes`` as a dataset at ``path`` (see the module docstring); returns ``path``.

    The writer takes the dataset's lock before it draws the first episode, so a lazy stream (a
    rollout) never runs when another recording holds the dataset. With ``mode="append"`` the new
    episodes are numbered after the existing ones; a warning says when their seeds repeat
    recorded ones.

    Args:
        episodes: finished episodes, in any order; each keeps its ``episode_idx`` (offset by
            the episodes already in the dataset when appending).
        path: the dataset directory (see :func:`dataset_path`).
        meta: where the episodes came from.
        info_keys: the info keys stored per step (see :func:`info_columns`).
        mode: ``error`` if it exists, ``append``, or ``overwrite``.
    """
    path = Path(path)
    with DatasetWriter(path, info_columns(info_keys), mode=mode) as writer:
        first = writer.next_episode_idx
        for episode in episodes:
            episode.episode_idx += first
            writer.write_episode(episode)
        _warn_seed_overlap(path, writer.meta.get("recordings", []), meta.seed, writer.episodes)
        writer.meta.setdefault("recordings", []).append({
            "env": meta.env, "policy": meta.policy, "seed": meta.seed,
            "episodes": writer.episodes, "first_episode": first,
            "options": _jsonable(meta.options), "world_set": meta.world_set,
            "replay": _jsonable(meta.replay), "time": time.strftime("%Y-%m-%dT%H:%M:%S%z")})
    return path


def _warn_seed_overlap(path: Path, recordings: Sequence[Mapping[str, Any]], seed: int,
                       episodes: int) -> None:
    for rec in recordings:
        lo, hi = rec["seed"], rec["seed"] + rec["episodes"]
        if lo < seed + episodes and seed < hi:
            logger.warning("%s: seeds %d..%d overlap seeds already recorded (%d..%d)", path,
                           seed, seed + episodes - 1, lo, hi - 1)


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=lambda v: v.tolist() if hasattr(v, "tolist")
                                 else str(v)))


# -- reading back -----------------------------------------------------------------------------------
def _read_meta(path: Path) -> dict[str, Any]:
    meta_path = path / META_FILE
    if not meta_path.exists():
        raise EnvUsageError(f"{path} is not an awm_gym dataset (no {META_FILE}); record one "
                            "with World.record_dataset.")
    with open(meta_path, encoding="utf-8") as handle:
        return json.load(handle)


def _episode_from_rows(rows: list[dict[str, Any]], info_keys: Sequence[str]) -> Episode:
    rows.sort(key=lambda r: r["step_idx"])
    first, last = rows[0], rows[-1]
    turns = []
    for row, following in zip(rows, rows[1:]):
        info = {}
        for key in info_keys:
            value = row.get(key)
            if value is None:
                continue
            info[key] = value if _is_typed(key) else json.loads(value)
        turns.append(Turn(row["action"], following["observation"], row["reward"],
                          row["terminated"], row["truncated"], info))
    diff = DatabaseDiff.from_json(last["db_diff"]) if last["db_diff"] is not None else None
    return Episode(first["episode_idx"], first["seed"], first["world"], first["task_idx"],
                   first["observation"], first["policy"], turns, diff)


def load_episodes(path: str | os.PathLike, episode_idx: Iterable[int] | None = None,
                  limit: int | None = None) -> list[Episode]:
    """Episodes of a recorded dataset, in ``episode_idx`` order (all, the given ones, or the
    first ``limit``)."""
    import pyarrow.compute as pc
    import pyarrow.dataset as pads

    path = Path(path)
    meta = _read_meta(path)
    table = pads.dataset([str(path / DATA_DIR / s) for s in meta["shards"]], format="parquet")
    wanted = None if episode_idx is None else sorted({int(k) for k in episode_idx})
    if wanted is None and limit is not None:
        wanted = list(range(min(limit, meta["episodes"])))
    flt = None if wanted is None else pc.field("episode_idx").isin(wanted)
    rows = table.to_table(filter=flt).to_pylist()
    grouped: dict[int, list[dict[str, Any]]] = {}
    for row in rows:
        grouped.setdefault(row["episode_idx"], []).append(row)
    if wanted is not None:
        missing = [k for k in wanted if k not in grouped]
        if missing:
            raise EnvUsageError(f"episode_idx {missing} not in {path} (it has episodes "
                                f"0..{meta['episodes'] - 1}).")
    return [_episode_from_rows(grouped[k], meta["info_keys"]) for k in sorted(grouped)]
