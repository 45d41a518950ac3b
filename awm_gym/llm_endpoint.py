"""Reach an OpenAI-compatible endpoint: one config, one client factory, one retry policy, one error.

Everything in the tree that talks to an LLM endpoint goes through here: the judge
(:mod:`awm_gym.scoring.judge`), synthesis (``synth.llm``) and the OpenAI policy
(``agents.policies.openai_policy``). :class:`LLMEndpoint` says where the endpoint is and how hard
to try; :func:`make_async_client` builds an ``openai.AsyncOpenAI`` with the client's own retries
off; :func:`call_with_retries` retries transient faults only (408/409/429, 5xx, timeouts, lost
connections) with exponential backoff and jitter, and raises :class:`~awm_gym.errors.ProviderError`
(the cause attached) once a fault is deterministic or the retries are used up.
:class:`BackgroundLoop` lets synchronous code run these coroutines from any thread.

Example:
    >>> LLMEndpoint(model="qwen3").base_url
    'http://127.0.0.1:8000/v1'
    >>> LLMEndpoint(base_url="127.0.0.1:8000")
    Traceback (most recent call last):
    ...
    ValueError: LLMEndpoint.base_url='127.0.0.1:8000': give an http(s) URL such as http://127.0.0.1:8000/v1.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
import random
import threading
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from awm_gym.boundary import best_effort
from awm_gym.errors import ProviderError

logger = logging.getLogger(__name__)

__all__ = ["LLMEndpoint", "ProviderError", "BackgroundLoop", "call_with_retries",
           "is_transient_error", "make_async_client", "endpoint_fields", "describe_error"]

_T = TypeVar("_T")


@dataclass(frozen=True)
class LLMEndpoint:
    """Where an OpenAI-compatible endpoint is and how requests to it are sent and retried.

    Example:
        >>> e = LLMEndpoint(base_url="https://api.openai.com/v1", model="gpt-4.1-mini")
        >>> e.api_key_env, e.max_retries
        ('OPENAI_API_KEY', 3)
    """

    base_url: str = "http://127.0.0.1:8000/v1"
    """The endpoint's /v1 URL, e.g. http://127.0.0.1:8000/v1 (vLLM) or https://api.openai.com/v1."""
    model: str | None = None
    """Model name sent with every request (None: the first one the endpoint lists, where the
    caller supports that)."""
    api_key_env: str = "OPENAI_API_KEY"
    """Environment variable holding the API key (unset: the placeholder EMPTY, which a local vLLM
    server accepts). The key itself is never stored."""
    timeout_s: float = 120.0
    """Seconds before one request counts as failed (a transient fault, so it is retried)."""
    max_retries: int = 3
    """Extra attempts after a transient fault (408/409/429, 5xx, timeout, lost connection)."""
    backoff_s: float = 1.0
    """First retry delay in seconds; it doubles each retry (with up to 25% jitter)."""
    max_concurrency: int = 32
    """Requests in flight at once."""
    extra_body: Mapping[str, Any] | None = None
    """Extra JSON fields for every request body (e.g. vLLM's chat_template_kwargs)."""
    extra_headers: Mapping[str, str] | None = None
    """Extra HTTP headers for every request (routing, tracing)."""

    def __post_init__(self) -> None:
        owner = type(self).__name__
        if not isinstance(self.base_url, str) or not self.base_url.startswith(("http://",
                                                                                "https://")):
            raise ValueError(f"{owner}.base_url={self.base_url!r}: give an http(s) URL such as "
                             "http://127.0.0.1:8000/v1.")
        if self.model is not None and (not isinstance(self.model, str) or not self.model):
            raise ValueError(f"{owner}.model={self.model!r}: give a model name, or None to use "
                             "the endpoint's first model.")
        if not isinstance(self.api_key_env, str) or not self.api_key_env:
            raise ValueError(f"{owner}.api_key_env={self.api_key_env!r}: name the environment "
                             "variable that holds the key, e.g. OPENAI_API_KEY.")
        if not self.timeout_s > 0:
            raise ValueError(f"{owner}.timeout_s={self.timeout_s}: must be > 0 seconds.")
        if self.max_concurrency < 1:
            raise ValueError(f"{owner}.max_concurrency={self.max_concurrency}: must be >= 1.")
        if self.max_retries < 0 or self.backoff_s < 0:
            raise ValueError(f"{owner}: max_retries={self.max_retries} and backoff_s="
                             f"{self.backoff_s} must be >= 0.")

    def request_options(self, headers: Mapping[str, str] | None = None) -> dict[str, Any]:
        """The ``extra_body`` / ``extra_headers`` keyword arguments of one request (``headers``
        added to the endpoint's own).

        Example:
            >>> LLMEndpoint(extra_headers={"X-A": "1"}).request_options({"X-B": "2"})
            {'extra_headers': {'X-A': '1', 'X-B': '2'}}
        """
        options: dict[str, Any] = {}
        if self.extra_body:
            options["extra_body"] = dict(self.extra_body)
        merged = {**(self.extra_headers or {}), **(headers or {})}
        if merged:
            options["extra_headers"] = merged
        return options


