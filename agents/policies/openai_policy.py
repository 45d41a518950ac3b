"""Sample turns from an OpenAI-compatible endpoint (a vLLM server, OpenAI): async, bounded, retried.

Each turn is one chat-completions request carrying the windowed messages of
:mod:`agents.chat_format`; all active instances are sent at once, at most
``LLMEndpoint.max_concurrency`` in flight. The endpoint config, client, retry policy and error are
the shared ones of :mod:`awm_gym.llm_endpoint`: transient failures (connection errors, timeouts,
429 and 5xx) are retried with exponential backoff; other 4xx answers are deterministic and
raise :class:`~awm_gym.errors.ProviderError` at once, except a prompt over the model's context,
which becomes a turn with finish reason ``prompt_too_long`` (a bad rollout is data); the
backend keeps what the server said about it (:class:`ContextOverflow`: the prompt's tokens and
the model's context, read from the error text, or the context from the model list's
``max_model_len``) so that a command can name the fix.

Against a vLLM server the request also asks for token ids (``return_token_ids``) and
log-probabilities, so each :class:`~agents.policies.sampling.Generation` carries the prompt ids
the server rendered, the sampled ids and their log-probabilities; a plain OpenAI endpoint gives
the text and log-probabilities only.

Example:
    >>> policy = OpenAIPolicy(LLMEndpoint(base_url="http://127.0.0.1:8000/v1"))  # doctest: +SKIP
    >>> world.set_policy(policy); world.evaluate(episodes=8, seed=0)               # doctest: +SKIP
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from awm_gym.boundary import closing_on_error
from awm_gym.errors import ProviderError
from awm_gym.llm_endpoint import BackgroundLoop, LLMEndpoint, call_with_retries, make_async_client

from ..chat_format import ChatFormatConfig
from .chat_policy import ChatPolicy
from .sampling import Generation, SamplingConfig

logger = logging.getLogger(__name__)

__all__ = ["OpenAIBackend", "OpenAIPolicy", "ContextOverflow", "parse_context_overflow"]

_CONTEXT_ERRORS = ("maximum context length", "context length", "maximum model length",
                   "too long")
_CONTEXT_SIZE = (r"maximum context length is (\d+)", r"maximum context length \((\d+)\)",
                 r"maximum model length of (\d+)")
"""Where servers name the model's context (vLLM's messages across versions, OpenAI's)."""
_PROMPT_SIZE = (r"contains (?:at least )?(\d+) input tokens", r"has (\d+) input tokens",
                r"\((\d+) in the messages", r"resulted in (\d+) tokens",
                r"Input length \((\d+)\)", r"prompt \(length (\d+)\)",
                r"requested (\d+) tokens in the messages")
"""Where they name the prompt's tokens."""
_PROMPT_CHARS = (r"contains (\d+) characters",)
"""Where vLLM names the prompt's characters instead (a text longer than any context fits)."""


@dataclass(frozen=True)
class ContextOverflow:
    """A prompt the server refused as longer than the model's context.

    Example:
        >>> parse_context_overflow("This model's maximum context length is 512 tokens. However, "
        ...                        "your prompt contains 4100 input tokens, which exceeds ...")
        ContextOverflow(prompt_tokens=4100, context_tokens=512, max_new_tokens=None, \
prompt_chars=None, message=...)
    """

    prompt_tokens: int | None
    """The prompt's tokens, as the server counted them (None: it did not say)."""
    context_tokens: int | None
    """The model's context (None: neither the error nor the model list said)."""
    max_new_tokens: int | None
    """The reply's token limit the request asked for."""
    prompt_chars: int | None
    """The prompt's characters, where the server counted those instead of tokens."""
    message: str
    """The server's error text."""

    def __repr__(self) -> str:
        return (f"ContextOverflow(prompt_tokens={self.prompt_tokens}, context_tokens="
                f"{self.context_tokens}, max_new_tokens={self.max_new_tokens}, prompt_chars="
                f"{self.prompt_chars}, message=...)")


