"""GRPO's own gain on a real model: every GRPO variant starts from one saved SFT checkpoint.

``scripts/grpo_gain.sh`` runs it (docs/training.md, section 8.2). SmolLM2-135M-Instruct with
LoRA, on the real-model job's training subset (scripts/real_model.py: every built-in world's
seed-0 split, train tasks whose oracle episode fits 4 turns):

1. **SFT checkpoint.** SFT on the oracle's rollouts, saved to ``<run>/adapter_sft`` with the
   split; a later run with the same folder loads it instead of training again, so every
   variant (and every rerun) starts from the same weights.
2. **Evaluate the SFT checkpoint**: the training tasks sampled (``--episodes-per-task`` per
   task, 4 by default: 48 episodes on 12 tasks) and greedy, the held-out subsets greedy.
3. **GRPO variants**, each from the SFT checkpoint with a fresh optimizer, each stopped when it
   has sampled ``--rollout-budget`` episodes (an equal rollout budget: a dynamic-sampling step
   costs its rounds): ``dynamic+pass_rate`` (dynamic sampling, pass-rate task draw) and
   ``plain`` (one round, uniform draw); ``--variants pass_rate`` adds one round with the
   pass-rate draw. Each is evaluated as the checkpoint was.

Rows (success with 95% Wilson and task-bootstrap intervals), each variant's per-step groups
with signal, phase times and the reward curves land in ``<run>/grpo_gain.{json,md,png}``.

Example:
    >>> cfg = gain_config(["--model.path", "out/smollm2"])       # doctest: +SKIP
    >>> run_gain(cfg, GainOptions())["rows"][0]["stage"]          # doctest: +SKIP
    'sft'
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

sys.path.insert(0, str(Path(__file__).parent))
from real_model import (  # noqa: E402
    MAX_ORACLE_TURNS,
    EvalRow,
    _run_sft,
    eval_policies,
    eval_row,
    real_model_config,
    rows_table,
    short_train_split,
)

from agents.config import TrainConfig, config_to_dict  # noqa: E402
from agents.evaluate import EvalConfig, evaluate_policy  # noqa: E402
from awm_gym.atomic_io import write_text_atomic  # noqa: E402
from awm_gym.worlds import Split, Subset  # noqa: E402

__all__ = ["GainOptions", "VARIANTS", "gain_config", "plot_runs", "run_gain", "main"]

GAIN_ARGS = ("--optim.lr", "1e-4", "--rollout.max-sampling-rounds", "3")
"""Over the real-model job's options: a LoRA learning rate of 1e-4 (5e-5 moved 8/24 to 9/24 in
4 steps, docs/training.md 8.1) and at most 3 rollout rounds a step with dynamic sampling."""

VARIANTS = {
    "dynamic+pass_rate": {"dynamic_sampling": True, "task_sampling": "pass_rate"},
    "plain": {"dynamic_sampling": False, "task_sampling": "uniform"},
    "pass_rate": {"dynamic_sampling": False, "task_sampling": "pass_rate"},
}
"""The GRPO variants, by the rollout options they set."""


@dataclass(frozen=True)
class GainOptions:
    """What this job adds to the ``awm train`` options."""

    rollout_budget: int = 96
    """Episodes each GRPO variant samples before it stops (every round counts)."""
    episodes_per_task: int = 4
    """Sampled evaluation episodes per training task (>= 48 episodes on 12 tasks)."""
    variants: tuple[str, ...] = ("dynamic+pass_rate", "plain")
    """Which GRPO variants run, in order."""
    max_oracle_turns: int = MAX_ORACLE_TURNS
    """The training subset: train tasks whose oracle episode fits this many turns."""
    reuse_trained: bool = False
    """A variant a former run of this folder trained (``<run>/<variant>/adapter``) is loaded
    and evaluated again, not trained again: a re-evaluation with more episodes per task."""


def gain_config(argv: list[str]) -> TrainConfig:
    """The real-model job's config with :data:`GAIN_ARGS`, then ``argv`` (which win)."""
    return real_model_config([*GAIN_ARGS, *argv])


