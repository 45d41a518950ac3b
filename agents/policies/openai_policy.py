"""Sample turns from an OpenAI-compatible endpoint (a vLLM server, OpenAI): async, bounded, retried.

Each turn is one chat-completions request carrying the windowed messages of
:mod:`agents.chat_format`; all active instances are sent at once, at most
``EndpointConfig.max_concurrency`` in flight. Transient failures (connection errors, timeouts,
429 and 5xx) are retried with exponential backoff; other 4xx answers are deterministic and
raise :class:`~agents.errors.ProviderError` at once, except a prompt over the model's context,
which becomes a turn with finish reason ``prompt_too_long`` (a bad rollout is data).

Against a vLLM server the request also asks for token ids (``return_token_ids``) and
log-probabilities, so each :class:`~agents.policies.sampling.Generation` carries the prompt ids
the server rendered, the sampled ids and their log-probabilities; a plain OpenAI endpoint gives
the text and log-probabilities only.

Example:
    >>> policy = OpenAIPolicy(EndpointConfig(base_url="http://127.0.0.1:8000/v1"))  # doctest: +SKIP
    >>> world.set_policy(policy); world.evaluate(episodes=8, seed=0)               # doctest: +SKIP
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..chat_format import ChatFormatConfig
from ..errors import AgentConfigError, ProviderError
from .chat_policy import ChatPolicy
from .sampling import Generation, SamplingConfig

logger = logging.getLogger(__name__)

__all__ = ["EndpointConfig", "OpenAIBackend", "OpenAIPolicy"]

_CONTEXT_ERRORS = ("maximum context length", "context length", "too long")


@dataclass(frozen=True)
class EndpointConfig:
    """Where and how to reach an OpenAI-compatible chat-completions endpoint."""

    base_url: str = "http://127.0.0.1:8000/v1"
    """The endpoint's ``/v1`` URL."""
    model: str | None = None
    """Model name to request (None: the first one the endpoint lists)."""
    api_key_env: str = "OPENAI_API_KEY"
    """Environment variable holding the API key (a local vLLM server needs none)."""
    max_concurrency: int = 32
    """Most requests in flight at once."""
    timeout_s: float = 120.0
    """Seconds before one request counts as failed (and is retried)."""
    max_retries: int = 4
    """Retries of a transient failure before giving up with ProviderError."""
    backoff_s: float = 0.5
    """First retry delay; doubles each retry (with jitter)."""
    vllm_extras: bool | None = None
    """Ask for token ids and keep special tokens (vLLM-only request fields); None: on when the
    endpoint's model list says ``owned_by: vllm``."""

    def __post_init__(self) -> None:
        if self.max_concurrency < 1:
            raise AgentConfigError(f"EndpointConfig.max_concurrency={self.max_concurrency}: "
                                   "use >= 1.")
        if self.max_retries < 0:
            raise AgentConfigError(f"EndpointConfig.max_retries={self.max_retries}: use >= 0.")
        if not self.base_url.startswith(("http://", "https://")):
            raise AgentConfigError(f"EndpointConfig.base_url={self.base_url!r}: give an http(s) "
                                   "URL such as http://127.0.0.1:8000/v1.")


def _is_transient(error: Exception) -> bool:
    import openai

    if isinstance(error, (openai.APIConnectionError, openai.APITimeoutError,
                          openai.RateLimitError, openai.InternalServerError)):
        return True
    status = getattr(error, "status_code", None)
    return status is not None and (status == 429 or status >= 500)


