"""Render an episode as chat: a pinned prefix, then a sliding window of the last ``w`` turns.

The prompt for the next action of an episode is::

    system:    system prompt + tool catalogue      \\
    user:      the task                            /  pinned prefix, byte-identical every turn
    assistant: action t-w        tool: observation t-w     \\
    ...                                                     |  the last w turns (w=3 by default;
    assistant: action t-1        tool: observation t-1     /   w=None keeps them all)
    assistant: <generation prompt>

A *turn* is one action (the model's raw text, rendered verbatim) and the observation it
produced; the newest observation is the last message. The same functions render prompts for
sampling (every policy), for GRPO (which stores the exact ids the sampler saw) and for SFT, so
what a model is trained on is what it saw.

Example:
    >>> cfg = ChatFormatConfig(history_turns=1, catalogue="names")
    >>> ctx = EpisodeContext.create(cfg, "Like a song.", [{"name": "like_track"}], "")
    >>> turns = [Turn("a1", "o1"), Turn("a2", "o2")]
    >>> [m["role"] + ":" + m["content"][-8:] for m in build_messages(ctx, turns, cfg)]
    ['system:ke_track', 'user: a song.', 'assistant:a2', 'tool:o2']
"""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from awm_gym.vocab import Turn, coerce_enum

from .errors import AgentConfigError

__all__ = ["CatalogueMode", "ChatFormatConfig", "EpisodeContext", "Turn", "build_messages",
           "render_catalogue", "ChatRenderer", "DEFAULT_SYSTEM_PROMPT", "cut_observation",
           "end_token_ids", "pad_token_id"]

DEFAULT_SYSTEM_PROMPT = (
    "You are an assistant that completes the user's task inside an app by calling its tools. "
    "The user is logged in; their user id is 1.\n"
    "Call exactly one tool per reply, written as\n"
    '<tool_call>\n{"name": <tool-name>, "arguments": <arguments-json-object>}\n</tool_call>\n'
    "Each tool's result comes back in the next message. When the task is done, reply with the "
    "final answer and no tool call.")
"""The default system prompt: AWM's one-call-per-turn Hermes format, in our words."""


class CatalogueMode(str, enum.Enum):
    """How much of the tool catalogue the pinned prefix shows."""

    FULL = "full"
    """AWM's ``list_tools`` text: every tool with description, response example and parameters."""
    COMPACT = "compact"
    """One line per tool: ``name(arg: type, opt?: type) - first description line``."""
    NAMES = "names"
    """Tool names only, comma separated."""
    NONE = "none"
    """No catalogue (the model may still call ``list_tools``)."""

    @classmethod
    def coerce(cls, value: str | CatalogueMode) -> CatalogueMode:
        return coerce_enum(cls, value, field="ChatFormatConfig.catalogue",
                           error=AgentConfigError)


