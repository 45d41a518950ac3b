"""Read recorded episodes back for rescoring: an ``awm record`` dataset, or any table of rollouts.

:func:`read_source` turns a dataset into :class:`RecordedEpisode` records (what a replay needs:
world, task, seed, the actions in order, and what was recorded to check the replay against),
and keeps the source's rows so that :mod:`awm_gym.manager.rescore` can write them back with the
new rewards beside the old.

Two layouts are read:

* **awm datasets** (``World.record_dataset`` / ``awm record``: a directory with
  ``awm_dataset.json``): one row per step; every column the recorder writes is used (the
  observations check the replay, ``episode_reward`` and the final ``verifier_label`` are the old
  outcome; ``awm_dataset.json``'s recordings name the world set and the replay settings).
* **tables of rollouts** (a Parquet or JSON Lines file, a directory of Parquet files, or a
  ``datasets.save_to_disk`` directory: e.g. a training run's rollout dataset). Required columns:
  ``world``, ``task_idx``, ``seed``, and the actions, either

  - one row per episode with an ``actions`` list column; optional ``observations`` (a list:
    what each action produced, or the task first and then that), ``task``, ``reward`` (or
    ``episode_reward``) and ``verifier_label``; or
  - one row per step with ``action`` and ``step_idx`` columns (the recorder's layout: a row
    with a null action is skipped); optional ``observation`` (what the agent saw before the
    action), ``reward``, ``episode_reward`` and ``verifier_label``. The rows of one episode share
    the values of the columns among ``step``, ``group``, ``episode_idx``, ``world``,
    ``task_idx`` and ``seed``.

  Columns left out are simply not checked: without observations a replay is compared on its
  end only; without an old reward or label the new ones are reported but nothing "changed".

Example:
    >>> import tempfile, pyarrow as pa, pyarrow.parquet as pq
    >>> path = tempfile.mkdtemp() + "/rollouts.parquet"
    >>> pq.write_table(pa.table({"world": ["spotify"], "task_idx": [0], "seed": [3],
    ...                          "actions": [["I give up."]], "reward": [0.0]}), path)
    >>> source = read_source(path)
    >>> source.layout, source.episodes[0].actions, source.episodes[0].reward
    ('episodes', ('I give up.',), 0.0)
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from awm_gym import info_keys as K
from awm_gym.errors import EnvUsageError

__all__ = ["RecordedEpisode", "RescoreSource", "read_source", "EPISODE_KEY_COLUMNS",
           "REQUIRED_COLUMNS"]

REQUIRED_COLUMNS = ("world", "task_idx", "seed")
"""Columns every source needs, besides the actions (``actions``, or ``action`` + ``step_idx``)."""
EPISODE_KEY_COLUMNS = ("step", "group", "episode_idx", "world", "task_idx", "seed")
"""In a one-row-per-step table, the rows of one episode share the values of those of these
columns it has (``step``/``group``: a training run's step and group)."""

Layout = Literal["awm", "steps", "episodes"]


@dataclass(frozen=True)
class RecordedEpisode:
    """One episode as recorded: what to replay and what to compare the replay with."""

    key: tuple[tuple[str, Any], ...]
    """``(column, value)`` pairs naming the episode in its source (``episode_idx`` for awm
    datasets; the key columns, or the row number, in tables)."""
    world: str
    task_idx: int
    seed: int
    actions: tuple[str, ...]
    observations: tuple[str, ...] | None
    """What each action produced, aligned with ``actions`` (None: not recorded)."""
    task: str | None
    """The first observation (None: not recorded)."""
    reward: float | None
    """The episode's recorded return (None: not recorded)."""
    verifier_label: str | None
    """The recorded verifier label of the final answer (None: none, or not recorded)."""
    ended: bool | None
    """Whether the env ended the episode at its last action (None: not known, as when a trainer
    cut it short)."""

    @property
    def name(self) -> str:
        """The key as text: ``episode_idx=3`` or ``step=2 group=1 episode_idx=0``."""
        return " ".join(f"{k}={v}" for k, v in self.key)


@dataclass
class RescoreSource:
    """A dataset read for rescoring: its episodes, its rows and where it came from."""

    path: Path
    layout: Layout
    """``awm`` (a recorded dataset), ``steps`` (a table, one row per step) or ``episodes``
    (a table, one row per episode)."""
    episodes: list[RecordedEpisode]
    rows: list[dict[str, Any]]
    """The source's rows, in order; ``row_episode[r]`` is the episode of row ``r``."""
    row_episode: list[int]
    row_step: list[int | None]
    """The step (index into the episode's actions) of each row; None for a row without one
    (an awm dataset's final row, every row of an ``episodes`` table)."""
    schema: Any
    """The rows' ``pyarrow.Schema``."""
    meta: dict[str, Any] | None
    """``awm_dataset.json`` of an awm dataset (None for tables)."""

    @property
    def recordings(self) -> list[dict[str, Any]]:
        return list((self.meta or {}).get("recordings", []))


def read_source(path: str | os.PathLike) -> RescoreSource:
    """Read the dataset at ``path`` (see the module docstring for the layouts).

    Raises:
        EnvUsageError: not a dataset, or a required column is missing (the message lists what
            the table has and what it needs).
    """
    path = Path(path)
    if not path.exists():
        raise EnvUsageError(f"{path}: no such dataset (give the directory `awm record` wrote, "
                            "or a Parquet / JSON Lines file of rollouts).")
    table, meta = _read_table(path)
    rows = table.to_pylist()
    columns = set(table.column_names)
    missing = [c for c in REQUIRED_COLUMNS if c not in columns]
    has_list, has_steps = "actions" in columns, {"action", "step_idx"} <= columns
    if missing or not (has_list or has_steps):
        need = list(missing) + ([] if has_list or has_steps else
                                ["actions (a list per episode) or action + step_idx"])
        raise EnvUsageError(f"{path}: cannot rescore it: it lacks {', '.join(need)} (it has "
                            f"{', '.join(table.column_names)}). A rescoring needs world, task_idx, "
                            "seed and the actions of each episode.")
    if meta is not None:
        layout: Layout = "awm"
    else:
        layout = "episodes" if has_list else "steps"
    source = RescoreSource(path, layout, [], rows, [], [], table.schema, meta)
    if layout == "episodes":
        _read_episode_rows(source)
    else:
        _read_step_rows(source, list(EPISODE_KEY_COLUMNS) if layout == "steps" else
                        ["episode_idx"])
    return source


# -- tables -----------------------------------------------------------------------------------
def _read_table(path: Path) -> tuple[Any, dict[str, Any] | None]:
    """``(pyarrow.Table, awm_dataset.json or None)`` of the dataset at ``path``."""
    import pyarrow as pa
    import pyarrow.json as pajson
    import pyarrow.parquet as pq

    from awm_gym.manager.recording import DATA_DIR, META_FILE

    if path.is_dir() and (path / META_FILE).exists():
        with open(path / META_FILE, encoding="utf-8") as handle:
            meta = json.load(handle)
        shards = [pq.read_table(path / DATA_DIR / s) for s in meta["shards"]]
        return (pa.concat_tables(shards) if shards else
                _features_schema(meta).empty_table()), meta
    if path.is_dir() and (path / "dataset_info.json").exists():
        import datasets

        return datasets.load_from_disk(str(path)).data.table, None
    if path.is_dir():
        files = sorted(path.rglob("*.parquet"))
        if not files:
            raise EnvUsageError(f"{path}: no awm_dataset.json, dataset_info.json or *.parquet "
                                "in it: not a dataset of rollouts.")
        return pa.concat_tables([pq.read_table(f) for f in files], promote_options="default"), None
    if path.suffix == ".parquet":
        return pq.read_table(path), None
    if path.suffix in (".jsonl", ".json"):
        return pajson.read_json(path), None
    raise EnvUsageError(f"{path}: read a directory, a .parquet file or a .jsonl file; "
                        f"{path.suffix or 'no suffix'} is none of them.")


def _features_schema(meta: Mapping[str, Any]) -> Any:
    import datasets

    return datasets.Features.from_dict(meta["features"]).arrow_schema


def _float(value: Any) -> float | None:
    if value is None:
        return None
    value = float(value)
    return None if math.isnan(value) else value


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _read_episode_rows(source: RescoreSource) -> None:
    """One row per episode: ``actions`` (and ``observations``) are lists."""
    for r, row in enumerate(source.rows):
        actions = tuple(str(a) for a in (row.get("actions") or ()))
        observations = row.get("observations")
        task = _text(row.get("task"))
        if observations is not None:
            observations = tuple(str(o) for o in observations)
            if len(observations) == len(actions) + 1:  # the task first
                task, observations = observations[0], observations[1:]
            elif len(observations) != len(actions):
                observations = None  # some other layout: not checked
        key = tuple((c, row[c]) for c in ("step", "group", "episode_idx") if c in row) or \
            (("row", r),)
        reward = row["reward"] if "reward" in row else row.get("episode_reward")
        source.episodes.append(RecordedEpisode(
            key, str(row["world"]), int(row["task_idx"]), int(row["seed"]), actions,
            observations, task, _float(reward), _text(row.get(K.VERIFIER_LABEL)), None))
        source.row_episode.append(r)
        source.row_step.append(None)


def _read_step_rows(source: RescoreSource, key_columns: Sequence[str]) -> None:
    """One row per step, grouped into episodes by ``key_columns``, ordered by ``step_idx``."""
    rows = source.rows
    keys = [c for c in key_columns if c in source.schema.names]
    groups: dict[tuple[Any, ...], list[int]] = {}
    for r, row in enumerate(rows):
        groups.setdefault(tuple(row[c] for c in keys), []).append(r)
    source.row_episode = [0] * len(rows)
    source.row_step = [None] * len(rows)
    for e, (key, members) in enumerate(groups.items()):
        members.sort(key=lambda r: rows[r]["step_idx"])
        acting = [r for r in members if rows[r]["action"] is not None]
        for r in members:
            source.row_episode[r] = e
        for t, r in enumerate(acting):
            source.row_step[r] = t
        source.episodes.append(_step_episode(tuple(zip(keys, key, strict=True)),
                                             [rows[r] for r in members],
                                             [rows[r] for r in acting], source.layout))


def _step_episode(key: tuple[tuple[str, Any], ...], members: list[dict[str, Any]],
                  acting: list[dict[str, Any]], layout: Layout) -> RecordedEpisode:
    first = members[0]
    actions = tuple(str(row["action"]) for row in acting)
    observations = task = None
    if "observation" in first:
        seen = [row["observation"] for row in members]
        task = _text(seen[0])
        # row t holds what the agent saw before action t; action t produced row t + 1's
        if len(seen) == len(actions) + 1 and None not in seen:
            observations = tuple(str(o) for o in seen[1:])
    ended = None
    if layout == "awm" and acting:
        ended = bool(acting[-1]["terminated"] or acting[-1]["truncated"])
    reward = first.get("episode_reward")
    if reward is None and "reward" in first:
        reward = sum(float(row["reward"] or 0.0) for row in acting)
    label = acting[-1].get(K.VERIFIER_LABEL) if acting else None
    return RecordedEpisode(key, str(first["world"]), int(first["task_idx"]), int(first["seed"]),
                           actions, observations, task, _float(reward), _text(label), ended)
