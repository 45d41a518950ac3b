"""Token-level PPO-clip loss with separate low/high clip and an optional k3 KL to a reference.

For every sampled token k of every turn sample (advantage ``A`` of its trajectory, or the cut
turn's own under ``cut_turn=penalty``)::

    ratio_k  = exp(logp_k - old_logp_k)
    pg_loss1 = -A * ratio_k
    pg_loss2 = -A * clip(ratio_k, 1 - clip_low, 1 + clip_high)
    loss_k   = w_k * max(pg_loss1, pg_loss2) + kl_coef * k3_k
    k3_k     = exp(ref_logp_k - logp_k) - (ref_logp_k - logp_k) - 1
    w_k      = min(exp(old_logp_k - sampler_logp_k), C)   truncated importance sampling (TIS),
                                                          detached; 1 when off

The TIS weight corrects for the sampler (vLLM, another precision) and the trainer disagreeing
on the same weights: the tokens were drawn from the sampler's distribution, the ratio is taken
against the trainer's, so each token's policy-gradient term is reweighted by their ratio,
truncated at ``C`` to bound the variance (verl's and prime-rl's TIS).

The caller weighs each sample's ``loss_k`` with weights fixed over the whole optimizer batch
(``GRPOConfig.loss_norm``: by default ``1 / (sampled tokens)``, the token mean with a global
denominator), so splitting a batch into micro-batches changes nothing. ``logp`` is
``log_softmax(logits / T)`` at the sampling temperature ``T``, ``logits`` being what the
model's own forward returns, its post-processing included (Gemma-2's final soft-capping,
Granite's ``logits_scaling``, Cohere's ``logit_scale``, ...): the sampler draws from those.
It is taken ``CHUNK_TOKENS`` positions at a time (:func:`selected_logprobs`, a logsumexp per
row with a backward pass that recomputes the softmax), so no (tokens, vocabulary) float32 copy
of the logits exists beside the model's own.

Example:
    >>> import torch
    >>> logp = torch.log(torch.tensor([[0.5, 0.6]]))
    >>> out = ppo_clip_loss(logp, logp.detach(), torch.tensor([1.0]),
    ...                     torch.tensor([[True, False]]), 0.2, 0.28)
    >>> round(float(out.token_loss[0, 0]), 3), out.clip_low, out.clip_high
    (-1.0, 0.0, 0.0)
"""

from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass
from typing import Any

from .batching import MicroBatch

__all__ = ["token_logprobs", "selected_logprobs", "forward_tokens", "can_pack",
           "packs_in_one_row", "ppo_clip_loss", "LossTerms", "CHUNK_TOKENS"]

CHUNK_TOKENS = 512
"""Loss positions whose float32 softmax over the vocabulary exists at once (a 152k vocabulary:
512 x 152k x 4 bytes = 0.3 GB per chunk tensor; the backward holds three of them)."""


