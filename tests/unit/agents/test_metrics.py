"""agents/grpo/metrics.py: JSONL and console sinks, rollout statistics, the plot."""

from __future__ import annotations

import io
import json

import pytest

from agents.grpo import metrics as M
from agents.grpo.rollout import EpisodeSpec, Trajectory, TurnSample
from agents.policies.sampling import Generation


def _traj(reward: float, success: bool, turns: int, truncation: str | None = None,
          finish: str = "stop") -> Trajectory:
    ts = tuple(TurnSample(Generation((1,) * 10, (2, 3), (-1.0, -1.0), finish, "a"), "a", "o", 0.0)
               for _ in range(turns))
    return Trajectory(EpisodeSpec("w", 0, 0, 0), "t", ts, reward, True, success,
                      reward == -1.0, truncation)


def test_rollout_metrics():
    m = M.rollout_metrics([_traj(1.0, True, 2), _traj(-1.0, False, 1),
                           _traj(0.0, False, 3, "max_turns", finish="length")])
    assert m[M.REWARD_MEAN] == pytest.approx(0.0)
    assert m[M.SUCCESS_RATE] == pytest.approx(1 / 3)
    assert m[M.FORMAT_ERROR_RATE] == pytest.approx(1 / 3)
    assert m[M.TURNS] == pytest.approx(2.0)
    assert m[M.TOKENS] == pytest.approx(4.0)
    assert m[M.TRUNC_LENGTH] == 3 and m[M.TRUNC_MAX_TURNS] == 1 and m[M.TRUNC_CONTEXT] == 0


