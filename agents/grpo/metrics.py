"""Training metrics: their keys (defined once), sinks, rollout stats and the plot.

Keys are ``<area>/<name>``. A sink has ``log(metrics, step)`` and ``close()``; the trainer logs
one dict per GRPO step (and ``eval/*`` dicts when it evaluates, ``sft/*`` once per SFT epoch,
with the epoch as step). JSONL and the console line are always written; ``report_to`` adds
TensorBoard (``torch.utils.tensorboard``, package ``tensorboard``) or W&B (``wandb``). Those two
receive TRL's name for every metric TRL also logs (:data:`TRL_NAMES`: ``reward``,
``frac_reward_zero_std``, ``clip_ratio/low_mean``, ...), so dashboards made for TRL's GRPO
read our runs; metrics TRL has no name for keep ours.

Example:
    >>> import io
    >>> out = io.StringIO()
    >>> ConsoleSink(out, total_steps=3).log({REWARD_MEAN: 0.5, SUCCESS_RATE: 0.25,
    ...                                      STEP_TIME_S: 1.5}, step=1)
    >>> out.getvalue()
    'step 1/3 | reward 0.500 | success 0.25 | 1.5 s\\n'
"""

from __future__ import annotations

import enum
import json
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import IO, Any, Protocol

import numpy as np

from awm_gym.vocab import coerce_enum

from .rollout import Trajectory

__all__ = ["MetricsSink", "JSONLSink", "ConsoleSink", "MultiSink", "TensorBoardSink",
           "WandbSink", "ReportTo", "TRL_NAMES", "make_report_sink", "rollout_metrics",
           "rollout_totals", "metrics_from_totals",
           "plot_metrics", "reward_figure", "read_jsonl"]

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
CONTEXT_OVERFLOW_RATE = "rollout/context_overflow_rate"
"""Share of episodes stopped by a prompt over the context; GRPO leaves them unscored."""
MASKED_EPISODES = "rollout/masked_cut_episodes"
ROUNDS = "rollout/rounds"
"""Rollout rounds the step ran (1 without dynamic sampling)."""
EPISODES_SAMPLED = "rollout/episodes_sampled"
GROUPS_KEPT = "rollout/groups_kept"
"""Groups the step trained on (with dynamic sampling: groups with signal, up to
groups_per_step; without: every group drawn)."""
GROUPS_DISCARDED = "rollout/groups_discarded"
GROUPS_WITH_SIGNAL = "rollout/groups_with_signal"
GROUPS_SHORT = "rollout/groups_short"
"""groups_per_step minus the groups with signal kept, when dynamic sampling spent its rounds
first (0 otherwise, and 0 without dynamic sampling)."""
DISCARDED_TIME_FRAC = "rollout/discarded_time_frac"
"""Share of the step's rollout seconds spent on groups it discarded."""
PASS_RATE_PREFIX = "pass_rate/"
"""``pass_rate/<world>/<task_idx>``: a task's pass rate, logged at the steps that drew it."""
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
FORWARD_TOKENS = "perf/forward_tokens"
"""Positions the update's forward passes ran through the model body, padding included (the
old log-probabilities' and the reference's passes too; with OptimConfig.padding_free the packed
rows' unfilled tails)."""
HEAD_TOKENS = "perf/head_tokens"
"""Positions those passes ran through the output head (padding_free: the sampled tokens only)."""
ENV_TIME_S = "time/env_s"
GENERATE_TIME_S = "time/generate_s"
TRAIN_TIME_S = "time/train_s"
SYNC_TIME_S = "time/sync_s"
STEP_TIME_S = "time/step_s"
LR = "optim/lr"
EVAL_SUCCESS = "eval/success_rate"
EVAL_REWARD = "eval/reward_mean"
EVAL_AREAS = {"train": "eval", "val_tasks": "eval_val_tasks", "val_worlds": "eval_val_worlds"}
"""Metric area of each evaluated subset of a split: ``eval/*`` are the training tasks (every
task when the run has no split), ``eval_val_tasks/*`` and ``eval_val_worlds/*`` the held-out
ones."""
EVAL_VAL_TASKS_SUCCESS = "eval_val_tasks/success_rate"
EVAL_VAL_WORLDS_SUCCESS = "eval_val_worlds/success_rate"
SFT_LOSS = "sft/loss"
SFT_EPOCH = "sft/epoch"

