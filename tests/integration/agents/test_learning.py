"""Learning test: from the SFT warm start, GRPO raises the success rate on the built-in worlds.

Runs the main job's default configuration (tiny model, the seed-0 split of the built-in worlds,
oracle SFT on spotify's train tasks, 20 GRPO steps of 8 x 8 rollouts) and compares the
evaluation success rate on the training tasks (temperature 0.7, fixed seeds) before and after
GRPO. Beside it the test reports, without asserting anything about them, the success rates on
the tasks the run never trained on: spotify's held-out ``val_tasks`` and the held-out
``val_worlds`` (printed, and recorded as the ``held_out`` property of the test's report). The margin is set above the run-to-run spread measured over seeds
(docs/training.md, section 6). Slow (about 3 minutes on 2 idle CPU cores, more on a busy
machine) and opt-in:

    AWM_RUN_LEARNING=1 python -m pytest -q -m slow tests/integration/agents/test_learning.py
"""

from __future__ import annotations

import os

import pytest

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(1800),
    pytest.mark.skipif(os.environ.get("AWM_RUN_LEARNING") != "1",
                       reason="opt-in: set AWM_RUN_LEARNING=1 (takes minutes)"),
]

MIN_GAIN = 0.25
"""Required rise of the evaluation success rate. Measured over seeds 0, 1, 2 (docs/training.md):
gains 0.39, 0.40, 0.71; the starting point varies by 0.15 across seeds and one 80-episode
evaluation has a standard error of about 0.05, so 0.25 clears the run-to-run spread. On the
seed-0 split (64 training-task episodes) with cut turns penalized: 0.312 -> 0.641 (+0.33);
with cut turns masked the pre-split run gained only +0.16 (docs/training.md, section 6)."""


@pytest.mark.parametrize("seed", [0])
def test_grpo_raises_success_over_the_sft_warm_start(tmp_path, seed, record_property):
    pytest.importorskip("torch")
    from agents.cli import held_out_text
    from agents.config import RunConfig, TrainConfig
    from agents.pipeline import run_training

    summary = run_training(TrainConfig(run=RunConfig(out_dir=str(tmp_path / "run"), seed=seed)))
    # shown with -s; the held-out numbers are reported, not asserted
    print(f"train tasks: success before GRPO {summary['success_before']:.3f} -> after "
          f"{summary['success_after']:.3f} ({summary['eval_episodes']} episodes)"
          f"{held_out_text(summary)}")
    record_property("held_out", summary.get("held_out"))
    gain = summary["success_after"] - summary["success_before"]
    assert gain >= MIN_GAIN, summary
