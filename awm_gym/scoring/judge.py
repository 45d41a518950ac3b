"""Grade finished episodes with an LLM judge: AWM's ``sql`` verification mode, batched and bounded.

AWM's sql mode is a *code-augmented* LLM judge (awm.md section 4.3): the task's verifier reads the
initial and final databases and returns evidence; the evidence, the task and the agent's
trajectory go to an LLM that answers one of four labels, ``complete``, ``incomplete``,
``agent_error`` or ``server_error``. :class:`LLMJudge` does that against any OpenAI-compatible
endpoint (vLLM, OpenAI) with the ``openai`` client, and departs from AWM where AWM is weak:

* the verifier's own reasoning and success/failure criteria are sent with its evidence (AWM's
  public code promises them in its prompt and omits them, item 13);
* the trajectory is bounded: reasoning text is removed, each tool response is cut to
  ``max_observation_chars`` and only the last ``max_turns`` turns are kept (item 11);
* all episodes that end in one vector step are judged in one batch, concurrently up to
  ``max_concurrency``, each within ``timeout_s`` (retries included);
* only transient faults (429, 5xx, timeouts, lost connections) are retried, with exponential
  backoff; a 4xx is deterministic and is reported at once;
* a judge that fails (timeout, provider error, an answer without a valid label) yields the label
  ``judge_error`` with its reason: it is never silently scored.

The endpoint, the client, the retry policy and the background loop are the shared ones of
:mod:`awm_gym.llm_endpoint` (:class:`JudgeConfig` is an :class:`~awm_gym.llm_endpoint.LLMEndpoint`
with the judge's own fields added), so the synchronous runtime can judge a batch from any thread,
with or without a running loop of its own. ``openai`` is imported only when the first request is
sent.

Example:
    >>> parse_judge_answer('<think>hm</think>{"reasoning": "db shows it", "classification": "Complete"}')
    ('complete', 'db shows it')
    >>> JudgeConfig(base_url="http://127.0.0.1:8000/v1", model="judge", timeout_s=0)
    Traceback (most recent call last):
    ...
    ValueError: JudgeConfig.timeout_s=0: must be > 0 seconds.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from awm_gym.errors import ProviderError
from awm_gym.llm_endpoint import BackgroundLoop, LLMEndpoint, call_with_retries, make_async_client
from awm_gym.tools.actions import strip_thinking
from awm_gym.vocab import JUDGE_LABELS, JUDGE_REWARDS, JudgeLabel, Turn

logger = logging.getLogger(__name__)

__all__ = [
    "JUDGE_LABELS", "JudgeLabel", "JudgeConfig", "Turn", "JudgeRequest", "JudgeVerdict",
    "LLMJudge", "JudgeAnswerError", "parse_judge_answer", "build_judge_messages",
    "criteria_from_raw_response", "JUDGE_REWARDS",
]

_THINK = re.compile(r"<think>.*?</think>", re.DOTALL)
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


@dataclass(frozen=True)
class JudgeConfig(LLMEndpoint):
    """The judge's endpoint (every :class:`~awm_gym.llm_endpoint.LLMEndpoint` field, passed flat:
    ``JudgeConfig(base_url=..., model=...)``) and how it grades. ``model`` is required.

    ``timeout_s`` bounds one whole judgement, retries included; past it the label is
    ``judge_error`` (timeout).
    """

    timeout_s: float = 60.0
    """Wall-clock limit of one judgement, retries included."""
    max_retries: int = 2
    """Extra attempts after a transient fault (within timeout_s)."""
    temperature: float = 0.0
    """Sampling temperature (AWM uses 1.0; 0.0 makes grades repeatable)."""
    max_tokens: int = 2048
    """Completion budget of one judgement."""
    max_observation_chars: int = 2000
    """Each tool response in the trajectory is cut to this many characters."""
    max_turns: int = 40
    """Only the last this-many turns of a trajectory are sent (the count of omitted ones is)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.model is None:
            raise ValueError("JudgeConfig.model=None: name the judge model, e.g. "
                             "JudgeConfig(base_url=..., model='Qwen/Qwen3-32B').")
        for name in ("max_tokens", "max_observation_chars", "max_turns"):
            if getattr(self, name) < 1:
                raise ValueError(f"JudgeConfig.{name}={getattr(self, name)}: must be >= 1.")


