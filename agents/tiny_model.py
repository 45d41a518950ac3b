"""Build a tiny causal LM and its tokenizer locally: the offline default (nothing is downloaded).

The tokenizer is a byte-level BPE trained on the text a run may see (the training tasks, their
reference solutions, the training worlds' tool specs and sample rows: never a held-out task or
world) plus a slice of the standard library's sources, so tool calls and JSON tool results take
few tokens. It carries a ChatML chat template with the Hermes ``<tool_call>`` and
``<tool_response>`` tokens. The model is a randomly initialised Qwen2 decoder in float32 whose
head size (32) and block layout also run on vLLM's CPU backend. Both are written to one folder
that ``transformers`` and vLLM load as they would any model.

Example:
    >>> import tempfile
    >>> out = build_tiny_model(tempfile.mkdtemp(), TinyModelConfig.small())
    >>> sorted(p.name for p in out.iterdir())[:2]
    ['chat_template.jinja', 'config.json']
"""

from __future__ import annotations

import glob
import json
import logging
import os
import shutil
from dataclasses import asdict, dataclass
from pathlib import Path
from collections.abc import Sequence
from typing import Any

from awm_gym.atomic_io import make_temp_dir

from .errors import AgentConfigError

logger = logging.getLogger(__name__)

__all__ = ["TinyModelConfig", "build_tiny_model", "CHAT_TEMPLATE", "SPECIAL_TOKENS", "CHATML_TOKENS",
           "TOOL_TOKENS", "world_texts", "tokenizer_corpus"]

CHAT_TEMPLATE = r"""{%- for message in messages %}
{%- if message['role'] == 'tool' %}
{%- if loop.first or messages[loop.index0 - 1]['role'] != 'tool' %}{{- '<|im_start|>user' }}{%- endif %}
{{- '\n<tool_response>\n' + message['content'] + '\n</tool_response>' }}
{%- if loop.last or messages[loop.index0 + 1]['role'] != 'tool' %}{{- '<|im_end|>\n' }}{%- endif %}
{%- elif message['role'] == 'assistant' %}
{{- '<|im_start|>assistant\n' }}{% generation %}{{- message['content'] + '<|im_end|>' }}{% endgeneration %}{{- '\n' }}
{%- else %}
{{- '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>\n' }}
{%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}{{- '<|im_start|>assistant\n' }}{%- endif %}
"""
"""ChatML with Hermes tool responses; assistant content is rendered verbatim (the raw action)."""

CHATML_TOKENS = ("<|endoftext|>", "<|im_start|>", "<|im_end|>")
"""Special tokens: pad, and the ChatML delimiters (``<|im_end|>`` ends a turn)."""
TOOL_TOKENS = ("<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>")
"""Hermes tool markers: single tokens, but not special (decoding keeps them)."""
SPECIAL_TOKENS = CHATML_TOKENS + TOOL_TOKENS


@dataclass(frozen=True)
class TinyModelConfig:
    """Size and seed of the locally built model and tokenizer."""

    vocab_size: int = 2048
    """BPE vocabulary size asked of the tokenizer trainer (the model's is rounded up to 64)."""
    hidden_size: int = 128
    """Model width."""
    num_layers: int = 2
    """Decoder layers."""
    num_heads: int = 4
    """Attention heads; ``hidden_size / num_heads`` must be >= 32 for vLLM's CPU attention."""
    num_kv_heads: int = 2
    """Key/value heads (grouped-query attention)."""
    intermediate_size: int = 384
    """MLP width."""
    max_position_embeddings: int = 2048
    """Longest sequence the model accepts (prompt + completion)."""
    tie_word_embeddings: bool = True
    """Share the input embedding with ``lm_head`` (as Qwen's small models do)."""
    init_std: float = 0.05
    """Standard deviation of the random initialisation of every matrix."""
    seed: int = 0
    """Seed of the weight initialisation."""
    corpus_py_files: int = 200
    """How many standard-library ``*.py`` files join the worlds' text in the tokenizer corpus."""

    @classmethod
    def small(cls, seed: int = 0) -> TinyModelConfig:
        """The smallest model that still runs on vLLM's CPU backend (tests, doctests)."""
        return cls(vocab_size=1024, hidden_size=64, num_layers=2, num_heads=2, num_kv_heads=1,
                   intermediate_size=128, corpus_py_files=20, seed=seed)

    def __post_init__(self) -> None:
        if self.hidden_size % self.num_heads:
            raise AgentConfigError(f"TinyModelConfig.hidden_size={self.hidden_size} is not a "
                                   f"multiple of num_heads={self.num_heads}.")
        if self.num_heads % self.num_kv_heads:
            raise AgentConfigError(f"TinyModelConfig.num_kv_heads={self.num_kv_heads} must divide "
                                   f"num_heads={self.num_heads}.")
        if self.vocab_size < len(SPECIAL_TOKENS) + 256:
            raise AgentConfigError(f"TinyModelConfig.vocab_size={self.vocab_size}: a byte-level "
                                   "BPE needs at least 263 entries; use 512 or more.")


