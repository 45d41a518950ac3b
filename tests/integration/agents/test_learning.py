"""Learning test: from the SFT warm start, GRPO raises the success rate on the built-in worlds.

Runs the main job's default configuration (tiny model, oracle SFT on spotify, 20 GRPO steps of
8 x 8 rollouts) and compares the evaluation success rate (80 episodes at temperature 0.7, fixed
seeds) before and after GRPO. The margin is set above the run-to-run spread measured over seeds
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
evaluation has a standard error of about 0.05, so 0.25 clears the run-to-run spread."""


@pytest.mark.parametrize("seed", [0])
def test_grpo_raises_success_over_the_sft_warm_start(tmp_path, seed):
    pytest.importorskip("torch")
    from agents.config import RunConfig, TrainConfig
    from agents.pipeline import run_training

    summary = run_training(TrainConfig(run=RunConfig(out_dir=str(tmp_path / "run"), seed=seed)))
    gain = summary["success_after"] - summary["success_before"]
    assert gain >= MIN_GAIN, summary