def test_jsonl_sink_and_plot(tmp_path):
    sink = M.JSONLSink(tmp_path / "m.jsonl")
    for step in range(1, 4):
        sink.log({M.REWARD_MEAN: step / 4, M.SUCCESS_RATE: step / 5}, step)
    sink.log({M.EVAL_SUCCESS: 0.5, "x": float("nan")}, 3)
    sink.close()
    rows = M.read_jsonl(tmp_path / "m.jsonl")
    assert [r["step"] for r in rows] == [1, 2, 3, 3] and rows[-1]["x"] is None
    json.dumps(rows)  # strict JSON: no NaN
    png = M.plot_metrics(tmp_path / "m.jsonl", tmp_path / "r.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_console_line_for_sft_and_grpo():
    out = io.StringIO()
    sink = M.ConsoleSink(out, total_steps=5)
    sink.log({"sft/loss": 1.25, "sft/epoch": 2.0, "sft/epoch_s": 0.5}, -1)
    sink.log({M.REWARD_MEAN: 0.5, M.SUCCESS_RATE: 0.5, M.FRAC_ZERO_STD: 0.25}, 2)
    assert out.getvalue().splitlines() == ["sft epoch 2 | loss 1.2500 | 0.5 s",
                                           "step 2/5 | reward 0.500 | success 0.50 | zero-std 0.25"]


def test_the_plot_marks_evaluations_where_they_were_measured():
    rows = [{"step": s, M.REWARD_MEAN: s / 10, M.SUCCESS_RATE: s / 20} for s in range(1, 6)]
    rows += [{"step": 0, M.EVAL_SUCCESS: 0.25}, {"step": 5, M.EVAL_SUCCESS: 0.75}]
    fig = M.reward_figure(rows)
    ax = fig.axes[0]
    (evals,) = [line for line in ax.get_lines() if line.get_label().startswith("evaluation")]
    assert evals.get_linestyle() == "None" and evals.get_marker() == "D"  # points, no line
    assert list(evals.get_xdata()) == [0, 5] and list(evals.get_ydata()) == [0.25, 0.75]
    assert ax.get_xlabel() == "GRPO step" and ax.get_ylabel()
    fig.canvas.draw()
    ticks = [t for t in ax.get_xticks() if ax.get_xlim()[0] <= t <= ax.get_xlim()[1]]
    assert ticks and all(float(t).is_integer() for t in ticks)


def test_tensorboard_sink_writes_trl_names(tmp_path):
    pytest.importorskip("tensorboard")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    sink = M.make_report_sink("tensorboard", tmp_path)
    sink.log({M.REWARD_MEAN: 0.5, M.FRAC_ZERO_STD: 0.25, M.LOGP_DIFF_MAX: 1e-3,
              M.TURNS: 2.0}, 3)
    sink.close()
    events = EventAccumulator(str(tmp_path / "tensorboard")).Reload()
    tags = set(events.Tags()["scalars"])
    assert {"reward", "frac_reward_zero_std", "sampling/sampling_logp_difference/max",
            M.TURNS} <= tags
    (point,) = events.Scalars("reward")
    assert point.step == 3 and point.value == pytest.approx(0.5)


def test_wandb_sink_offline(tmp_path, monkeypatch):
    pytest.importorskip("wandb")
    monkeypatch.setenv("WANDB_MODE", "offline")
    monkeypatch.setenv("WANDB_SILENT", "true")
    sink = M.make_report_sink("wandb", tmp_path / "run", {"seed": 0})
    sink.log({M.SFT_LOSS: 2.0, M.SFT_EPOCH: 1.0}, 1)
    sink.log({M.REWARD_MEAN: 0.5, M.LR: 1e-3}, 0)  # GRPO step 0 after SFT epoch 1
    sink.log({M.REWARD_MEAN: 0.75, M.LR: 1e-3}, 1)
    run = sink.run
    assert run.summary["reward"] == 0.75 and run.summary["train/global_step"] == 1
    assert run.summary["learning_rate"] == 1e-3 and run.summary["sft/loss"] == 2.0
    sink.close()
    assert list((tmp_path / "run" / "wandb").glob("offline-run-*/run-*.wandb"))


def test_report_to_lists_the_choices():
    from agents.errors import AgentConfigError

    with pytest.raises(AgentConfigError, match="choose one of"):
        M.ReportTo.coerce("mlflow")


def test_a_run_with_a_split_plots_three_evaluation_series_and_prints_them():
    rows = [{"step": s, M.REWARD_MEAN: s / 10, M.SUCCESS_RATE: s / 20} for s in range(1, 5)]
    for step, (train, val_tasks, val_worlds) in ((0, (0.3, 0.1, 0.0)), (4, (0.7, 0.2, 0.0))):
        rows.append({"step": step, M.EVAL_SUCCESS: train, M.EVAL_VAL_TASKS_SUCCESS: val_tasks,
                     M.EVAL_VAL_WORLDS_SUCCESS: val_worlds})
    ax = M.reward_figure(rows).axes[0]
    series = {line.get_label(): line for line in ax.get_lines()}
    assert list(series)[2:] == ["evaluation success rate (train tasks)",
                                "held-out success rate (val_tasks: new tasks)",
                                "held-out success rate (val_worlds: new worlds)"]
    val_tasks = series["held-out success rate (val_tasks: new tasks)"]
    assert list(val_tasks.get_xdata()) == [0, 4] and list(val_tasks.get_ydata()) == [0.1, 0.2]
    assert {line.get_marker() for line in list(series.values())[2:]} == {"D", "o", "s"}
    out = io.StringIO()
    M.ConsoleSink(out, total_steps=4).log(rows[-1], 4)
    assert out.getvalue() == "step 4/4 | eval success 0.700 | val_tasks 0.200 | val_worlds 0.000\n"


def test_periodic_checkpoint_wandb_run_resumes_under_its_id(tmp_path, monkeypatch):
    """A resumed training run continues its W&B run: the first run's id is kept in the run
    folder and the resumed run's sink (through ``open_sink``, as run_training opens it) passes
    it to ``wandb.init`` with ``resume="allow"``; a run that is not resumed starts a new one."""
    import io

    wandb = pytest.importorskip("wandb")
    from agents.config import RunConfig, TrainConfig
    from agents.stages.run_folder import open_sink

    monkeypatch.setenv("WANDB_MODE", "offline")
    monkeypatch.setenv("WANDB_SILENT", "true")
    calls: list[dict] = []
    init = wandb.init

    def recorded_init(*args, **kwargs):
        calls.append(kwargs)
        return init(*args, **kwargs)

    monkeypatch.setattr(wandb, "init", recorded_init)
    out = tmp_path / "run"
    cfg = TrainConfig(run=RunConfig(out_dir=str(out), report_to="wandb"))
    first = open_sink(cfg, out, True, io.StringIO(), is_resumed=False)
    first.log({M.REWARD_MEAN: 0.5}, 1)
    first_id = first.sinks[-1].run.id
    first.close()
    resumed = open_sink(cfg, out, True, io.StringIO(), is_resumed=True)
    resumed.log({M.REWARD_MEAN: 0.75}, 2)
    assert resumed.sinks[-1].run.id == first_id
    resumed.close()
    assert calls[0].get("resume") is None
    assert calls[1]["id"] == first_id and calls[1]["resume"] == "allow"
    runs = sorted((out / "wandb").glob("offline-run-*"))  # the W&B run's files, per start
    assert runs and all((r / f"run-{first_id}.wandb").exists() for r in runs)
    fresh = open_sink(cfg, out, True, io.StringIO(), is_resumed=False)
    assert fresh.sinks[-1].run.id != first_id  # a new run is a new W&B run
    fresh.close()