TrainTasks = Sequence[tuple[str, int]]
"""The ``(world, task index)`` pairs a run trains on (its split's train subset)."""


def world_texts(tasks: TrainTasks | None = None, world_set: str | None = None) -> list[str]:
    """Text of the worlds a run may see: tasks, reference solutions, tool specs and sample rows.

    Only the ``tasks`` given contribute their task text and reference solution; only their worlds
    contribute tool specs and sample data. Nothing of a held-out task or world (its text, its
    solution, its verifier) enters, so the tokenizer is built from train text alone.

    Args:
        tasks: the ``(world, task index)`` pairs trained on (None: every task of every world).
        world_set: the world set directory (None: the built-in worlds).

    Example:
        >>> texts = world_texts([("spotify", 0)])
        >>> import awm_gym
        >>> spotify = awm_gym.get_world_set(None)["spotify"]
        >>> spotify.tasks[0] in texts, spotify.tasks[1] in texts
        (True, False)
    """
    import awm_gym

    ws = awm_gym.get_world_set(world_set)
    wanted: dict[str, list[int]] = {}
    if tasks is None:
        wanted = {w.name: list(range(len(w.tasks))) for w in ws}
    else:
        for world, idx in tasks:
            wanted.setdefault(world, []).append(int(idx))
    texts: list[str] = []
    for name in sorted(wanted):
        world = ws[name]
        if world.api_spec is not None:
            texts.append(json.dumps(world.api_spec, ensure_ascii=False))
        texts.extend("\n".join(t.insert_statements) for t in world.samples)
        for idx in sorted(set(wanted[name])):
            texts.append(world.tasks[idx])
            sol = world.solutions[idx] if idx < len(world.solutions) else None
            if sol is None:
                continue
            texts.extend(json.dumps({"name": c.tool, "arguments": dict(c.arguments)})
                         for c in sol.calls)
            if sol.final_answer:
                texts.append(sol.final_answer)
    return texts


def tokenizer_corpus(cfg: TinyModelConfig, tasks: TrainTasks | None = None,
                     world_set: str | None = None) -> list[str]:
    """The tokenizer's training texts: :func:`world_texts` of ``tasks`` and
    ``cfg.corpus_py_files`` standard-library sources."""
    stdlib = sorted(glob.glob(os.path.join(os.path.dirname(os.__file__), "*.py")))
    texts = world_texts(tasks, world_set)
    for path in stdlib[:cfg.corpus_py_files]:
        texts.append(Path(path).read_text(encoding="utf-8", errors="replace"))
    return texts