TRL_NAMES = {
    REWARD_MEAN: "reward", REWARD_STD: "reward_std", FRAC_ZERO_STD: "frac_reward_zero_std",
    TOKENS: "completions/mean_length", "loss/policy": "loss", "loss/entropy": "entropy",
    "loss/grad_norm": "grad_norm", LR: "learning_rate", "loss/kl_ref": "kl",
    "loss/clip_frac_low": "clip_ratio/low_mean", "loss/clip_frac_high": "clip_ratio/high_mean",
    "loss/num_tokens": "num_tokens",
}
"""Our key -> TRL GRPOTrainer's name, for the TensorBoard and W&B sinks (``sampling/*`` keys
already are TRL's)."""


class ReportTo(str, enum.Enum):
    """Where metrics go besides ``metrics.jsonl`` and the console line."""

    NONE = "none"
    TENSORBOARD = "tensorboard"
    """Event files in ``<run>/tensorboard`` (needs the ``tensorboard`` package)."""
    WANDB = "wandb"
    """A W&B run (``WANDB_MODE=offline`` keeps it on disk; needs ``wandb``)."""

    @classmethod
    def coerce(cls, value: str | ReportTo) -> ReportTo:
        from ..errors import AgentConfigError

        return coerce_enum(cls, value, field="RunConfig.report_to", error=AgentConfigError)


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
        if SFT_LOSS in metrics:
            self.stream.write(f"sft epoch {int(metrics.get(SFT_EPOCH, 0))} | loss "
                              f"{metrics[SFT_LOSS]:.4f} | "
                              f"{metrics.get('sft/epoch_s', 0):.1f} s\n")
            self.stream.flush()
            return
        parts = [f"step {step}" + (f"/{self.total_steps}" if self.total_steps else "")]
        if EVAL_SUCCESS in metrics:
            parts.append(f"eval success {metrics[EVAL_SUCCESS]:.3f}")
        for key, label in ((EVAL_VAL_TASKS_SUCCESS, "val_tasks"),
                           (EVAL_VAL_WORLDS_SUCCESS, "val_worlds")):
            if key in metrics:
                parts.append(f"{label} {metrics[key]:.3f}")
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


def _trl_named(metrics: Mapping[str, float]) -> dict[str, float]:
    return {TRL_NAMES.get(k, k): float(v) for k, v in metrics.items()
            if isinstance(v, (int, float)) and math.isfinite(v)}


class TensorBoardSink:
    """Scalars to TensorBoard event files, under TRL's names (SFT epochs on their own axis)."""

    def __init__(self, log_dir: str | os.PathLike[str]) -> None:
        try:
            from torch.utils.tensorboard import SummaryWriter
        except ImportError as e:
            from ..errors import AgentConfigError

            raise AgentConfigError("report_to=tensorboard needs the tensorboard package: pip "
                                   "install 'awm-gym[tensorboard]'.") from e
        self.writer = SummaryWriter(log_dir=str(log_dir))

    def log(self, metrics: Mapping[str, float], step: int) -> None:
        for key, value in _trl_named(metrics).items():
            self.writer.add_scalar(key, value, step)
        self.writer.flush()

    def close(self) -> None:
        self.writer.close()


WANDB_RUN_ID_FILE = "wandb_run_id.txt"
"""The run folder's record of its W&B run's id (a resumed run continues that W&B run)."""


