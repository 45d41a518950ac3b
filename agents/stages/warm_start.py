"""Stage 2, the warm start: the starting model (built or given), SFT on the oracle's rollouts.

Example:
    >>> path = prepare_start_model(cfg, "out/main", envs)   # doctest: +SKIP
"""

from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path
from typing import Any

from ..config import ModelConfig, TrainConfig, config_to_dict
from ..parallel import DistInfo, all_gather_objects, barrier, shard_evenly
from ..policies.hf_policy import load_model_and_tokenizer
from ..precision import DType
from .data import record_oracle, world_set_path
from .run_folder import write_json

logger = logging.getLogger(__name__)

__all__ = ["prepare_start_model", "load_start_model", "start_weights_dtype"]


def prepare_start_model(cfg: TrainConfig, out: str | os.PathLike[str], envs: Any,
                        sink: Any = None, timings: dict[str, float] | None = None,
                        world: DistInfo | None = None) -> str:
    """Build (or take) the starting model and warm-start it with SFT; returns its folder.

    ``out/model_init`` holds the built tiny model (when ``cfg.model.path`` is None),
    ``out/model_sft`` the warm-started one. A folder already holding a warm start made with the
    same model, chat, SFT and world settings is reused as is.

    Under data parallel (``world``) every rank records the oracle on its share of the tasks
    (``datasets/oracle-rank<r>``), the examples are gathered, SFT runs on every rank
    (:func:`agents.sft.run_sft`) and rank 0 writes the model; every rank returns the folder.

    Args:
        cfg: the run config (model, chat, sft, rollout worlds, seed).
        out: the run folder.
        envs: a vector env over the training worlds (tool catalogues, task list).
        sink: receives one ``sft/*`` metrics dict per epoch (the epoch as step).
        timings: receives ``build_model_s``, ``record_oracle_s`` and ``sft_s``.
        world: this rank's place (None: one process).
    """
    from ..chat_format import pad_token_id
    from ..grpo.rollout import list_tasks
    from ..sft import run_sft
    from ..tiny_model import build_tiny_model

    world = world or DistInfo()
    out = Path(out)
    timings = timings if timings is not None else {}
    t = time.perf_counter()
    init = cfg.model.path
    if init is None:  # the tokenizer learns from the tasks this run trains on only
        init = str(out / "model_init")
        if world.is_main:
            build_tiny_model(Path(init), cfg.model.tiny, train_tasks=list_tasks(envs),
                             world_set=world_set_path(cfg.rollout))
        barrier(world)
    timings["build_model_s"] = time.perf_counter() - t
    if cfg.sft.epochs == 0:
        return init
    path = out / "model_sft"
    # what the warm start depends on (not LoRA or checkpointing: they apply to GRPO only)
    model_recipe = {"path": cfg.model.path, "tiny": config_to_dict(cfg.model.tiny),
                    "dtype": cfg.model.dtype.value}
    recipe = {"model": model_recipe, "chat": config_to_dict(cfg.chat),
              "sft": config_to_dict(cfg.sft), "worlds": [list(t) for t in list_tasks(envs)],
              "seed": cfg.run.seed}
    manifest = path / "warm_start.json"
    if manifest.exists() and json.loads(manifest.read_text()) == recipe:
        return str(path)
    model, tokenizer = load_model_and_tokenizer(init, cfg.run.device)
    examples = _sft_examples(cfg, out, envs, tokenizer, world, timings)
    t = time.perf_counter()
    run_sft(model, examples, cfg.sft, pad_token_id(tokenizer), seed=cfg.run.seed,
            on_epoch=None if sink is None else
            (lambda e, m: sink.log(m, e + 1)), dtype=cfg.model.dtype, world=world,
            parallel=cfg.parallel)
    _save_model(model, tokenizer, path, world)
    if world.is_main:
        write_json(manifest, recipe)  # last: its presence means the warm start is whole
    barrier(world)
    timings["sft_s"] = time.perf_counter() - t
    return str(path)


