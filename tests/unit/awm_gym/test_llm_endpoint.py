"""awm_gym/llm_endpoint.py: the one endpoint config, retry policy and error of the tree."""

from __future__ import annotations

import asyncio
import re

import pytest

from awm_gym.errors import AWMGymError, ProviderError
from awm_gym.llm_endpoint import (
    BackgroundLoop,
    LLMEndpoint,
    call_with_retries,
    endpoint_fields,
    is_transient_error,
)
from awm_gym.scoring.judge import JudgeConfig


@pytest.mark.parametrize("kwargs, text", [
    ({"base_url": "localhost:8000"}, "LLMEndpoint.base_url='localhost:8000'"),
    ({"model": ""}, "LLMEndpoint.model=''"),
    ({"api_key_env": ""}, "LLMEndpoint.api_key_env=''"),
    ({"timeout_s": 0}, "LLMEndpoint.timeout_s=0"),
    ({"max_concurrency": 0}, "LLMEndpoint.max_concurrency=0"),
    ({"max_retries": -1}, "max_retries=-1"),
])
def test_bad_endpoints_name_the_field(kwargs: dict, text: str) -> None:
    with pytest.raises(ValueError, match=re.escape(text)):
        LLMEndpoint(**kwargs)


def test_the_judge_takes_the_flat_fields_users_pass() -> None:
    judge = JudgeConfig(**{"base_url": "http://127.0.0.1:8000/v1", "model": "m",
                           "max_concurrency": 4, "max_turns": 3})
    assert isinstance(judge, LLMEndpoint) and judge.max_concurrency == 4 and judge.max_turns == 3
    assert endpoint_fields(judge)["model"] == "m" and "max_turns" not in endpoint_fields(judge)
    with pytest.raises(ValueError, match=re.escape("JudgeConfig.model=None")):
        JudgeConfig(base_url="http://127.0.0.1:8000/v1")


def test_request_options_merge_headers() -> None:
    endpoint = LLMEndpoint(extra_body={"top_k": 5}, extra_headers={"X-A": "1"})
    assert endpoint.request_options({"X-B": "2"}) == {
        "extra_body": {"top_k": 5}, "extra_headers": {"X-A": "1", "X-B": "2"}}
    assert LLMEndpoint().request_options() == {}


def test_transient_faults_are_retried_then_reported_as_one_provider_error() -> None:
    calls: list[int] = []

    async def flaky() -> str:
        calls.append(1)
        raise TimeoutError("no answer")

    loop = BackgroundLoop("test")
    try:
        with pytest.raises(ProviderError, match=re.escape("ping to http://127.0.0.1:8000/v1 "
                                                          "failed after 3 attempt(s)")) as e:
            loop.run(call_with_retries(flaky, LLMEndpoint(max_retries=2, backoff_s=0.001),
                                       what="ping"))
        assert len(calls) == 3 and e.value.transient and e.value.attempts == 3
        assert isinstance(e.value.__cause__, TimeoutError) and isinstance(e.value, AWMGymError)

        async def wrong() -> str:
            calls.append(1)
            raise ValueError("a deterministic fault")

        calls.clear()
        with pytest.raises(ProviderError, match="after 1 attempt"):
            loop.run(call_with_retries(wrong, LLMEndpoint(max_retries=5)))
        assert len(calls) == 1
    finally:
        loop.close()
        loop.close()  # twice is fine


def test_which_faults_are_transient() -> None:
    import httpx
    import openai

    request = httpx.Request("POST", "http://x/v1/chat/completions")

    def status(code: int) -> openai.APIStatusError:
        return openai.APIStatusError("e", response=httpx.Response(code, request=request),
                                     body=None)

    assert [is_transient_error(status(c)) for c in (400, 401, 408, 409, 429, 500, 503)] == [
        False, False, True, True, True, True, True]
    assert is_transient_error(asyncio.TimeoutError()) and is_transient_error(ConnectionError())
    assert not is_transient_error(KeyError("x"))