class WandbSink:
    """A W&B run; every metric is charted against ``train/global_step`` (W&B's own step must
    only grow, and SFT epochs come before GRPO step 0), SFT metrics against ``sft/epoch``.

    The run's id is written to ``<run_dir>/wandb_run_id.txt``; a resumed training run
    (``is_resumed``) reads it back and continues that W&B run (``wandb.init(id=...,
    resume="allow")``) instead of starting a second one.

    Args:
        project: the W&B project.
        run_dir: the training run's folder (W&B's files go to ``<run_dir>/wandb``).
        config: the resolved run config, saved with the run.
        name: the run's name (None: W&B picks one).
        is_resumed: continue the W&B run whose id the run folder holds (a new one if none).
    """

    def __init__(self, project: str, run_dir: str | os.PathLike[str],
                 config: Mapping[str, Any] | None = None, name: str | None = None,
                 is_resumed: bool = False) -> None:
        try:
            import wandb
        except ImportError as e:
            from ..errors import AgentConfigError

            raise AgentConfigError("report_to=wandb needs the wandb package: pip install "
                                   "'awm-gym[wandb]' (WANDB_MODE=offline runs without an "
                                   "account).") from e
        Path(run_dir).mkdir(parents=True, exist_ok=True)
        id_file = Path(run_dir) / WANDB_RUN_ID_FILE
        run_id = id_file.read_text().strip() if is_resumed and id_file.exists() else None
        self.run = wandb.init(project=project, dir=str(run_dir), config=dict(config or {}),
                              name=name, reinit="create_new", id=run_id,
                              resume="allow" if run_id else None)
        id_file.write_text(self.run.id)
        self.run.define_metric("train/global_step")
        self.run.define_metric(SFT_EPOCH)
        self.run.define_metric("sft/*", step_metric=SFT_EPOCH)
        self.run.define_metric("*", step_metric="train/global_step")

    def log(self, metrics: Mapping[str, float], step: int) -> None:
        row = _trl_named(metrics)
        if SFT_LOSS not in metrics:
            row["train/global_step"] = step
        self.run.log(row)

    def close(self) -> None:
        if self.run is not None:
            self.run.finish()
            self.run = None


def make_report_sink(report_to: ReportTo | str, run_dir: str | os.PathLike[str],
                     config: Mapping[str, Any] | None = None, project: str = "awm-gym",
                     is_resumed: bool = False) -> MetricsSink | None:
    """The sink ``report_to`` names (None for ``none``), writing under ``run_dir``
    (``is_resumed``: a resumed training run, whose W&B run continues)."""
    kind = ReportTo.coerce(report_to)
    if kind is ReportTo.TENSORBOARD:
        return TensorBoardSink(Path(run_dir) / "tensorboard")
    if kind is ReportTo.WANDB:
        return WandbSink(project, Path(run_dir), config, name=Path(run_dir).name,
                         is_resumed=is_resumed)
    return None


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


_TOTALS = ("episodes", "reward", "reward_sq", "success", "format_error", "unscored", "turns",
           "tokens", "prompt_tokens", "turn_samples", "trunc_length", "trunc_max_turns",
           "trunc_context")


def rollout_totals(trajectories: Sequence[Trajectory]) -> list[float]:
    """Sums over a batch of episodes (in :data:`_TOTALS` order) from which
    :func:`metrics_from_totals` derives the rollout metrics: ranks add these few floats
    (``all_reduce``) instead of moving their trajectories.

    Example:
        >>> rollout_totals([])[:3]
        [0.0, 0.0, 0.0]
    """
    turns = [t for tr in trajectories for t in tr.turns]
    return [float(len(trajectories)), float(sum(t.reward for t in trajectories)),
            float(sum(t.reward ** 2 for t in trajectories)),
            float(sum(t.success for t in trajectories)),
            float(sum(t.format_error for t in trajectories)),
            float(sum(not t.reward_valid for t in trajectories)),
            float(sum(t.num_turns for t in trajectories)),
            float(sum(t.completion_tokens for t in trajectories)),
            float(sum(len(t.generation.prompt_ids) for t in turns)), float(len(turns)),
            float(sum(t.finish_reason == "length" for t in turns)),
            float(sum(t.truncation == "max_turns" for t in trajectories)),
            float(sum(t.is_context_overflow for t in trajectories))]


