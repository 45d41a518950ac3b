"""What every stage of a run shares: config, LLM client, failure log, verifier pool, judge, bars.

Example:
    >>> import tempfile
    >>> from synth.config import SynthConfig, SynthLLM
    >>> cfg = SynthConfig(output_dir=tempfile.mkdtemp(), progress=False,
    ...                   llm=SynthLLM(model="m", base_url="http://127.0.0.1:9/v1"))
    >>> with RunContext(cfg) as run:
    ...     run.path("gen_tasks.jsonl").endswith("gen_tasks.jsonl")
    True
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from typing import Any

from awm_gym.llm_endpoint import endpoint_fields
from awm_gym.worlds import normalize_scenario_name

from .config import SynthConfig
from .jsonl_io import CONFIG_FILE, FAILURES_FILE, USAGE_FILE, FailureLog, write_json
from .llm import LLMClient
from .repair import RepairOutcome, StageCounter

logger = logging.getLogger(__name__)

__all__ = ["RunContext", "StageReport"]


@dataclass(frozen=True)
class StageReport:
    """What a stage did: items kept (of which repaired), failed, and skipped as already done."""

    stage: str
    ok: int = 0
    repaired: int = 0
    failed: int = 0
    skipped: int = 0
    notes: tuple[str, ...] = ()

    def __str__(self) -> str:
        extra = f" | {'; '.join(self.notes)}" if self.notes else ""
        return (f"{self.stage}: ok {self.ok} (repaired {self.repaired}) | failed {self.failed} | "
                f"already done {self.skipped}{extra}")


class RunContext:
    """The shared state of one synthesis run (use it as a context manager).

    Args:
        config: the run's configuration.
        llm: a client to use instead of one built from ``config.llm``.
    """

    def __init__(self, config: SynthConfig, llm: LLMClient | None = None) -> None:
        self.config = config
        os.makedirs(config.output_dir, exist_ok=True)
        self.llm = llm if llm is not None else LLMClient(config.llm, seed=config.seed)
        self._owns_llm = llm is None
        self.failures = FailureLog(self.path(FAILURES_FILE))
        self._pool: Any = None
        self._judge: Any = None
        self._wanted = {normalize_scenario_name(s) for s in config.scenario}
        write_json(self.path(CONFIG_FILE), config.to_json())

    def __enter__(self) -> RunContext:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def path(self, name: str) -> str:
        """A file in the output directory."""
        return os.path.join(self.config.output_dir, name)

    def wants(self, world: str) -> bool:
        """Whether ``world`` (normalized) is part of this run (``--scenario`` filter)."""
        return not self._wanted or world in self._wanted

    def counter(self, stage: str, total: int) -> StageCounter:
        """A counter for ``stage``, with a tqdm bar when ``config.progress``."""
        bar = None
        if self.config.progress and total:
            from tqdm import tqdm

            bar = tqdm(total=total, desc=f"gen {stage}", unit="item", leave=True)
        return StageCounter(bar=bar)

    def record(self, stage: str, outcome: RepairOutcome) -> None:
        """Log an item's end in the failure file (a success clears an older failure)."""
        if outcome.is_ok:
            self.failures.succeeded(stage, outcome.key)
        else:
            self.failures.record(stage, outcome.key, outcome.last_error or "unknown error",
                                 attempts=outcome.attempts)

    def report(self, stage: str, counter: StageCounter, skipped: int,
               notes: tuple[str, ...] = ()) -> StageReport:
        if counter.bar is not None:
            counter.bar.close()
        report = StageReport(stage, counter.ok, counter.repaired, counter.failed, skipped, notes)
        logger.info("%s", report)
        if counter.failed:
            logger.warning("%d %s item(s) failed; see %s", counter.failed, stage,
                           self.path(FAILURES_FILE))
        self.save_usage()
        return report

    def pool(self) -> Any:
        """The run's verifier pool (started on first use)."""
        if self._pool is None:
            from awm_gym.scoring import VerifierPool

            self._pool = VerifierPool(num_workers=2, timeout_s=self.config.verifier_timeout_s)
        return self._pool

    def judge(self) -> Any:
        """The LLM judge that proves sql-mode verifiers (the run's endpoint)."""
        if self._judge is None:
            from awm_gym.scoring import JudgeConfig, LLMJudge

            e = self.config.llm
            self._judge = LLMJudge(JudgeConfig(**{
                **endpoint_fields(e), "model": self.config.judge_model or e.model,
                "extra_headers": {**(e.extra_headers or {}), "X-Synth-Stage": "judge"}}))
        return self._judge

    def save_usage(self) -> None:
        write_json(self.path(USAGE_FILE), self.llm.usage.report())

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool = None
        if self._judge is not None:
            self._judge.close()
            self._judge = None
        if self._owns_llm:
            self.llm.close()