def token_logprobs(model: Any, batch: MicroBatch, temperature: float,
                   with_entropy: bool = False, chunk_tokens: int = CHUNK_TOKENS,
                   padding_free: bool = False) -> tuple[Any, Any]:
    """Log-probabilities of the next token at every loss position, and optionally the entropy.

    The model's full forward computes the logits, so whatever it does after its output head
    (soft-capping, scaling) is in them, as in the sampler's. Only the positions from the
    earliest loss position on go through the head (``logits_to_keep``; the prompt's positions
    are most of a windowed sample and need no logits), and only loss positions through the
    softmax, ``chunk_tokens`` of them at a time in float32 (:func:`selected_logprobs`): beyond
    the model's own logits and their gradient, memory grows with ``chunk_tokens x vocabulary``,
    not with the tokens of the micro-batch.

    With ``padding_free`` (verl's ``use_remove_padding``) the samples' real tokens run packed,
    several to a row, position ids restarting at 0 for each sample and no attention mask, from
    which transformers builds a block-diagonal causal mask (``masking_utils``, sdpa and eager;
    flash attention's variable-length kernel reads the same position ids). Rows are as wide as
    the longest sample, filled first-fit (sdpa's dense mask costs the square of the row), or
    one row under flash attention (:func:`packs_in_one_row`); ``logits_to_keep`` is the tensor
    of loss positions, so the head and softmax run at sampled tokens only (:func:`forward_tokens`
    counts both). Same values as the padded rows, to float rounding.

    Args:
        model: a causal LM (or a peft / DDP / FSDP wrapper of one).
        batch: the micro-batch; ``loss_mask`` picks the positions.
        temperature: the sampling temperature ``T`` (``logits / T``; no scaling when ``T <= 0``,
            greedy sampling).
        with_entropy: also return each position's entropy (computed without gradient).
        chunk_tokens: positions whose float32 softmax exists at once.
        padding_free: pack the samples (see above); the model must be a transformers model
            whose attention masks come from ``masking_utils`` (Llama, Qwen2/3, Gemma, Mistral,
            ...).

    Returns:
        ``(logp, entropy)``: both (B, T-1) aligned with ``batch.targets``, zero outside the
        loss mask; entropy is None unless asked for.

    Raises:
        ValueError: ``padding_free`` with a model that cannot take packed sequences.

    Example:
        >>> import torch
        >>> from agents.grpo.batching import TrainSample, collate
        >>> class Uniform(torch.nn.Module):   # any causal LM: logits (B, T, V)
        ...     def __init__(self): super().__init__(); self.w = torch.nn.Parameter(torch.zeros(4))
        ...     def forward(self, input_ids, attention_mask, use_cache):
        ...         return type("Out", (), {"logits": self.w.expand(*input_ids.shape, 4)})
        >>> batch = collate([TrainSample((1, 2), (3,), 1.0, (-1.4,))], pad_id=0)
        >>> logp, entropy = token_logprobs(Uniform(), batch, 1.0, with_entropy=True)
        >>> round(logp[0, 1].item(), 4), round(entropy[0, 1].item(), 4)  # log(1/4), log(4)
        (-1.3863, 1.3863)
    """
    import torch

    from ..lora import causal_lm

    lm = causal_lm(model)  # a peft wrapper's adapters live inside its causal LM's layers
    device = next(lm.parameters()).device
    mask = batch.loss_mask.to(device)  # (B, T-1)
    if padding_free:
        out, sample, column = _packed_forward(lm, batch, mask, device)
        picked, ent = selected_logprobs(out.logits, sample, column,
                                        batch.targets.to(device)[mask], temperature,
                                        chunk_tokens, with_entropy)
        return _scatter(mask, picked), _scatter(mask, ent) if with_entropy else None
    input_ids = batch.input_ids.to(device)  # (B, T)
    width = input_ids.shape[1]
    rows = mask.any(dim=0).nonzero()
    first = int(rows[0]) if len(rows) else width - 1  # earliest position with a loss target
    kwargs: dict[str, Any] = {}
    if _takes_logits_to_keep(type(lm)):
        kwargs["logits_to_keep"] = width - first  # positions first .. T-1
    else:
        first = 0
    out = lm(input_ids=input_ids, attention_mask=batch.attention_mask.to(device),
             use_cache=False, **kwargs)
    # (N,) each, row-major like mask's True positions (masked_scatter's order); column c of
    # the kept logits is position first + c, and their last column (position T-1) is never picked
    sample, column = mask[:, first:].nonzero(as_tuple=True)
    picked, ent = selected_logprobs(out.logits, sample, column, batch.targets.to(device)[mask],
                                    temperature, chunk_tokens, with_entropy)
    return _scatter(mask, picked), _scatter(mask, ent) if with_entropy else None


def _scatter(mask: Any, values: Any) -> Any:
    """(B, T-1) zeros with ``values`` at ``mask``'s True positions, row-major."""
    import torch

    return torch.zeros(mask.shape, dtype=values.dtype, device=values.device).masked_scatter(
        mask, values)


def _packed_forward(lm: Any, batch: MicroBatch, mask: Any, device: Any) -> tuple[Any, Any, Any]:
    """The padding-free forward of :func:`token_logprobs`: returns the model output, whose
    logits are (1, N, V) at the N loss positions (row-major, as ``mask``'s), and the
    ``(sample, column)`` picking them."""
    import torch

    inner = _unwrap_ddp(lm)  # DDP passes the keyword arguments on to it
    if not _takes_packed_sequences(type(inner)):
        raise ValueError(f"padding_free: {type(inner).__name__} cannot take packed sequences "
                         "(its forward needs position_ids and logits_to_keep, and its attention "
                         "mask transformers' masking_utils); set OptimConfig.padding_free=False "
                         "(--no-optim.padding-free).")
    lengths = batch.attention_mask.sum(dim=1).tolist()  # rows right-padded
    width, rows = _packed_layout(lengths, packs_in_one_row(lm))
    input_ids = torch.zeros((len(rows), width), dtype=torch.long)  # (R, W)
    position_ids = torch.zeros((len(rows), width), dtype=torch.long)
    start = [0] * len(lengths)  # each sample's first index in the flattened (R x W) rows
    for r, members in enumerate(rows):
        at = 0
        for b in members:
            n = lengths[b]
            input_ids[r, at:at + n] = batch.input_ids[b, :n]
            position_ids[r, at:at + n] = torch.arange(n)
            start[b], at = r * width + at, at + n
        position_ids[r, at:] = torch.arange(width - at)  # the tail: a sequence of its own
    row, col = mask.nonzero(as_tuple=True)  # (N,) each, row-major
    keep = torch.tensor(start, device=device)[row] + col  # (N,) flat positions to keep
    hook = None
    if len(rows) > 1:  # logits_to_keep indexes one row: the body's output is flattened to it
        hook = inner.get_decoder().register_forward_hook(_flatten_hidden_states)
    try:
        out = lm(input_ids=input_ids.to(device), position_ids=position_ids.to(device),
                 attention_mask=None, use_cache=False, logits_to_keep=keep)
    finally:
        if hook is not None:
            hook.remove()
    return out, torch.zeros_like(keep), torch.arange(keep.numel(), device=device)


