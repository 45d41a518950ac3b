"""The endpoint client: headers, seeds, token and cost accounting, embeddings."""

from __future__ import annotations

import pytest
from scripted_llm import Reply

from synth.config import EmbeddingConfig
from synth.errors import ProviderError
from synth.llm import ChatRequest, Completion


def test_requests_are_tagged_seeded_and_counted(server, llm) -> None:
    server.script("task", "notes_app", "x" * 400)
    server.script("task", "shop", Reply(status=429), "y" * 40)
    server.script("db", "shop", Reply(status=404))
    messages = ({"role": "user", "content": "p" * 4000},)
    a, b, c = llm.complete_many([ChatRequest("task", "notes_app", messages),
                                 ChatRequest("task", "shop", messages, attempt=2),
                                 ChatRequest("db", "shop", messages)])
    assert isinstance(a, Completion) and a.text == "x" * 400 and a.completion_tokens == 100
    assert isinstance(b, Completion) and b.text == "y" * 40
    assert isinstance(c, ProviderError) and c.status_code == 404 and not c.transient
    bodies = [r["body"] for r in server.requests_for("task")]
    assert bodies[0]["model"] == "scripted" and isinstance(bodies[0]["seed"], int)
    assert bodies[0]["seed"] != bodies[1]["seed"]  # seeds differ per item and attempt
    usage = llm.usage.report()
    assert usage["task"]["requests"] == 2 and usage["task"]["prompt_tokens"] == 2000
    assert usage["task"]["completion_tokens"] == 110
    assert usage["task"]["cost_usd"] == pytest.approx((2000 * 2 + 110 * 4) / 1e6)
    assert usage["db"]["failed_requests"] == 1


def test_embeddings_come_back_in_input_order(server, llm) -> None:
    texts = [f"text number {i}" for i in range(7)]
    vectors = llm.embed(texts, EmbeddingConfig(model="e", batch_size=3))
    assert len(vectors) == 7
    from scripted_llm import embed_text

    assert vectors == [embed_text(t) for t in texts]
    assert len(server.requests_for("embeddings")) == 3


def test_an_unusable_embeddings_endpoint_is_a_provider_error(llm) -> None:
    config = EmbeddingConfig(model="e", base_url="http://127.0.0.1:9/v1")
    with pytest.raises(ProviderError, match="--embedding-api-url"):
        llm.embed(["a"], config)
