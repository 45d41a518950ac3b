"""Each training task's recent pass rate, and the task draw that follows it.

GRPO learns only from groups whose rollouts differ. A task the policy always solves, or never
does, gives groups whose rewards are all equal: their advantages are zero and their rollouts are
spent for nothing. The trainer therefore keeps, for every training task, an exponential moving
average of its groups' success (:class:`PassRates`) and, with ``task_sampling=pass_rate``, draws
the step's tasks with weight

    ``w(p) = max(floor, 4 p (1 - p))``

``4 p (1 - p)`` is 1 at ``p = 0.5`` and falls to 0 at ``p = 0`` or ``1``: it is proportional to
the variance of a Bernoulli outcome, so to the chance that a group of the task carries signal.
The ``floor`` (``RolloutConfig.pass_rate_floor``) keeps every task drawable: a task never
solved (or always solved) for a while is drawn less, never starved, and is measured again when
it is drawn. A task not yet drawn has no rate and weighs 1 (explored first). Tasks are drawn
without replacement within a round (Efraimidis-Spirakis keys ``u ** (1 / w)``), cycling through
the tasks again when a round needs more groups than there are tasks.

The rates are tracked in every run, whatever ``task_sampling``: the run folder gets their table
and plot (:func:`write_pass_rate_report`) and the metrics sinks ``curriculum/*``.

Example:
    >>> rates = PassRates(ema=0.5)
    >>> rates.update([GroupOutcome("w", 0, successes=2, episodes=4)], step=0)
    [('w', 0)]
    >>> rates.rate(("w", 0)), rates.weight(("w", 0), floor=0.05), rates.weight(("w", 1), 0.05)
    (0.5, 1.0, 1.0)
    >>> _ = rates.update([GroupOutcome("w", 0, successes=4, episodes=4)], step=1)
    >>> rates.rate(("w", 0)), round(rates.weight(("w", 0), floor=0.05), 3)
    (0.75, 0.75)
"""

from __future__ import annotations

import enum
import json
import math
import os
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from awm_gym.atomic_io import write_text_atomic
from awm_gym.vocab import coerce_enum

from ..errors import AgentConfigError

__all__ = ["TaskSampling", "GroupOutcome", "PassRates", "weighted_order",
           "write_pass_rate_report", "load_pass_rates", "PASS_RATE_FILE"]

Task = tuple[str, int]

PASS_RATE_FILE = "pass_rates.json"
"""The tracker's state in a checkpoint folder (so a resumed run draws as the first would)."""


class TaskSampling(str, enum.Enum):
    """How a GRPO step draws its tasks (``RolloutConfig.task_sampling``)."""

    UNIFORM = "uniform"
    """A fresh shuffle of all training tasks every step, cycled (each task as likely)."""
    PASS_RATE = "pass_rate"
    """Weighted by each task's recent pass rate: ``max(floor, 4 p (1 - p))`` (module docstring)."""

    @classmethod
    def coerce(cls, value: str | TaskSampling) -> TaskSampling:
        return coerce_enum(cls, value, field="RolloutConfig.task_sampling",
                           error=AgentConfigError)


@dataclass(frozen=True, slots=True)
class GroupOutcome:
    """One group's result: its task, how many of its scored episodes succeeded, and how many
    were scored (a group with none scored leaves the rate as it was)."""

    world: str
    task_idx: int
    successes: int
    episodes: int

    @property
    def task(self) -> Task:
        return (self.world, self.task_idx)


