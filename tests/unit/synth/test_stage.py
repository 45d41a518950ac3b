"""The declarative stage runner: a WorldStage against a real (scripted) HTTP endpoint."""

from __future__ import annotations

from pathlib import Path

from synth.config import SynthConfig
from synth.context import RunContext
from synth.errors import GenerationError
from synth.jsonl_io import FAILURES_FILE, read_jsonl, write_jsonl
from synth.pipeline import STAGE_INPUTS, STAGE_ORDER, STAGES
from synth.repair import RepairJob
from synth.stage import SCENARIO_FILE, WorldStage


def _number(run: RunContext, job: RepairJob, text: str) -> int:
    if not text.strip().isdigit():
        raise GenerationError(f"{text!r} is not a number")
    return int(text)


ECHO = WorldStage(
    "echo", (SCENARIO_FILE,), "gen_echo.jsonl",
    lambda run, rows: (({"role": "user", "content": f"a number for {rows[SCENARIO_FILE]}"},),
                       rows[SCENARIO_FILE]["name"]),
    validate=_number,
    row=lambda outcome: {"scenario": outcome.context, "number": outcome.value})


def test_a_world_stage_keeps_answers_skips_done_worlds_and_logs_failures(server, llm,
                                                                         tmp_path: Path) -> None:
    write_jsonl(tmp_path / SCENARIO_FILE, [{"name": n} for n in ("alpha", "beta", "gamma")])
    write_jsonl(tmp_path / "gen_echo.jsonl", [{"scenario": "gamma", "number": 3}])
    server.script("echo", "alpha", "one", "1")
    server.script("echo", "beta", "two", "three")
    config = SynthConfig(output_dir=str(tmp_path), progress=False, llm=llm.endpoint, max_retry=1)
    with RunContext(config, llm) as run:
        report = ECHO.run(run)
    assert (report.ok, report.repaired, report.failed, report.skipped) == (1, 1, 1, 1)
    # rows in the upstream file's order; the world done before is kept as it was
    assert read_jsonl(tmp_path / "gen_echo.jsonl") == [
        {"scenario": "alpha", "number": 1}, {"scenario": "gamma", "number": 3}]
    [failure] = read_jsonl(tmp_path / FAILURES_FILE)
    assert (failure["stage"], failure["item"], failure["attempts"]) == ("echo", "beta", 2)
    assert failure["error"] == "'three' is not a number"
    assert not server.requests_for("echo", "gamma")


def test_the_pipeline_reads_order_and_inputs_from_the_declarations() -> None:
    assert STAGE_ORDER == ("scenario", "task", "db", "sample", "spec", "env", "verifier",
                           "solution", "finalize")
    assert STAGE_INPUTS == {
        "scenario": (), "task": ("gen_scenario.jsonl",), "db": ("gen_tasks.jsonl",),
        "sample": ("gen_tasks.jsonl", "gen_db.jsonl"),
        "spec": ("gen_tasks.jsonl", "gen_db.jsonl"),
        "env": ("gen_tasks.jsonl", "gen_db.jsonl", "gen_sample.jsonl", "gen_spec.jsonl"),
        "verifier": ("gen_tasks.jsonl", "gen_envs.jsonl"),
        "solution": ("gen_tasks.jsonl", "gen_envs.jsonl"),
        "finalize": ("gen_tasks.jsonl", "gen_db.jsonl", "gen_envs.jsonl")}
    assert all(callable(run) for run in STAGES.values())
