"""The whole synthesis pipeline against a scripted OpenAI-compatible server on 127.0.0.1.

One run (module fixture) synthesizes from one seed: the scenario stage adds a second world
(after dropping an exact and a near duplicate), and the scripted answers break every stage once
(bad JSON, a DDL typo, a failing INSERT, an inconsistent spec, code that does not compile, a tool
with a NameError, a crashing verifier, a no-op verifier, a wrong solution, an unknown tool, a
malformed judge answer, a 503). The second world's code never works, one task's verifier always
passes the untouched state, and one task is never solved: those must be left out. What remains
must pass ``check_world`` and be played to 100% by the oracle.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from awm_gym.manager.check import check_world
from awm_gym.manager.demo import run_oracle_demo
from awm_gym.worlds.world_set import load_world_set

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "synth"
if str(FIXTURES) not in sys.path:
    sys.path.insert(0, str(FIXTURES))

import notes_world  # noqa: E402
from scripted_llm import ScriptedLLM  # noqa: E402

from synth import EmbeddingConfig, SynthConfig, SynthLLM, run_pipeline  # noqa: E402
from synth.jsonl_io import read_jsonl  # noqa: E402

NOTES, BROKEN = notes_world.NOTES, notes_world.BROKEN


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory):
    server = ScriptedLLM().start()
    notes_world.script_pipeline(server)
    root = tmp_path_factory.mktemp("synth")
    seeds = root / "seeds.jsonl"
    seeds.write_text(json.dumps({"name": "Notes App",
                                 "description": notes_world.SCENARIO["description"]}) + "\n")
    config = SynthConfig(
        output_dir=str(root / "outputs"), input=str(seeds), target_count=1,
        scenarios_per_request=3, parallel_requests=1, num_tasks=5, max_retry=2,
        verifier_mode="both", tool_timeout_s=1.0, probe_timeout_s=90.0, progress=False,
        llm=SynthLLM(model="scripted", base_url=server.base_url, backoff_s=0.01,
                     input_cost_per_mtok=1.0, output_cost_per_mtok=2.0),
        embeddings=EmbeddingConfig(model="scripted-embed"))
    reports = run_pipeline(config, ["all"])
    yield config, server, {r.stage: r for r in reports}
    server.stop()


def _out(config: SynthConfig, name: str) -> Path:
    return Path(config.output_dir) / name


def test_the_kept_world_set_passes_check_world_and_the_oracle(run) -> None:
    config, _, _ = run
    final = str(_out(config, "worlds"))
    ws = load_world_set(final)
    assert ws.names() == [NOTES] and not ws.problems
    assert list(ws[NOTES].tasks) == notes_world.NOTES_TASKS[:3]
    [report] = check_world(final)
    assert report.ok, report.summary()
    assert report.tasks_proved == 3
    assert all(t.verifier_mode == "code" for t in report.tasks)
    assert all(v is not None for v in ws[NOTES].sql_verifiers)
    assert run_oracle_demo(final, NOTES, num_envs=3).success_rate == 1.0
    manifest = json.loads(_out(config, "worlds/manifest.json").read_text())
    assert manifest["worlds"] == {NOTES: 3} and manifest["dropped"] == {}


def test_every_gate_rejects_what_it_must_and_records_why(run) -> None:
    config, _, reports = run
    failures = {(r["stage"], r["item"]): r for r in read_jsonl(_out(config, "failures.jsonl"))}
    assert set(failures) == {("env", BROKEN), ("verifier-code", f"{NOTES}/3"),
                             ("solution", f"{NOTES}/4")}
    assert failures[("env", BROKEN)]["attempts"] == 3
    assert "NameError" in failures[("env", BROKEN)]["error"]
    assert "untouched" in failures[("verifier-code", f"{NOTES}/3")]["error"]
    assert "'others'" in failures[("solution", f"{NOTES}/4")]["error"]
    # the stage files keep what passed each stage; the code that never passed is not saved
    assert [r["scenario"] for r in read_jsonl(_out(config, "gen_envs.jsonl"))] == ["Notes App"]
    assert len(read_jsonl(_out(config, "gen_tasks.jsonl"))) == 2
    assert reports["env"].failed == 1 and reports["env"].repaired == 1
    assert reports["solution"].ok == 3 and reports["solution"].failed == 1


def test_each_correction_carries_the_execution_error(run) -> None:
    _, server, _ = run

    def correction(stage: str, item: str, attempt: int = 1) -> str:
        return server.requests_for(stage, item)[attempt]["body"]["messages"][-1]["content"]

    assert "not a JSON" in correction("task", NOTES)
    assert "syntax error" in correction("db", NOTES)
    assert "FOREIGN KEY constraint failed" in correction("sample", NOTES)
    assert "'search_notes' is used by" in correction("spec", NOTES)
    assert "does not compile" in correction("env", NOTES)
    assert "NameError: name 'Nte' is not defined" in correction("env", NOTES, 2)
    assert "timeout" in correction("env", BROKEN) or "did not return" in correction("env", BROKEN)
    assert "exit code 3" in correction("env", BROKEN, 2)
    assert "ZeroDivisionError" in correction("verifier-code", f"{NOTES}/0")
    assert "untouched" in correction("verifier-code", f"{NOTES}/1")
    assert "'others'" in correction("solution", f"{NOTES}/1")
    assert "remove_note" in correction("solution", f"{NOTES}/2")
    assert "malformed" in correction("solution", f"{NOTES}/0")
    # the failed answer itself is shown back to the model
    assert server.requests_for("db", NOTES)[1]["body"]["messages"][-2]["role"] == "assistant"


def test_scenarios_are_deduplicated_and_seeds_left_alone(run) -> None:
    config, _, reports = run
    rows = read_jsonl(_out(config, "gen_scenario.jsonl"))
    assert [r["name"] for r in rows] == ["Notes App", "Broken Shop"]
    assert rows[0]["source"] == "seed" and rows[0]["categories"] == ["productivity"]
    assert rows[1]["source"] == "generated" and rows[1]["categories"] == ["e_commerce"]
    assert set(reports["scenario"].notes) == {"exact duplicates 1", "near duplicates 1"}
    assert json.loads(Path(config.input).read_text()).keys() == {"name", "description"}


def test_usage_config_and_transient_retries_are_recorded(run) -> None:
    config, server, _ = run
    usage = json.loads(_out(config, "usage.json").read_text())
    assert usage["env"]["requests"] == 6 and usage["env"]["completion_tokens"] > 0
    assert usage["env"]["cost_usd"] > 0 and usage["embeddings"]["prompt_tokens"] > 0
    assert len(server.requests_for("task", BROKEN)) == 2  # a 503, retried, then the answer
    saved = json.loads(_out(config, "synth_config.json").read_text())
    assert saved["llm"]["api_key_env"] == "OPENAI_API_KEY" and saved["num_tasks"] == 5


def test_rerun_skips_finished_items_and_rewrites_the_same_world_set(run) -> None:
    config, server, _ = run
    before = {p.name: p.read_bytes() for p in _out(config, "worlds").glob("*.jsonl")}
    sent = len(server.requests)
    reports = run_pipeline(config, ["task", "db", "sample", "spec", "finalize"])
    assert len(server.requests) == sent
    assert [r.skipped for r in reports[:4]] == [2, 2, 2, 2]
    after = {p.name: p.read_bytes() for p in _out(config, "worlds").glob("*.jsonl")}
    assert after == before
