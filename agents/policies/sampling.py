"""What every LLM backend shares: the sampling settings, one sampled turn, and the backend protocol.

Example:
    >>> g = Generation(prompt_ids=(1, 2), completion_ids=(7, 3), logprobs=(-0.1, -0.2),
    ...                finish_reason="stop", text="hi")
    >>> g.num_tokens
    4
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from ..errors import AgentConfigError

__all__ = ["SamplingConfig", "Generation", "Backend", "FinishReason", "trim_at_eos"]

FinishReason = Literal["stop", "length", "prompt_too_long"]
"""``stop``: the end-of-turn token was sampled; ``length``: ``max_new_tokens`` ran out;
``prompt_too_long``: the prompt left no room to generate (nothing was sampled)."""


@dataclass(frozen=True)
class SamplingConfig:
    """How a backend samples one turn."""

    temperature: float = 1.0
    """Softmax temperature; 0 means greedy. Log-probabilities are of ``softmax(logits / T)``."""
    top_p: float = 1.0
    """Nucleus sampling mass (1.0: off; GRPO's log-probabilities ignore it, keep it at 1.0)."""
    max_new_tokens: int = 256
    """Most tokens sampled per turn (hitting it ends the turn with finish reason ``length``)."""
    max_prompt_tokens: int | None = None
    """Longest prompt sent to the model; a longer one gets finish reason ``prompt_too_long``
    (None: the model's context length minus ``max_new_tokens``)."""

    def __post_init__(self) -> None:
        if self.temperature < 0:
            raise AgentConfigError(f"SamplingConfig.temperature={self.temperature}: use >= 0 "
                                   "(0 is greedy).")
        if not 0 < self.top_p <= 1:
            raise AgentConfigError(f"SamplingConfig.top_p={self.top_p}: use a value in (0, 1].")
        if self.max_new_tokens < 1:
            raise AgentConfigError(f"SamplingConfig.max_new_tokens={self.max_new_tokens}: "
                                   "use >= 1.")

    @property
    def is_greedy(self) -> bool:
        """True when sampling is argmax (temperature 0)."""
        return self.temperature == 0

    def prompt_budget(self, context_length: int) -> int:
        """The longest prompt allowed for a model with ``context_length`` positions."""
        room = context_length - self.max_new_tokens
        return room if self.max_prompt_tokens is None else min(room, self.max_prompt_tokens)


@dataclass(frozen=True, slots=True)
class Generation:
    """One sampled turn of one instance.

    ``prompt_ids`` are exactly the ids the model was conditioned on and ``completion_ids`` the
    ids it sampled (the end-of-turn token included when sampled); ``logprobs[k]`` is the
    log-probability of ``completion_ids[k]`` under the sampling distribution. A backend that
    cannot report ids (a plain OpenAI endpoint) leaves them empty.
    """

    prompt_ids: tuple[int, ...]
    completion_ids: tuple[int, ...]
    logprobs: tuple[float, ...]
    finish_reason: FinishReason
    text: str

    @property
    def num_tokens(self) -> int:
        """Prompt plus completion length."""
        return len(self.prompt_ids) + len(self.completion_ids)


class Backend(Protocol):
    """Samples one turn for each of a batch of prompts (a transformers model, vLLM, an endpoint).

    ``prompt_ids[i]`` is the rendered prompt (None for backends that render it themselves from
    ``messages[i]``). ``seed`` makes the call reproducible where the backend allows it: one
    seed for the call, or, for a backend whose ``per_request_seeds`` is True, one seed per
    prompt, so what a prompt samples does not depend on the others in the batch (evaluation:
    the same episode samples the same on 1 or N ranks). ``sampling`` is the caller's (policies
    sharing one backend may sample differently).
    """

    def generate(self, messages: Sequence[Sequence[Mapping[str, str]]],
                 prompt_ids: Sequence[Sequence[int] | None], seed: int | Sequence[int] | None,
                 sampling: SamplingConfig) -> list[Generation]: ...

    def close(self) -> None: ...


def trim_at_eos(ids: Sequence[int], eos_ids: Sequence[int]) -> tuple[tuple[int, ...], bool]:
    """Cut sampled ids after the first end token (kept); returns ``(ids, stopped)``.

    Example:
        >>> trim_at_eos([5, 6, 2, 0, 0], [2])
        ((5, 6, 2), True)
        >>> trim_at_eos([5, 6], [2])
        ((5, 6), False)
    """
    ends = set(eos_ids)
    for k, tok in enumerate(ids):
        if tok in ends:
            return tuple(int(t) for t in ids[:k + 1]), True
    return tuple(int(t) for t in ids), False
