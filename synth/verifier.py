"""Stage ``verifier``: a verifier per task, in AWM's ``code`` and/or ``sql`` mode, run before kept.

Reads every world that has code (``gen_envs.jsonl``); writes ``gen_verifier.pure_code.jsonl``
(code mode: ``verify_task_completion(initial_db_path, final_db_path, final_answer) ->
{"result": "complete" | "others"}``) and/or ``gen_verifier.jsonl`` (sql mode: ``verify_task
(initial_db_path, final_db_path) -> dict`` of evidence for the LLM judge), rows ``{"scenario",
"task_idx", "task", "verification": {"code", "raw_response"}}``.

The prompt shows the world's real initial database (an SQL dump of the template the runtime
builds). Each candidate runs in the runtime's verifier pool (worker processes, timeout,
read-only copies) on the untouched initial state, as both initial and final database. It goes
back to the LLM when it does not compile, when its first ``def verify_`` line is not the mode's
entry point (AWM's loaders call that one, awm.md 8 item 15), when it raises, times out or
returns the wrong shape, and, in code mode, when it already says ``complete`` (AWM keeps such
no-op passes, item 14). Whether it says ``complete`` after a real solution is proved in the
solution stage.

Example:
    >>> parse_verifier_answer('{"python_code": "def verify_task(a, b):\\n    return {}\\n"}', "sql")[1]
    'verify_task'
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from awm_gym.vocab import VerifierLabel, VerifierMode
from awm_gym.worlds import (
    CODE_VERIFIER_FILE,
    ENTRY_FUNCTIONS,
    SQL_VERIFIER_FILE,
    VerifierDef,
)

from .context import RunContext, StageReport
from .errors import GenerationError
from .parsing import parse_json_answer, require_keys
from .repair import RepairJob, RepairOutcome
from .stage import Stage, run_items
from .store import StageOutput, rows_by_world, task_key
from .world_text import dump_database

__all__ = ["run_stage", "parse_verifier_answer", "VERIFIER_FILES", "stage_name", "SPEC"]

VERIFIER_FILES = {VerifierMode.CODE: CODE_VERIFIER_FILE, VerifierMode.SQL: SQL_VERIFIER_FILE}
"""The file each mode's verifiers are written to (the layout of AgentWorldModel-1K)."""

_SYSTEM = ("You write Python functions that check, from an application's SQLite databases, "
           "whether an AI agent completed a user's task.")

_CODE_PROMPT = """\
Application: {name}
Task: {task}

The application's database before the agent starts (SQL dump, possibly cut):
{dump}

Write the function that decides whether the task was completed.

Rules:
- Signature: def verify_task_completion(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict
- Return {{"result": "complete"}} only when you are certain the task was done; otherwise
  {{"result": "others"}}.
- A change (create, update, delete): compare the two databases; the required change happened, to
  the right records, and records the task does not mention are unchanged.
- A question: compute the right answer from the initial database and check that final_answer
  states it (re, case-insensitive, tolerant of formatting). No answer means "others".
- Import what you use (sqlite3, json, re) inside the function; open the databases with
  sqlite3.connect(path) and only read them; no other files, no network.
- The untouched database with no answer must give "others": doing nothing is not completing.
- Helper functions go after verify_task_completion.

Reply with a JSON object only:
{{"reasoning": "...", "verification_strategy": "query_based" | "modification_based" | "combined", "key_checks": ["..."], "python_code": "<the function source>", "function_name": "verify_task_completion"}}"""

_SQL_PROMPT = """\
Application: {name}
Task: {task}

The application's database before the agent starts (SQL dump, possibly cut):
{dump}

Write the function that gathers the evidence a grader needs to decide whether the task was
completed; the grader also reads the agent's steps and final answer.

Rules:
- Signature: def verify_task(initial_db_path: str, final_db_path: str) -> dict
- Query both databases and return a JSON-serializable dict: the records the task concerns before
  and after, what changed, and the values a correct answer must contain.
- Import what you use (sqlite3, json) inside the function; only read the databases.
- Helper functions go after verify_task.

Reply with a JSON object only:
{{"reasoning": "...", "python_code": "<the function source>", "function_name": "verify_task", "success_criteria": "...", "failure_criteria": "..."}}"""


def stage_name(mode: VerifierMode) -> str:
    """The stage name used in requests and failure records for one mode."""
    return f"verifier-{mode}"


def parse_verifier_answer(answer: str, mode: VerifierMode) -> tuple[str, str, str]:
    """``(code, function_name, raw_response)`` of an answer, before it is run.

    Raises:
        GenerationError: bad JSON, no ``python_code``, code that does not compile, or a first
            ``def verify_`` that is not the mode's entry point.
    """
    value = parse_json_answer(answer, dict)
    require_keys(value, {"python_code": str}, "The verifier answer")
    code = value["python_code"]
    try:
        compile(code, "<verifier>", "exec")
    except SyntaxError as e:
        raise GenerationError(f"python_code does not compile: {e.msg} at line {e.lineno}: "
                              f"{(e.text or '').strip()!r}.") from e
    name = VerifierDef.from_row(0, mode, code, None).function_name
    expected = ENTRY_FUNCTIONS[mode]
    if name != expected or f"def {expected}(" not in code:
        raise GenerationError(f"The first line starting with 'def verify_' defines {name!r}, but "
                              f"loaders call that first one: define {expected}(...) first and "
                              "give helpers other names.")
    value["function_name"] = expected
    return code, expected, json.dumps(value, ensure_ascii=False)


