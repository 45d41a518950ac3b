"""SFT warm start on a dataset recorded with ``World.record_dataset`` (e.g. the oracle's rollouts).

Each recorded step becomes one example rendered exactly as a policy would have seen it: the
pinned prefix (system prompt, the world's tool catalogue, the task) and the last ``w`` turns
(:mod:`agents.chat_format`), then the recorded action followed by the end-of-turn token. The
loss is the token mean of the negative log-likelihood over those action tokens only.

Example:
    >>> examples = sft_examples(dataset_dir, envs, ChatFormatConfig(), renderer)   # doctest: +SKIP
    >>> run_sft(model, examples, SFTConfig(epochs=2), pad_token_id(tokenizer))   # doctest: +SKIP
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from awm_gym.vocab import Turn

from .chat_format import (
    ChatFormatConfig,
    ChatRenderer,
    EpisodeContext,
    build_messages,
    tool_listing,
)
from .errors import AgentConfigError, DatasetFormatError
from .grpo.batching import TrainSample, collate, micro_schedule, padding_batch
from .parallel import (
    DistInfo,
    ParallelConfig,
    all_reduce,
    gradient_scale,
    gradient_sync,
    shard_evenly,
    wrap_for_training,
)
from .precision import DType, autocast

logger = logging.getLogger(__name__)

__all__ = ["SFTConfig", "sft_examples", "run_sft"]

_COLUMNS = ("episode_idx", "step_idx", "world", "observation", "action", "episode_success")


@dataclass(frozen=True)
class SFTConfig:
    """Supervised warm start on recorded rollouts."""

    epochs: int = 24
    """Passes over the examples (0 skips SFT)."""
    lr: float = 3e-3
    """AdamW learning rate (constant)."""
    batch_size: int = 4
    """Examples per optimizer step."""
    micro_batch_tokens: int = 16384
    """Token budget of one forward/backward (rows x longest row)."""
    dataset: str | None = None
    """A recorded dataset folder to train on (None: record the oracle on the training worlds)."""
    oracle_episodes_per_task: int = 1
    """Oracle episodes recorded per task when ``dataset`` is None."""
    only_successful: bool = True
    """Train only on episodes whose verifier said complete."""
    max_examples_per_episode: int | None = None
    """Train on each episode's first this many actions only (None: every action); the
    real-model job caps it because every example costs a whole prompt's forward and backward."""

    def __post_init__(self) -> None:
        if self.max_examples_per_episode is not None and self.max_examples_per_episode < 1:
            raise AgentConfigError(f"SFTConfig.max_examples_per_episode="
                                   f"{self.max_examples_per_episode}: use >= 1, or None for "
                                   "every action.")
        if self.epochs < 0 or self.batch_size < 1 or self.lr <= 0:
            raise AgentConfigError(f"SFTConfig(epochs={self.epochs}, batch_size="
                                   f"{self.batch_size}, lr={self.lr}): use epochs >= 0, "
                                   "batch_size >= 1, lr > 0.")


def _episodes(dataset_path: str) -> dict[int, list[dict[str, Any]]]:
    import datasets

    ds = datasets.load_dataset(str(dataset_path), split="train")
    missing = [c for c in _COLUMNS if c not in ds.column_names]
    if missing:
        raise DatasetFormatError(f"{dataset_path} lacks columns {missing}; record it with "
                                 "World.record_dataset (awm record).")
    by_episode: dict[int, list[dict[str, Any]]] = {}
    for row in ds.select_columns(list(_COLUMNS)):
        by_episode.setdefault(int(row["episode_idx"]), []).append(row)
    for rows in by_episode.values():
        rows.sort(key=lambda r: r["step_idx"])
    return by_episode


def sft_examples(dataset_path: str, envs: Any, chat: ChatFormatConfig, renderer: ChatRenderer,
                 only_successful: bool = True, max_per_episode: int | None = None
                 ) -> list[TrainSample]:
    """One example per recorded action, rendered with the chat format and window.

    Args:
        dataset_path: a folder written by ``World.record_dataset``.
        envs: a vector env over the dataset's worlds (for their tool catalogues).
        chat: the prompt format (the same one the policy will use).
        renderer: the tokenizer's renderer, with ``chat``'s template arguments.
        only_successful: skip episodes that did not succeed.
        max_per_episode: keep each episode's first this many actions (None: all).
    """
    renderer.check_matches(chat, "sft_examples")  # SFT must see the prompts sampling sees
    out: list[TrainSample] = []
    for _, rows in sorted(_episodes(dataset_path).items()):
        if only_successful and not rows[0]["episode_success"]:
            continue
        world, task = rows[0]["world"], rows[0]["observation"]
        tools, text = tool_listing(envs, world)
        ctx = EpisodeContext.create(chat, task, tools, text)
        turns: list[Turn] = []
        for row, nxt in zip(rows, rows[1:], strict=False):
            if row["action"] is None or (max_per_episode is not None
                                         and len(turns) >= max_per_episode):
                break
            prompt = renderer.prompt_ids(build_messages(ctx, turns, chat))
            out.append(TrainSample(tuple(prompt), tuple(renderer.completion_ids(row["action"])),
                                   0.0, ()))
            turns.append(Turn(row["action"], nxt["observation"]))
    if not out:
        raise DatasetFormatError(f"{dataset_path} gave no SFT examples"
                                 + (" (no successful episode)" if only_successful else "") + ".")
    return out


