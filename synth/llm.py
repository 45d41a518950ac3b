"""Talk to an OpenAI-compatible endpoint: batched chat completions and embeddings, with accounting.

The only module of synth that sends requests. It uses the ``openai`` client's ``AsyncOpenAI``
on a private event loop (:class:`awm_gym.llm_endpoint.BackgroundLoop`), so the stages stay
synchronous and can execute generated code in the main thread (tool timeouts use SIGALRM there)
between batches. Per batch, requests run concurrently up to ``SynthLLM.max_concurrency``.
Transient faults (429, 5xx, timeouts, lost connections) are retried with the shared policy of
:func:`awm_gym.llm_endpoint.call_with_retries`; a 4xx is deterministic and fails that request at
once. A failed request is a :class:`ProviderError` in
the batch's results, not an exception: the caller records the item as failed and carries on.

Every request carries ``X-Synth-Stage`` / ``X-Synth-Item`` / ``X-Synth-Attempt`` headers (for
proxies, logs, and the scripted test server) and a ``seed`` derived from the run's seed, the
stage, the item and the attempt. Tokens and cost are counted per stage (:class:`UsageMeter`).

Example:
    >>> meter = UsageMeter(SynthLLM(model="m", input_cost_per_mtok=1.0))
    >>> meter.add("task", prompt_tokens=1000, completion_tokens=10)
    >>> meter.report()["task"]["cost_usd"]
    0.001
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import logging
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from awm_gym.errors import ProviderError
from awm_gym.llm_endpoint import BackgroundLoop, call_with_retries, make_async_client

from .config import EmbeddingConfig, SynthLLM

logger = logging.getLogger(__name__)

__all__ = ["ChatRequest", "Completion", "UsageMeter", "LLMClient"]


@dataclass(frozen=True, slots=True)
class ChatRequest:
    """One chat completion to send.

    Attributes:
        stage: the synthesis stage asking (``task``, ``db``, ...).
        item: the item it is for (a world name, or ``world/task_idx``).
        messages: OpenAI chat messages.
        attempt: 0 for the first try, k for the k-th correction.
    """

    stage: str
    item: str
    messages: tuple[Mapping[str, str], ...]
    attempt: int = 0


@dataclass(frozen=True, slots=True)
class Completion:
    """The text an endpoint returned, and what it cost."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    finish_reason: str | None = None


@dataclass
class _StageUsage:
    requests: int = 0
    failed_requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass
class UsageMeter:
    """Requests, tokens and cost per stage (thread-safe)."""

    endpoint: SynthLLM
    stages: dict[str, _StageUsage] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, stage: str, *, prompt_tokens: int = 0, completion_tokens: int = 0,
            failed: bool = False) -> None:
        with self._lock:
            usage = self.stages.setdefault(stage, _StageUsage())
            usage.requests += 1
            usage.failed_requests += int(failed)
            usage.prompt_tokens += prompt_tokens
            usage.completion_tokens += completion_tokens

    def report(self) -> dict[str, dict[str, float]]:
        """``{stage: {requests, failed_requests, prompt_tokens, completion_tokens, cost_usd}}``."""
        e = self.endpoint
        with self._lock:
            return {stage: {"requests": u.requests, "failed_requests": u.failed_requests,
                            "prompt_tokens": u.prompt_tokens,
                            "completion_tokens": u.completion_tokens,
                            "cost_usd": round(u.prompt_tokens * e.input_cost_per_mtok / 1e6
                                              + u.completion_tokens * e.output_cost_per_mtok
                                              / 1e6, 6)}
                    for stage, u in sorted(self.stages.items())}


def _request_seed(seed: int, request: ChatRequest) -> int:
    digest = hashlib.sha256(f"{seed}|{request.stage}|{request.item}|{request.attempt}".encode())
    return int.from_bytes(digest.digest()[:4], "big") & 0x7FFFFFFF