def _flatten_hidden_states(_module: Any, _args: Any, output: Any) -> Any:
    """Forward hook on the decoder: its (R, W, H) last hidden state as one (1, R x W, H) row."""
    hidden = output.last_hidden_state
    output.last_hidden_state = hidden.reshape(1, -1, hidden.shape[-1])
    return output


def _packed_layout(lengths: list[int], one_row: bool) -> tuple[int, list[list[int]]]:
    """Width and rows (sample indices) of a packed micro-batch: one row of every token for
    flash attention, else rows as wide as the longest sample (:func:`packed_rows`)."""
    from .batching import packed_rows

    if one_row:
        return sum(lengths), [list(range(len(lengths)))]
    return max(lengths), packed_rows(lengths, max(lengths))


def can_pack(model: Any) -> bool:
    """Whether ``model`` (a causal LM, or a peft / DDP / FSDP wrapper of one) takes the
    padding-free forward of :func:`token_logprobs`."""
    from ..model_unwrap import causal_lm

    return _takes_packed_sequences(type(_unwrap_ddp(causal_lm(model))))


def packs_in_one_row(model: Any) -> bool:
    """Whether a padding-free micro-batch runs as one row: with flash attention (whose
    variable-length kernel reads the sequences from position ids, at linear cost, and only
    for one row); sdpa and eager build a dense mask over the row, so they get rows as wide as
    the longest sample instead."""
    from ..model_unwrap import causal_lm

    config = getattr(_unwrap_ddp(causal_lm(model)), "config", None)
    return "flash" in str(getattr(config, "_attn_implementation", "") or "")


def forward_tokens(batch: MicroBatch, padding_free: bool, one_row: bool = False
                   ) -> tuple[int, int]:
    """Positions a forward of ``batch`` runs through the model body and through the output head:
    padded ``(B x T, B x positions from the earliest loss position on)``, packed ``(rows x
    width, loss positions)`` (``one_row``: :func:`packs_in_one_row`).

    Example:
        >>> from agents.grpo.batching import TrainSample, collate
        >>> b = collate([TrainSample((1, 2, 3), (4,), 1.0, ()), TrainSample((1,), (5,), 1.0, ()),
        ...              TrainSample((1,), (6,), 1.0, ())], pad_id=0)   # lengths 4, 2, 2
        >>> forward_tokens(b, padding_free=False), forward_tokens(b, padding_free=True)
        ((12, 12), (8, 3))
        >>> forward_tokens(b, padding_free=True, one_row=True)
        (8, 3)
    """
    if padding_free:
        width, rows = _packed_layout(batch.attention_mask.sum(dim=1).tolist(), one_row)
        return len(rows) * width, int(batch.loss_mask.sum())
    rows_, width_ = batch.input_ids.shape
    hit = batch.loss_mask.any(dim=0).nonzero()
    first = int(hit[0]) if len(hit) else width_ - 1
    return rows_ * width_, rows_ * (width_ - first)


