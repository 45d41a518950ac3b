"""Sample turns with transformers ``generate``: batched with left padding, on CPU or GPU.

Sampling follows an explicit :class:`transformers.GenerationConfig` built from our
:class:`~agents.policies.sampling.SamplingConfig` alone (:func:`sampling_generation_config`):
nothing of the model's own ``generation_config`` (a repetition penalty, ``top_k``, ``top_p``,
...) is inherited, so the tokens are drawn from ``softmax(logits / T)`` (nucleus-truncated only
when ``top_p < 1`` is asked for). The log-probabilities recorded are of the distribution the
tokens were actually drawn from (generate's processed scores): with ``top_p = 1`` that is
``log_softmax(logits / T)``, the quantity the GRPO trainer computes, so sampler and trainer
agree to float tolerance. Generation runs in the run's precision (bfloat16: under the
trainer's autocast).

Example:
    >>> policy = HFPolicy.from_pretrained(model_dir, chat=ChatFormatConfig())   # doctest: +SKIP
    >>> policy.set_env(envs); actions = policy.get_action(infos)               # doctest: +SKIP
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from ..chat_format import ChatFormatConfig, ChatRenderer, end_token_ids, pad_token_id
from ..errors import ModelLoadError
from ..lora import causal_lm
from ..precision import DType, autocast
from .chat_policy import ChatPolicy
from .sampling import Generation, SamplingConfig, trim_at_eos

logger = logging.getLogger(__name__)

__all__ = ["HFBackend", "HFPolicy", "load_model_and_tokenizer", "resolve_device",
           "sampling_generation_config"]


def resolve_device(device: str) -> str:
    """``auto`` -> ``cuda`` when a GPU is visible, else ``cpu``; other values pass through."""
    if device != "auto":
        return device
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def load_model_and_tokenizer(path: str, device: str = "auto", dtype: str = "float32"
                             ) -> tuple[Any, Any]:
    """Load a causal LM and its tokenizer from a local folder (no hub access).

    Raises:
        ModelLoadError: the folder is missing or not a transformers model.
    """
    import torch
    from awm_gym.doctor import import_names

    AutoModelForCausalLM, AutoTokenizer = import_names(  # noqa: N806 - class names
        "transformers", "AutoModelForCausalLM", "AutoTokenizer")

    try:
        tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
        model = AutoModelForCausalLM.from_pretrained(path, local_files_only=True,
                                                     dtype=getattr(torch, dtype))
    except (OSError, ValueError) as e:
        raise ModelLoadError(f"Cannot load a model from {path!r}: {e}. Build the offline "
                             "default with `awm train` (it builds the tiny model) or pass a "
                             "folder written by save_pretrained.") from e
    tokenizer.padding_side = "left"
    return model.to(resolve_device(device)), tokenizer


def sampling_generation_config(s: SamplingConfig, eos_ids: Sequence[int], pad_id: int) -> Any:
    """The complete :class:`transformers.GenerationConfig` for sampling one turn with ``s``.

    Every option transformers would otherwise take from the model's own generation config or
    its global defaults (``top_k`` 50 among them) is set here, to the value that leaves the
    distribution alone (``top_k`` 0 when sampling; greedy decoding ignores it).
    :class:`HFBackend` also swaps it in as the model's config for the call, so not even
    options missing here are inherited.

    Example:
        >>> cfg = sampling_generation_config(SamplingConfig(temperature=0.7), [2], 0)
        >>> cfg.do_sample, cfg.temperature, cfg.top_k, cfg.top_p, cfg.repetition_penalty
        (True, 0.7, 0, 1.0, 1.0)
    """
    from transformers import GenerationConfig

    greedy = s.is_greedy
    return GenerationConfig(
        do_sample=not greedy, temperature=1.0 if greedy else s.temperature,
        top_p=1.0 if greedy else s.top_p, top_k=None if greedy else 0, min_p=None,
        typical_p=1.0, epsilon_cutoff=0.0, eta_cutoff=0.0, repetition_penalty=1.0,
        no_repeat_ngram_size=0,
        encoder_repetition_penalty=1.0, encoder_no_repeat_ngram_size=0, length_penalty=1.0,
        min_length=0, min_new_tokens=None, num_beams=1, num_return_sequences=1,
        max_new_tokens=s.max_new_tokens, pad_token_id=pad_id, eos_token_id=list(eos_ids),
        bos_token_id=None, output_scores=True, return_dict_in_generate=True, use_cache=True)


class HFBackend:
    """Batched ``model.generate`` over token-id prompts.

    Args:
        model: a transformers causal LM (used in eval mode; the trainer may share it).
        tokenizer: its tokenizer (pad and end-of-turn ids).
        sampling: temperature, top-p, max new tokens.
        batch_size: most prompts per ``generate`` call (longer lists are chunked).
        dtype: the run's precision (bfloat16: generate under autocast, as the trainer).
    """

    def __init__(self, model: Any, tokenizer: Any, sampling: SamplingConfig,
                 batch_size: int = 64, dtype: DType | str = DType.FLOAT32) -> None:
        self.model = model
        self.dtype = DType.coerce(dtype)
        self.sampling = sampling
        self.batch_size = batch_size
        self.pad_id = pad_token_id(tokenizer)
        self.eos_ids = list(end_token_ids(tokenizer, model.generation_config))
        """Every id that ends a turn: the tokenizer's end-of-turn and the model's EOS ids."""

    def generate(self, messages: Sequence[Sequence[Mapping[str, str]]],
                 prompt_ids: Sequence[Sequence[int] | None], seed: int | None,
                 sampling: SamplingConfig | None = None) -> list[Generation]:
        import torch

        if any(p is None for p in prompt_ids):
            raise ValueError("HFBackend needs rendered prompt ids (give ChatPolicy a renderer).")
        if seed is not None:
            torch.manual_seed(seed)
        out: list[Generation] = []
        for start in range(0, len(prompt_ids), self.batch_size):
            out.extend(self._generate_batch(prompt_ids[start:start + self.batch_size],
                                            sampling or self.sampling))
        return out

    def _generate_batch(self, prompts: Sequence[Sequence[int]], s: SamplingConfig
                        ) -> list[Generation]:
        import torch

        device = next(self.model.parameters()).device
        width = max(len(p) for p in prompts)
        input_ids = torch.full((len(prompts), width), self.pad_id, dtype=torch.long)
        attention = torch.zeros((len(prompts), width), dtype=torch.long)
        for row, p in enumerate(prompts):  # left padding: every prompt ends at the same column
            input_ids[row, width - len(p):] = torch.tensor(list(p), dtype=torch.long)
            attention[row, width - len(p):] = 1
        config = sampling_generation_config(s, self.eos_ids, self.pad_id)
        lm = causal_lm(self.model)
        was_training, own_config = self.model.training, lm.generation_config
        self.model.eval()
        lm.generation_config = config  # generate fills unset options from the model's config
        try:
            with torch.no_grad(), autocast(self.dtype, device):
                result = self.model.generate(
                    input_ids=input_ids.to(device), attention_mask=attention.to(device),
                    generation_config=config)
        finally:
            lm.generation_config = own_config
            self.model.train(was_training)
        new = result.sequences[:, width:].cpu()  # (B, T_new)
        # the processed scores: exactly the distribution each token was drawn from
        scores = torch.stack(result.scores, dim=1).float().cpu()  # (B, T_new, V)
        logp = torch.log_softmax(scores, dim=-1).gather(-1, new.unsqueeze(-1)).squeeze(-1)
        gens = []
        for row, p in enumerate(prompts):
            ids, stopped = trim_at_eos(new[row].tolist(), self.eos_ids)
            gens.append(Generation(tuple(int(t) for t in p), ids,
                                   tuple(float(x) for x in logp[row, :len(ids)].tolist()),
                                   "stop" if stopped else "length", ""))
        return gens

    def close(self) -> None:
        """Nothing to release (the model belongs to the caller)."""


class HFPolicy(ChatPolicy):
    """:class:`ChatPolicy` over a transformers model.

    Args:
        model: a causal LM (shared with a trainer if you like: it samples in eval mode).
        tokenizer: its tokenizer, with a chat template.
        chat: the prompt format and window.
        sampling: temperature, top-p, token limits.
        batch_size: most prompts per ``generate`` call.
        name: the policy's name in datasets and transcripts.
        dtype: the run's precision.
    """

    def __init__(self, model: Any, tokenizer: Any, chat: ChatFormatConfig | None = None,
                 sampling: SamplingConfig | None = None, batch_size: int = 64,
                 name: str = "hf", dtype: DType | str = DType.FLOAT32) -> None:
        sampling = sampling or SamplingConfig()
        renderer = ChatRenderer(tokenizer)
        backend = HFBackend(model, tokenizer, sampling, batch_size, dtype)
        super().__init__(backend, chat or ChatFormatConfig(), sampling, renderer,
                         context_length=model.config.max_position_embeddings, name=name)
        self.model, self.tokenizer = model, tokenizer

    @classmethod
    def from_pretrained(cls, path: str, chat: ChatFormatConfig | None = None,
                        sampling: SamplingConfig | None = None, device: str = "auto",
                        batch_size: int = 64, name: str = "hf") -> HFPolicy:
        """Load a model folder and wrap it (see :func:`load_model_and_tokenizer`)."""
        model, tokenizer = load_model_and_tokenizer(path, device)
        return cls(model, tokenizer, chat, sampling, batch_size, name)