class _Checker:
    """Runs one round's candidates on the untouched state in one pool batch, then validates."""

    def __init__(self, run: RunContext, mode: str, templates: dict[str, bytes]) -> None:
        self.run, self.mode, self.templates = run, mode, templates
        self.results: dict[str, Any] = {}

    def _key(self, job: RepairJob, code: str) -> str:
        return job.key + ":" + hashlib.sha256(code.encode()).hexdigest()

    def prepare(self, answers: list[tuple[RepairJob, str]]) -> None:
        from awm_gym.scoring import VerifyJob

        jobs, keys = [], []
        for job, text in answers:
            try:
                code, name, _ = parse_verifier_answer(text, self.mode)
            except GenerationError:
                continue
            template = self.templates[job.context[0]]
            jobs.append(VerifyJob(code, name, self.mode, template, template,
                                  "" if self.mode == VerifierMode.CODE else None))
            keys.append(self._key(job, code))
        for key, result in zip(keys, self.run.pool().run(jobs), strict=True):
            self.results[key] = result

    def validate(self, job: RepairJob, text: str) -> tuple[str, str]:
        code, name, raw = parse_verifier_answer(text, self.mode)
        key = self._key(job, code)
        if key not in self.results:
            self.prepare([(job, text)])
        result = self.results[key]
        if result.label == VerifierLabel.VERIFIER_ERROR:
            raise GenerationError(f"Running {name} on the untouched initial database failed "
                                  f"({result.error_kind}): {result.error}")
        if self.mode == VerifierMode.CODE and result.label == VerifierLabel.COMPLETE:
            raise GenerationError(f"{name} returns {{'result': 'complete'}} on the untouched "
                                  "initial database with an empty final answer: it would pass an"
                                  " agent that did nothing. Check the change or answer the task "
                                  "asks for.")
        if self.mode == VerifierMode.SQL and not isinstance(result.output, dict):
            raise GenerationError(f"{name} must return a dict of evidence, got "
                                  f"{type(result.output).__name__}.")
        return code, raw


def _templates(run: RunContext, worlds: list[str]) -> tuple[dict[str, bytes], dict[str, Any]]:
    """Each world's initial database (built and run by the runtime) and its WorldDef."""
    from awm_gym.envs import EnvConfig, get_prepared_world
    from awm_gym.errors import AWMGymError
    from awm_gym.worlds import load_world_set

    if not worlds:
        return {}, {}
    ws = load_world_set(run.config.output_dir, worlds=worlds)
    config = EnvConfig(cache_dir=run.path(".cache"), tool_timeout_s=run.config.tool_timeout_s)
    templates, defs = {}, {}
    for name in worlds:
        if name not in ws:
            continue
        try:
            templates[name] = get_prepared_world(ws[name], config).template
        except AWMGymError as e:  # passed the probe, so this is unexpected: record and go on
            run.failures.record("verifier", name, f"world does not load: {e}", attempts=0)
            continue
        defs[name] = ws[name]
    return templates, defs


def run_stage(run: RunContext) -> StageReport:
    """Generate the verifiers of every task of every world with code, in each configured mode."""
    cfg = run.config
    envs = [k for k in rows_by_world(run.path("gen_envs.jsonl")) if run.wants(k)]
    tasks = rows_by_world(run.path("gen_tasks.jsonl"))
    worlds = [k for k in envs if k in tasks]
    outs = {mode: StageOutput(run.path(VERIFIER_FILES[mode]),
                              [task_key(w, i) for w in worlds
                               for i in range(len(tasks[w]["tasks"]))])
            for mode in cfg.verifier_modes}
    needed = sorted({w for mode, out in outs.items() for w in worlds
                     for i in range(len(tasks[w]["tasks"])) if not out.has(task_key(w, i))})
    templates, defs = _templates(run, needed)
    ok = repaired = failed = skipped = 0
    notes = []
    for mode, out in outs.items():
        stage = stage_name(mode)
        prompt = _CODE_PROMPT if mode == VerifierMode.CODE else _SQL_PROMPT
        jobs, total = [], 0
        for w in worlds:
            for i, task in enumerate(tasks[w]["tasks"]):
                total += 1
                if out.has(task_key(w, i)) or w not in templates:
                    continue
                dump = dump_database(templates[w], cfg.max_dump_chars)
                jobs.append(RepairJob(task_key(w, i), (
                    {"role": "system", "content": _SYSTEM},
                    {"role": "user", "content": prompt.format(
                        name=defs[w].display_name, task=task, dump=dump)}), (w, i, task)))
        checker = _Checker(run, mode, templates)
        report = run_items(run, stage, jobs, checker.validate, _row, out, total - len(jobs),
                           prepare=checker.prepare)
        ok, repaired, failed = ok + report.ok, repaired + report.repaired, failed + report.failed
        skipped += report.skipped
        notes.append(str(report))
    return StageReport("verifier", ok, repaired, failed, skipped, tuple(notes))


def _row(outcome: RepairOutcome) -> dict[str, Any]:
    w, i, task = outcome.context
    code, raw = outcome.value
    return {"scenario": w, "task_idx": i, "task": task,
            "verification": {"code": code, "raw_response": raw}}


SPEC = Stage("verifier", ("gen_tasks.jsonl", "gen_envs.jsonl"),
             tuple(VERIFIER_FILES.values()), run_stage)
