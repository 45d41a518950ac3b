"""Sample turns with transformers ``generate``: batched with left padding, on CPU or GPU.

Log-probabilities are ``log_softmax(logits / T)`` of the raw logits at each sampled position,
the same quantity the GRPO trainer computes, so sampler and trainer agree to float tolerance.
Generation runs in the run's precision (bfloat16: under the trainer's autocast).

Example:
    >>> policy = HFPolicy.from_pretrained(model_dir, chat=ChatFormatConfig())   # doctest: +SKIP
    >>> policy.set_env(envs); actions = policy.get_action(infos)               # doctest: +SKIP
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from ..chat_format import ChatFormatConfig, ChatRenderer
from ..errors import ModelLoadError
from ..precision import DType, autocast
from .chat_policy import ChatPolicy
from .sampling import Generation, SamplingConfig, trim_at_eos

logger = logging.getLogger(__name__)

__all__ = ["HFBackend", "HFPolicy", "load_model_and_tokenizer", "resolve_device"]


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
        self.pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None \
            else tokenizer.eos_token_id
        eos = model.generation_config.eos_token_id
        eos_list = eos if isinstance(eos, list) else [eos]
        self.eos_ids = [e for e in [tokenizer.eos_token_id, *eos_list] if e is not None]

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
        was_training = self.model.training
        self.model.eval()
        try:
            with torch.no_grad(), autocast(self.dtype, device):
                result = self.model.generate(
                    input_ids=input_ids.to(device), attention_mask=attention.to(device),
                    do_sample=not s.is_greedy, temperature=None if s.is_greedy else s.temperature,
                    top_p=None if s.is_greedy else s.top_p, top_k=None,
                    max_new_tokens=s.max_new_tokens, pad_token_id=self.pad_id,
                    eos_token_id=self.eos_ids, output_logits=True, return_dict_in_generate=True)
        finally:
            self.model.train(was_training)
        new = result.sequences[:, width:].cpu()  # (B, T_new)
        logits = torch.stack(result.logits, dim=1).float().cpu()  # (B, T_new, V) raw logits
        if not s.is_greedy:
            logits = logits / s.temperature
        logp = torch.log_softmax(logits, dim=-1).gather(-1, new.unsqueeze(-1)).squeeze(-1)
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