@dataclass(frozen=True, slots=True)
class JudgeRequest:
    """Everything the judge reads about one finished episode.

    Attributes:
        task: the task text.
        turns: the episode's tool-using steps, in order.
        final_answer: the agent's final answer (reasoning removed).
        evidence: what the sql-mode verifier returned.
        criteria: the verifier author's ``reasoning``, ``success_criteria`` and
            ``failure_criteria`` (from the stored ``raw_response``), when known.
    """

    task: str
    turns: tuple[Turn, ...]
    final_answer: str
    evidence: Any
    criteria: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class JudgeVerdict:
    """A judge's answer for one episode.

    Attributes:
        label: one of :data:`~awm_gym.vocab.JUDGE_LABELS`, or ``judge_error`` when no valid
            answer came.
        error_kind: None, or ``timeout`` | ``provider`` | ``malformed`` when the label is
            ``judge_error``.
        error: one line of detail for ``judge_error``.
        reasoning: the judge's stated reasoning ("" when absent).
        elapsed_s: wall time of the judgement.
    """

    label: JudgeLabel
    error_kind: str | None = None
    error: str | None = None
    reasoning: str = ""
    elapsed_s: float = 0.0

    @property
    def is_valid(self) -> bool:
        return self.label in JUDGE_LABELS


class JudgeAnswerError(ValueError):
    """A judge answer with no JSON object holding a valid ``classification``."""


def parse_judge_answer(text: str) -> tuple[JudgeLabel, str]:
    """Read ``(label, reasoning)`` from a judge's reply.

    Reasoning blocks are removed; the reply, a fenced block in it, or the span from its first
    ``{`` to its last ``}`` must be a JSON object whose ``classification`` is one of
    :data:`JUDGE_LABELS` (case and surrounding space ignored). Nothing else is guessed.

    Raises:
        JudgeAnswerError: no such object (the message says what was found instead).

    Example:
        >>> parse_judge_answer('Sure: {"classification": "server_error"} hope that helps')
        ('server_error', '')
        >>> parse_judge_answer('complete')
        Traceback (most recent call last):
        ...
        awm_gym.scoring.judge.JudgeAnswerError: no JSON object in the judge's answer: 'complete'
    """
    if not isinstance(text, str):
        raise JudgeAnswerError(f"the judge's answer is {type(text).__name__}, not text")
    body = _THINK.sub("", text)
    if "</think>" in body:
        body = body.split("</think>", 1)[1]
    body = body.strip()
    candidates = [body, *_FENCE.findall(body)]
    if "{" in body and "}" in body:
        candidates.append(body[body.index("{"):body.rindex("}") + 1])
    found: Any = None
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(value, dict):
            found = value
            break
    if found is None:
        raise JudgeAnswerError(f"no JSON object in the judge's answer: {body[:200]!r}")
    raw = found.get("classification")
    label = raw.strip().lower() if isinstance(raw, str) else None
    if label not in JUDGE_LABELS:
        raise JudgeAnswerError(f"classification {raw!r} is not one of {', '.join(JUDGE_LABELS)}")
    reasoning = found.get("reasoning")
    return JudgeLabel(label), reasoning if isinstance(reasoning, str) else ""


_SYSTEM_PROMPT = """\
You grade one episode of an AI agent working in a simulated application through its API tools.
You receive the user's task, the agent's steps (each tool call with the tool's response), the
agent's final answer, and evidence that a verification script collected by reading the
application's database before and after the episode, together with its author's notes on what
success and failure look like.

Choose exactly one classification:
- "complete": every part of the task was carried out, and the database evidence (or, for a
  question, the final answer checked against the evidence) confirms it.
- "server_error": the application itself stopped the agent: tools failed with internal server
  errors, crashes or timeouts that no correct use could have avoided.
- "agent_error": the agent went wrong and did not recover: invented or wrong arguments, the wrong
  records changed, results claimed that the tools never returned.
- "incomplete": some progress, but part of the task is missing or the database does not show the
  required change.
When more than one fits, prefer complete, then server_error, then agent_error, then incomplete.
Base the decision on the evidence, not on the agent's claims.

Answer with a single JSON object and nothing else:
{"reasoning": "<two or three sentences>", "classification": "<one of the four labels>"}"""


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"... [{len(text) - limit} more characters cut]"


def build_judge_messages(request: JudgeRequest, config: JudgeConfig) -> list[dict[str, str]]:
    """The chat messages sent for one episode (system prompt + one user message of JSON).

    Example:
        >>> cfg = JudgeConfig(base_url="http://x/v1", model="m", max_observation_chars=5)
        >>> req = JudgeRequest("Like a song", (Turn("call", "0123456789"),), "Done", {"liked": True})
        >>> msgs = build_judge_messages(req, cfg)
        >>> [m["role"] for m in msgs], "01234... [5 more characters cut]" in msgs[1]["content"]
        (['system', 'user'], True)
    """
    turns = request.turns[-config.max_turns:]
    omitted = len(request.turns) - len(turns)
    steps = [{"step": omitted + k + 1,
              "action": _clip(strip_thinking(t.action), config.max_observation_chars),
              "response": _clip(t.observation, config.max_observation_chars)}
             for k, t in enumerate(turns)]
    episode = {"user_task": request.task, "total_steps": len(request.turns),
               "omitted_earlier_steps": omitted, "steps": steps,
               "final_answer": _clip(request.final_answer, config.max_observation_chars)}
    verification = {"evidence": request.evidence,
                    **{k: request.criteria[k] for k in ("reasoning", "success_criteria",
                                                        "failure_criteria")
                       if k in request.criteria}}
    user = ("Episode:\n" + json.dumps(episode, ensure_ascii=False, indent=1, default=str)
            + "\n\nDatabase verification:\n"
            + json.dumps(verification, ensure_ascii=False, indent=1, default=str))
    return [{"role": "system", "content": _SYSTEM_PROMPT}, {"role": "user", "content": user}]


