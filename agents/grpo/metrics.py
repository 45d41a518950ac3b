"""Training metrics: their keys (defined once), sinks (JSONL, console), rollout stats and the plot.

Keys are ``<area>/<name>``. A sink has ``log(metrics, step)`` and ``close()``; the trainer logs
one dict per GRPO step (and ``eval/*`` dicts when it evaluates).

Example:
    >>> import io
    >>> out = io.StringIO()
    >>> ConsoleSink(out, total_steps=3).log({REWARD_MEAN: 0.5, SUCCESS_RATE: 0.25,
    ...                                      STEP_TIME_S: 1.5}, step=1)
    >>> out.getvalue()
    'step 1/3 | reward 0.500 | success 0.25 | 1.5 s\\n'
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import IO, Any, Protocol

import numpy as np

from .rollout import Trajectory

__all__ = ["MetricsSink", "JSONLSink", "ConsoleSink", "MultiSink", "rollout_metrics",
           "plot_metrics", "read_jsonl"]

REWARD_MEAN = "rollout/reward_mean"
REWARD_STD = "rollout/reward_std"
SUCCESS_RATE = "rollout/success_rate"
FORMAT_ERROR_RATE = "rollout/format_error_rate"
UNSCORED_RATE = "rollout/unscored_rate"
FRAC_ZERO_STD = "rollout/frac_zero_std_groups"
TURNS = "rollout/turns_per_episode"
TOKENS = "rollout/tokens_per_episode"
PROMPT_TOKENS = "rollout/prompt_tokens_per_turn"
TRUNC_LENGTH = "rollout/trunc_length_turns"
TRUNC_MAX_TURNS = "rollout/trunc_max_turns_episodes"
TRUNC_CONTEXT = "rollout/trunc_context_episodes"
MASKED_EPISODES = "rollout/masked_cut_episodes"
LOGP_DIFF_MEAN = "sampling/sampling_logp_difference/mean"
"""Mean |trainer - sampler| log-probability over sampled tokens, before the update (TRL's name)."""
LOGP_DIFF_MAX = "sampling/sampling_logp_difference/max"
IS_RATIO_MIN = "sampling/importance_sampling_ratio/min"
"""exp(trainer - sampler) log-probability per sampled token, before truncation (TRL's names)."""
IS_RATIO_MEAN = "sampling/importance_sampling_ratio/mean"
IS_RATIO_MAX = "sampling/importance_sampling_ratio/max"
ENV_STEPS_PER_S = "perf/env_steps_per_s"
GEN_TOKENS_PER_S = "perf/gen_tokens_per_s"
TRAIN_TOKENS_PER_S = "perf/train_tokens_per_s"
ENV_TIME_S = "time/env_s"
GENERATE_TIME_S = "time/generate_s"
TRAIN_TIME_S = "time/train_s"
SYNC_TIME_S = "time/sync_s"
STEP_TIME_S = "time/step_s"
LR = "optim/lr"
EVAL_SUCCESS = "eval/success_rate"
EVAL_REWARD = "eval/reward_mean"


class MetricsSink(Protocol):
    """Where metrics go: ``log(metrics, step)`` once per step, ``close()`` at the end."""

    def log(self, metrics: Mapping[str, float], step: int) -> None: ...

    def close(self) -> None: ...


class JSONLSink:
    """Append one JSON line per ``log`` call (``{"step": s, ...}``), flushed each time."""

    def __init__(self, path: str | os.PathLike[str], append: bool = False) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._handle: IO[str] | None = open(self.path, "a" if append else "w", encoding="utf-8")

    def log(self, metrics: Mapping[str, float], step: int) -> None:
        assert self._handle is not None, "JSONLSink used after close()"
        row = {"step": step, **{k: (None if isinstance(v, float) and not math.isfinite(v) else v)
                                for k, v in metrics.items()}}
        self._handle.write(json.dumps(row) + "\n")
        self._handle.flush()

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None


class ConsoleSink:
    """One line per step, nanochat style: ``step 3/20 | reward 0.410 | success 0.50 | 3.2 s``."""

    def __init__(self, stream: IO[str], total_steps: int | None = None) -> None:
        self.stream = stream
        self.total_steps = total_steps

    def log(self, metrics: Mapping[str, float], step: int) -> None:
        if "sft/loss" in metrics:
            self.stream.write(f"sft epoch {int(metrics.get('sft/epoch', 0))} | loss "
                              f"{metrics['sft/loss']:.4f} | "
                              f"{metrics.get('sft/epoch_s', 0):.1f} s\n")
            self.stream.flush()
            return
        parts = [f"step {step}" + (f"/{self.total_steps}" if self.total_steps else "")]
        if EVAL_SUCCESS in metrics:
            parts.append(f"eval success {metrics[EVAL_SUCCESS]:.3f}")
        for key, label, fmt in ((REWARD_MEAN, "reward", ".3f"), (SUCCESS_RATE, "success", ".2f"),
                                (FRAC_ZERO_STD, "zero-std", ".2f"), (TURNS, "turns", ".1f"),
                                ("loss/entropy", "entropy", ".3f")):
            if key in metrics:
                parts.append(f"{label} {metrics[key]:{fmt}}")
        if STEP_TIME_S in metrics:
            parts.append(f"{metrics[STEP_TIME_S]:.1f} s")
        self.stream.write(" | ".join(parts) + "\n")
        self.stream.flush()

    def close(self) -> None:
        """Nothing to release (the stream belongs to the caller)."""


class MultiSink:
    """Fan one ``log`` out to several sinks."""

    def __init__(self, sinks: Iterable[MetricsSink]) -> None:
        self.sinks = list(sinks)

    def log(self, metrics: Mapping[str, float], step: int) -> None:
        for sink in self.sinks:
            sink.log(metrics, step)

    def close(self) -> None:
        for sink in self.sinks:
            sink.close()


def rollout_metrics(trajectories: Sequence[Trajectory]) -> dict[str, float]:
    """Reward, success, format errors, lengths and truncations of a batch of episodes."""
    if not trajectories:
        return {}
    rewards = np.array([t.reward for t in trajectories])
    turns = [t for tr in trajectories for t in tr.turns]
    return {
        REWARD_MEAN: float(rewards.mean()), REWARD_STD: float(rewards.std()),
        SUCCESS_RATE: float(np.mean([t.success for t in trajectories])),
        FORMAT_ERROR_RATE: float(np.mean([t.format_error for t in trajectories])),
        UNSCORED_RATE: float(np.mean([not t.reward_valid for t in trajectories])),
        TURNS: float(np.mean([t.num_turns for t in trajectories])),
        TOKENS: float(np.mean([t.completion_tokens for t in trajectories])),
        PROMPT_TOKENS: float(np.mean([len(t.generation.prompt_ids) for t in turns]))
        if turns else 0.0,
        TRUNC_LENGTH: float(sum(t.finish_reason == "length" for t in turns)),
        TRUNC_MAX_TURNS: float(sum(t.truncation == "max_turns" for t in trajectories)),
        TRUNC_CONTEXT: float(sum(t.truncation == "context" for t in trajectories)),
    }


def read_jsonl(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The rows of a metrics JSONL file."""
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def plot_metrics(jsonl_path: str | os.PathLike[str], out_png: str | os.PathLike[str],
                 title: str = "GRPO") -> Path:
    """Plot rollout reward and success (and eval success, if logged) over steps to a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = read_jsonl(jsonl_path)
    train = [r for r in rows if r.get(REWARD_MEAN) is not None]
    evals = [r for r in rows if r.get(EVAL_SUCCESS) is not None]
    fig, ax = plt.subplots(figsize=(7, 4))
    if train:
        steps = [r["step"] for r in train]
        ax.plot(steps, [r[REWARD_MEAN] for r in train], label="rollout reward (mean)")
        ax.plot(steps, [r[SUCCESS_RATE] for r in train], label="rollout success rate")
    if evals:
        ax.plot([r["step"] for r in evals], [r[EVAL_SUCCESS] for r in evals], "o--",
                label="eval success rate")
    ax.set_xlabel("GRPO step")
    ax.set_ylim(-1.05, 1.05)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    ax.set_title(title)
    out = Path(out_png)
    tmp = out.with_suffix(".tmp.png")
    fig.savefig(tmp, dpi=100, bbox_inches="tight")
    plt.close(fig)
    os.replace(tmp, out)
    return out