def parse_context_overflow(message: str, context_tokens: int | None = None,
                           max_new_tokens: int | None = None) -> ContextOverflow:
    """The token counts a context-length error names; ``context_tokens`` (the model list's
    ``max_model_len``) stands in when the text names no context."""

    def first(patterns: Sequence[str]) -> int | None:
        for pattern in patterns:
            match = re.search(pattern, message, flags=re.IGNORECASE)
            if match:
                return int(match.group(1))
        return None

    context = first(_CONTEXT_SIZE)
    return ContextOverflow(first(_PROMPT_SIZE), context if context is not None else
                           context_tokens, max_new_tokens, first(_PROMPT_CHARS), message)


class OpenAIBackend:
    """Async, bounded, retried chat-completions calls; one event loop owned by the backend.

    Args:
        endpoint: URL, model, concurrency and retry settings.
        sampling: temperature, top-p, max new tokens.
        vllm_extras: ask for token ids and keep special tokens (vLLM-only request fields);
            None: on when the endpoint's model list says ``owned_by: vllm``.
        template_kwargs: the chat template's extra arguments
            (:attr:`~agents.chat_format.ChatFormatConfig.chat_template_kwargs`), sent as the
            request's ``chat_template_kwargs`` (vLLM's and SGLang's field) when given.
    """

    def __init__(self, endpoint: LLMEndpoint, sampling: SamplingConfig,
                 vllm_extras: bool | None = None,
                 template_kwargs: Mapping[str, Any] | None = None) -> None:
        if not isinstance(endpoint, LLMEndpoint):
            raise TypeError(f"OpenAIBackend(endpoint=...) needs an awm_gym.llm_endpoint."
                            f"LLMEndpoint, got {type(endpoint).__name__}.")
        self.endpoint = endpoint
        self.sampling = sampling
        self.template_kwargs = dict(template_kwargs or {})
        self._loop = BackgroundLoop("openai-policy")
        self._client = make_async_client(endpoint)
        self.requests = 0
        self.retries = 0
        self.max_model_len: int | None = None
        """The model's context as the model list gives it (vLLM's ``max_model_len``), or None."""
        self.context_overflow: ContextOverflow | None = None
        """The last prompt the server refused as too long for the context (None: none yet)."""
        with closing_on_error(self.close):
            self.model, owner = self._loop.run(self._resolve_model(vllm_extras))
        self.vllm_extras = (owner == "vllm") if vllm_extras is None else vllm_extras

    async def _resolve_model(self, vllm_extras: bool | None) -> tuple[str, str | None]:
        if self.endpoint.model is not None and vllm_extras is not None:
            return self.endpoint.model, None
        try:
            models = await self._client.models.list()
        except Exception as e:  # noqa: BLE001 - the provider boundary
            if self.endpoint.model is not None:
                return self.endpoint.model, None
            raise ProviderError(f"cannot list the models at {self.endpoint.base_url} ("
                                f"{type(e).__name__}: {e}). Is the server up? Name the model "
                                "(LLMEndpoint.model, `--model`) to skip the listing.") from e
        if not models.data:
            raise ProviderError(f"{self.endpoint.base_url} lists no model; name one "
                                "(LLMEndpoint.model, `--model`).")
        chosen = next((m for m in models.data if m.id == self.endpoint.model), models.data[0])
        length = getattr(chosen, "max_model_len", None)  # vLLM lists it; OpenAI does not
        self.max_model_len = length if isinstance(length, int) and length > 0 else None
        return (self.endpoint.model or chosen.id), getattr(chosen, "owned_by", None)

    def generate(self, messages: Sequence[Sequence[Mapping[str, str]]],
                 prompt_ids: Sequence[Sequence[int] | None], seed: int | None,
                 sampling: SamplingConfig | None = None) -> list[Generation]:
        return self._loop.run(self._generate_all(messages, seed, sampling or self.sampling))

    async def _generate_all(self, messages: Sequence[Sequence[Mapping[str, str]]],
                            seed: int | None, sampling: SamplingConfig) -> list[Generation]:
        gate = asyncio.Semaphore(self.endpoint.max_concurrency)

        async def one(k: int) -> Generation:
            async with gate:
                return await self._with_retries(list(messages[k]),
                                                None if seed is None else seed + k, sampling)

        return list(await asyncio.gather(*(one(k) for k in range(len(messages)))))

    async def _with_retries(self, messages: list[Mapping[str, str]], seed: int | None,
                            sampling: SamplingConfig) -> Generation:
        import openai  # third-party and heavy; loaded with the client already

        attempts = 0

        async def send() -> Generation:
            nonlocal attempts
            attempts += 1
            return await self._request(messages, seed, sampling)

        start = time.perf_counter()
        try:
            gen = await call_with_retries(send, self.endpoint, what="chat completion")
        except ProviderError as e:
            if isinstance(e.__cause__, openai.BadRequestError) and any(
                    s in str(e.__cause__).lower() for s in _CONTEXT_ERRORS):
                self.context_overflow = parse_context_overflow(
                    str(e.__cause__), self.max_model_len, sampling.max_new_tokens)
                return Generation((), (), (), "prompt_too_long", "")
            raise
        finally:
            self.retries += attempts - 1
        logger.debug("chat completion in %.3fs", time.perf_counter() - start)
        return gen

    async def _request(self, messages: list[Mapping[str, str]], seed: int | None,
                       s: SamplingConfig) -> Generation:
        extra: dict[str, Any] = {}
        if self.vllm_extras:
            extra = {"return_token_ids": True, "skip_special_tokens": False}
        self.requests += 1
        options = self.endpoint.request_options()
        extra = {**options.pop("extra_body", {}), **extra}
        if self.template_kwargs:  # the server renders the prompt: it needs the same arguments
            extra["chat_template_kwargs"] = {**extra.get("chat_template_kwargs", {}),
                                             **self.template_kwargs}
        response = await self._client.chat.completions.create(
            model=self.model, messages=messages, max_tokens=s.max_new_tokens,  # type: ignore[arg-type] - plain role/content dicts
            temperature=s.temperature, top_p=s.top_p, seed=seed, logprobs=True,
            extra_body=extra or None, **options)
        choice = response.choices[0]
        text = choice.message.content or ""
        logprobs = tuple(float(t.logprob) for t in (choice.logprobs.content or [])) \
            if choice.logprobs is not None else ()
        ids = tuple(int(t) for t in (getattr(choice, "token_ids", None) or ()))
        prompt = tuple(int(t) for t in (getattr(response, "prompt_token_ids", None) or ()))
        reason = "length" if choice.finish_reason == "length" else "stop"
        return Generation(prompt, ids, logprobs, reason, text)

    def close(self) -> None:
        """Close the HTTP client and the event loop (safe to call twice)."""
        self._loop.close(self._client)


class OpenAIPolicy(ChatPolicy):
    """:class:`ChatPolicy` over an OpenAI-compatible endpoint (the endpoint renders prompts).

    Args:
        endpoint: URL, model, concurrency and retries (default: a local vLLM server).
        chat: the prompt format and window.
        sampling: temperature, top-p, token limits.
        name: the policy's name in datasets and transcripts.
        vllm_extras: see :class:`OpenAIBackend`.
    """

    def __init__(self, endpoint: LLMEndpoint | None = None,
                 chat: ChatFormatConfig | None = None, sampling: SamplingConfig | None = None,
                 name: str = "openai", vllm_extras: bool | None = None) -> None:
        sampling = sampling or SamplingConfig()
        chat = chat or ChatFormatConfig()
        backend = OpenAIBackend(endpoint or LLMEndpoint(), sampling, vllm_extras,
                                chat.chat_template_kwargs)
        super().__init__(backend, chat, sampling, None, None, name=name)
