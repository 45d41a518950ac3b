"""How a synthesis stage is declared, and the one runner every LLM stage goes through.

Each stage module declares itself with one small dataclass, which :mod:`synth.pipeline` reads
for the order, the inputs a stage needs and the files it writes:

- :class:`Stage`: a name, the files it reads and writes, and its ``run(run_context)``.
- :class:`WorldStage`: the common case, one LLM item per world. It names its input files (the
  worlds are those of the last one, in its order, that every input has and ``--scenario``
  wants), its output file, and three functions: the first prompt of a world, how an answer is
  validated, and the row an accepted answer becomes. Worlds already in the output are skipped.

Both run their items through :func:`run_items`: a progress counter, generation with
correction (:func:`~synth.repair.run_with_repair`), each finished item logged in
``failures.jsonl`` and, when accepted, put in the output, the output flushed, and the stage's
report.

Example:
    >>> def prompt(run, rows):
    ...     name = rows["gen_scenario.jsonl"]["name"]
    ...     return ({"role": "user", "content": f"Describe {name}."},), name
    >>> echo = WorldStage("echo", ("gen_scenario.jsonl",), "gen_echo.jsonl", prompt,
    ...                   validate=lambda run, job, text: text,
    ...                   row=lambda outcome: {"scenario": outcome.context,
    ...                                        "text": outcome.value})
    >>> echo.name, echo.inputs, echo.outputs
    ('echo', ('gen_scenario.jsonl',), ('gen_echo.jsonl',))
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from .context import RunContext, StageReport
from .repair import RepairJob, RepairOutcome, run_with_repair
from .store import StageOutput, rows_by_world

__all__ = ["Stage", "WorldStage", "Checker", "run_items", "SCENARIO_FILE"]

SCENARIO_FILE = "gen_scenario.jsonl"
"""The one stage file whose rows name their world in ``name`` (the others: ``scenario``)."""

Rows = Mapping[str, dict[str, Any]]
"""One world's rows: ``{input file: its row of that world}`` ({} for an absent optional input)."""


@dataclass(frozen=True)
class Stage:
    """A stage that runs its own way (its LLM items still go through :func:`run_items`)."""

    name: str
    """The stage's name (``awm gen <name>``, failure records, usage)."""
    inputs: tuple[str, ...]
    """The files in ``output_dir`` it reads its work from (written by the stages before)."""
    outputs: tuple[str, ...]
    """The files in ``output_dir`` it writes that later stages read."""
    run: Callable[[RunContext], StageReport]
    """Runs the stage over the run's worlds; returns what it did."""


class Checker(Protocol):
    """Validates a stage's answers with resources held for the stage (processes, worlds)."""

    def validate(self, job: RepairJob, text: str) -> Any: ...

    def prepare(self, answers: list[tuple[RepairJob, str]]) -> None: ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class WorldStage:
    """A stage with one LLM item per world: prompt, validate, keep (see the module docstring)."""

    name: str
    """The stage's name (``awm gen <name>``, failure records, usage)."""
    inputs: tuple[str, ...]
    """The files a world needs a row in; the worlds are the last file's, in its order."""
    output: str
    """The file its rows go to (one per world)."""
    prompt: Callable[[RunContext, Rows], tuple[tuple[Mapping[str, str], ...], Any]]
    """``prompt(run, rows) -> (first messages, context)`` of one world (the context reaches
    ``validate`` as ``job.context`` and ``row`` as ``outcome.context``)."""
    row: Callable[[RepairOutcome], dict[str, Any]]
    """The output row of an accepted item."""
    validate: Callable[[RunContext, RepairJob, str], Any] | None = None
    """``validate(run, job, answer) -> value``; raises GenerationError with the feedback."""
    checker: Callable[[RunContext, dict[str, Rows]], Checker] | None = None
    """Instead of ``validate``: builds a :class:`Checker` from the rows of the worlds to do."""
    optional_inputs: tuple[str, ...] = ()
    """Files read when present (a world without a row there gets {})."""

    @property
    def outputs(self) -> tuple[str, ...]:
        return (self.output,)

    def run(self, run: RunContext) -> StageReport:
        """Generate the output row of every wanted world that has every input and no row yet."""
        files = {f: rows_by_world(run.path(f), "name" if f == SCENARIO_FILE else "scenario")
                 for f in (*self.inputs, *self.optional_inputs)}
        worlds = [k for k in files[self.inputs[-1]]
                  if run.wants(k) and all(k in files[f] for f in self.inputs)]
        out = StageOutput(run.path(self.output), worlds)
        todo = [k for k in worlds if not out.has(k)]
        rows = {k: {f: by_world.get(k, {}) for f, by_world in files.items()} for k in todo}
        jobs = [RepairJob(k, *self.prompt(run, rows[k])) for k in todo]
        if self.checker is not None:
            checker = self.checker(run, rows)
            try:
                return run_items(run, self.name, jobs, checker.validate, self.row, out,
                                 len(worlds) - len(todo), prepare=checker.prepare)
            finally:
                checker.close()
        validate = self.validate
        if validate is None:
            raise TypeError(f"WorldStage {self.name!r} needs validate= or checker=")
        return run_items(run, self.name, jobs, lambda job, text: validate(run, job, text),
                         self.row, out, len(worlds) - len(todo))


def run_items(run: RunContext, stage: str, jobs: Sequence[RepairJob],
              validate: Callable[[RepairJob, str], Any],
              row: Callable[[RepairOutcome], dict[str, Any]], out: StageOutput, skipped: int,
              *, prepare: Callable[[list[tuple[RepairJob, str]]], None] | None = None,
              ) -> StageReport:
    """Generate, correct and keep every job of ``stage``; returns the stage's report.

    Each finished item is logged in the failure file (a success clears an older failure) and,
    when accepted, ``row(outcome)`` is put in ``out`` under the item's key; ``out`` is flushed
    at the end. ``skipped`` is the number of items already done before this run.
    """
    counter = run.counter(stage, len(jobs))

    def save(outcome: RepairOutcome) -> None:
        run.record(stage, outcome)
        if outcome.is_ok:
            out.put(outcome.key, row(outcome))

    run_with_repair(run.llm, stage, jobs, validate, max_retry=run.config.max_retry,
                    counter=counter, on_outcome=save, prepare=prepare)
    out.flush()
    return run.report(stage, counter, skipped)
