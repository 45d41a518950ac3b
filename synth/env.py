"""Stage ``env``: each world's FastAPI + SQLAlchemy module, kept only if it starts and its tools respond.

Reads tasks, schema, samples and spec; writes ``gen_envs.jsonl`` rows ``{"scenario", "db_path",
"full_code"}``. Every candidate is started in a child process (:mod:`synth.probe`) against the
world's real initial database, built by the runtime; then every tool is called once. A candidate
goes back to the LLM with what went wrong when it does not compile or import, defines no app,
lacks a route for a spec ``operation_id``, has duplicate or shadowed routes, or has a tool that
hangs or raises a code error. Unlike AWM, code that never passed is not saved (awm.md 8, items
17 and 22): the world fails this stage and is listed in ``failures.jsonl``. Candidates of one
round are probed in parallel processes.

Example:
    >>> extract_code("```python\\napp = None\\n```")
    'app = None\\n'
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from .context import RunContext
from .errors import GenerationError
from .jsonl_io import write_jsonl
from .parsing import extract_code
from .probe import ProbeReport, probe_problems, probe_world
from .repair import RepairJob
from .spec import operation_ids
from .stage import Rows, WorldStage

__all__ = ["run_stage", "STAGE", "SPEC", "extract_code"]

STAGE = "env"

_SYSTEM = ("You are a backend engineer who writes complete, runnable FastAPI services backed by "
           "SQLite through SQLAlchemy.")

_PROMPT = """\
Application: {name}

API spec (JSON):
{spec}

Database schema:
{schema}

Write the application's server: one Python {python} module using FastAPI, SQLAlchemy 2 and
Pydantic v2.

Rules:
- Begin with `import os`, then `DATABASE_PATH = os.getenv("DATABASE_PATH", "sqlite:///app.db")`
  (a full SQLAlchemy URL), `engine = create_engine(DATABASE_PATH, connect_args={{"check_same_thread": False}})`,
  `SessionLocal = sessionmaker(autocommit=False, autoflush=False, bind=engine)` and
  `Base = declarative_base()`.
- One ORM class per table, matching the schema exactly (table names, column names and types).
  A column whose name clashes with Python or SQLAlchemy (metadata, query, keywords) gets a
  trailing underscore and its real name: `metadata_ = Column("metadata", Text)`.
- Call `Base.metadata.create_all(bind=engine)` after the models.
- Pydantic v2 request and response models; every field `Field(..., description=..., example=...)`;
  models filled from ORM objects set `model_config = ConfigDict(from_attributes=True)`.
- `app = FastAPI(...)` before the routes, then one route per endpoint of the spec with exactly its
  method, path and operation_id, plus summary, a one-line description, tags and a concrete
  response_model. Routes are `async def`.
- Each handler opens `session = SessionLocal()`, works through the ORM, commits when it writes,
  closes the session and returns. The signed-in user is user 1.
- No comments, no try/except, no HTTPException, no JSONResponse, no raw SQL strings.
- End with:
  if __name__ == "__main__":
      import uvicorn
      uvicorn.run(app, host=os.getenv("HOST", "127.0.0.1"), port=int(os.getenv("PORT", "8000")))

Reply with the module only, in one ```python block."""


def _answer_id(job: RepairJob, code: str) -> str:
    return job.key + ":" + hashlib.sha256(code.encode()).hexdigest()


class _Prober:
    """Probes one round's candidates in parallel child processes; validates them from cache."""

    def __init__(self, run: RunContext, rows: dict[str, dict[str, dict[str, Any]]]) -> None:
        self.run = run
        self.rows = rows  # world -> {file name: row}
        self.reports: dict[str, ProbeReport] = {}
        self.root = tempfile.mkdtemp(prefix="synth-env-")

    def _world_set_dir(self, job: RepairJob, code: str) -> str:
        d = os.path.join(self.root, hashlib.sha256(_answer_id(job, code).encode()).hexdigest()[:16])
        os.makedirs(d, exist_ok=True)
        for name, row in self.rows[job.key].items():
            write_jsonl(os.path.join(d, name), [row])
        write_jsonl(os.path.join(d, "gen_envs.jsonl"),
                    [{"scenario": job.context, "db_path": "", "full_code": code}])
        return d

    def _probe(self, job: RepairJob, code: str) -> ProbeReport:
        cfg = self.run.config
        spec = self.rows[job.key]["gen_spec.jsonl"]["api_spec"]
        examples = {ep["operation_id"]: {n: p.get("example") for n, p in
                                         (ep.get("request_params") or {}).items()
                                         if isinstance(p, dict)}
                    for group in spec.get("api_groups", ()) for ep in group.get("endpoints", ())
                    if isinstance(ep.get("operation_id"), str)}
        return probe_world(self._world_set_dir(job, code), job.key, examples=examples,
                           tool_timeout_s=cfg.tool_timeout_s, timeout_s=cfg.probe_timeout_s)

    def prepare(self, answers: list[tuple[RepairJob, str]]) -> None:
        todo = {}
        for job, text in answers:
            code = extract_code(text)
            key = _answer_id(job, code)
            if key not in self.reports and _compiles(code) is None:
                todo[key] = (job, code)
        workers = max(1, min(len(todo), os.cpu_count() or 1))
        with ThreadPoolExecutor(workers) as pool:  # each thread waits on its own child process
            for key, report in zip(todo, pool.map(lambda jc: self._probe(*jc), todo.values())):
                self.reports[key] = report

    def validate(self, job: RepairJob, text: str) -> str:
        code = extract_code(text)
        error = _compiles(code)
        if error is not None:
            raise GenerationError(error)
        key = _answer_id(job, code)
        report = self.reports.get(key) or self._probe(job, code)
        self.reports[key] = report
        spec = self.rows[job.key]["gen_spec.jsonl"]["api_spec"]
        problems = probe_problems(report, operation_ids(spec), self.run.config.probe_timeout_s)
        if problems:
            raise GenerationError("Starting the module and calling each tool once found:\n- "
                                  + "\n- ".join(problems))
        return code

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def _compiles(code: str) -> str | None:
    try:
        compile(code, "<generated module>", "exec")
    except SyntaxError as e:
        line = (e.text or "").strip()
        return f"The module does not compile: {e.msg} at line {e.lineno}: {line!r}."
    if "FastAPI(" not in code:
        return "The module never creates `app = FastAPI(...)`."
    return None


_FILES = ("gen_tasks.jsonl", "gen_db.jsonl", "gen_sample.jsonl", "gen_spec.jsonl")


def _prompt(run: RunContext, rows: Rows) -> tuple[tuple[dict[str, str], ...], str]:
    import json

    from .world_text import schema_text, tables_from_schema

    python = f"{sys.version_info.major}.{sys.version_info.minor}"
    return ({"role": "system", "content": _SYSTEM},
            {"role": "user", "content": _PROMPT.format(
                name=rows["gen_tasks.jsonl"]["scenario"], python=python,
                spec=json.dumps(rows["gen_spec.jsonl"]["api_spec"], ensure_ascii=False),
                schema=schema_text(tables_from_schema(rows["gen_db.jsonl"]["db_schema"])))}), \
        rows["gen_tasks.jsonl"]["scenario"]


SPEC = WorldStage(
    STAGE, _FILES, "gen_envs.jsonl", _prompt,
    checker=lambda run, rows: _Prober(run, dict(rows)),
    row=lambda outcome: {"scenario": outcome.context,
                         "db_path": f"./outputs/databases/{outcome.key}.db",
                         "full_code": outcome.value})
"""Generate and probe the code of every world with a spec and samples and no code yet."""
run_stage = SPEC.run