def endpoint_fields(endpoint: LLMEndpoint) -> dict[str, Any]:
    """The :class:`LLMEndpoint` fields of ``endpoint`` (of a subclass too), to build another
    config on the same endpoint.

    Example:
        >>> endpoint_fields(LLMEndpoint(model="m"))["model"]
        'm'
    """
    return {f.name: getattr(endpoint, f.name) for f in dataclasses.fields(LLMEndpoint)}


def is_transient_error(error: BaseException) -> bool:
    """Whether an error is worth retrying: 408/409/429, 5xx, timeouts and connection failures.
    Any other 4xx is deterministic.

    Example:
        >>> is_transient_error(TimeoutError()), is_transient_error(ValueError())
        (True, False)
    """
    if isinstance(error, ProviderError):
        return error.transient
    if isinstance(error, (TimeoutError, asyncio.TimeoutError, ConnectionError)):
        return True
    import openai  # third-party and heavy: loaded with the first request

    if isinstance(error, (openai.APITimeoutError, openai.APIConnectionError)):
        return True
    if isinstance(error, openai.APIStatusError):
        return error.status_code in (408, 409, 429) or error.status_code >= 500
    return False


def describe_error(error: BaseException) -> str:
    """One line: the error's type, its HTTP status when it has one, and its text (cut at 300).

    Example:
        >>> describe_error(ValueError("bad\\n  input"))
        'ValueError: bad input'
    """
    status = getattr(error, "status_code", None)
    text = " ".join(str(error).split())[:300]
    return f"{type(error).__name__}{f' (HTTP {status})' if status else ''}: {text}"


async def call_with_retries(call: Callable[[], Awaitable[_T]], endpoint: LLMEndpoint, *,
                            what: str = "request") -> _T:
    """Await ``call()``, retrying transient faults with exponential backoff and jitter.

    Args:
        call: sends the request once.
        endpoint: gives ``max_retries``, ``backoff_s`` and the URL named in errors.
        what: names the request in logs and errors (``"judge request"``).

    Raises:
        ProviderError: the fault is deterministic, or still transient after the retries; the
            original error is its ``__cause__``.
    """
    attempt = 0
    while True:
        try:
            return await call()
        except Exception as e:  # noqa: BLE001 - the provider boundary: classified right here
            transient = is_transient_error(e)
            if attempt >= endpoint.max_retries or not transient:
                raise ProviderError(
                    f"{what} to {endpoint.base_url} failed after {attempt + 1} attempt(s): "
                    f"{describe_error(e)}", status_code=getattr(e, "status_code", None),
                    transient=transient, attempts=attempt + 1) from e
            delay = endpoint.backoff_s * (2 ** attempt) * (1 + random.random() / 4)
            attempt += 1
            logger.info("%s failed (%s); retry %d/%d in %.2f s", what, describe_error(e),
                        attempt, endpoint.max_retries, delay)
            await asyncio.sleep(delay)


def make_async_client(endpoint: LLMEndpoint) -> Any:
    """An ``openai.AsyncOpenAI`` client for ``endpoint``, with the client's own retries off
    (:func:`call_with_retries` does them)."""
    import openai  # third-party and heavy: loaded with the first client

    return openai.AsyncOpenAI(base_url=endpoint.base_url,
                              api_key=os.environ.get(endpoint.api_key_env) or "EMPTY",
                              max_retries=0, timeout=endpoint.timeout_s)


class BackgroundLoop:
    """An asyncio loop in a daemon thread, so synchronous code can run coroutines from anywhere.

    Example:
        >>> async def add(a, b):
        ...     return a + b
        >>> loop = BackgroundLoop("example")
        >>> loop.run(add(1, 2))
        3
        >>> loop.close()
    """

    def __init__(self, name: str) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name=f"{name}-loop",
                                        daemon=True)
        self._thread.start()
        self._closed = False

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        return self._loop

    def run(self, coro: Coroutine[Any, Any, _T]) -> _T:
        """Run ``coro`` on the loop and block until it finishes."""
        if self._closed:
            coro.close()
            raise RuntimeError("BackgroundLoop.run: the loop is closed; create a new one.")
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    def close(self, *clients: Any) -> None:
        """Close ``clients`` (async HTTP clients used on this loop), then stop the loop and its
        thread. Safe to call more than once."""
        if self._closed:
            return
        for client in clients:
            with best_effort("closing an LLM client", log=logger):  # a dead pool is no error
                self.run(client.close())
        self._closed = True
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        if not self._thread.is_alive():
            self._loop.close()