class OpenAIBackend:
    """Async, bounded, retried chat-completions calls; one event loop owned by the backend.

    Args:
        endpoint: URL, model, concurrency and retry settings.
        sampling: temperature, top-p, max new tokens.
    """

    def __init__(self, endpoint: EndpointConfig, sampling: SamplingConfig) -> None:
        import openai

        self.endpoint = endpoint
        self.sampling = sampling
        self._loop = asyncio.new_event_loop()
        self._client = openai.AsyncOpenAI(
            base_url=endpoint.base_url, api_key=os.environ.get(endpoint.api_key_env, "EMPTY"),
            timeout=endpoint.timeout_s, max_retries=0)  # retries are ours (transient only)
        self.model, owner = self._loop.run_until_complete(self._resolve_model())
        self.vllm_extras = (owner == "vllm") if endpoint.vllm_extras is None \
            else endpoint.vllm_extras
        self.requests = 0
        self.retries = 0

    async def _resolve_model(self) -> tuple[str, str | None]:
        if self.endpoint.model is not None:
            if self.endpoint.vllm_extras is not None:
                return self.endpoint.model, None
        try:
            models = await self._client.models.list()
        except Exception as e:  # noqa: BLE001 - the provider boundary
            if self.endpoint.model is not None:
                return self.endpoint.model, None
            raise ProviderError(f"Cannot list models at {self.endpoint.base_url}: {e}. Is the "
                                "server up? Pass EndpointConfig.model to skip the listing.") from e
        if not models.data:
            raise ProviderError(f"{self.endpoint.base_url} lists no model; pass "
                                "EndpointConfig.model.")
        chosen = next((m for m in models.data if m.id == self.endpoint.model), models.data[0])
        return (self.endpoint.model or chosen.id), getattr(chosen, "owned_by", None)

    def generate(self, messages: Sequence[Sequence[Mapping[str, str]]],
                 prompt_ids: Sequence[Sequence[int] | None], seed: int | None,
                 sampling: SamplingConfig | None = None) -> list[Generation]:
        return self._loop.run_until_complete(
            self._generate_all(messages, seed, sampling or self.sampling))

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
        import openai

        delay = self.endpoint.backoff_s
        for attempt in range(self.endpoint.max_retries + 1):
            start = time.perf_counter()
            try:
                gen = await self._request(messages, seed, sampling)
                logger.debug("chat completion in %.3fs", time.perf_counter() - start)
                return gen
            except openai.BadRequestError as e:
                if any(s in str(e).lower() for s in _CONTEXT_ERRORS):
                    return Generation((), (), (), "prompt_too_long", "")
                raise ProviderError(f"{self.endpoint.base_url} rejected the request: {e}") from e
            except Exception as e:  # noqa: BLE001 - the provider boundary classifies errors
                if not _is_transient(e) or attempt == self.endpoint.max_retries:
                    raise ProviderError(f"{self.endpoint.base_url} failed after {attempt + 1} "
                                        f"attempt(s): {type(e).__name__}: {e}") from e
                self.retries += 1
                logger.warning("transient error from %s (%s); retry %d in %.1fs",
                               self.endpoint.base_url, type(e).__name__, attempt + 1, delay)
                await asyncio.sleep(delay * (1 + 0.25 * random.random()))
                delay *= 2
        raise AssertionError("unreachable")

    async def _request(self, messages: list[Mapping[str, str]], seed: int | None,
                       s: SamplingConfig) -> Generation:
        extra: dict[str, Any] = {}
        if self.vllm_extras:
            extra = {"return_token_ids": True, "skip_special_tokens": False}
        self.requests += 1
        response = await self._client.chat.completions.create(
            model=self.model, messages=messages, max_tokens=s.max_new_tokens,  # type: ignore[arg-type] - plain role/content dicts
            temperature=s.temperature, top_p=s.top_p, seed=seed, logprobs=True,
            extra_body=extra or None)
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
        if not self._loop.is_closed():
            self._loop.run_until_complete(self._client.close())
            self._loop.close()


class OpenAIPolicy(ChatPolicy):
    """:class:`ChatPolicy` over an OpenAI-compatible endpoint (the endpoint renders prompts).

    Args:
        endpoint: URL, model, concurrency and retries.
        chat: the prompt format and window.
        sampling: temperature, top-p, token limits.
        name: the policy's name in datasets and transcripts.
    """

    def __init__(self, endpoint: EndpointConfig | None = None,
                 chat: ChatFormatConfig | None = None, sampling: SamplingConfig | None = None,
                 name: str = "openai") -> None:
        sampling = sampling or SamplingConfig()
        backend = OpenAIBackend(endpoint or EndpointConfig(), sampling)
        super().__init__(backend, chat or ChatFormatConfig(), sampling, None, None, name=name)