class LLMJudge:
    """Judge batches of episodes against an OpenAI-compatible endpoint.

    Args:
        config: endpoint, limits and trajectory bounds.

    Example (the endpoint is only contacted when :meth:`judge` gets requests):
        >>> judge = LLMJudge(JudgeConfig(base_url="http://127.0.0.1:9/v1", model="m"))
        >>> judge.judge([])
        []
        >>> judge.close()
    """

    def __init__(self, config: JudgeConfig) -> None:
        if not isinstance(config, JudgeConfig):
            raise TypeError(f"LLMJudge(config=...) needs a JudgeConfig, got "
                            f"{type(config).__name__}.")
        self.config = config
        self._loop: BackgroundLoop | None = None
        self._client: Any = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"LLMJudge(model={self.config.model!r}, base_url={self.config.base_url!r})"

    def judge(self, requests: Sequence[JudgeRequest]) -> list[JudgeVerdict]:
        """Judge ``requests`` concurrently; blocks until all are done (each within timeout_s).

        Returns:
            One verdict per request, in order. Failures are verdicts labelled ``judge_error``.
        """
        requests = list(requests)
        if not requests:
            return []
        with self._lock:
            if self._loop is None:
                self._loop = BackgroundLoop("awm-judge")
            loop = self._loop
        return loop.run(self.ajudge(requests))

    async def ajudge(self, requests: Sequence[JudgeRequest]) -> list[JudgeVerdict]:
        """The async form of :meth:`judge`, for callers that own an event loop."""
        if self._client is None:
            self._client = make_async_client(self.config)
        semaphore = asyncio.Semaphore(self.config.max_concurrency)

        async def one(request: JudgeRequest) -> JudgeVerdict:
            async with semaphore:
                return await self._judge_one(request)

        return list(await asyncio.gather(*(one(r) for r in requests)))

    async def _judge_one(self, request: JudgeRequest) -> JudgeVerdict:
        cfg = self.config
        start = time.perf_counter()
        messages = build_judge_messages(request, cfg)
        kwargs: dict[str, Any] = {"model": cfg.model, "messages": messages,
                                  "temperature": cfg.temperature, "max_tokens": cfg.max_tokens,
                                  **cfg.request_options()}
        try:
            response = await asyncio.wait_for(call_with_retries(
                lambda: self._client.chat.completions.create(**kwargs), cfg,
                what="judge request"), cfg.timeout_s)
        except (asyncio.TimeoutError, TimeoutError):
            return JudgeVerdict(JudgeLabel.JUDGE_ERROR, "timeout",
                                f"no answer within timeout_s={cfg.timeout_s:g}", "",
                                time.perf_counter() - start)
        except ProviderError as e:  # the boundary to the provider: every fault is data
            kind = "timeout" if type(e.__cause__).__name__ == "APITimeoutError" else "provider"
            return JudgeVerdict(JudgeLabel.JUDGE_ERROR, kind, str(e), "",
                                time.perf_counter() - start)
        try:
            text = response.choices[0].message.content or ""
        except (AttributeError, IndexError, TypeError):
            text = ""
        try:
            label, reasoning = parse_judge_answer(text)
        except JudgeAnswerError as e:
            return JudgeVerdict(JudgeLabel.JUDGE_ERROR, "malformed", str(e), "",
                                time.perf_counter() - start)
        return JudgeVerdict(label, None, None, reasoning, time.perf_counter() - start)

    def close(self) -> None:
        """Close the HTTP client and the loop thread. Safe to call more than once."""
        with self._lock:
            loop, self._loop = self._loop, None
        if loop is not None:
            loop.close(*([self._client] if self._client is not None else []))
        self._client = None


def criteria_from_raw_response(raw_response: str | None) -> dict[str, Any]:
    """The ``reasoning`` / ``success_criteria`` / ``failure_criteria`` of a stored sql-mode
    verifier's raw LLM answer ({} when absent or unreadable).

    Example:
        >>> criteria_from_raw_response('{"reasoning": "r", "success_criteria": "s", "x": 1}')
        {'reasoning': 'r', 'success_criteria': 's'}
    """
    if not raw_response:
        return {}
    try:
        data = json.loads(raw_response)
    except ValueError:
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: data[k] for k in ("reasoning", "success_criteria", "failure_criteria")
            if k in data}
