"""Save and restore training state exactly: weights, tokenizer, optimizer, step, config.

A checkpoint is a folder ``<run>/checkpoints/step_<N>/`` written to a temporary folder and
renamed into place, with ``trainer_state.json`` written last inside it (its presence means the
checkpoint is whole). ``<run>/checkpoints/latest`` names the newest one. Everything a step
draws at random is derived from the run seed and the step index, so weights + optimizer state +
step reproduce the next step exactly.

Example:
    >>> path = save_checkpoint(run_dir, step=3, model=model, tokenizer=tok,
    ...                        optimizer=opt, config=cfg_dict)           # doctest: +SKIP
    >>> state = load_checkpoint(path, model_loader, optimizer)           # doctest: +SKIP
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from awm_gym.atomic_io import make_temp_dir

from ..errors import CheckpointError

__all__ = ["save_checkpoint", "latest_checkpoint", "load_optimizer_state", "read_trainer_state",
           "TrainerState"]

STATE_FILE = "trainer_state.json"
OPTIMIZER_FILE = "optimizer.pt"


@dataclass(frozen=True)
class TrainerState:
    """What ``trainer_state.json`` holds."""

    step: int
    """GRPO steps completed."""
    config: dict[str, Any]
    """The resolved run config (as saved)."""


def save_checkpoint(run_dir: str | os.PathLike[str], step: int, model: Any, tokenizer: Any,
                    optimizer: Any, config: dict[str, Any], keep_last: int | None = 2,
                    model_state: dict[str, Any] | None = None,
                    optimizer_state: dict[str, Any] | None = None,
                    extra_files: dict[str, str] | None = None) -> Path:
    """Write the checkpoint after ``step`` completed GRPO steps; returns its folder.

    Args:
        run_dir: the run folder (checkpoints go to ``run_dir/checkpoints``).
        step: completed GRPO steps.
        model, tokenizer: saved with ``save_pretrained`` (the folder loads as a model).
        optimizer: its ``state_dict`` goes to ``optimizer.pt``.
        config: the resolved run config (JSON-able).
        keep_last: keep only this many newest checkpoints (None: all).
        model_state, optimizer_state: full states gathered beforehand (a sharded model's,
            :func:`agents.parallel.engine.saving_state`; None: the model's and optimizer's own).
        extra_files: more text files of the trainer's state, name -> content (the tasks' pass
            rates), written before ``trainer_state.json``.
    """
    import torch

    root = Path(run_dir) / "checkpoints"
    root.mkdir(parents=True, exist_ok=True)
    final = root / f"step_{step:06d}"
    tmp = make_temp_dir(root, prefix=f".{final.name}.")
    if model_state is None:
        model.save_pretrained(tmp, safe_serialization=True)
    else:
        model.save_pretrained(tmp, safe_serialization=True, state_dict=model_state)
    tokenizer.save_pretrained(tmp)
    torch.save(optimizer.state_dict() if optimizer_state is None else optimizer_state,
               tmp / OPTIMIZER_FILE)
    for name, text in (extra_files or {}).items():
        (tmp / name).write_text(text)
    (tmp / STATE_FILE).write_text(json.dumps({"step": step, "config": config}, indent=2))
    if final.exists():
        shutil.rmtree(final)
    os.replace(tmp, final)
    latest_tmp = root / ".latest.tmp"
    latest_tmp.write_text(final.name)
    os.replace(latest_tmp, root / "latest")
    if keep_last is not None:
        done = sorted(p for p in root.glob("step_*") if (p / STATE_FILE).exists())
        for old in done[:-keep_last]:
            shutil.rmtree(old, ignore_errors=True)
    return final


def latest_checkpoint(run_dir: str | os.PathLike[str]) -> Path | None:
    """The newest whole checkpoint of a run, or None."""
    root = Path(run_dir) / "checkpoints"
    pointer = root / "latest"
    if pointer.exists():
        path = root / pointer.read_text().strip()
        if (path / STATE_FILE).exists():
            return path
    done = sorted(p for p in root.glob("step_*") if (p / STATE_FILE).exists())
    return done[-1] if done else None


def read_trainer_state(path: str | os.PathLike[str]) -> TrainerState:
    """Read ``trainer_state.json`` of a checkpoint folder.

    Raises:
        CheckpointError: the folder is not a whole checkpoint.
    """
    state_file = Path(path) / STATE_FILE
    if not state_file.exists():
        raise CheckpointError(f"{path} is not a complete checkpoint (no {STATE_FILE}); resume "
                              "from the folder named in <run>/checkpoints/latest.")
    data = json.loads(state_file.read_text())
    return TrainerState(int(data["step"]), dict(data["config"]))


def load_optimizer_state(path: str | os.PathLike[str], optimizer: Any,
                         module: Any = None) -> None:
    """Restore an optimizer's state from a checkpoint folder (``module``: the trained module,
    when it may be sharded: :func:`agents.parallel.engine.restore_optimizer`).

    The file is read onto the CPU whatever device wrote it: rank 0 saved its state from
    ``cuda:0``, and without a ``map_location`` every rank would put the whole AdamW state back
    on GPU 0. ``optimizer.load_state_dict`` then moves each tensor to its parameter's device
    (this rank's GPU); under FSDP each rank keeps only its shard.
    """
    import torch

    from ..parallel.engine import restore_optimizer

    file = Path(path) / OPTIMIZER_FILE
    if not file.exists():
        raise CheckpointError(f"{path} has no {OPTIMIZER_FILE}; it is not a training checkpoint.")
    restore_optimizer(module, optimizer, torch.load(file, map_location="cpu", weights_only=True))
