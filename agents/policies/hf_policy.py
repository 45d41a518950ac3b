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

Each step's log-probability is taken as generate goes (:class:`SampledLogprobs`, a logits
processor run after every processor and warper generate builds), so at most one (batch,
vocabulary) float32 tensor of ours is alive: asking generate for ``output_scores`` instead
would keep a (batch, vocabulary) tensor per new token (64 prompts x 256 tokens x a 152k
vocabulary: 10 GB).

Example:
    >>> policy = HFPolicy.from_pretrained(model_dir, chat=ChatFormatConfig())   # doctest: +SKIP
    >>> policy.set_env(envs); actions = policy.get_action(infos)               # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ..chat_format import ChatFormatConfig, ChatRenderer, end_token_ids, pad_token_id
from ..errors import ModelLoadError
from ..lora import causal_lm
from ..precision import DType, autocast
from .chat_policy import ChatPolicy
from .sampling import Generation, SamplingConfig, trim_at_eos

logger = logging.getLogger(__name__)

__all__ = ["HFBackend", "HFPolicy", "RowSampler", "SampledLogprobs", "load_model_and_tokenizer",
           "resolve_device", "sampling_generation_config"]


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
    options missing here are inherited. generate returns the token ids alone: no per-step
    scores (:class:`SampledLogprobs` records the log-probabilities as it goes) and no cache.

    Example:
        >>> cfg = sampling_generation_config(SamplingConfig(temperature=0.7), [2], 0)
        >>> cfg.do_sample, cfg.temperature, cfg.top_k, cfg.top_p, cfg.repetition_penalty
        (True, 0.7, 0, 1.0, 1.0)
        >>> cfg.output_scores, cfg.return_dict_in_generate
        (False, False)
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
        bos_token_id=None, output_scores=False, return_dict_in_generate=False, use_cache=True)


class SampledLogprobs:
    """A logits processor recording ``log p(token)`` of each token generate samples, one step late.

    Called with the scores the next token is drawn from (it must run after every processor
    and warper, see :func:`_run_last`), it keeps their ``log_softmax`` until the next call,
    whose ``input_ids`` end with the token just drawn, gathers that token's log-probability
    and drops the tensor: at most one (B, V) float32 tensor is alive. The last step's token
    is gathered by :meth:`finish` after generate returns. Rows that finished earlier get
    their padding's log-probability, as generate's own scores would (callers cut at EOS).

    Example:
        >>> import torch
        >>> rec = SampledLogprobs()
        >>> ids = torch.tensor([[5], [6]])                       # (B, prompt)
        >>> scores = torch.log(torch.tensor([[0.5, 0.5], [0.9, 0.1]]))
        >>> _ = rec(ids, scores)                                  # step 1 draws [1, 0]
        >>> _ = rec(torch.tensor([[5, 1], [6, 0]]), scores)       # step 2 draws [0, 1]
        >>> rec.finish(torch.tensor([0, 1]), new_tokens=2).exp()
        tensor([[0.5000, 0.5000],
                [0.9000, 0.1000]])
    """

    def __init__(self) -> None:
        self._logsm: Any = None  # (B, V) log_softmax of the last scores, until its token is known
        self._columns: list[Any] = []  # (B,) log p(token) per step so far

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        import torch

        self._take(input_ids[:, -1])
        # float32 whatever the autocast: the softmax the token was drawn from, unrounded
        with torch.autocast(scores.device.type, enabled=False):
            self._logsm = torch.log_softmax(scores.float(), dim=-1)  # (B, V)
        return scores

    def _take(self, tokens: Any) -> None:
        if self._logsm is not None:
            self._columns.append(self._logsm.gather(-1, tokens[:, None]).squeeze(-1))
            self._logsm = None

    def finish(self, last_tokens: Any, new_tokens: int) -> Any:
        """The (B, new_tokens) log-probabilities, given the tokens of the last step (B,).

        Raises:
            RuntimeError: fewer steps were recorded than tokens generated (the processor did
                not run on every step).
        """
        import torch

        self._take(last_tokens)
        if len(self._columns) < new_tokens:
            raise RuntimeError(
                f"SampledLogprobs recorded {len(self._columns)} steps of {new_tokens} generated "
                "tokens: generate did not call it on every step. HFBackend appends it through "
                "transformers' GenerationMixin._get_logits_processor; pin transformers to a "
                "version that builds its logits processors there (5.x does).")
        if new_tokens == 0:
            return torch.zeros((len(last_tokens), 0), device=last_tokens.device)
        # a deferred stop check (mps) runs one step more than it returns: drop it
        return torch.stack(self._columns[:new_tokens], dim=1)


