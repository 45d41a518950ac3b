"""Learning test: from the SFT warm start, GRPO raises the success rate on the training tasks,
in each of two run seeds and significantly over both.

Runs the main job (:func:`agents.pipeline.run_training` with ``TrainConfig()``: tiny model, the
seed-0 split of the built-in worlds, oracle SFT on spotify's 8 training tasks, no catalogue in
the prompt, 20 GRPO steps of 8 x 8 rollouts with the cut-turn penalty, every training task
evaluated 8 times (64 episodes) before and after, val_tasks and val_worlds beside them). The
held-out numbers are printed and recorded (the ``held_out`` property), not asserted. Slow
(about 3 minutes per seed on 2 idle CPU cores, more on a busy machine) and opt-in:

    AWM_RUN_LEARNING=1 python -m pytest -q -s -m slow tests/integration/agents/test_learning.py

The thresholds come from the spread measured over seeds (docs/training.md, section 7).
"""

from __future__ import annotations

import os

import pytest

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(3600),
    pytest.mark.skipif(os.environ.get("AWM_RUN_LEARNING") != "1",
                       reason="opt-in: set AWM_RUN_LEARNING=1 (takes minutes)"),
]

SEEDS = (0, 1)
"""Run seeds (SFT order, task draws, sampling); the split and the model init stay fixed."""
MIN_GAIN = 0.10
"""Required rise of each seed's success rate on the 64 training-task episodes. Measured on this
configuration and code (2026-11-27, docs/training.md section 7): seed 0 +0.25 (0.234 ->
0.484), seed 1 +0.61 (0.312 -> 0.922), seed 2 +0.22 (0.625 -> 0.844); earlier code versions
gave +0.16 to +0.71. The same seed prints another line on a host whose CPU kernels differ
(seed 0 +0.53, 0.438 -> 0.969, on 2026-11-28; docs/benchmarks/training-runs.md section 6, "Why
the line differs"): the thresholds are set to hold on both. The difference of two 64-episode
rates has a standard error of about 0.08, so 0.10 sits more than one standard error below the
smallest measured gain."""
MAX_P = 0.01
"""The gain pooled over the seeds (128 episodes before, 128 after) must be significant at this
level (pooled two-proportion z-test, :func:`agents.evaluate.two_proportion_p`): a real rise,
not one lucky seed. Measured: seeds 0 + 1 pooled 35/128 -> 90/128, p ~ 1e-12; each seed alone
had p <= 0.005."""


def learning_config(out_dir: str, seed: int):
    """The learning test's configuration: the main job's (``TrainConfig()``), with its seed."""
    from agents.config import RunConfig, TrainConfig

    return TrainConfig(run=RunConfig(out_dir=out_dir, seed=seed))


def test_grpo_raises_success_over_the_sft_warm_start(tmp_path, record_property):
    pytest.importorskip("torch")
    from agents.cli import rate_changes, summary_line
    from agents.evaluate import two_proportion_p
    from agents.pipeline import run_training

    counts = [0, 0, 0, 0]  # successes before, after; episodes before, after
    gains = {}
    for seed in SEEDS:
        summary = run_training(learning_config(str(tmp_path / f"seed{seed}"), seed))
        print(f"seed {seed}: {summary_line(summary)}")  # shown with -s
        record_property(f"held_out_seed{seed}", summary.get("held_out"))
        train = rate_changes(summary)[0]
        gains[seed] = train.after / train.n_after - train.before / train.n_before
        counts = [c + d for c, d in zip(counts, (train.before, train.after, train.n_before,
                                                  train.n_after))]
    p = two_proportion_p(counts[0], counts[2], counts[1], counts[3])
    print(f"gains {gains}; pooled {counts[0]}/{counts[2]} -> {counts[1]}/{counts[3]}, p={p:.2g}")
    assert all(g >= MIN_GAIN for g in gains.values()), gains
    assert p < MAX_P, (counts, p)
