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

__all__ = ["token_logprobs", "ppo_clip_loss", "LossTerms"]


def token_logprobs(model: Any, batch: MicroBatch, temperature: float,
                   with_entropy: bool = False) -> tuple[Any, Any]:
    """Log-probabilities of the next token at every loss position, and optionally the entropy.

    The model's full forward computes the logits, so whatever it does after its output head
    (soft-capping, scaling) is in them, as in the sampler's. Only the positions from the
    earliest loss position on go through the head (``logits_to_keep``; the prompt's positions
    are most of a windowed sample and need no logits), and only loss positions through the
    softmax.

    Returns:
        ``(logp, entropy)``: both (B, T-1) aligned with ``batch.targets``, zero outside the
        loss mask; entropy is None unless asked for (computed without gradient).
    """
    import torch

    from ..lora import causal_lm

    lm = causal_lm(model)  # a peft wrapper's adapters live inside its causal LM's layers
    device = next(lm.parameters()).device
    mask = batch.loss_mask.to(device)  # (B, T-1)
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
    kept = out.logits[:, :width - 1 - first] if first < width - 1 else out.logits[:, :0]
    logits = kept[mask[:, first:]].float()  # (N, V), row-major like mask's True positions
    if temperature > 0:
        logits = logits / temperature
    logsm = torch.log_softmax(logits, dim=-1)
    picked = logsm.gather(-1, batch.targets.to(device)[mask].unsqueeze(-1)).squeeze(-1)
    logp = torch.zeros(mask.shape, dtype=picked.dtype, device=device).masked_scatter(mask, picked)
    entropy = None
    if with_entropy:
        with torch.no_grad():
            ent = -(logsm.exp() * logsm).sum(-1)
            entropy = torch.zeros(mask.shape, dtype=ent.dtype, device=device).masked_scatter(
                mask, ent)
    return logp, entropy


@functools.cache
def _takes_logits_to_keep(cls: type) -> bool:
    return "logits_to_keep" in inspect.signature(cls.forward).parameters


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