class LLMClient:
    """Batched chat completions and embeddings against one OpenAI-compatible endpoint.

    Args:
        endpoint: URL, model, limits and prices.
        seed: the run's seed (per-request seeds derive from it).

    Example (nothing is sent for an empty batch):
        >>> client = LLMClient(SynthLLM(model="m", base_url="http://127.0.0.1:9/v1"))
        >>> client.complete_many([])
        []
        >>> client.close()
    """

    def __init__(self, endpoint: SynthLLM, *, seed: int = 0) -> None:
        self.endpoint = endpoint
        self.seed = seed
        self.usage = UsageMeter(endpoint)
        self._loop: BackgroundLoop | None = None
        self._clients: dict[tuple[str, str], Any] = {}

    def __repr__(self) -> str:
        return f"LLMClient(model={self.endpoint.model!r}, base_url={self.endpoint.base_url!r})"

    def _run(self, coro: Any) -> Any:
        if self._loop is None:
            self._loop = BackgroundLoop("synth-llm")
        return self._loop.run(coro)

    def _client(self, base_url: str, api_key_env: str) -> Any:
        key = (base_url, api_key_env)
        if key not in self._clients:
            self._clients[key] = make_async_client(dataclasses.replace(
                self.endpoint, base_url=base_url, api_key_env=api_key_env))
        return self._clients[key]

    # -- chat -------------------------------------------------------------------------------------

    def complete_many(self, requests: Sequence[ChatRequest]) -> list[Completion | ProviderError]:
        """Send ``requests`` concurrently; one :class:`Completion` or :class:`ProviderError` each,
        in order."""
        requests = list(requests)
        if not requests:
            return []
        return self._run(self._complete_all(requests))

    async def _complete_all(self, requests: list[ChatRequest]) -> list[Completion | ProviderError]:
        semaphore = asyncio.Semaphore(self.endpoint.max_concurrency)

        async def one(request: ChatRequest) -> Completion | ProviderError:
            async with semaphore:
                return await self._complete(request)

        return list(await asyncio.gather(*(one(r) for r in requests)))

    async def _complete(self, request: ChatRequest) -> Completion | ProviderError:
        e = self.endpoint
        client = self._client(e.base_url, e.api_key_env)
        kwargs: dict[str, Any] = {
            "model": e.model, "messages": [dict(m) for m in request.messages],
            "temperature": e.temperature, "max_tokens": e.max_tokens,
            "seed": _request_seed(self.seed, request),
            **e.request_options({"X-Synth-Stage": request.stage, "X-Synth-Item": request.item,
                                 "X-Synth-Attempt": str(request.attempt)}),
        }
        start = time.perf_counter()
        try:
            response = await call_with_retries(
                lambda: client.chat.completions.create(**kwargs), e,
                what=f"{request.stage} request for {request.item}")
        except ProviderError as error:  # the provider boundary: every fault is data
            self.usage.add(request.stage, failed=True)
            logger.warning("%s", error)
            return error
        usage = getattr(response, "usage", None)
        prompt = int(getattr(usage, "prompt_tokens", 0) or 0)
        completion = int(getattr(usage, "completion_tokens", 0) or 0)
        self.usage.add(request.stage, prompt_tokens=prompt, completion_tokens=completion)
        try:
            choice = response.choices[0]
            text, finish = choice.message.content or "", choice.finish_reason
        except (AttributeError, IndexError, TypeError):
            text, finish = "", None
        logger.debug("%s %s attempt %d: %d+%d tokens in %.2f s", request.stage, request.item,
                     request.attempt, prompt, completion, time.perf_counter() - start)
        return Completion(text, prompt, completion, finish)

    # -- embeddings -----------------------------------------------------------------------------

    def embed(self, texts: Sequence[str], config: EmbeddingConfig) -> list[list[float]]:
        """Embed ``texts`` through an OpenAI-compatible ``/embeddings`` endpoint, in batches.

        Raises:
            ProviderError: a batch failed for good (dedup cannot run without its vectors).
        """
        texts = list(texts)
        if not texts:
            return []
        return self._run(self._embed_all(texts, config))

    async def _embed_all(self, texts: list[str], config: EmbeddingConfig) -> list[list[float]]:
        client = self._client(config.base_url or self.endpoint.base_url,
                              config.api_key_env or self.endpoint.api_key_env)
        batches = [texts[i:i + config.batch_size] for i in range(0, len(texts), config.batch_size)]
        semaphore = asyncio.Semaphore(self.endpoint.max_concurrency)

        async def one(batch: list[str]) -> list[list[float]]:
            async with semaphore:
                response = await call_with_retries(
                    lambda: client.embeddings.create(model=config.model, input=batch,
                                                     encoding_format="float"),
                    self.endpoint, what="embeddings request")
            usage = getattr(response, "usage", None)
            self.usage.add("embeddings",
                           prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0))
            rows = sorted(response.data, key=lambda d: d.index)
            if len(rows) != len(batch):
                raise ProviderError(f"the embeddings endpoint returned {len(rows)} vectors for "
                                    f"{len(batch)} texts")
            return [list(map(float, row.embedding)) for row in rows]

        try:
            parts = await asyncio.gather(*(one(b) for b in batches))
        except ProviderError as error:
            raise ProviderError(f"embeddings failed: {error}. Check --embedding-api-url and "
                                "--embedding-model, or use --embedding-backend local.",
                                status_code=error.status_code, transient=error.transient,
                                attempts=error.attempts) from error
        return [vector for part in parts for vector in part]

    def close(self) -> None:
        """Close the HTTP clients and the loop thread. Safe to call more than once."""
        loop, self._loop = self._loop, None
        if loop is not None:
            loop.close(*self._clients.values())
        self._clients.clear()