class RowSampler:
    """Draw each row's next token with a generator of its own (per-request seeds).

    generate draws a batch's tokens from one random stream, so what a row samples depends on
    the rows beside it. Run after every other processor (after :class:`SampledLogprobs`,
    which records the real distribution), this draws row ``r``'s token from
    ``softmax(scores[r])`` with generator ``r`` and returns scores that allow only that token,
    so generate's own draw picks it. A row samples the same in any batch (up to the float
    noise of a different padding width).
    """

    def __init__(self, seeds: Sequence[int], device: Any) -> None:
        import torch

        self.generators = [torch.Generator(device=device).manual_seed(int(s)) for s in seeds]

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        import torch

        probs = torch.softmax(scores.float(), dim=-1)  # (B, V)
        out = torch.full_like(scores, float("-inf"))
        for row, generator in enumerate(self.generators):
            token = torch.multinomial(probs[row], 1, generator=generator)
            out[row, token] = 0.0
        return out


@contextlib.contextmanager
def _run_last(lm: Any, *processors: Any) -> Iterator[None]:
    """Within the block, ``lm.generate`` runs ``processors`` (in order) after all of its own.

    transformers (5.x) merges a ``logits_processor=`` list given to generate *before* the
    warpers (temperature, top-k, top-p, ...) it appends from the generation config, so such a
    processor would see unwarped scores. This appends it to the list generate builds instead,
    after the warpers and ``LogitNormalization``: it sees exactly the scores the token is
    drawn from.
    """
    name = "_get_logits_processor"
    had_own = name in vars(lm)
    build = getattr(lm, name, None)
    if build is None:
        raise RuntimeError(f"{type(lm).__name__} has no {name}: this transformers builds its "
                           "logits processors elsewhere, so the sampled tokens' log-probabilities "
                           "cannot be recorded; pin transformers 5.x.")

    def build_then_append(*args: Any, **kwargs: Any) -> Any:
        built = build(*args, **kwargs)
        built.extend(processors)
        return built

    setattr(lm, name, build_then_append)
    try:
        yield
    finally:
        if had_own:
            setattr(lm, name, build)
        else:
            delattr(lm, name)


class HFBackend:
    """Batched ``model.generate`` over token-id prompts.

    Args:
        model: a transformers causal LM (used in eval mode; the trainer may share it).
        tokenizer: its tokenizer (pad and end-of-turn ids).
        sampling: temperature, top-p, max new tokens.
        batch_size: most prompts per ``generate`` call (longer lists are chunked).
        dtype: the run's precision (bfloat16: generate under autocast, as the trainer).

    ``generate`` takes one seed per prompt too (:class:`RowSampler`).
    """

    per_request_seeds = True
    """One seed per prompt is honoured: a prompt samples the same in any batch."""

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
                 prompt_ids: Sequence[Sequence[int] | None], seed: int | Sequence[int] | None,
                 sampling: SamplingConfig | None = None) -> list[Generation]:
        import torch

        if any(p is None for p in prompt_ids):
            raise ValueError("HFBackend needs rendered prompt ids (give ChatPolicy a renderer).")
        seeds = None if seed is None or isinstance(seed, int) else [int(x) for x in seed]
        if seeds is not None and len(seeds) != len(prompt_ids):
            raise ValueError(f"HFBackend.generate got {len(seeds)} seeds for "
                             f"{len(prompt_ids)} prompts; give one per prompt.")
        if isinstance(seed, int):
            torch.manual_seed(seed)
        out: list[Generation] = []
        for start in range(0, len(prompt_ids), self.batch_size):
            end = start + self.batch_size
            out.extend(self._generate_batch(prompt_ids[start:end], sampling or self.sampling,
                                            None if seeds is None else seeds[start:end]))
        return out

    def _generate_batch(self, prompts: Sequence[Sequence[int]], s: SamplingConfig,
                        row_seeds: Sequence[int] | None = None) -> list[Generation]:
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
        recorder = SampledLogprobs()
        last = [recorder]
        if row_seeds is not None and not s.is_greedy:
            last.append(RowSampler(row_seeds, device))
        self.model.eval()
        lm.generation_config = config  # generate fills unset options from the model's config
        try:
            with torch.no_grad(), autocast(self.dtype, device), _run_last(lm, *last):
                sequences = self.model.generate(
                    input_ids=input_ids.to(device), attention_mask=attention.to(device),
                    generation_config=config)  # (B, width + T_new)
        finally:
            lm.generation_config = own_config
            self.model.train(was_training)
        # log p of each token under the processed scores it was drawn from
        logp = recorder.finish(sequences[:, -1], sequences.shape[1] - width).cpu()  # (B, T_new)
        new = sequences[:, width:].cpu()  # (B, T_new)
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
        chat = chat or ChatFormatConfig()
        renderer = ChatRenderer(tokenizer, chat.chat_template_kwargs)
        backend = HFBackend(model, tokenizer, sampling, batch_size, dtype)
        super().__init__(backend, chat, sampling, renderer,
                         context_length=model.config.max_position_embeddings, name=name)
        self.model, self.tokenizer = model, tokenizer

    @classmethod
    def from_pretrained(cls, path: str, chat: ChatFormatConfig | None = None,
                        sampling: SamplingConfig | None = None, device: str = "auto",
                        batch_size: int = 64, name: str = "hf") -> HFPolicy:
        """Load a model folder and wrap it (see :func:`load_model_and_tokenizer`)."""
        model, tokenizer = load_model_and_tokenizer(path, device)
        return cls(model, tokenizer, chat, sampling, batch_size, name)