def selected_logprobs(logits: Any, sample: Any, column: Any, targets: Any, temperature: float,
                      chunk_tokens: int = CHUNK_TOKENS, with_entropy: bool = False
                      ) -> tuple[Any, Any]:
    """``log_softmax(logits[s, c] / T)[target]`` at N positions, without a (N, V) copy.

    The picked rows go through float32 ``chunk_tokens`` at a time: each chunk's log-softmax,
    the target's entry gathered (and the entropy), nothing of it kept; the backward pass
    recomputes each chunk's log-softmax to form its gradient in the logits' own dtype. So the
    memory beyond ``logits`` (kept for the backward pass) and its gradient is a few
    (chunk_tokens, V) float32 tensors, whatever N is; the values and gradients are bitwise
    those of ``log_softmax(logits[mask].float() / T)`` gathered (the same kernels, row by row).

    Args:
        logits: (B, T, V) the model's logits, any float dtype (with gradient or not).
        sample, column: (N,) long, the positions to pick (``logits[sample[k], column[k]]``).
        targets: (N,) long, the token whose log-probability is taken at each position.
        temperature: ``T``; no scaling when ``T <= 0``.
        chunk_tokens: rows in float32 at once (>= 1).
        with_entropy: also return each row's entropy (no gradient).

    Returns:
        ``(logp, entropy)``: (N,) float32 (float64 for float64 logits); entropy is None unless
        asked for.

    Raises:
        ValueError: ``chunk_tokens < 1``.

    Example:
        >>> import torch
        >>> logits = torch.randn(2, 3, 5, requires_grad=True)
        >>> s, c, t = torch.tensor([0, 1]), torch.tensor([2, 0]), torch.tensor([4, 1])
        >>> logp, _ = selected_logprobs(logits, s, c, t, 0.7, chunk_tokens=1)
        >>> ref = torch.log_softmax(logits[s, c] / 0.7, -1).gather(-1, t[:, None]).squeeze(-1)
        >>> torch.allclose(logp, ref)
        True
    """
    if chunk_tokens < 1:
        raise ValueError(f"chunk_tokens={chunk_tokens}: the softmax needs at least one row at a "
                         "time; pass chunk_tokens >= 1 (the default is "
                         f"{CHUNK_TOKENS}).")
    logp, entropy = _selected_log_softmax().apply(
        logits, sample, column, targets, temperature if temperature > 0 else None, chunk_tokens,
        with_entropy)
    return logp, entropy if with_entropy else None


def _chunk_rows(logits: Any, sample: Any, column: Any, divisor: float | None) -> Any:
    """Rows ``logits[sample, column]`` in float32 (at least), divided by the temperature: the
    same operations, in the same order, as ``logits[mask].float() / T`` on all rows at once."""
    import torch

    x = logits[sample, column]  # (n, V)
    x = x.to(torch.promote_types(x.dtype, torch.float32))
    return x / divisor if divisor is not None else x


@functools.cache
def _selected_log_softmax() -> Any:
    """The autograd Function behind :func:`selected_logprobs` (built on first use: this package
    imports torch lazily).

    Each chunk runs the very kernels autograd runs on the whole (N, V) block (``log_softmax``
    and its backward, ``gather``'s one-hot, the division by ``T``), row by row, so values and
    gradients are bitwise those of ``log_softmax(logits[mask].float() / T).gather(...)``: a
    run's numbers do not change with the chunking, only its memory does.
    """
    import torch

    class SelectedLogSoftmax(torch.autograd.Function):
        """See :func:`selected_logprobs`: forward and backward over row chunks."""

        @staticmethod
        def forward(ctx: Any, logits: Any, sample: Any, column: Any, targets: Any,
                    divisor: float | None, chunk: int, with_entropy: bool) -> tuple[Any, Any]:
            n = sample.numel()
            dtype = torch.promote_types(logits.dtype, torch.float32)
            picked = torch.empty(n, dtype=dtype, device=logits.device)  # (N,)
            entropy = torch.empty(n if with_entropy else 0, dtype=dtype, device=logits.device)
            for start in range(0, n, chunk):
                part = slice(start, start + chunk)
                logsm = torch.log_softmax(_chunk_rows(logits, sample[part], column[part],
                                                      divisor), dim=-1)  # (n, V)
                picked[part] = logsm.gather(-1, targets[part, None]).squeeze(-1)
                if with_entropy:
                    entropy[part] = -(logsm.exp() * logsm).sum(-1)
                del logsm  # before the next chunk's rows exist: one chunk at a time
            ctx.save_for_backward(logits, sample, column, targets)
            ctx.divisor, ctx.chunk = divisor, chunk
            ctx.mark_non_differentiable(entropy)
            ctx.set_materialize_grads(False)
            return picked, entropy

        @staticmethod
        def backward(ctx: Any, grad_picked: Any, _grad_entropy: Any) -> tuple[Any, ...]:
            none = (None,) * 6
            if grad_picked is None or not ctx.needs_input_grad[0]:
                return (None, *none)
            logits, sample, column, targets = ctx.saved_tensors
            grad = torch.zeros_like(logits)  # what the output head's backward needs anyway
            for start in range(0, sample.numel(), ctx.chunk):
                part = slice(start, start + ctx.chunk)
                logsm = torch.log_softmax(_chunk_rows(logits, sample[part], column[part],
                                                      ctx.divisor), dim=-1)  # (n, V)
                # gather's backward: the picked gradient at the target, zeros elsewhere
                onehot = torch.zeros_like(logsm).scatter_(-1, targets[part, None],
                                                          grad_picked[part, None].to(logsm.dtype))
                dx = torch._log_softmax_backward_data(onehot, logsm, -1, logsm.dtype)
                del logsm, onehot
                if ctx.divisor is not None:
                    dx = dx / ctx.divisor
                grad[sample[part], column[part]] = dx.to(grad.dtype)
                del dx
            return (grad, *none)

    return SelectedLogSoftmax


