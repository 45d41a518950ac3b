"""Save and restore training state exactly: weights, tokenizer, optimizer, step, config.

A checkpoint is a folder ``<run>/checkpoints/step_<N>/`` written to a temporary folder and
renamed into place, with ``trainer_state.json`` written last inside it (its presence means the
checkpoint is whole). ``<run>/checkpoints/latest`` names the newest one. Everything a step
draws at random is derived from the run seed and the step index, so weights + optimizer state +
step reproduce the next step exactly.

What the folder holds depends on the model and the engine:

* full fine-tuning: the model (``save_pretrained``; under FSDP its full tensors, gathered);
  LoRA: the adapter alone (``adapter_config.json`` names the base model's folder, which
  :func:`load_checkpoint_model` loads under it, trainable);
* the optimizer: ``optimizer.pt`` (one process, DDP: every rank holds the same state), or
  under FSDP ``optimizer/``, a ``torch.distributed.checkpoint`` folder in which every rank
  wrote its own shard (``__<rank>_0.distcp``) and rank 0 the index (``.metadata``): the
  AdamW state is never gathered whole on one rank. It loads on any number of ranks, one
  process included (torch reshards it).

Example:
    >>> path = save_training_checkpoint(run_dir, 3, model, module, tok, opt, cfg_dict,
    ...                                 world)                           # doctest: +SKIP
    >>> model, tok = load_checkpoint_model(path, "cpu")                  # doctest: +SKIP
    >>> load_optimizer_state(path, optimizer, module)                    # doctest: +SKIP
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

__all__ = ["save_checkpoint", "save_training_checkpoint", "save_sharded_optimizer",
           "latest_checkpoint", "load_optimizer_state", "load_checkpoint_model",
           "adapter_base_model", "read_trainer_state", "TrainerState"]

STATE_FILE = "trainer_state.json"
OPTIMIZER_FILE = "optimizer.pt"
OPTIMIZER_DIR = "optimizer"
"""A sharded optimizer's folder (``torch.distributed.checkpoint``: one file per rank)."""
ADAPTER_CONFIG = "adapter_config.json"
"""peft's file: its presence makes a checkpoint a LoRA adapter's."""


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
                    optimizer_dir: str | os.PathLike[str] | None = None,
                    extra_files: dict[str, str] | None = None) -> Path:
    """Write the checkpoint after ``step`` completed GRPO steps; returns its folder.

    Args:
        run_dir: the run folder (checkpoints go to ``run_dir/checkpoints``).
        step: completed GRPO steps.
        model, tokenizer: saved with ``save_pretrained`` (the folder loads as a model; a peft
            model writes its adapter).
        optimizer: its ``state_dict`` goes to ``optimizer.pt`` (unless ``optimizer_dir``).
        config: the resolved run config (JSON-able).
        keep_last: keep only this many newest checkpoints (None: all).
        model_state: the full weights gathered beforehand (a sharded model's,
            :func:`agents.parallel.engine.saving_state`; None: the model's own).
        optimizer_dir: the sharded optimizer state every rank wrote
            (:func:`save_sharded_optimizer`), moved into the checkpoint as ``optimizer/``.
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
    if optimizer_dir is None:
        torch.save(optimizer.state_dict(), tmp / OPTIMIZER_FILE)
    else:
        os.replace(optimizer_dir, tmp / OPTIMIZER_DIR)
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
    when it may be sharded: :func:`agents.parallel.engine.restore_optimizer`). A sharded
    ``optimizer/`` folder (an FSDP run's) is read with ``torch.distributed.checkpoint``, each
    rank its shards; ``optimizer.pt`` as below.

    The file is read onto the CPU whatever device wrote it: rank 0 saved its state from
    ``cuda:0``, and without a ``map_location`` every rank would put the whole AdamW state back
    on GPU 0. ``optimizer.load_state_dict`` then moves each tensor to its parameter's device
    (this rank's GPU); under FSDP each rank keeps only its shard.
    """
    import torch

    from ..parallel.engine import restore_optimizer

    folder = Path(path) / OPTIMIZER_DIR
    if folder.is_dir():
        _load_sharded_optimizer(folder, optimizer, module)
        return
    file = Path(path) / OPTIMIZER_FILE
    if not file.exists():
        raise CheckpointError(f"{path} has no {OPTIMIZER_FILE}; it is not a training checkpoint.")
    restore_optimizer(module, optimizer, torch.load(file, map_location="cpu", weights_only=True))