def _build_tokenizer(cfg: TinyModelConfig, tasks: TrainTasks | None,
                     world_set: str | None) -> Any:
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE(unk_token=None, byte_fallback=False))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=cfg.vocab_size, special_tokens=list(CHATML_TOKENS),
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    tok.train_from_iterator(tokenizer_corpus(cfg, tasks, world_set), trainer)
    # Tool markers are ordinary added tokens (as in Qwen's tokenizers): one id each, and kept
    # when text is decoded with skip_special_tokens=True (what vLLM's server does).
    tok.add_tokens([AddedToken(t, special=False, normalized=False) for t in TOOL_TOKENS])
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>",
        bos_token=None, unk_token=None, additional_special_tokens=["<|im_start|>"],
        model_max_length=cfg.max_position_embeddings, padding_side="left")
    fast.chat_template = CHAT_TEMPLATE
    return fast


def _build_model(cfg: TinyModelConfig, tokenizer: Any) -> Any:
    import torch
    from awm_gym.doctor import import_names

    GenerationConfig, Qwen2Config, Qwen2ForCausalLM = import_names(  # noqa: N806
        "transformers", "GenerationConfig", "Qwen2Config", "Qwen2ForCausalLM")

    vocab = ((len(tokenizer) + 63) // 64) * 64  # the trained vocabulary may be smaller
    eos = tokenizer.convert_tokens_to_ids("<|im_end|>")
    pad = tokenizer.convert_tokens_to_ids("<|endoftext|>")
    config = Qwen2Config(
        vocab_size=vocab, hidden_size=cfg.hidden_size, intermediate_size=cfg.intermediate_size,
        num_hidden_layers=cfg.num_layers, num_attention_heads=cfg.num_heads,
        num_key_value_heads=cfg.num_kv_heads, max_position_embeddings=cfg.max_position_embeddings,
        rope_theta=10000.0, tie_word_embeddings=cfg.tie_word_embeddings, torch_dtype="float32",
        eos_token_id=eos, pad_token_id=pad, bos_token_id=None)
    torch.manual_seed(cfg.seed)
    model = Qwen2ForCausalLM(config)
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() >= 2:
                p.normal_(0.0, cfg.init_std)
    model.generation_config = GenerationConfig(eos_token_id=eos, pad_token_id=pad)
    return model


def build_tiny_model(out_dir: str | os.PathLike[str], cfg: TinyModelConfig | None = None,
                     *, train_tasks: TrainTasks | None = None, world_set: str | None = None,
                     overwrite: bool = False) -> Path:
    """Train the tokenizer, build the random model and save both to ``out_dir`` (atomically).

    A folder that already holds a model built with the same config is reused as is, unless
    ``overwrite``.

    Args:
        out_dir: destination folder.
        cfg: sizes and seed (defaults: :class:`TinyModelConfig`).
        train_tasks: the ``(world, task index)`` pairs the run trains on; the tokenizer sees
            their text (and their worlds' tool specs and data) only. None: every task of
            ``world_set`` (a run without a held-out split).
        world_set: the world set directory (None: the built-in worlds).
        overwrite: rebuild even if ``out_dir`` holds a model built with ``cfg`` from the same
            tasks.

    Returns:
        The folder, loadable with ``AutoModelForCausalLM.from_pretrained`` and ``vllm.LLM``.
    """
    cfg = cfg or TinyModelConfig()
    out = Path(out_dir)
    manifest = out / "tiny_model.json"
    recipe = {**asdict(cfg), "world_set": world_set,
              "train_tasks": None if train_tasks is None else sorted([w, int(i)]
                                                                     for w, i in train_tasks)}
    if not overwrite and manifest.exists() and json.loads(manifest.read_text()) == recipe:
        return out
    tokenizer = _build_tokenizer(cfg, train_tasks, world_set)
    model = _build_model(cfg, tokenizer)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = make_temp_dir(out.parent, prefix=f".{out.name}.")
    model.save_pretrained(tmp, safe_serialization=True)
    tokenizer.save_pretrained(tmp)
    (tmp / "tiny_model.json").write_text(json.dumps(recipe, indent=2))  # manifest last
    if out.exists():
        shutil.rmtree(out)
    os.replace(tmp, out)
    n = sum(p.numel() for p in model.parameters())
    logger.info("built tiny model in %s: %d parameters, vocab %d", out, n, len(tokenizer))
    return out
