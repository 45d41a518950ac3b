"""One GRPO update: a fixed number of optimizer steps over the step's turn samples.

The step's trajectories are split, in order and each one whole, into
``optimizer_steps_per_step`` mini-batches (:func:`minibatch_indices`). Each mini-batch is one
optimizer step: its micro-batches (by token budget) each add ``sum_k w_s * loss_k`` to the
gradient, the weight ``w_s`` of a sample's tokens being fixed for the whole mini-batch by
``GRPOConfig.loss_norm`` (:func:`sample_weights`): ``1 / N`` with ``N`` the mini-batch's
sampled tokens (token_mean, the default), ``1 / (T_j * J)`` with ``T_j`` the tokens of the
sample's trajectory and ``J`` the mini-batch's trajectories (seq_mean_token_mean: each
trajectory weighs the same, once), or ``1 / C`` (constant, Dr. GRPO). So the gradient does not
depend on the packing. With ``OptimConfig.padding_free`` (the default) each micro-batch's
samples run as one packed row, the output head only at sampled tokens
(:func:`agents.grpo.loss.token_logprobs`); ``perf/forward_tokens`` and ``perf/head_tokens``
count the positions the update's forward passes ran, padding included. The gradient norm is
clipped, then AdamW steps. The first mini-batch's "old" log-probabilities are its current
ones detached (its ratio is exactly 1, whatever the precision); a later mini-batch's are
computed before the first optimizer step, packed into the same micro-batches as its own
update (so bf16 numerics match too).

Under data parallel (``torchrun``, :mod:`agents.parallel`) ``model`` is the DDP- or
FSDP2-wrapped module: the counts behind the weights are summed over ranks, each rank's loss is
scaled so that the engine's averaged gradient is the sum over ranks, gradients are reduced
(DDP) on each optimizer step's last micro-batch only or reduce-scattered (FSDP2) into the
sharded gradients after every micro-batch, so no rank holds unsharded gradients between them
(:func:`agents.parallel.gradient_sync`), and every rank runs as many micro-batches as the
busiest (zero-weight padding ones), which FSDP's per-forward collectives need. The result is
the one-process gradient of the whole batch (tested with two processes).

Dropout is off for the whole update (every ``torch.nn.Dropout``, LoRA's included, and the
attention dropout of transformers models), as it is in the sampler, which runs the model in
eval mode: the tokens were drawn from the dropout-free policy, so its log-probabilities are
the ones to differentiate and the sampler-trainer gap measures numerics only. The model stays
in train mode otherwise (gradient checkpointing works only there).

Forward passes run under the run's precision (:func:`agents.precision.autocast`). The "old"
log-probabilities are the trainer's before the update, so comparing them with the sampler's
gives the sampler-trainer gap logged every step (mean and max |diff| over sampled tokens, and
the importance ratio's min/mean/max); with ``GRPOConfig.tis_cap`` the same ratio, truncated,
weights each token's policy-gradient term.

Example:
    >>> stats = grpo_update(model, opt, samples, grpo_cfg, optim_cfg, 1.0, 0)  # doctest: +SKIP
    >>> stats["loss/num_tokens"]   # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import AgentConfigError
from ..parallel import all_reduce, gradient_scale, gradient_sync
from ..parallel.engine import scalar
from ..precision import DType, autocast
from . import metrics as M
from .batching import MicroBatch, TrainSample, collate, micro_schedule, padding_batch
from .config import GRPOConfig, LossNorm, OptimConfig
from .loss import can_pack, forward_tokens, packs_in_one_row, ppo_clip_loss, token_logprobs

__all__ = ["grpo_update", "split_even", "minibatch_indices", "sample_weights", "dropout_off"]

logger = logging.getLogger(__name__)


def split_even(n: int, parts: int, keep_empty: bool = False) -> list[range]:
    """``parts`` consecutive ranges covering ``0..n-1`` as evenly as possible (empty ones dropped
    unless ``keep_empty``).

    Example:
        >>> split_even(5, 2)
        [range(0, 3), range(3, 5)]
        >>> split_even(1, 2, keep_empty=True)
        [range(0, 1), range(1, 1)]
    """
    out, start = [], 0
    for k in range(parts):
        size = n // parts + (1 if k < n % parts else 0)
        if size or keep_empty:
            out.append(range(start, start + size))
        start += size
    return out


def minibatch_indices(samples: Sequence[TrainSample], parts: int, keep_empty: bool = False
                      ) -> list[list[int]]:
    """Indices of ``samples`` in ``parts`` mini-batches, each trajectory whole in one.

    The trajectories (in order of first appearance) are split as evenly as
    :func:`split_even` splits them; a sample without a trajectory key is its own. A
    trajectory cut across two mini-batches would get a whole share of each one's
    ``seq_mean_token_mean`` weight.

    Example:
        >>> s = [TrainSample((1,), (2,), 1.0, (), t) for t in (0, 0, 0, 1, 2)]
        >>> minibatch_indices(s, 2)
        [[0, 1, 2, 3], [4]]
    """
    keys = [("t", x.trajectory) if x.trajectory is not None else ("s", k)
            for k, x in enumerate(samples)]
    order = list(dict.fromkeys(keys))
    part_of = {key: p for p, chunk in enumerate(split_even(len(order), parts, keep_empty=True))
               for key in (order[j] for j in chunk)}
    out: list[list[int]] = [[] for _ in range(parts)]
    for k, key in enumerate(keys):
        out[part_of[key]].append(k)
    return out if keep_empty else [mb for mb in out if mb]


@contextlib.contextmanager
def dropout_off(model: Any) -> Iterator[None]:
    """Run ``model`` with every dropout at 0 (restored on exit), leaving train mode alone.

    Covers ``torch.nn.Dropout`` modules (peft's ``lora_dropout`` too) and the float
    ``attention_dropout`` / ``dropout`` attributes transformers attention modules pass to
    their kernels.

    Example:
        >>> import torch
        >>> net = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Dropout(0.5)).train()
        >>> with dropout_off(net):
        ...     net[1].p
        0.0
        >>> net[1].p, net.training
        (0.5, True)
    """
    import torch

    saved: list[tuple[Any, str, float]] = []
    for module in model.modules():
        if isinstance(module, torch.nn.modules.dropout._DropoutNd):
            saved.append((module, "p", module.p))
        for name in ("attention_dropout", "attn_dropout", "dropout"):
            value = getattr(module, name, None)
            if isinstance(value, float) and not isinstance(value, bool):
                saved.append((module, name, value))
    try:
        for module, name, _ in saved:
            setattr(module, name, 0.0)
        yield
    finally:
        for module, name, value in saved:
            setattr(module, name, value)


def sample_weights(samples: Sequence[TrainSample], norm: LossNorm | str,
                   constant: float | None = None, is_distributed: bool = False
                   ) -> tuple[list[float], int]:
    """The weight of each sample's token losses in one mini-batch's loss, and its token count.

    Counts are over the whole mini-batch, every rank's share of it when ``is_distributed``
    (a trajectory never spans ranks: whole groups run per rank).

    Args:
        samples: the mini-batch (this rank's share).
        norm: token_mean (``1 / tokens``), seq_mean_token_mean (``1 / (trajectory's tokens x
            trajectories)``) or constant (``1 / constant``).
        constant: the divisor of ``constant``.
        is_distributed: sum the counts over the process group (every rank must call).

    Returns:
        ``(weights, tokens)``: one weight per sample, and the mini-batch's sampled tokens (all
        ranks).

    Example:
        >>> s = [TrainSample((1,), (2, 3, 4), 1.0, (), 0), TrainSample((1,), (5,), 1.0, (), 0),
        ...      TrainSample((1,), (6, 7), 1.0, (), 1)]
        >>> sample_weights(s, "token_mean")
        ([0.1666..., 0.1666..., 0.1666...], 6)
        >>> sample_weights(s, "seq_mean_token_mean")[0]
        [0.125, 0.125, 0.25]
    """
    norm = LossNorm.coerce(norm)
    keys = [("t", s.trajectory) if s.trajectory is not None else ("s", k)
            for k, s in enumerate(samples)]
    per_traj: dict[Any, int] = {}
    for key, s in zip(keys, samples, strict=True):
        per_traj[key] = per_traj.get(key, 0) + len(s.completion_ids)
    tokens, trajectories = sum(per_traj.values()), len(per_traj)
    if is_distributed:
        tokens, trajectories = (int(x) for x in all_reduce([tokens, trajectories]))
    if norm is LossNorm.TOKEN_MEAN:
        return [1.0 / tokens] * len(samples), tokens
    if norm is LossNorm.SEQ_MEAN_TOKEN_MEAN:
        return [1.0 / (per_traj[key] * trajectories) for key in keys], tokens
    if constant is None or constant <= 0:
        raise AgentConfigError("GRPOConfig.loss_norm constant needs loss_norm_constant > 0 "
                               "(GRPOTrainer derives one; direct grpo_update callers set it).")
    return [1.0 / constant] * len(samples), tokens


def _old_logprobs(run: _Update, samples: Sequence[TrainSample],
                  schedules: Sequence[tuple[Sequence[int], list[list[int] | None]]]
                  ) -> list[Any]:
    """The policy's log-probabilities before the update, in eval mode (as it sampled), for the
    mini-batches after the first, each packed exactly as its update will pack it."""
    import torch

    olds: list[Any] = [None] * len(samples)
    was_training = run.model.training
    run.model.eval()
    try:
        with torch.no_grad():
            for mb, micros in schedules:
                for micro in micros:
                    rows = [mb[k] for k in micro] if micro is not None else []
                    batch = (collate([samples[k] for k in rows], run.pad_id) if rows
                             else padding_batch(run.pad_id))
                    with autocast(run.dtype, run.device):
                        logp, _ = token_logprobs(run.model, batch, run.temperature,
                                                 padding_free=run.padding_free)
                    run.count_forward(batch)
                    for row, k in enumerate(rows):
                        olds[k] = logp[row, :samples[k].length - 1].detach()
    finally:
        run.model.train(was_training)
    return olds


def _pad_rows(rows: Sequence[Any], width: int) -> Any:
    import torch

    out = torch.zeros((len(rows), width), dtype=rows[0].dtype, device=rows[0].device)
    for r, row in enumerate(rows):
        out[r, :len(row)] = row
    return out


class _SamplerGap:
    """Running statistics of the sampler-trainer log-probability gap over sampled tokens."""

    def __init__(self) -> None:
        self.n = 0
        self.abs_sum = 0.0
        self.abs_max = 0.0
        self.ratio_sum = 0.0
        self.ratio_min = float("inf")
        self.ratio_max = 0.0

    def add(self, old: Any, batch: MicroBatch, mask: Any, tis_cap: float | None) -> Any:
        """Record one micro-batch; returns its TIS weights (None when off)."""
        import torch

        sampler = batch.sampler_logprobs.to(old.device)
        has = mask & batch.has_sampler_logprobs.to(old.device).unsqueeze(-1)  # (B, T-1)
        log_ratio = (old - sampler).masked_fill(~has, 0.0)
        ratio = torch.exp(log_ratio)
        if has.any():
            self.n += int(has.sum())
            self.abs_sum += float(log_ratio.abs()[has].sum())
            self.abs_max = max(self.abs_max, float(log_ratio.abs()[has].max()))
            self.ratio_sum += float(ratio[has].sum())
            self.ratio_min = min(self.ratio_min, float(ratio[has].min()))
            self.ratio_max = max(self.ratio_max, float(ratio[has].max()))
        if tis_cap is None:
            return None
        return torch.clamp(ratio, max=tis_cap).detach()

    def reduce(self, is_distributed: bool) -> None:
        """Combine the statistics of every rank (in place)."""
        if not is_distributed:
            return
        self.n, self.abs_sum, self.ratio_sum = all_reduce([self.n, self.abs_sum, self.ratio_sum])
        self.n = int(self.n)
        self.abs_max, self.ratio_max = all_reduce([self.abs_max, self.ratio_max], "max")
        (self.ratio_min,) = all_reduce([self.ratio_min], "min")

    def metrics(self) -> dict[str, float]:
        if not self.n:
            return {}
        return {M.LOGP_DIFF_MEAN: self.abs_sum / self.n, M.LOGP_DIFF_MAX: self.abs_max,
                M.IS_RATIO_MIN: self.ratio_min, M.IS_RATIO_MEAN: self.ratio_sum / self.n,
                M.IS_RATIO_MAX: self.ratio_max}


def grpo_update(model: Any, optimizer: Any, samples: Sequence[TrainSample], grpo: GRPOConfig,
                optim: OptimConfig, temperature: float, pad_id: int, lr: float | None = None,
                ref_model: Any = None, dtype: DType | str = DType.FLOAT32,
                is_distributed: bool = False) -> dict[str, float]:
    """Apply the step's optimizer steps to ``model``; returns summed/averaged diagnostics.

    Args:
        model: the policy being trained (put in train mode here); under data parallel the
            module :func:`agents.parallel.wrap_for_training` returned.
        optimizer: its optimizer (AdamW).
        samples: the step's turn samples (already filtered: trainable, unmasked).
        grpo: clip range, KL weight, loss normalisation.
        optim: mini-batches, token budget, gradient clipping.
        temperature: the sampling temperature (log-probabilities are at this temperature).
        pad_id: padding id of the tokenizer.
        lr: learning rate for these steps (None: leave the optimizer's).
        ref_model: frozen reference, needed when ``grpo.kl_coef > 0``.
        dtype: the run's precision (bfloat16: forward passes under autocast).
        is_distributed: ``samples`` are this rank's share of the step's batch; counts and
            diagnostics are combined over the process group and the gradients by the engine
            (:mod:`agents.parallel`), so every rank takes the same optimizer steps.
    """
    dtype = DType.coerce(dtype)
    start = time.perf_counter()
    stats = {"loss/policy": 0.0, "loss/clip_frac_low": 0.0, "loss/clip_frac_high": 0.0,
             "loss/approx_kl": 0.0, "loss/kl_ref": 0.0, "loss/entropy": 0.0,
             "loss/grad_norm": 0.0,
             "loss/num_samples": float(len(samples)), "loss/num_tokens": 0.0,
             "loss/optimizer_steps": 0.0, M.FORWARD_TOKENS: 0.0, M.HEAD_TOKENS: 0.0}
    trajectories = len(minibatch_indices(samples, max(len(samples), 1)))
    if is_distributed:  # every rank must take part in every collective: same step count
        (trajectories,) = all_reduce([trajectories], "max")
    steps = min(optim.optimizer_steps_per_step, int(trajectories))
    if steps == 0:
        return stats
    if lr is not None:
        for group in optimizer.param_groups:
            group["lr"] = lr
    model.train()
    if ref_model is not None:
        ref_model.eval()
    run = _Update(model, ref_model, grpo, temperature, pad_id, dtype,
                  next(model.parameters()).device, _SamplerGap(), stats,
                  _padding_free(model, optim.padding_free))
    schedules = []
    for mb in minibatch_indices(samples, steps, keep_empty=True):
        micros = micro_schedule([samples[k] for k in mb], optim.micro_batch_tokens,
                                 is_distributed)
        schedules.append((mb, micros))
    params = [p for p in model.parameters() if p.requires_grad]
    total_tokens = 0
    with dropout_off(model):
        # the first mini-batch's old log-probabilities are its own, detached (ratio exactly 1)
        olds = _old_logprobs(run, samples, schedules[1:]) if steps > 1 else None
        for k, (mb, micros) in enumerate(schedules):
            total_tokens += _optimizer_step(run, optimizer, params, samples, mb, micros,
                                            None if k == 0 else olds, optim, is_distributed,
                                            steps)
    _finish_stats(run, total_tokens, is_distributed)
    stats["perf/train_tokens_per_s"] = run.trained_tokens / max(time.perf_counter() - start,
                                                                1e-9)
    return stats


def _padding_free(model: Any, wanted: bool) -> bool:
    """``OptimConfig.padding_free``, unless the model cannot take packed sequences: then its
    micro-batches run as padded rows (the same numbers, more compute), with a warning."""
    if wanted and not can_pack(model):
        logger.warning("OptimConfig.padding_free: %s cannot take packed sequences (its attention "
                       "mask does not come from transformers' masking_utils); the update runs "
                       "padded rows (--no-optim.padding-free silences this).",
                       type(model).__name__)
        return False
    return wanted


_SUMMED = ("loss/policy", "loss/clip_frac_low", "loss/clip_frac_high", "loss/approx_kl",
           "loss/kl_ref", "loss/entropy")
"""The diagnostics summed over tokens (divided by the step's token count at the end)."""


@dataclass
class _Update:
    """What every micro-batch of one :func:`grpo_update` call shares, and its running sums."""

    model: Any
    ref_model: Any
    grpo: GRPOConfig
    temperature: float
    pad_id: int
    dtype: DType
    device: Any
    gap: _SamplerGap
    stats: dict[str, float]
    padding_free: bool = False
    trained_tokens: int = 0

    def count_forward(self, batch: MicroBatch) -> None:
        """Count one forward pass of ``batch`` (``perf/forward_tokens``, ``perf/head_tokens``)."""
        body, head = forward_tokens(batch, self.padding_free, packs_in_one_row(self.model))
        self.stats[M.FORWARD_TOKENS] += body
        self.stats[M.HEAD_TOKENS] += head


def _optimizer_step(run: _Update, optimizer: Any, params: list[Any],
                    samples: Sequence[TrainSample], mb: Sequence[int],
                    micros: Sequence[list[int] | None], olds: list[Any] | None,
                    optim: OptimConfig, is_distributed: bool, num_minibatches: int) -> int:
    """One optimizer step on the mini-batch ``mb`` (indices into ``samples``) run as
    ``micros`` (:func:`_micro_schedule`): accumulate the micro-batches' gradients, reduced
    over ranks with the last one (DDP) or each one (FSDP2), clip, step. Returns the
    mini-batch's token count (every rank's)."""
    import torch

    mb_samples = [samples[k] for k in mb]
    # weights over the whole mini-batch, every rank's share (counts all-reduced)
    weights, n_tokens = sample_weights(mb_samples, run.grpo.effective_loss_norm,
                                       run.grpo.loss_norm_constant, is_distributed)
    optimizer.zero_grad(set_to_none=True)
    for j, micro in enumerate(micros):
        with gradient_sync(run.model, enabled=j == len(micros) - 1):
            if micro is None:  # a zero-weight pass: this rank has fewer micro-batches
                _backward_micro(run, padding_batch(run.pad_id), None, [0.0], is_padding=True)
                continue
            old_rows = None if olds is None else [olds[mb[k]] for k in micro]
            _backward_micro(run, collate([mb_samples[k] for k in micro], run.pad_id), old_rows,
                            [weights[k] for k in micro])
    grad_norm = torch.nn.utils.clip_grad_norm_(params, optim.max_grad_norm)
    run.stats["loss/grad_norm"] += scalar(grad_norm) / num_minibatches
    optimizer.step()
    run.stats["loss/optimizer_steps"] += 1
    return n_tokens


def _backward_micro(run: _Update, batch: MicroBatch, old_rows: list[Any] | None,
                    row_weights: list[float], is_padding: bool = False) -> None:
    """Forward pass, clipped loss and backward pass of one micro-batch; adds its diagnostics
    to ``run.stats`` (not for a padding pass). ``old_rows``: the pre-update log-probabilities
    of its rows (None: the first mini-batch, whose policy is still the one that sampled)."""
    import torch

    grpo, stats = run.grpo, run.stats
    with autocast(run.dtype, run.device):
        logp, entropy = token_logprobs(run.model, batch, run.temperature, with_entropy=True,
                                       padding_free=run.padding_free)
    run.count_forward(batch)
    mask = batch.loss_mask.to(logp.device)
    old = logp.detach() if old_rows is None else _pad_rows(old_rows, logp.shape[1])
    ref = None
    if grpo.kl_coef > 0:
        with torch.no_grad(), autocast(run.dtype, run.device):
            ref, _ = token_logprobs(run.ref_model, batch, run.temperature,
                                    padding_free=run.padding_free)
        run.count_forward(batch)
    weight = None if is_padding else run.gap.add(old, batch, mask, grpo.tis_cap)
    terms = ppo_clip_loss(logp, old, batch.advantages, mask, grpo.clip_low, grpo.clip_high, ref,
                          grpo.kl_coef, weight)
    # the engines average gradients over ranks; the weights are global already
    row_w = torch.tensor(row_weights, dtype=terms.token_loss.dtype,
                         device=terms.token_loss.device) * gradient_scale(run.model)  # (B,)
    (terms.token_loss.sum(-1) * row_w).sum().backward()
    if is_padding:
        return
    stats["loss/policy"] += terms.policy_loss
    stats["loss/clip_frac_low"] += terms.clip_low
    stats["loss/clip_frac_high"] += terms.clip_high
    stats["loss/approx_kl"] += terms.approx_kl
    stats["loss/kl_ref"] += terms.kl_ref
    stats["loss/entropy"] += float((entropy * mask).sum())
    run.trained_tokens += int(batch.attention_mask.sum())


def _finish_stats(run: _Update, total_tokens: int, is_distributed: bool) -> None:
    """Combine the sums over ranks, turn them into per-token means, add the sampler gap."""
    stats = run.stats
    if is_distributed:
        counts = ("loss/num_samples", M.FORWARD_TOKENS, M.HEAD_TOKENS)
        values = all_reduce([stats[k] for k in _SUMMED + counts] + [run.trained_tokens])
        stats.update(zip(_SUMMED + counts, values[:-1], strict=True))
        run.trained_tokens = int(values[-1])
    for key in _SUMMED:
        stats[key] /= max(total_tokens, 1)
    run.gap.reduce(is_distributed)
    stats.update(run.gap.metrics())
    stats["loss/num_tokens"] = float(total_tokens)