def metrics_from_totals(totals: Sequence[float]) -> dict[str, float]:
    """Reward, success, format errors, lengths and truncations from :func:`rollout_totals`
    (summed over ranks or not); ``{}`` for no episodes."""
    t = dict(zip(_TOTALS, totals, strict=True))
    n = t["episodes"]
    if not n:
        return {}
    mean = t["reward"] / n
    return {
        REWARD_MEAN: mean, REWARD_STD: math.sqrt(max(t["reward_sq"] / n - mean ** 2, 0.0)),
        SUCCESS_RATE: t["success"] / n, FORMAT_ERROR_RATE: t["format_error"] / n,
        UNSCORED_RATE: t["unscored"] / n, TURNS: t["turns"] / n, TOKENS: t["tokens"] / n,
        PROMPT_TOKENS: t["prompt_tokens"] / t["turn_samples"] if t["turn_samples"] else 0.0,
        TRUNC_LENGTH: t["trunc_length"], TRUNC_MAX_TURNS: t["trunc_max_turns"],
        TRUNC_CONTEXT: t["trunc_context"], CONTEXT_OVERFLOW_RATE: t["trunc_context"] / n,
    }


def rollout_metrics(trajectories: Sequence[Trajectory]) -> dict[str, float]:
    """Reward, success, format errors, lengths and truncations of a batch of episodes."""
    return metrics_from_totals(rollout_totals(trajectories))


def read_jsonl(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The rows of a metrics JSONL file."""
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def reward_figure(rows: Sequence[Mapping[str, Any]], title: str = "GRPO") -> Any:
    """The reward plot of metrics rows (see :func:`plot_metrics`) as a matplotlib figure."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    train = [r for r in rows if r.get(REWARD_MEAN) is not None]
    fig, ax = plt.subplots(figsize=(7, 4))
    if train:
        steps = [r["step"] for r in train]
        ax.plot(steps, [r[REWARD_MEAN] for r in train], label="rollout reward (mean)")
        ax.plot(steps, [r[SUCCESS_RATE] for r in train], label="rollout success rate")
    held_out = any(r.get(k) is not None for r in rows
                   for k in (EVAL_VAL_TASKS_SUCCESS, EVAL_VAL_WORLDS_SUCCESS))
    for key, marker, label in (
            (EVAL_SUCCESS, "D", "evaluation success rate" + (" (train tasks)" if held_out else "")),
            (EVAL_VAL_TASKS_SUCCESS, "o", "held-out success rate (val_tasks: new tasks)"),
            (EVAL_VAL_WORLDS_SUCCESS, "s", "held-out success rate (val_worlds: new worlds)")):
        evals = [r for r in rows if r.get(key) is not None]
        if evals:
            ax.plot([r["step"] for r in evals], [r[key] for r in evals], marker=marker,
                    markersize=7, linestyle="none", label=label)
    ax.set_xlabel("GRPO step")
    ax.set_ylabel("reward (-1 .. 1) / success rate (0 .. 1)")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylim(-1.05, 1.05)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    ax.set_title(title)
    return fig


def plot_metrics(jsonl_path: str | os.PathLike[str], out_png: str | os.PathLike[str],
                 title: str = "GRPO") -> Path:
    """Plot rollout reward and success over GRPO steps, and each evaluation as a marker at the
    step it was measured (no line between evaluations: nothing was measured in between), to a
    PNG; labelled axes, integer step ticks. A run with a split gets three evaluation series:
    the training tasks, val_tasks and val_worlds."""
    import matplotlib.pyplot as plt

    fig = reward_figure(read_jsonl(jsonl_path), title)
    out = Path(out_png)
    tmp = out.with_suffix(".tmp.png")
    fig.savefig(tmp, dpi=100, bbox_inches="tight")
    plt.close(fig)
    os.replace(tmp, out)
    return out