def save_sharded_optimizer(run_dir: str | os.PathLike[str], step: int, module: Any,
                           optimizer: Any) -> Path:
    """Write a sharded ``module``'s optimizer state, each rank its own shard, with
    ``torch.distributed.checkpoint`` (a collective: every rank calls it); returns the folder
    (``<run>/checkpoints/.step_<N>.optimizer``) that :func:`save_checkpoint` then moves into
    the checkpoint on rank 0. Nothing is gathered: each rank writes the AdamW moments of the
    parameter shards it holds, rank 0 the index."""
    import torch.distributed.checkpoint as dcp
    from torch.distributed.checkpoint.state_dict import get_optimizer_state_dict

    folder = Path(run_dir) / "checkpoints" / f".step_{step:06d}.{OPTIMIZER_DIR}"
    dcp.save({"optimizer": get_optimizer_state_dict(module, optimizer)}, checkpoint_id=folder)
    return folder


def save_training_checkpoint(run_dir: str | os.PathLike[str], step: int, model: Any,
                             module: Any, tokenizer: Any, optimizer: Any,
                             config: dict[str, Any], world: Any,
                             extra_files: dict[str, str] | None = None,
                             keep_last: int | None = 2) -> Path | None:
    """The trainer's checkpoint after ``step`` steps; every rank calls it, rank 0 writes it.

    Under FSDP (``module`` sharded) the full weights are gathered for rank 0 (a collective)
    and every rank writes its shard of the optimizer state (:func:`save_sharded_optimizer`);
    otherwise rank 0 writes ``model`` and ``optimizer`` as they are. Returns the folder on
    rank 0, None on the others.

    Args:
        model: the trained model as it is saved (a peft model writes its adapter).
        module: what the trainer runs forward through (a DDP wrapper or FSDP-sharded model).
        world: this rank's :class:`~agents.parallel.DistInfo`.
        config, extra_files, keep_last: as :func:`save_checkpoint`.
    """
    from ..parallel.engine import is_sharded, saving_state

    model_state, _ = saving_state(module)  # the full weights, when sharded (every rank)
    optimizer_dir = (save_sharded_optimizer(run_dir, step, module, optimizer)
                     if is_sharded(module) else None)
    if not world.is_main:
        return None
    return save_checkpoint(run_dir, step, model, tokenizer, optimizer, config, keep_last,
                           model_state=model_state, optimizer_dir=optimizer_dir,
                           extra_files=extra_files)


def _load_sharded_optimizer(folder: Path, optimizer: Any, module: Any) -> None:
    """Read a ``torch.distributed.checkpoint`` optimizer folder into ``optimizer``: under FSDP
    each rank reads its shards (resharded if the number of ranks changed); an unsharded
    ``module`` (one process, DDP) reads the whole state."""
    import torch.distributed as dist
    import torch.distributed.checkpoint as dcp
    from torch.distributed.checkpoint.state_dict import (
        get_optimizer_state_dict,
        set_optimizer_state_dict,
    )

    if module is None:
        raise CheckpointError(f"{folder} is a sharded optimizer state: loading it needs the "
                              "trained module (load_optimizer_state(path, optimizer, module)).")
    state = {"optimizer": get_optimizer_state_dict(module, optimizer)}
    dcp.load(state, checkpoint_id=folder,
             no_dist=not (dist.is_available() and dist.is_initialized()))
    set_optimizer_state_dict(module, optimizer, state["optimizer"])


def adapter_base_model(path: str | os.PathLike[str]) -> str | None:
    """The folder of the base model a LoRA checkpoint's adapter applies to (the one its
    ``adapter_config.json`` names: the run's start model); None for a full model's checkpoint.

    Raises:
        CheckpointError: the adapter names no base model, or one that is not a folder here.
    """
    file = Path(path) / ADAPTER_CONFIG
    if not file.exists():
        return None
    base = json.loads(file.read_text()).get("base_model_name_or_path")
    if not base or not Path(base).is_dir():
        raise CheckpointError(f"{path} holds a LoRA adapter whose base model {base!r} is not a "
                              "folder here; resume where the run's start model (model_sft) is "
                              f"at that path, or set base_model_name_or_path in {file}.")
    return str(base)


def load_checkpoint_model(path: str | os.PathLike[str], device: str = "auto",
                          dtype: str = "float32") -> tuple[Any, Any]:
    """The model and tokenizer a checkpoint holds, ready to train on: a full model as saved,
    or for LoRA the base model with the adapter loaded on it, trainable
    (:func:`~agents.lora.load_adapter`), as the run had it."""
    from ..policies.hf_policy import load_model_and_tokenizer

    base = adapter_base_model(path)
    if base is None:
        return load_model_and_tokenizer(str(path), device, dtype)
    from ..lora import load_adapter

    model, tokenizer = load_model_and_tokenizer(base, device, dtype)
    return load_adapter(model, path), tokenizer
