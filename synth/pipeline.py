"""Run the synthesis stages in AWM's order, each resumable: ``awm gen <stage>`` / ``awm gen all``.

Order: scenario -> task -> db -> sample -> spec -> env -> verifier -> solution -> finalize. Every
stage reads the files of the stages before it from ``output_dir`` and writes its own; items that
already have a row are skipped, so running a stage (or ``all``) again only retries what failed
or is missing, and stops costing requests once everything is there. ``finalize`` writes the
kept world set to ``<output_dir>/worlds/``. ``synth_config.json`` (the resolved config),
``usage.json`` (requests, tokens, cost per stage) and ``failures.jsonl`` sit beside the files.

Example:
    >>> STAGE_ORDER[:3], "all" in STAGE_CHOICES
    (('scenario', 'task', 'db'), True)
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Sequence

from . import db, env, finalize, sample, scenario, solution, spec, tasks, verifier
from .config import SynthConfig
from .context import RunContext, StageReport
from .errors import SynthConfigError
from .llm import LLMClient
from .stage import Stage, WorldStage

logger = logging.getLogger(__name__)

__all__ = ["STAGES", "STAGE_ORDER", "STAGE_CHOICES", "STAGE_INPUTS", "check_stage_inputs",
           "run_pipeline"]

_DECLARED: tuple[Stage | WorldStage, ...] = (
    scenario.SPEC, tasks.SPEC, db.SPEC, sample.SPEC, spec.SPEC, env.SPEC, verifier.SPEC,
    solution.SPEC, finalize.SPEC)
"""Every stage's declaration (:mod:`synth.stage`), in pipeline order."""

STAGES: dict[str, Callable[[RunContext], StageReport]] = {s.name: s.run for s in _DECLARED}
STAGE_ORDER = tuple(STAGES)
STAGE_CHOICES = (*STAGE_ORDER, "all")

STAGE_INPUTS: dict[str, tuple[str, ...]] = {s.name: s.inputs for s in _DECLARED}
"""The files in ``output_dir`` each stage reads its work from (written by the stages before)."""

STAGE_OUTPUTS: dict[str, tuple[str, ...]] = {s.name: s.outputs for s in _DECLARED}
"""The files in ``output_dir`` each stage writes for the stages after it."""


def run_pipeline(config: SynthConfig, stages: Sequence[str] = ("all",), *,
                 llm: LLMClient | None = None) -> list[StageReport]:
    """Run ``stages`` (names from :data:`STAGE_CHOICES`) in pipeline order.

    ``all`` runs every stage; the scenario stage is skipped when there is neither a seed file
    (``config.input``) nor a ``gen_scenario.jsonl`` to grow.

    Returns:
        One :class:`~synth.context.StageReport` per stage run.

    Raises:
        SynthConfigError: an unknown stage name, or a stage's input is missing: ``--input``
            names no file, or a file a stage reads is neither in ``output_dir`` nor written by
            a stage run before it (so a stage never reports "ok 0" for want of its input).
    """
    unknown = [s for s in stages if s not in STAGE_CHOICES]
    if unknown:
        raise SynthConfigError(f"unknown stage(s) {unknown}; choose from "
                               f"{', '.join(STAGE_CHOICES)}.")
    selected = [s for s in STAGE_ORDER if s in stages or "all" in stages]
    if "all" in stages and config.input is None and not os.path.exists(
            os.path.join(config.output_dir, "gen_scenario.jsonl")):
        selected.remove("scenario")
    check_stage_inputs(config, selected)
    reports = []
    with RunContext(config, llm) as run:
        for name in selected:
            logger.info("stage %s", name)
            reports.append(STAGES[name](run))
    return reports


def check_stage_inputs(config: SynthConfig, stages: Sequence[str]) -> None:
    """Raise :class:`SynthConfigError` naming the first input ``stages`` lack (in order).

    Example:
        >>> import tempfile
        >>> check_stage_inputs(SynthConfig(output_dir=tempfile.mkdtemp()), ["task"])
        Traceback (most recent call last):
        ...
        synth.errors.SynthConfigError: the task stage reads gen_scenario.jsonl, ...
    """
    if config.input is not None and not os.path.isfile(config.input):
        raise SynthConfigError(f"--input {config.input}: no such file; give a JSONL file of "
                               "seed scenarios (rows with name and description).")
    written: set[str] = set()
    for stage in stages:
        for file in STAGE_INPUTS[stage]:
            if file not in written and not os.path.isfile(os.path.join(config.output_dir, file)):
                before = next(s for s, outs in STAGE_OUTPUTS.items() if file in outs)
                fix = ("pass --input seeds.jsonl (seed scenarios: rows with name and "
                       "description)" if before == "scenario" else f"run `awm gen {before}` first")
                raise SynthConfigError(
                    f"the {stage} stage reads {file}, which {config.output_dir} does not have: "
                    f"{fix}, or point --output-dir at the directory that holds it.")
        written.update(STAGE_OUTPUTS[stage])