def _sft_examples(cfg: TrainConfig, out: Path, envs: Any, tokenizer: Any, world: DistInfo,
                  timings: dict[str, float]) -> list[Any]:
    """The warm start's examples: from ``cfg.sft.dataset`` (every rank reads it whole), or
    from the oracle recorded on the training tasks, each rank its share, gathered."""
    from ..chat_format import ChatRenderer
    from ..errors import DatasetFormatError
    from ..grpo.rollout import list_tasks
    from ..sft import sft_examples

    renderer = ChatRenderer(tokenizer, cfg.chat.chat_template_kwargs)
    if cfg.sft.dataset:
        examples = sft_examples(cfg.sft.dataset, envs, cfg.chat, renderer,
                                cfg.sft.only_successful)
        logger.info("SFT on %d examples from %s", len(examples), cfg.sft.dataset)
        return examples
    t = time.perf_counter()
    tasks = shard_evenly(list_tasks(envs), world.rank, world.world_size)
    name = "oracle" if not world.is_distributed else f"oracle-rank{world.rank}"
    mine: list[Any] = []
    if tasks:
        dataset = record_oracle(cfg.rollout, tasks, out, name=name, seed=cfg.run.seed,
                                episodes_per_task=cfg.sft.oracle_episodes_per_task)
        try:
            mine = sft_examples(str(dataset), envs, cfg.chat, renderer, cfg.sft.only_successful)
        except DatasetFormatError:
            if not world.is_distributed:
                raise
            # this rank's share may hold no successful episode; the others' count
    timings["record_oracle_s"] = time.perf_counter() - t
    examples = all_gather_objects(mine)
    if not examples:
        raise DatasetFormatError("the oracle's recordings gave no SFT example (no successful "
                                 "episode on any rank).")
    logger.info("SFT on %d examples from the oracle's rollouts", len(examples))
    return examples


def _save_model(model: Any, tokenizer: Any, path: Path, world: DistInfo) -> None:
    """Rank 0 writes ``model`` to ``path`` (a sharded model's full tensors gathered first, on
    every rank)."""
    from ..lora import causal_lm
    from ..parallel.engine import saving_state

    state, _ = saving_state(causal_lm(model))  # every rank, when sharded (None otherwise)
    if world.is_main:
        model.save_pretrained(path, safe_serialization=True, **({} if state is None
                                                                else {"state_dict": state}))
        tokenizer.save_pretrained(path)


def load_start_model(cfg: TrainConfig, out: Path, envs: Any, sink: Any,
                     timings: dict[str, float], world: DistInfo, checkpoint: Path | None
                     ) -> tuple[Any, Any, str]:
    """The model GRPO starts from, loaded: the warm start (:func:`prepare_start_model`), or
    ``checkpoint`` when resuming (a LoRA checkpoint: its adapter on the start model,
    trainable). Returns ``(model, tokenizer, the folder of full weights a sampler starts
    from)``: for a LoRA checkpoint that is the start model, and the sampler gets the adapter
    merged in (:func:`agents.stages.training.sampling_policy`).

    Loaded straight in :func:`start_weights_dtype` (a frozen LoRA base in a bfloat16 run never
    exists in float32)."""
    from ..grpo.checkpoint import adapter_base_model, load_checkpoint_model

    dtype = start_weights_dtype(cfg.model).value
    if checkpoint is not None:
        model, tokenizer = load_checkpoint_model(checkpoint, cfg.run.device, dtype)
        return model, tokenizer, adapter_base_model(checkpoint) or str(checkpoint)
    start_path = prepare_start_model(cfg, out, envs, sink, timings, world)
    model, tokenizer = load_model_and_tokenizer(start_path, cfg.run.device, dtype)
    return model, tokenizer, start_path


def start_weights_dtype(model_cfg: ModelConfig) -> DType:
    """The dtype GRPO's model is loaded in: bfloat16 for a LoRA run in bfloat16 (its base is
    frozen: only the float32 adapters train, :func:`agents.lora.apply_lora`, and the forward
    computes in bfloat16 anyway), else float32 (trained weights are the optimizer's float32
    master weights; a bfloat16 run computes under autocast, or FSDP2's mixed precision).

    Example:
        >>> from agents.lora import LoRAConfig
        >>> start_weights_dtype(ModelConfig(dtype="bfloat16", lora=LoRAConfig(r=8))).value
        'bfloat16'
        >>> start_weights_dtype(ModelConfig(dtype="bfloat16")).value
        'float32'
    """
    if model_cfg.lora.is_enabled and model_cfg.dtype is DType.BFLOAT16:
        return DType.BFLOAT16
    return DType.FLOAT32
