"""awm_gym.manager.check.check_world and the ``awm check`` / ``awm list`` commands, on real worlds."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import awm_gym
from awm_gym.envs.config import EnvConfig
from awm_gym.manager.check import WorldReport, check_world, iter_check
from awm_gym.manager.findings import Severity

# verifier_timeout_s=2: defect_lab's task 2 verifier loops forever (the default would wait 10 s);
# tool_timeout_s=1: its `hang` and `sleepy` read tools are probed and time out
FAST = EnvConfig(max_episode_steps=1000, verifier_timeout_s=5.0, tool_timeout_s=5.0,
                 verifier_workers=2)
REPO = Path(__file__).resolve().parents[3]


def kinds(report: WorldReport, severity: Severity | None = None) -> list[str]:
    return sorted(f.kind for f in report.all_findings
                  if severity is None or f.severity is severity)


@pytest.fixture(scope="module")
def tiny_reports(tiny_path: str) -> dict[str, WorldReport]:
    reports = check_world(tiny_path, config=FAST)
    assert [r.world for r in reports] == ["defect_lab", "judge_only", "notes_app"]  # name order
    return {r.world: r for r in reports}


def test_notes_app_tasks_are_proved_and_the_failed_insert_reported(
        tiny_reports: dict[str, WorldReport]) -> None:
    r = tiny_reports["notes_app"]
    assert r.load_error is None
    assert (r.tasks_proved, len(r.tasks)) == (3, 3)
    assert [(t.verifier_mode, t.noop_label, t.solved_label, t.issues) for t in r.tasks] == [
        ("code", "others", "complete", ())] * 3
    assert (r.inserts_failed, r.tables_failed) == (1, 0)
    assert r.template_failures == (("notes", 7, "IntegrityError: FOREIGN KEY constraint failed"),)
    assert not r.ok and r.status == "DEFECT"  # a failed seed row is a defect, though AWM skips it
    assert kinds(r, Severity.DEFECT) == ["template"]
    assert r.issues == ["template: 1 of 13 seed INSERTs failed (skipped, as AWM does): notes "
                        "statement 7: IntegrityError: FOREIGN KEY constraint failed"]
    # a seed row reads the clock, but every task is proved on the frozen clock: info
    assert kinds(r, Severity.INFO) == ["blocking_async_handler", "seed_reads_clock"]
    clock = next(f for f in r.findings if f.kind == "seed_reads_clock")
    assert clock.message == ("1 seed INSERT in 1 table (notes) read the build clock, e.g. "
                             "datetime('now', '-2 days'): the initial state depends on when the "
                             "database is built; every task is proved with the clock at "
                             "2026-01-01 12:00:00")
    assert r.summary().splitlines()[0] == "notes_app: DEFECT | tasks proved 3/3 | 1 defect, 2 info"


def test_defect_lab_reports_route_defects_broken_tools_and_verifier_errors(
        tiny_reports: dict[str, WorldReport]) -> None:
    r = tiny_reports["defect_lab"]
    assert not r.ok and r.template_failures == () and r.load_error is None
    assert kinds(r, Severity.INFO) == ["blocking_async_handler", "no_reference_solution"]
    assert kinds(r, Severity.DEFECT) == [
        "duplicate_route", "shadowed_route", "tool_fails_on_seed_arguments",
        "tool_fails_on_seed_arguments", "tool_fails_on_seed_arguments", "verifier_error",
        "verifier_unknown_schema"]
    broken = {f.tool: f.message for f in r.findings if f.kind == "tool_fails_on_seed_arguments"}
    assert sorted(broken) == ["boom", "hang", "sleepy"]
    assert broken["boom"].startswith("boom answers a bare 500 to {} (drawn from the seed rows): "
                                     "ZeroDivisionError")
    assert broken["hang"].startswith("hang times out to {}")
    duplicate = next(f for f in r.findings if f.kind == "duplicate_route")
    assert duplicate.tool == "get_item_v2" and "runs that handler instead" in duplicate.message
    t0, t1, t2 = r.tasks
    assert t0.proved and (t0.noop_label, t0.solved_label) == ("others", "complete")
    assert t1.noop_label == t2.noop_label == "verifier_error"
    # read before it runs: the crash on the initial state is this, so it is said once
    assert t1.issues == ("task 1: the verifier reads a table the schema lacks: no such table: "
                         "products (in \"SELECT price FROM products WHERE name = 'Sprocket'\")",)
    assert t2.issues[0].startswith("task 2: the verifier fails on the initial state: timeout: ")
    # tasks without a reference solution: one info line for the world, not one per task
    [unsolved] = [f for f in r.findings if f.kind == "no_reference_solution"]
    assert unsolved.message.startswith("2 of 3 tasks have no reference solution")
    assert r.tasks_proved == 1
    summary = r.summary()
    assert summary.splitlines()[0] == "defect_lab: DEFECT | tasks proved 1/3 | 7 defects, 2 info"
    assert "  defect  verifier_error: task 2: the verifier fails on the initial state: timeout: " \
        in summary


def test_judge_only_is_ok_with_one_info_line(tiny_reports: dict[str, WorldReport]) -> None:
    r = tiny_reports["judge_only"]
    assert r.ok and r.status == "OK" and r.issues == []
    assert kinds(r) == ["blocking_async_handler"]
    # one line, not the ~2,000-character list of handlers (that is in the detail)
    [line] = r.summary(width=100).splitlines()[1:]
    assert line.startswith("  info    blocking_async_handler: 2 of 2 `async def` handlers")
    assert len(line) <= 100
    # sql-mode verifiers produce evidence for a judge: awaiting, before and after the solution
    assert [(t.verifier_mode, t.noop_label, t.solved_label, t.issues) for t in r.tasks] == [
        ("sql", "awaiting_judge", "awaiting_judge", ())] * 2


def test_check_world_catches_bad_verifiers_and_bad_solutions(tiny_path: str, tmp_path: Path,
                                                            copy_world_set: Any) -> None:
    def edit(file: str, row: dict[str, Any]) -> None:
        if row.get("scenario") != "notes_app":
            return
        if file == "gen_verifier.pure_code.jsonl" and row["task_idx"] == 0:
            row["verification"]["code"] = ("def verify_task_completion(initial_db_path, "
                                           "final_db_path, final_answer=None):\n"
                                           "    return {'result': 'complete'}\n")
        if file == "gen_solutions.jsonl" and row["task_idx"] == 2:
            row["calls"][1]["arguments"]["note_id"] = 999  # rename a note that does not exist
    root = copy_world_set(tiny_path, tmp_path / "set", edit)
    [r] = check_world(str(root), ["notes_app"], config=FAST)
    t0, t1, t2 = r.tasks
    assert [f.kind for f in t0.findings] == ["complete_on_initial_state"] and not t0.proved
    assert t0.findings[0].severity is Severity.DEFECT and t0.findings[0].task_idx == 0
    assert t1.proved
    assert t2.issues[0].startswith("task 2: reference call 1 (update_note_title) failed: "
                                   "AttributeError: 'NoneType' object has no attribute 'title' "
                                   "(generated code line ")
    assert t2.issues[1] == "task 2: the verifier says 'others' after the reference solution"
    assert r.tasks_proved == 1


def test_a_world_that_cannot_load_is_reported_and_the_others_checked(
        tiny_path: str, tmp_path: Path, copy_world_set: Any) -> None:
    def edit(file: str, row: dict[str, Any]) -> None:
        if file == "gen_envs.jsonl" and row["scenario"] == "Notes App":
            row["full_code"] = row["full_code"].replace("app = FastAPI(", "app = FastAPI((", 1)
    root = copy_world_set(tiny_path, tmp_path / "set", edit)
    reports = {r.world: r for r in check_world(str(root), ["notes_app", "judge_only"],
                                               config=FAST)}
    assert "does not compile" in reports["notes_app"].load_error
    assert reports["notes_app"].status == "ERROR" and reports["notes_app"].tasks == ()
    assert "load_error: World 'notes_app': " in reports["notes_app"].issues[-1]
    assert reports["judge_only"].ok and len(reports["judge_only"].tasks) == 2


def test_a_solution_cut_off_by_the_step_limit_is_a_defect(tiny_path: str) -> None:
    [r] = check_world(tiny_path, ["judge_only"],
                      config=EnvConfig(max_episode_steps=1, verifier_timeout_s=2.0))
    assert all(t.issues for t in r.tasks)  # both reference solutions need 2+ steps
    assert not r.ok and "solution_failed" in kinds(r, Severity.DEFECT)


def test_every_builtin_task_is_proved(spotify_id: str) -> None:
    [r] = check_world(worlds=["spotify"], config=FAST)
    assert r.load_error is None and r.template_failures == ()
    assert r.ok, r.summary(verbose=True)
    assert r.tasks_proved == len(r.tasks) == len(awm_gym.get_world_set(None)["spotify"].tasks)
    assert all(t.noop_label == "others" and t.solved_label == "complete" for t in r.tasks)
    assert kinds(r) == ["blocking_async_handler", "seed_reads_clock"]  # info: tasks proved
    assert r.tools_probed > 20


# -- the triage fixture set (tests/fixtures/make_triage_worlds.py) -----------------------------


@pytest.fixture(scope="module")
def triage_reports(triage_path: str) -> list[WorldReport]:
    return check_world(triage_path, config=FAST)


def test_triage_streams_each_world_and_goes_on_after_one_raises(triage_path: str) -> None:
    reports = iter_check(triage_path, config=FAST)
    first = next(reports)  # a generator: the first world is reported before the others run
    assert (first.world, first.status) == ("broken_import", "ERROR")
    second = next(reports)  # its build trigger raises; AWM's build counts it and goes on
    assert second.world == "frozen_ledger" and second.status != "ERROR"
    assert [r.world for r in reports] == ["schema_zoo", "triage_lab", "unusable_tasks"]  # the rest ran


def test_triage_severities(triage_reports: list[WorldReport]) -> None:
    by_world = {r.world: r for r in triage_reports}
    assert {w: r.status for w, r in by_world.items()} == {
        "broken_import": "ERROR", "frozen_ledger": "OK", "schema_zoo": "OK",
        "triage_lab": "DEFECT", "unusable_tasks": "DEFECT"}
    assert kinds(by_world["broken_import"]) == ["load_error"]
    assert "NameError: name 'load_router_settings' is not defined" in \
        by_world["broken_import"].load_error
    zoo = by_world["schema_zoo"]
    assert zoo.all_findings == () and zoo.tasks_proved == 2 and zoo.tools_probed == 2
    lab = by_world["triage_lab"]
    assert kinds(lab, Severity.DEFECT) == ["complete_on_initial_state", "duplicate_route",
                                           "seed_reads_clock", "tool_fails_on_seed_arguments"]
    assert kinds(lab, Severity.INFO) == ["no_reference_solution"]
    messages = {f.kind: f.message for f in lab.all_findings}
    assert messages["tool_fails_on_seed_arguments"].startswith(
        "get_order answers a bare 500 to {'order_id': 1} (drawn from the seed rows): "
        "AttributeError: 'Order' object has no attribute 'unit_price'")
    assert messages["complete_on_initial_state"].startswith(
        "task 0: the verifier says complete on the untouched initial state")
    assert messages["seed_reads_clock"].startswith(
        "2 seed INSERTs in 1 table (orders) read the build clock, e.g. datetime('now', '-1 day')")
    assert messages["no_reference_solution"].startswith("2 of 2 tasks have no reference solution")
    clock = next(f for f in lab.findings if f.kind == "seed_reads_clock")
    assert clock.detail.splitlines() == ["orders statement 0: datetime('now', '-1 day')",
                                         "orders statement 1: datetime('now', '-2 hours')"]


# -- the command line ------------------------------------------------------------------------


def run_cli(*args: str, columns: int = 120) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, COLUMNS=str(columns))  # the width findings are cut to
    return subprocess.run([sys.executable, "-m", "awm_gym.cli", *args], cwd=REPO, text=True,
                          capture_output=True, timeout=120, env=env)


def test_cli_check_exits_1_on_a_defect_and_prints_one_block_per_world(tiny_path: str) -> None:
    # defect_lab is left out: its hanging tools and verifier would hold the check for seconds
    # (the library tests above cover it).
    done = run_cli("check", tiny_path, "--world", "notes_app", "--world", "judge_only",
                   columns=90)
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "notes_app: DEFECT | tasks proved 3/3 | 1 defect, 2 info"
    assert lines[1].startswith("  defect  template: 1 of 13 seed INSERTs failed")
    assert lines[2].startswith("  info    seed_reads_clock: 1 seed INSERT in 1 table (notes)")
    assert all(len(line) <= 90 for line in lines) and lines[1].endswith("…")
    assert "judge_only: OK | tasks proved 0/2 | 1 info" in lines
    assert lines[-1] == "2 worlds: 1 ok, 1 with defects, 0 with errors"


def test_cli_check_verbose_prints_findings_whole_with_details(tiny_path: str) -> None:
    done = run_cli("check", tiny_path, "--world", "judge_only", "--verbose", columns=60)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[1].startswith("  info    blocking_async_handler: 2 of 2 `async def`")
    assert len(lines[1]) > 60 and not lines[1].endswith("…")
    assert lines[2].strip().endswith("(awm_gym calls them directly, unaffected): list_tickets, "
                                     "close_ticket.")


def test_cli_check_exits_0_when_nothing_worse_than_info(tiny_path: str) -> None:
    done = run_cli("check", tiny_path, "--world", "judge_only")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "1 world: 1 ok, 0 with defects, 0 with errors"


def test_cli_check_exits_2_on_an_error_and_json_has_one_object_per_world(
        triage_path: str) -> None:
    done = run_cli("check", triage_path, "--world", "broken_import", "--world", "schema_zoo",
                   "--json")
    assert done.returncode == 2, done.stderr
    objects = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(o["world"], o["status"]) for o in objects] == [("broken_import", "error"),
                                                             ("schema_zoo", "ok")]
    [finding] = objects[0]["findings"]
    assert (finding["severity"], finding["kind"]) == ("error", "load_error")
    assert objects[1]["findings"] == [] and objects[1]["tasks_proved"] == 2


def test_cli_list_shows_the_builtin_world(spotify_id: str) -> None:
    done = run_cli("list")
    assert done.returncode == 0, done.stderr
    n = len(awm_gym.get_world_set(None)["spotify"].tasks)
    assert f"{spotify_id}\t{n} tasks\tspotify" in done.stdout.splitlines()
    assert done.stdout.splitlines()[-1].startswith("AWM/mix-v0\t")


def test_cli_list_shows_a_world_set(tiny_path: str) -> None:
    done = run_cli("list", tiny_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "AWM/defect_lab-v0\t3 tasks\tDefect Lab", "AWM/judge_only-v0\t2 tasks\tJudge Only",
        "AWM/notes_app-v0\t3 tasks\tNotes App",
        f"AWM/mix-v0\t8 tasks\tall 3 worlds in one env (gym.make_vec('AWM/mix-v0', "
        f"world_set={tiny_path!r}))"]


def test_a_temp_table_one_probe_leaves_reaches_no_later_probe(copy_world_set: Any,
                                                              tiny_path: str,
                                                              tmp_path: Path) -> None:
    # list_notebooks (probed first) leaves, as it returns, a TEMP table that shadows `notes` on its connection;
    # a later probe reusing that connection (deserialize replaces only `main`) read it and
    # get_note failed (issue 42, class 5): each probe now gets a fresh connection
    def edit(file: str, row: dict[str, Any]) -> None:
        if file == "gen_envs.jsonl" and row["scenario"] == "Notes App":
            row["full_code"] = row["full_code"].replace(
                "    session.close()\n    return NotebookListResponse(",
                "    from sqlalchemy import text\n"
                "    session.execute(text('CREATE TEMP TABLE IF NOT EXISTS notes (id INTEGER)'))\n"
                "    session.close()\n    return NotebookListResponse(", 1)
    root = copy_world_set(tiny_path, tmp_path / "temp", edit)
    [report] = check_world(str(root), worlds=["notes_app"],
                           config=dataclasses.replace(FAST, isolation="none"))
    assert report.tools_probed >= 3
    failed = [f.tool for f in report.all_findings if f.kind == "tool_fails_on_seed_arguments"]
    assert failed == [], report.summary(verbose=True)
