"""Fixtures for synth unit tests: the scripted OpenAI-compatible server and a client on it."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "synth"
if str(FIXTURES) not in sys.path:
    sys.path.insert(0, str(FIXTURES))

from scripted_llm import ScriptedLLM  # noqa: E402

from synth.config import SynthLLM  # noqa: E402
from synth.llm import LLMClient  # noqa: E402


@pytest.fixture()
def server() -> Iterator[ScriptedLLM]:
    s = ScriptedLLM().start()
    yield s
    s.stop()


@pytest.fixture()
def llm(server: ScriptedLLM) -> Iterator[LLMClient]:
    client = LLMClient(SynthLLM(model="scripted", base_url=server.base_url, backoff_s=0.01,
                               max_retries=2, input_cost_per_mtok=2.0,
                               output_cost_per_mtok=4.0))
    yield client
    client.close()
