"""The main job's stages, in the order :func:`agents.pipeline.run_training` runs them.

1. :mod:`.data`: the split, the training and evaluation envs, the oracle's rollouts;
2. :mod:`.warm_start`: the starting model, SFT on the oracle's rollouts;
3. :mod:`.training`: the sampler, LoRA / checkpointing, the GRPO trainer and its steps;
4. :mod:`.evaluation`: every subset before, during and after GRPO, and the final report;

with :mod:`.run_folder` for the run folder's files. Each works the same in one process and
under ``torchrun`` (every rank takes part; :mod:`agents.parallel`).
"""

from . import data, evaluation, run_folder, training, warm_start

__all__ = ["data", "warm_start", "training", "evaluation", "run_folder"]
