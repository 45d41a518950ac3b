"""Write a rescored dataset: the source's rows with the new outcome columns beside the old ones.

The dataset is written by :class:`~awm_gym.manager.recording.DatasetWriter`, the writer of
``World.record_dataset``: a hidden temporary directory moved into place when complete, under the
dataset's lock, so an interrupted rescoring leaves the previous dataset or none. The layout is
the recorder's (``data/train-*.parquet``, ``awm_dataset.json``, ``README.md``); a rescored
``awm record`` dataset stays one (``load_episodes`` and ``awm render`` read it), and
``awm_dataset.json`` gains a ``rescore`` section: source, world set, time, counts and the names
of the episodes that changed, diverged or could not be replayed.

Columns added (any of the same name in the source is replaced):

* ``rescore_status`` (per episode): ``same`` / ``changed`` / ``diverged`` / ``unreplayable``;
* ``rescore_detail`` (per episode): why: the labels before and after, or where it diverged;
* ``rescored_reward`` and ``rescored_verifier_label`` (per step, beside ``reward`` and
  ``verifier_label``): the replay's reward and label for the row's action;
* ``rescored_episode_reward`` and ``rescored_episode_success`` (per episode, beside
  ``episode_reward`` and ``episode_success``).

A table with one row per episode gets ``rescored_reward``, ``rescored_verifier_label`` and
``rescored_success`` for the episode instead, besides the status and detail.
The ``rescored_`` values are null for diverged and unreplayable episodes (nothing was
rescored), and on rows without an action.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from awm_gym.manager.recording import DatasetWriter
from awm_gym.manager.rescore_result import EpisodeRescore, RescoreResult
from awm_gym.manager.rescore_source import RescoreSource

__all__ = ["write_rescored", "rescore_columns"]

_STEP_COLUMNS = {"rescore_status": "string", "rescore_detail": "large_string",
                 "rescored_reward": "float64", "rescored_verifier_label": "string",
                 "rescored_episode_reward": "float64", "rescored_episode_success": "bool"}
_EPISODE_COLUMNS = {"rescore_status": "string", "rescore_detail": "large_string",
                    "rescored_reward": "float64", "rescored_verifier_label": "string",
                    "rescored_success": "bool"}


def rescore_columns(layout: str) -> dict[str, str]:
    """The columns a rescoring adds to a source of ``layout`` (``datasets.Value`` dtypes)."""
    return dict(_EPISODE_COLUMNS if layout == "episodes" else _STEP_COLUMNS)


def write_rescored(source: RescoreSource, result: RescoreResult, target: Path,
                   mode: str) -> Path:
    """Write ``source``'s rows with the columns of ``result`` to ``target``; returns it."""
    import datasets

    added = rescore_columns(source.layout)
    if source.meta is not None:
        base = {k: v for k, v in source.meta["features"].items() if k not in added}
        features = datasets.Features.from_dict(base)
    else:
        schema = source.schema.remove_metadata()
        features = datasets.Features.from_arrow_schema(schema)
        features = datasets.Features({k: v for k, v in features.items() if k not in added})
    for name, dtype in added.items():
        features[name] = datasets.Value(dtype)
    info_keys = (source.meta or {}).get("info_keys", [])
    description = (f"Episodes of `{source.path.name}` replayed and scored again by `awm "
                   "rescore` with the verifiers of the time: the source's rows, with the new "
                   "outcome beside the old (`rescored_*` columns, `rescore_status`).")
    with DatasetWriter(target, info_keys, mode=mode, row_features=features,
                       description=description) as writer:
        writer.write_rows(_rows(source, result.episodes))
        writer.episodes = len(result.episodes)
        writer.meta["recordings"] = source.recordings
        writer.meta["rescore"] = _summary(source, result)
    return target


def _rows(source: RescoreSource, results: tuple[EpisodeRescore, ...]) -> Any:
    episode_layout = source.layout == "episodes"
    for row, e, t in zip(source.rows, source.row_episode, source.row_step, strict=True):
        res = results[e]
        rescored = res.status in ("same", "changed")
        out = dict(row)
        out["rescore_status"], out["rescore_detail"] = res.status, res.detail
        if episode_layout:
            out["rescored_reward"] = res.new_reward if rescored else None
            out["rescored_verifier_label"] = res.new_verifier_label if rescored else None
            out["rescored_success"] = res.new_success if rescored else None
            yield out
            continue
        replay = res.replay
        stepped = rescored and replay is not None and t is not None and t < len(replay.rewards)
        out["rescored_reward"] = replay.rewards[t] if stepped else None
        out["rescored_verifier_label"] = replay.labels[t] if stepped else None
        out["rescored_episode_reward"] = res.new_reward if rescored else None
        out["rescored_episode_success"] = res.new_success if rescored else None
        yield out


def _summary(source: RescoreSource, result: RescoreResult) -> dict[str, Any]:
    return {"source": str(source.path), "layout": source.layout, "world_set": result.world_set,
            "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "counts": result.counts,
            **{status: [e.episode.name for e in result.with_status(status)]
               for status in ("changed", "diverged", "unreplayable")}}