@dataclass(frozen=True)
class ChatFormatConfig:
    """How an episode becomes a prompt (shared by sampling, GRPO and SFT)."""

    history_turns: int | None = 3
    """The window ``w``: how many of the latest turns (action + observation) the prompt keeps;
    None keeps the whole history."""
    catalogue: CatalogueMode = CatalogueMode.FULL
    """Tool catalogue in the pinned prefix: full | compact | names | none."""
    system_prompt: str = DEFAULT_SYSTEM_PROMPT
    """Instructions that open the system message (the catalogue follows them)."""
    max_observation_chars: int | None = None
    """Cut longer tool observations to this many characters, with a marker (None: no cut)."""
    chat_template_kwargs: Mapping[str, Any] | None = None
    """Extra arguments of the tokenizer's chat template, a JSON object, passed to every
    ``apply_chat_template`` (sampling, GRPO and SFT alike, and to an OpenAI-compatible server):
    ``{"enable_thinking": false}`` turns Qwen3's thinking off. None: the template's defaults."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "catalogue", CatalogueMode.coerce(self.catalogue))
        if self.chat_template_kwargs is not None:
            kwargs = self.chat_template_kwargs
            if not isinstance(kwargs, Mapping) or not all(isinstance(k, str) for k in kwargs):
                raise AgentConfigError(
                    f"ChatFormatConfig.chat_template_kwargs={kwargs!r}: give a mapping of "
                    "template argument names to values, e.g. --chat.chat-template-kwargs "
                    "'{\"enable_thinking\": false}'.")
            object.__setattr__(self, "chat_template_kwargs", dict(kwargs))
        if self.history_turns is not None and self.history_turns < 1:
            raise AgentConfigError(
                f"ChatFormatConfig.history_turns={self.history_turns}: the window must hold at "
                "least the newest turn (its observation is what the model answers); use >= 1, "
                "or None for the full history.")
        if self.max_observation_chars is not None and self.max_observation_chars < 32:
            raise AgentConfigError(f"ChatFormatConfig.max_observation_chars="
                                   f"{self.max_observation_chars}: use None or at least 32 "
                                   "(room for the cut marker).")


def _param_line(name: str, schema: Mapping[str, Any], required: bool) -> str:
    kind = schema.get("type")
    if kind is None:
        kinds = [o.get("type") for o in schema.get("anyOf", [])
                 if o.get("type") not in (None, "null")]
        kind = kinds[0] if kinds else "any"
    return f"{name}{'' if required else '?'}: {kind}"


def render_catalogue(tools: Sequence[Mapping[str, Any]], tools_text: str,
                     mode: CatalogueMode | str) -> str:
    """The catalogue text for one world.

    Args:
        tools: the world's tools as MCP lists them (``name``, ``description``, ``inputSchema``).
        tools_text: AWM's ``list_tools`` text for the same tools (used by ``full``).
        mode: a :class:`CatalogueMode` (or its value).

    Example:
        >>> print(render_catalogue([{"name": "ping", "description": "Ping it\\nmore",
        ...     "inputSchema": {"properties": {"n": {"type": "integer"}}, "required": ["n"]}}],
        ...     "", "compact"))
        Tools:
        ping(n: integer) - Ping it
    """
    mode = CatalogueMode.coerce(mode)
    if mode is CatalogueMode.NONE:
        return ""
    if mode is CatalogueMode.FULL:
        return tools_text
    if mode is CatalogueMode.NAMES:
        return "Tools: " + ", ".join(t["name"] for t in tools)
    lines = ["Tools:"]
    for tool in tools:
        schema = tool.get("inputSchema") or {}
        required = set(schema.get("required", []))
        params = ", ".join(_param_line(n, p, n in required)
                           for n, p in (schema.get("properties") or {}).items())
        first = next((ln.strip() for ln in (tool.get("description") or "").splitlines()
                      if ln.strip()), "")
        lines.append(f"{tool['name']}({params})" + (f" - {first}" if first else ""))
    return "\n".join(lines)


def cut_observation(text: str, limit: int | None) -> str:
    """Cut ``text`` to ``limit`` characters with a marker that says so (None: unchanged).

    Example:
        >>> cut_observation("x" * 40, 30)
        'xxxxxxxxxx\\n[... 30 more chars]'
    """
    if limit is None or len(text) <= limit:
        return text
    keep = limit
    while keep > 0 and keep + len(f"\n[... {len(text) - keep} more chars]") > limit:
        keep -= 1
    return text[:keep] + f"\n[... {len(text) - keep} more chars]"


@dataclass(frozen=True, slots=True)
class EpisodeContext:
    """The pinned prefix of one episode: the system message (prompt + catalogue) and the task."""

    system: str
    task: str

    @classmethod
    def create(cls, cfg: ChatFormatConfig, task: str, tools: Sequence[Mapping[str, Any]],
               tools_text: str) -> EpisodeContext:
        """Build the prefix for ``task`` in a world whose tools are ``tools``/``tools_text``."""
        catalogue = render_catalogue(tools, tools_text, cfg.catalogue)
        system = cfg.system_prompt + ("\n\n" + catalogue if catalogue else "")
        return cls(system, task)

    def messages(self) -> list[dict[str, str]]:
        """The prefix as chat messages (system, then the task as the user's message)."""
        return [{"role": "system", "content": self.system}, {"role": "user", "content": self.task}]


def build_messages(ctx: EpisodeContext, turns: Sequence[Turn],
                   cfg: ChatFormatConfig) -> list[dict[str, str]]:
    """The chat messages of the prompt for the next action: prefix + the last ``w`` turns.

    Args:
        ctx: the episode's pinned prefix.
        turns: every turn taken so far, oldest first (the last one holds the newest observation).
        cfg: the window and the observation cut.
    """
    w = cfg.history_turns
    window = turns if w is None else turns[max(0, len(turns) - w):]
    messages = ctx.messages()
    for turn in window:
        messages.append({"role": "assistant", "content": turn.action})
        messages.append({"role": "tool",
                         "content": cut_observation(turn.observation, cfg.max_observation_chars)})
    return messages


def end_token_ids(tokenizer: Any, generation_config: Any = None) -> tuple[int, ...]:
    """Every id that ends a turn: the tokenizer's EOS first, then the generation config's
    ``eos_token_id`` (one id or a list; samplers stop on all of them).

    Example:
        >>> from types import SimpleNamespace as NS
        >>> end_token_ids(NS(eos_token_id=2), NS(eos_token_id=[7, 2]))
        (2, 7)
    """
    eos = getattr(generation_config, "eos_token_id", None)
    more = eos if isinstance(eos, (list, tuple)) else [eos]
    ids = [tokenizer.eos_token_id, *more]
    return tuple(dict.fromkeys(int(e) for e in ids if e is not None))


def pad_token_id(tokenizer: Any) -> int:
    """The id that pads batches (SFT, GRPO and the transformers sampler alike): the tokenizer's
    pad id, else its EOS id (many chat tokenizers, Llama's among them, ship no pad token).

    Padding is always masked out (attention mask 0, no loss), so any id the model knows will do;
    EOS is the usual choice (TRL and transformers' ``generate`` fall back to it too).

    Raises:
        AgentConfigError: the tokenizer has neither a pad nor an EOS token.

    Example:
        >>> from types import SimpleNamespace as NS
        >>> pad_token_id(NS(pad_token_id=0, eos_token_id=2)), pad_token_id(NS(pad_token_id=None,
        ...                                                                   eos_token_id=2))
        (0, 2)
    """
    pad = getattr(tokenizer, "pad_token_id", None)
    if pad is None:
        pad = getattr(tokenizer, "eos_token_id", None)
    if pad is None:
        name = getattr(tokenizer, "name_or_path", "") or "?"
        raise AgentConfigError(
            f"{type(tokenizer).__name__} ({name!r}) has neither a pad token nor an EOS token, so "
            "batches cannot be padded. Set its EOS token to the chat template's end-of-turn "
            "token (e.g. tokenizer.eos_token = '<|im_end|>'; SFT appends it to every action and "
            "samplers stop on it), or set tokenizer.pad_token, and save the tokenizer with the "
            "model (tokenizer.save_pretrained(path)).")
    return int(pad)


class ChatRenderer:
    """Turns chat messages into prompt text and token ids with a tokenizer's chat template.

    Args:
        tokenizer: a Hugging Face tokenizer with a chat template (the tiny model's, Qwen's, ...).
        template_kwargs: extra arguments of the chat template
            (:attr:`ChatFormatConfig.chat_template_kwargs`, e.g. ``{"enable_thinking": False}``),
            given to every render.

    Example:
        >>> from transformers import AutoTokenizer   # doctest: +SKIP
        >>> r = ChatRenderer(AutoTokenizer.from_pretrained(path),
        ...                  cfg.chat_template_kwargs)   # doctest: +SKIP
        >>> ids = r.prompt_ids(build_messages(ctx, turns, cfg))   # doctest: +SKIP
    """

    def __init__(self, tokenizer: Any, template_kwargs: Mapping[str, Any] | None = None) -> None:
        if getattr(tokenizer, "chat_template", None) is None:
            raise AgentConfigError(f"{type(tokenizer).__name__} has no chat template; give a "
                                   "tokenizer with one (every chat model ships one).")
        self.tokenizer = tokenizer
        self.template_kwargs: dict[str, Any] = dict(template_kwargs or {})
        """The chat template's extra arguments, the same for every prompt rendered."""
        self.eos_token_id: int = tokenizer.eos_token_id
        """The end-of-turn id appended to SFT targets (:meth:`completion_ids`)."""

    def prompt_text(self, messages: Sequence[Mapping[str, str]]) -> str:
        """The prompt text, ending with the assistant generation prompt."""
        return self.tokenizer.apply_chat_template(list(messages), tokenize=False,
                                                  add_generation_prompt=True,
                                                  **self.template_kwargs)

    def check_matches(self, chat: ChatFormatConfig, where: str) -> None:
        """Raise when this renderer's template arguments are not ``chat``'s: the prompts
        would differ from the ones another part of the run renders from ``chat``.

        Raises:
            AgentConfigError: naming both and the fix.
        """
        wanted = dict(chat.chat_template_kwargs or {})
        if self.template_kwargs != wanted:
            raise AgentConfigError(
                f"{where}: the renderer's chat template arguments {self.template_kwargs} are not "
                f"ChatFormatConfig.chat_template_kwargs={wanted}, so its prompts would differ "
                "from the sampler's. Build it with ChatRenderer(tokenizer, "
                "chat.chat_template_kwargs).")

    def prompt_ids(self, messages: Sequence[Mapping[str, str]]) -> list[int]:
        """The prompt token ids (no special tokens added beyond the template's own)."""
        return self.encode(self.prompt_text(messages))

    def encode(self, text: str) -> list[int]:
        """Token ids of ``text`` as the template wrote it."""
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def completion_ids(self, action: str) -> list[int]:
        """The ids a model emits for ``action``: its tokens, then the end-of-turn token."""
        return self.encode(action) + [self.eos_token_id]

    def decode(self, ids: Sequence[int], end_ids: Sequence[int] = ()) -> str:
        """Text of sampled ids, special tokens kept except the one that ended the turn.

        Args:
            ids: the sampled ids (a sampler stops at the first end id and keeps it).
            end_ids: the sampler's end ids besides the tokenizer's EOS (a model's generation
                config may list several: :func:`end_token_ids`); a trailing one is dropped, so
                it never reaches the action text or the history.
        """
        ids = list(ids)
        if ids and (ids[-1] == self.eos_token_id or ids[-1] in end_ids):
            ids = ids[:-1]
        return self.tokenizer.decode(ids, skip_special_tokens=False)


def tool_listing(envs: Any, world: str) -> tuple[list[dict[str, Any]], str]:
    """``(tools, tools_text)`` of ``world`` from a vector env (its runtime lists them).

    Example:
        >>> import gymnasium as gym, awm_gym
        >>> envs = gym.make_vec("AWM/spotify-v0", num_envs=1)
        >>> tools, text = tool_listing(envs, "spotify")
        >>> text.startswith(f"Available MCP Tools ({len(tools)} tools)")
        True
        >>> envs.close()
    """
    runtime = getattr(envs, "runtime", None) or envs.unwrapped.runtime
    return runtime.tools(world), runtime.tools_text(world)


def dumps_tool_call(tool: str, arguments: Mapping[str, Any]) -> str:
    """A tool call written the way the system prompt asks for it.

    Example:
        >>> print(dumps_tool_call("like_track", {"track_id": 21}))
        <tool_call>
        {"name": "like_track", "arguments": {"track_id": 21}}
        </tool_call>
    """
    payload = json.dumps({"name": tool, "arguments": dict(arguments)}, ensure_ascii=False)
    return f"<tool_call>\n{payload}\n</tool_call>"