@dataclass
class PassRates:
    """Every task's pass rate as an exponential moving average over its groups.

    Args:
        ema: weight of a new group's success fraction (1: the last group only).

    A group updates its task's rate ``p <- (1 - ema) p + ema * successes / episodes``; the
    first group of a task sets it. ``history`` keeps ``(step, task, rate)`` for every update, for
    the run folder's table and plot.
    """

    ema: float = 0.5
    rates: dict[Task, float] = field(default_factory=dict)
    groups: dict[Task, int] = field(default_factory=dict)
    history: list[tuple[int, Task, float]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not 0 < self.ema <= 1:
            raise AgentConfigError(f"RolloutConfig.pass_rate_ema={self.ema}: use a weight in "
                                   "(0, 1] (0.5: a new group counts as much as all before it).")

    def rate(self, task: Task) -> float | None:
        """The task's pass rate, or None before its first group."""
        return self.rates.get(task)

    def weight(self, task: Task, floor: float) -> float:
        """The task's draw weight ``max(floor, 4 p (1 - p))`` (1 before its first group)."""
        p = self.rates.get(task)
        if p is None:
            return 1.0
        return max(floor, 4.0 * p * (1.0 - p))

    def update(self, outcomes: Iterable[GroupOutcome], step: int) -> list[Task]:
        """Fold groups' outcomes into the rates; returns the tasks that changed."""
        changed: list[Task] = []
        for o in outcomes:
            if o.episodes <= 0:
                continue
            frac = o.successes / o.episodes
            old = self.rates.get(o.task)
            new = frac if old is None else (1 - self.ema) * old + self.ema * frac
            self.rates[o.task] = new
            self.groups[o.task] = self.groups.get(o.task, 0) + 1
            self.history.append((step, o.task, new))
            changed.append(o.task)
        return changed

    def summary(self, tasks: Sequence[Task], floor: float) -> dict[str, float]:
        """``curriculum/*`` metrics over ``tasks``: how many are unseen, never solved, always
        solved and in between, the mean rate of the seen ones, and the share of the draw weight
        the learnable band holds."""
        seen = [self.rates[t] for t in tasks if t in self.rates]
        weights = [self.weight(t, floor) for t in tasks]
        band = [w for t, w in zip(tasks, weights, strict=True)
                if t in self.rates and 0 < self.rates[t] < 1]
        total = sum(weights) or 1.0
        return {
            "curriculum/tasks_unseen": float(len(tasks) - len(seen)),
            "curriculum/tasks_never_solved": float(sum(p <= 0 for p in seen)),
            "curriculum/tasks_always_solved": float(sum(p >= 1 for p in seen)),
            "curriculum/tasks_in_band": float(sum(0 < p < 1 for p in seen)),
            "curriculum/pass_rate_mean": float(sum(seen) / len(seen)) if seen else 0.0,
            "curriculum/band_weight_share": float(sum(band) / total),
        }

    def state_dict(self) -> dict[str, Any]:
        """JSON-able state (rates, group counts, history)."""
        return {"ema": self.ema,
                "rates": [[w, i, p] for (w, i), p in self.rates.items()],
                "groups": [[w, i, n] for (w, i), n in self.groups.items()],
                "history": [[s, w, i, p] for s, (w, i), p in self.history]}

    def to_json(self) -> str:
        """:meth:`state_dict` as JSON (the checkpoint's ``pass_rates.json``)."""
        return json.dumps(self.state_dict())

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> PassRates:
        """The tracker :meth:`state_dict` describes."""
        return cls(ema=float(state["ema"]),
                   rates={(w, int(i)): float(p) for w, i, p in state["rates"]},
                   groups={(w, int(i)): int(n) for w, i, n in state["groups"]},
                   history=[(int(s), (w, int(i)), float(p)) for s, w, i, p in state["history"]])


def weighted_order(tasks: Sequence[Task], weights: Sequence[float], count: int,
                   rng: random.Random) -> list[Task]:
    """``count`` tasks drawn with probability proportional to ``weights``, without replacement
    within each pass over the tasks (passes repeat when ``count > len(tasks)``).

    Example:
        >>> order = weighted_order([("w", 0), ("w", 1)], [1.0, 1e-9], 3, random.Random(0))
        >>> order[0], sorted(order[:2]), len(order)
        (('w', 0), [('w', 0), ('w', 1)], 3)
    """
    if not tasks:
        raise AgentConfigError("no training tasks to draw from (every task excluded?).")
    order: list[Task] = []
    while len(order) < count:
        keys = [math.log(max(rng.random(), 1e-300)) / w for w in weights]  # log(u ** (1/w))
        ranked = sorted(range(len(tasks)), key=lambda k: keys[k], reverse=True)
        order.extend(tasks[k] for k in ranked)
    return order[:count]


def write_pass_rate_report(rates: PassRates, tasks: Sequence[Task], out_dir: str | os.PathLike[str],
                           max_lines: int = 24) -> tuple[Path, Path]:
    """Write ``pass_rates.csv`` (one row per task: groups drawn, last rate, the step of its last
    group) and ``pass_rates.png`` (each task's rate over steps; the ``max_lines`` most drawn when
    there are more) into ``out_dir``; returns both paths.

    Example:
        >>> write_pass_rate_report(PassRates(), [("w", 0)], "out/run")  # doctest: +SKIP
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    last_step: dict[Task, int] = {}
    for step, task, _ in rates.history:
        last_step[task] = step
    lines = ["world,task_idx,groups,pass_rate,last_step"]
    for task in tasks:
        p = rates.rate(task)
        lines.append(f"{task[0]},{task[1]},{rates.groups.get(task, 0)},"
                     f"{'' if p is None else f'{p:.4f}'},{last_step.get(task, '')}")
    csv = out / "pass_rates.csv"
    write_text_atomic(csv, "\n".join(lines) + "\n")
    drawn = sorted(rates.groups, key=lambda t: (-rates.groups[t], t))[:max_lines]
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for task in drawn:
        points = [(s, p) for s, t, p in rates.history if t == task]
        ax.plot([s for s, _ in points], [p for _, p in points], marker=".",
                label=f"{task[0]}/{task[1]}")
    ax.set_xlabel("GRPO step")
    ax.set_ylabel("pass rate (EMA over the task's groups)")
    ax.set_ylim(-0.05, 1.05)
    ax.grid(alpha=0.3)
    if drawn:
        ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=7)
    ax.set_title(f"pass rate by task ({len(drawn)} of {len(rates.groups)} drawn tasks)")
    png = out / "pass_rates.png"
    tmp = png.with_suffix(".tmp.png")
    fig.savefig(tmp, dpi=100, bbox_inches="tight")
    plt.close(fig)
    os.replace(tmp, png)
    return csv, png


def load_pass_rates(folder: str | os.PathLike[str], ema: float) -> PassRates:
    """The tracker saved in a checkpoint folder (a fresh one when the checkpoint has none)."""
    path = Path(folder) / PASS_RATE_FILE
    if not path.exists():
        return PassRates(ema=ema)
    return PassRates.from_state(json.loads(path.read_text()))
