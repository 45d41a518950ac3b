"""The run folder's bookkeeping: JSON files written atomically, the metrics sink, the phase line.

Example:
    >>> phase_line({"sft_s": 40.0, "total_s": 60.0})
    'phases: sft 40.0 s | total 60.0 s'
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import IO, Any

from awm_gym.atomic_io import write_text_atomic

from ..config import TrainConfig, config_to_dict
from ..grpo.metrics import ConsoleSink, JSONLSink, MultiSink, make_report_sink

__all__ = ["write_json", "open_sink", "phase_line"]


def write_json(path: Path, data: Any) -> None:
    write_text_atomic(path, json.dumps(data, indent=2))


def open_sink(cfg: TrainConfig, out: Path, is_main: bool, console: IO[str],
               is_resumed: bool) -> Any:
    """The run's metrics sink: on rank 0 ``metrics.jsonl`` (appended to when resumed), the
    console and the ``run.report_to`` service (``config.json`` is written first; a resumed
    run continues its W&B run); elsewhere one that drops everything."""
    sinks: list[Any] = []
    if is_main:
        write_json(out / "config.json", config_to_dict(cfg))
        sinks = [JSONLSink(out / "metrics.jsonl", append=is_resumed),
                 ConsoleSink(console, cfg.grpo.steps)]
        report = make_report_sink(cfg.run.report_to, out, config_to_dict(cfg),
                                  project=cfg.run.wandb_project, is_resumed=is_resumed)
        if report is not None:
            sinks.append(report)
    return MultiSink(sinks)


def phase_line(timings: dict[str, float]) -> str:
    """One line with the seconds of every phase that ran, in order.

    Example:
        >>> phase_line({"sft_s": 40.0, "grpo_s": 108.25, "total_s": 160.0})
        'phases: sft 40.0 s | grpo 108.2 s | total 160.0 s'
    """
    return "phases: " + " | ".join(f"{k.removesuffix('_s').replace('_', ' ')} {v:.1f} s"
                                   for k, v in timings.items())