def run_sft(model: Any, examples: Sequence[TrainSample], cfg: SFTConfig, pad_id: int,
            seed: int = 0, on_epoch: Callable[[int, dict[str, float]], None] | None = None,
            dtype: DType | str = DType.FLOAT32, world: DistInfo | None = None,
            parallel: ParallelConfig | None = None) -> dict[str, float]:
    """Train ``model`` in place on ``examples``; returns the last epoch's metrics.

    Under data parallel (``world``) every rank holds all the examples and shuffles them the
    same way; each batch of ``cfg.batch_size`` is split over the ranks, the loss is divided by
    the whole batch's tokens, and the model trains through torch's DDP or FSDP2
    (:mod:`agents.parallel`), so every optimizer step is the one-process step.

    Args:
        model: a causal LM (train mode is set here).
        examples: prompt ids + target ids (see :func:`sft_examples`).
        cfg: epochs, learning rate, batch sizes.
        pad_id: the id that pads rows: :func:`~agents.chat_format.pad_token_id` of the
            tokenizer (its pad id, else its EOS id; padding never reaches the loss).
        seed: shuffling seed.
        on_epoch: called with ``(epoch, metrics)`` after every epoch (the caller logs it;
            without one, each epoch is one INFO log line).
        dtype: the run's precision (bfloat16: forward passes under autocast).
        world: this rank's place (None: one process).
        parallel: the engine (DDP by default) when ``world`` has several ranks.
    """
    import torch

    world = world or DistInfo()
    device = next(model.parameters()).device
    module = wrap_for_training(model, (parallel or ParallelConfig()).strategy, world,
                               device.type, dtype=dtype)
    optimizer = torch.optim.AdamW([p for p in module.parameters() if p.requires_grad],
                                  lr=cfg.lr, betas=(0.9, 0.99), weight_decay=0.0)
    rng = random.Random(seed)
    order = list(range(len(examples)))
    metrics: dict[str, float] = {}
    module.train()
    for epoch in range(cfg.epochs):
        start = time.perf_counter()
        rng.shuffle(order)
        sums = [0.0, 0.0, 0.0]  # loss x tokens, tokens, tokens seen (this rank's)
        for b in range(0, len(order), cfg.batch_size):
            batch_samples = [examples[k] for k in order[b:b + cfg.batch_size]]
            n_tokens = sum(len(s.completion_ids) for s in batch_samples)  # the whole batch's
            mine = shard_evenly(batch_samples, world.rank, world.world_size)
            optimizer.zero_grad(set_to_none=True)
            loss_sum, seen = _accumulate(module, mine, n_tokens, cfg, pad_id, dtype, device,
                                         world.is_distributed)
            torch.nn.utils.clip_grad_norm_(module.parameters(), 1.0)
            optimizer.step()
            sums[0] += loss_sum
            sums[1] += n_tokens if world.is_main else 0
            sums[2] += seen
        total_loss, total_tokens, seen_tokens = all_reduce(sums)
        elapsed = time.perf_counter() - start
        metrics = {"sft/loss": total_loss / max(total_tokens, 1), "sft/epoch": float(epoch + 1),
                   "sft/tokens_per_s": seen_tokens / max(elapsed, 1e-9), "sft/epoch_s": elapsed}
        if on_epoch is not None:
            on_epoch(epoch, metrics)
        else:  # one line per epoch: the caller's sink prints it when there is one
            logger.info("sft epoch %d/%d: loss %.4f (%.1fs)", epoch + 1, cfg.epochs,
                        metrics["sft/loss"], elapsed)
    return metrics


def _accumulate(module: Any, samples: Sequence[TrainSample], n_tokens: int, cfg: SFTConfig,
                pad_id: int, dtype: DType | str, device: Any, is_distributed: bool
                ) -> tuple[float, int]:
    """Add this rank's share of one batch to the gradients (reduced over ranks with the last
    micro-batch under DDP, with each one under FSDP2: :func:`agents.parallel.gradient_sync`;
    every rank runs as many, zero-weight padding included). Returns this share's
    summed loss (x ``n_tokens``) and the tokens it ran."""
    from .grpo.loss import token_logprobs

    micros = micro_schedule(samples, cfg.micro_batch_tokens, is_distributed)
    scale = gradient_scale(module)  # the engines average over ranks; n_tokens is global
    loss_sum, seen = 0.0, 0
    for j, micro in enumerate(micros):
        batch = (collate([samples[k] for k in micro], pad_id) if micro is not None
                 else padding_batch(pad_id))
        with gradient_sync(module, enabled=j == len(micros) - 1):
            with autocast(dtype, device):
                logp, _ = token_logprobs(module, batch, 1.0)
            mask = batch.loss_mask.to(logp.device)
            if micro is None:
                mask = mask & False  # a padding pass: zero loss, every parameter touched
            loss = -(logp * mask).sum() / n_tokens
            (loss * scale if scale != 1.0 else loss).backward()
        if micro is not None:
            loss_sum += float(loss.detach()) * n_tokens
            seen += int(batch.attention_mask.sum())
    return loss_sum, seen