def _evaluate(stage: str, policies: dict[str, Any], envs: dict[str, Any], cfg: TrainConfig,
              opts: GainOptions, console: IO[str]) -> list[EvalRow]:
    """The training tasks sampled and greedy, each held-out subset greedy."""
    plan = [("train", f"sampled T={cfg.eval.temperature:g}", policies["sampled"],
             EvalConfig(episodes_per_task=opts.episodes_per_task,
                        temperature=cfg.eval.temperature, seed=cfg.eval.seed))]
    plan += [(name, "greedy", policies["greedy"],
              EvalConfig(episodes_per_task=1, temperature=0.0, seed=cfg.eval.seed))
             for name in envs]
    rows = []
    for name, mode, policy, eval_cfg in plan:
        start = time.perf_counter()
        result = evaluate_policy(policy, envs[name], eval_cfg)
        rows.append(eval_row(stage, name, mode, result, time.perf_counter() - start))
        r = rows[-1]
        console.write(f"[{stage}] {name} {mode}: {r.successes}/{r.episodes} "
                      f"[{r.wilson[0]:.3f}, {r.wilson[1]:.3f}] ({r.seconds:.0f} s)\n")
        console.flush()
    return rows


def _sft_checkpoint(cfg: TrainConfig, split: Split, out: Path, train_envs: Any,
                    console: IO[str], timings: dict[str, float]) -> Path:
    """``out/adapter_sft``: loaded when a former run left it with the same split, else trained
    now (SFT of fresh LoRA adapters) and saved."""
    from agents.grpo.metrics import JSONLSink
    from agents.lora import apply_lora
    from agents.policies.hf_policy import load_model_and_tokenizer

    folder = out / "adapter_sft"
    saved = out / "adapter_sft_split.json"
    if (folder / "adapter_config.json").exists() and saved.exists() and \
            json.loads(saved.read_text()) == json.loads(split.to_json()):
        console.write(f"SFT checkpoint: reusing {folder.name}\n")
        return folder
    base, tokenizer = load_model_and_tokenizer(cfg.model.path, cfg.run.device)
    model = apply_lora(base, cfg.model.lora)
    sink = JSONLSink(out / "sft_metrics.jsonl")
    try:
        _run_sft(cfg, model, tokenizer, train_envs, out, sink, console, timings)
    finally:
        sink.close()
    model.save_pretrained(folder)
    write_text_atomic(saved, split.to_json())
    return folder


def _from_checkpoint(cfg: TrainConfig, folder: Path) -> tuple[Any, Any]:
    """The base model with the SFT checkpoint's adapters, trainable."""
    from agents.lora import load_adapter
    from agents.policies.hf_policy import load_model_and_tokenizer

    base, tokenizer = load_model_and_tokenizer(cfg.model.path, cfg.run.device)
    return load_adapter(base, folder), tokenizer


def _run_variant(name: str, cfg: TrainConfig, folder: Path, train_envs: Any, policy: Any,
                 opts: GainOptions, out: Path, console: IO[str]) -> tuple[Any, list[dict]]:
    """GRPO from the SFT checkpoint until the rollout budget is spent; returns the trained
    model and the per-step metrics."""
    from agents.grpo import metrics as M
    from agents.grpo.metrics import ConsoleSink, JSONLSink, MultiSink
    from agents.grpo.train import GRPOSetup, GRPOTrainer

    rollout = dataclasses.replace(cfg.rollout, **VARIANTS[name])
    run_cfg = dataclasses.replace(cfg, rollout=rollout)
    model, tokenizer = _from_checkpoint(cfg, folder)
    policy.backend.load_weights(model)
    setup = GRPOSetup(rollout, cfg.grpo, cfg.optim, cfg.sampling.temperature, cfg.run.seed, 0,
                      cfg.model.dtype)
    trainer = GRPOTrainer(model, tokenizer, train_envs, policy, setup,
                          config_record=config_to_dict(run_cfg))
    run_dir = out / name
    sink = MultiSink([JSONLSink(run_dir / "metrics.jsonl"), ConsoleSink(console)])
    steps: list[dict] = []
    sampled = 0
    try:
        while sampled < opts.rollout_budget:
            metrics = trainer.step()
            sink.log(metrics, trainer.step_idx)
            sampled += int(metrics[M.EPISODES_SAMPLED])
            steps.append({k: v for k, v in metrics.items()
                          if not k.startswith(M.PASS_RATE_PREFIX)})
            console.write(f"[{name}] step {trainer.step_idx}: rounds {metrics[M.ROUNDS]:.0f}, "
                          f"groups with signal {metrics[M.GROUPS_WITH_SIGNAL]:.0f}/"
                          f"{metrics[M.EPISODES_SAMPLED] / rollout.group_size:.0f}, kept "
                          f"{metrics[M.GROUPS_KEPT]:.0f}, {sampled}/{opts.rollout_budget} "
                          "episodes\n")
    finally:
        sink.close()
    trainer.write_pass_rates(str(run_dir))
    model.save_pretrained(run_dir / "adapter")
    M.plot_metrics(run_dir / "metrics.jsonl", run_dir / "reward.png", title=f"GRPO ({name})")
    return model, steps