@functools.cache
def _takes_logits_to_keep(cls: type) -> bool:
    return "logits_to_keep" in inspect.signature(cls.forward).parameters


@functools.cache
def _takes_packed_sequences(cls: type) -> bool:
    """Whether ``cls`` (a transformers causal LM, or FSDP2's subclass of one) takes
    ``position_ids`` and ``logits_to_keep`` and builds its attention mask with
    ``masking_utils.create_causal_mask``, which finds packed sequences from ``position_ids``
    when no attention mask is given."""
    import sys

    params = inspect.signature(cls.forward).parameters
    return ("position_ids" in params and "logits_to_keep" in params
            and any(getattr(sys.modules.get(c.__module__), "create_causal_mask", None)
                    is not None for c in cls.__mro__))


def _unwrap_ddp(model: Any) -> Any:
    """The module a ``DistributedDataParallel`` wraps (``model`` itself otherwise)."""
    from torch.nn.parallel import DistributedDataParallel

    return model.module if isinstance(model, DistributedDataParallel) else model


@dataclass
class LossTerms:
    """Per-token loss and summed diagnostics for one micro-batch (sums over loss tokens)."""

    token_loss: Any  # (B, T-1), zero outside the loss mask
    clip_low: float  # tokens whose ratio went below 1 - clip_low with A < 0 (clipped)
    clip_high: float  # tokens whose ratio went above 1 + clip_high with A > 0 (clipped)
    approx_kl: float  # sum of k3(old || new)
    kl_ref: float  # sum of k3(ref || new)
    policy_loss: float  # sum of the surrogate term alone


def ppo_clip_loss(logp: Any, old_logp: Any, advantages: Any, mask: Any, clip_low: float,
                  clip_high: float, ref_logp: Any = None, kl_coef: float = 0.0,
                  is_weight: Any = None) -> LossTerms:
    """The per-token loss (see the module docstring) and its diagnostics.

    Args:
        logp: (B, T-1) current log-probabilities (with gradient).
        old_logp: (B, T-1) log-probabilities of the policy that sampled (no gradient).
        advantages: (B,) one advantage per sample.
        mask: (B, T-1) bool, True on sampled tokens.
        clip_low, clip_high: the ratio may move to ``[1 - clip_low, 1 + clip_high]``.
        ref_logp: (B, T-1) reference log-probabilities, needed when ``kl_coef > 0``.
        kl_coef: weight of the k3 KL to the reference.
        is_weight: (B, T-1) truncated importance weights of the policy-gradient term (no
            gradient; None: 1 everywhere).
    """
    import torch

    m = mask.to(logp.device)
    adv = advantages.to(logp.device).unsqueeze(-1)  # (B, 1)
    log_ratio = (logp - old_logp).masked_fill(~m, 0.0)
    ratio = torch.exp(log_ratio)
    pg_loss1 = -adv * ratio
    pg_loss2 = -adv * torch.clamp(ratio, 1.0 - clip_low, 1.0 + clip_high)
    pg = torch.maximum(pg_loss1, pg_loss2)
    if is_weight is not None:
        pg = pg * is_weight.detach()
    token_loss = pg
    kl_ref = 0.0
    if kl_coef > 0:
        if ref_logp is None:
            raise ValueError("ppo_clip_loss: kl_coef > 0 needs ref_logp.")
        d = (ref_logp - logp).masked_fill(~m, 0.0)
        k3 = torch.exp(d) - d - 1.0
        token_loss = token_loss + kl_coef * k3
        kl_ref = float((k3 * m).sum().detach())
    token_loss = token_loss * m
    with torch.no_grad():
        low = ((ratio < 1.0 - clip_low) & (adv < 0) & m).sum()
        high = ((ratio > 1.0 + clip_high) & (adv > 0) & m).sum()
        k3_old = (ratio - 1.0) - log_ratio  # KL(old || new), sampled from old
        approx_kl = (k3_old * m).sum()
        policy = (pg * m).sum()
    return LossTerms(token_loss, float(low), float(high), float(approx_kl), kl_ref, float(policy))