def run_gain(cfg: TrainConfig, opts: GainOptions, console: IO[str] | None = None
             ) -> dict[str, Any]:
    """SFT checkpoint, its evaluation, each GRPO variant and its evaluation; returns the
    report (also written to ``<run>/grpo_gain.json`` and ``.md``)."""
    import torch

    from agents.grpo import metrics as M
    from agents.pipeline import make_envs, make_eval_envs, make_split
    from agents.stages.training import rollout_policy

    console = console or sys.stderr
    t0 = time.perf_counter()
    out = Path(cfg.run.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if cfg.run.torch_threads is not None:
        torch.set_num_threads(cfg.run.torch_threads)
    torch.manual_seed(cfg.run.seed)
    timings: dict[str, float] = {}
    split = make_split(cfg.split, cfg.rollout)
    assert split is not None
    t = time.perf_counter()
    split, _ = short_train_split(cfg, split, out, opts.max_oracle_turns)
    timings["select_s"] = time.perf_counter() - t
    train_envs = make_envs(cfg.rollout, cfg.rollout.episodes_per_step, split, Subset.TRAIN)
    eval_envs = make_eval_envs(cfg.rollout, dataclasses.replace(
        cfg.eval, episodes_per_task=opts.episodes_per_task, val_episodes_per_task=1),
        train_envs, split)
    rows: list[EvalRow] = []
    curves: dict[str, list[dict]] = {}
    policy = None
    try:
        t = time.perf_counter()
        folder = _sft_checkpoint(cfg, split, out, train_envs, console, timings)
        timings.setdefault("sft_s", time.perf_counter() - t)
        model, tokenizer = _from_checkpoint(cfg, folder)
        policy = rollout_policy(cfg.rollout.backend, model, tokenizer, cfg.model.path,
                                cfg.model, cfg.chat, cfg.sampling, cfg.vllm,
                                cfg.rollout.hf_batch_size)
        policy.backend.load_weights(model)
        policies = eval_policies(cfg, policy.backend, tokenizer, policy.context_length)
        t = time.perf_counter()
        rows += _evaluate("sft", policies, eval_envs, cfg, opts, console)
        timings["eval_sft_s"] = time.perf_counter() - t
        for name in opts.variants:
            t = time.perf_counter()
            if opts.reuse_trained and (out / name / "adapter" / "adapter_config.json").exists():
                console.write(f"[{name}] reusing its trained adapter\n")
                trained, _ = _from_checkpoint(cfg, out / name / "adapter")
                curves[name] = M.read_jsonl(out / name / "metrics.jsonl")
            else:
                trained, curves[name] = _run_variant(name, cfg, folder, train_envs, policy,
                                                     opts, out, console)
                timings[f"grpo_{name}_s"] = time.perf_counter() - t
            policy.backend.load_weights(trained)
            t = time.perf_counter()
            rows += _evaluate(f"sft+grpo ({name})", policies, eval_envs, cfg, opts, console)
            timings[f"eval_{name}_s"] = time.perf_counter() - t
            del trained
    finally:
        if policy is not None:
            policy.close()
        train_envs.close()
        for envs in eval_envs.values():
            envs.close()
    timings["total_s"] = time.perf_counter() - t0
    return _report(out, rows, curves, timings, cfg, opts, console)


def _report(out: Path, rows: list[EvalRow], curves: dict[str, list[dict]],
            timings: dict[str, float], cfg: TrainConfig, opts: GainOptions,
            console: IO[str]) -> dict[str, Any]:
    from agents.grpo import metrics as M

    report = {"rows": [r.__dict__ | {"rate": r.rate} for r in rows], "steps": curves,
              "timings": timings, "options": dataclasses.asdict(opts),
              "config": config_to_dict(cfg)}
    write_text_atomic(out / "grpo_gain.json", json.dumps(report, indent=2))
    lines = [rows_table(rows), ""]
    for name, steps in curves.items():
        signal = sum(s[M.GROUPS_WITH_SIGNAL] for s in steps)
        sampled = sum(s[M.EPISODES_SAMPLED] for s in steps) / cfg.rollout.group_size
        kept = sum(s[M.GROUPS_KEPT] for s in steps)
        lines.append(f"{name}: {len(steps)} steps, groups with signal {signal:.0f}/{sampled:.0f}"
                     f" sampled, {kept:.0f} trained on; rollout success per step "
                     + ", ".join(f"{s[M.SUCCESS_RATE]:.2f}" for s in steps))
    lines.append("")
    lines.append("phases: " + " | ".join(f"{k.removesuffix('_s')} {v:.0f} s"
                                          for k, v in timings.items()))
    text = "\n".join(lines) + "\n"
    write_text_atomic(out / "grpo_gain.md", text)
    _plot(out / "grpo_gain.png", curves)
    console.write(text)
    return report


_SMOOTH = 5
"""Steps in the rolling mean drawn over a long run's per-step success."""


def _plot(path: Path, curves: dict[str, list[dict]]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from agents.grpo import metrics as M

    fig, ax = plt.subplots(figsize=(7, 4))
    for name, steps in curves.items():
        episodes, total = [], 0
        for s in steps:
            total += s[M.EPISODES_SAMPLED]
            episodes.append(total)
        rates = [s[M.SUCCESS_RATE] for s in steps]
        line, = ax.plot(episodes, rates, marker="o", markersize=3, alpha=0.5, label=name)
        if len(rates) >= 2 * _SMOOTH:  # a long run: its trend, the mean of the last 5 steps
            windows = [rates[max(0, i - _SMOOTH + 1):i + 1] for i in range(len(rates))]
            mean = [sum(w) / len(w) for w in windows]
            ax.plot(episodes, mean, color=line.get_color(), linewidth=2,
                    label=f"{name}, mean of {_SMOOTH} steps")
    ax.set_xlabel("episodes sampled (rollout budget spent)")
    ax.set_ylabel("rollout success rate of the step")
    ax.set_ylim(-0.05, 1.05)
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", fontsize=8)
    ax.set_title("SmolLM2-135M GRPO from one SFT checkpoint")
    fig.savefig(path, dpi=100, bbox_inches="tight")
    plt.close(fig)


def plot_runs(path: Path, runs: dict[str, str]) -> None:
    """The reward curves of finished variants (name -> its ``metrics.jsonl``) in one plot, as
    :func:`run_gain` draws them: how the figure of docs/benchmarks/training-runs.md, 8.2 is made
    from runs of different budgets."""
    from agents.grpo import metrics as M

    _plot(path, {name: M.read_jsonl(metrics) for name, metrics in runs.items()})


def main(argv: list[str] | None = None) -> int:
    """``python scripts/grpo_gain.py [--rollout-budget N] [--episodes-per-task K]
    [--variants a,b] [awm train options]``, or ``--plot NAME=METRICS_JSONL ... --plot-out
    PNG`` to draw finished runs' curves together."""
    import logging

    job = argparse.ArgumentParser(add_help=False)
    job.add_argument("--rollout-budget", type=int, default=GainOptions.rollout_budget)
    job.add_argument("--episodes-per-task", type=int, default=GainOptions.episodes_per_task)
    job.add_argument("--variants", default=",".join(GainOptions.variants))
    job.add_argument("--train-max-oracle-turns", type=int, default=MAX_ORACLE_TURNS)
    job.add_argument("--reuse-trained", action="store_true",
                     help="evaluate variants this folder already trained instead of training")
    job.add_argument("--plot", nargs="+", metavar="NAME=METRICS_JSONL",
                     help="only draw the reward curves of finished runs into --plot-out")
    job.add_argument("--plot-out", type=Path, default=Path("grpo_gain.png"))
    known, rest = job.parse_known_args(list(sys.argv[1:] if argv is None else argv))
    if known.plot:
        bad = [item for item in known.plot if "=" not in item
               or not Path(item.split("=", 1)[1]).is_file()]
        if bad:
            raise SystemExit(f"--plot: {bad} is not NAME=METRICS_JSONL with an existing file; "
                             "e.g. --plot plain=out/grpo_gain/plain/metrics.jsonl")
        plot_runs(known.plot_out, dict(item.split("=", 1) for item in known.plot))
        return 0
    variants = tuple(v for v in known.variants.split(",") if v)
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        raise SystemExit(f"--variants: unknown {unknown}; choose from {list(VARIANTS)}")
    opts = GainOptions(known.rollout_budget, known.episodes_per_task, variants,
                       known.train_max_oracle_turns, known.reuse_trained)
    logging.basicConfig(level=logging.WARNING)
    run_gain(gain_config(rest), opts)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
