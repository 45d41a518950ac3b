"""Triage a world set: what is wrong with each world, by severity, one world at a time.

:func:`iter_check` yields one :class:`WorldReport` per world as soon as that world is checked
(``awm check`` prints it then); :func:`check_world` collects them. For each world:

1. world-set problems of its rows (defect);
2. seed INSERTs that read the clock, ``datetime('now')`` and friends (a defect, or info when
   every task of the world is proved below on ``EnvConfig.clock``; :mod:`probe`);
3. load: build the template and execute the code; a world that cannot load or list its tools is
   an error and the check moves on;
4. failed DDL blocks and seed INSERTs (one defect), defects of the generated code
   (:class:`~awm_gym.tools.host.WorldDefect`: duplicate or shadowed routes and operation ids are
   defects, blocking ``async def`` handlers are info);
5. every ``GET`` tool called with arguments drawn from the seed rows: a bare 500 or a hang is a
   defect (:func:`~awm_gym.manager.probe.probe_read_tools`);
6. each task: its verifier read first (:mod:`~awm_gym.manager.task_checks`: code that does not
   compile, SQL that names a table or column the template lacks), then run on the untouched
   state (``complete`` there is a defect: the task is done before the agent starts; a crash is
   a defect), then, with a reference solution (``gen_solutions.jsonl``), the solution replayed
   through a real instance: a failing call or a verifier that does not say ``complete`` after
   it is a defect. A task not proved that asks to create a row whose unique key the seed
   already holds is a defect. Tasks without a reference solution are one info line for the
   world.

:meth:`WorldReport.summary` prints one line per kind of finding (several aggregated);
:func:`exclusions_of` turns the reports into the exclusion file of ``awm check
--write-exclusions`` (:mod:`awm_gym.worlds.exclusions`).

Anything else that raises while one world is checked becomes an error finding of that world
(``check_failed``, traceback in its detail), and the next world is checked.

Example:
    >>> [report] = check_world(worlds=["spotify"])
    >>> report.ok, report.tasks_proved
    (True, 10)
"""

from __future__ import annotations

import logging
import os
import sqlite3
import traceback
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass, field, replace

from awm_gym import info_keys as K
from awm_gym.boundary import Failure, best_effort, capture
from awm_gym.envs.config import EnvConfig
from awm_gym.envs.registration import get_world_set
from awm_gym.envs.runtime import WorldRuntime
from awm_gym.errors import WorldLoadError
from awm_gym.manager.findings import Finding, Severity, aggregate, format_finding, list_some
from awm_gym.manager.probe import find_clock_seeds, probe_read_tools
from awm_gym.manager.task_checks import compile_finding, existing_key_finding, schema_finding
from awm_gym.scoring.verifier_pool import VerifierPool, VerifyJob
from awm_gym.tools.actions import format_tool_call
from awm_gym.vocab import ToolOutcome, VerifierLabel, VerifierMode, coerce_enum
from awm_gym.worlds.clock import FrozenClock
from awm_gym.worlds.exclusions import Exclusions, world_digest
from awm_gym.worlds.splits import world_set_hash
from awm_gym.worlds.world_set import WorldSet

logger = logging.getLogger(__name__)

__all__ = ["check_world", "iter_check", "exclusions_of", "WorldReport", "TaskReport",
           "check_one_guarded", "report_from_wire", "report_to_wire", "LEFT_RUNNING"]

_HOST_DEFECT_SEVERITY = {"blocking_async_handler": Severity.INFO}  # every other kind: defect


@dataclass(frozen=True)
class TaskReport:
    """The checks of one task."""

    task_idx: int
    verifier_mode: VerifierMode | None
    noop_label: VerifierLabel | None
    """The verifier's label on the untouched state (should not be ``complete``)."""
    solved_label: VerifierLabel | None
    """The verifier's label after replaying the reference solution (should be ``complete``)."""
    has_solution: bool = False
    findings: tuple[Finding, ...] = ()

    @property
    def issues(self) -> tuple[str, ...]:
        """The messages of this task's findings."""
        return tuple(f.message for f in self.findings)

    @property
    def proved(self) -> bool:
        """The verifier says incomplete before and complete after the reference solution."""
        return (self.solved_label == VerifierLabel.COMPLETE
                and self.noop_label != VerifierLabel.COMPLETE
                and not self.findings)


@dataclass(frozen=True)
class WorldReport:
    """The checks of one world: its findings, and per task what the verifier said."""

    world: str
    findings: tuple[Finding, ...] = ()
    tasks: tuple[TaskReport, ...] = field(default_factory=tuple)
    inserts_failed: int = 0
    tables_failed: int = 0
    template_failures: tuple[tuple[str, int, str], ...] = ()
    tools_probed: int = 0
    digest: str = ""
    """The checked world's :func:`~awm_gym.worlds.exclusions.world_digest` ("" if unknown):
    an exclusion file records it to tell when the world changed."""

    @property
    def all_findings(self) -> tuple[Finding, ...]:
        """The world's findings, then its tasks' findings."""
        return self.findings + tuple(f for t in self.tasks for f in t.findings)

    @property
    def worst(self) -> Severity | None:
        """The worst severity found (None when nothing was found)."""
        return max((f.severity for f in self.all_findings), default=None)

    @property
    def load_error(self) -> str | None:
        """Why the world could not be loaded, if it could not."""
        return next((f.message for f in self.findings if f.kind == "load_error"), None)

    @property
    def tasks_proved(self) -> int:
        return sum(t.proved for t in self.tasks)

    @property
    def ok(self) -> bool:
        """Nothing worse than info was found."""
        return self.worst is None or self.worst < Severity.DEFECT

    @property
    def status(self) -> str:
        """``OK`` | ``DEFECT`` | ``ERROR``: the world's worst severity, as the report's head."""
        return "OK" if self.ok else self.worst.name  # type: ignore[union-attr]

    @property
    def issues(self) -> list[str]:
        """One line per defect or error (``<kind>: <message>``), world first, then tasks."""
        return [f"{f.kind}: {f.message}" for f in self.all_findings
                if f.severity >= Severity.DEFECT]

    def summary(self, width: int | None = None, verbose: bool = False) -> str:
        """The report as ``awm check`` prints it: a head line, then one line per kind of finding
        (several of one kind aggregated, :func:`~awm_gym.manager.findings.aggregate`; cut to
        ``width``), or with ``verbose`` each line whole and its detail indented under it."""
        counts = {s: sum(f.severity is s for f in self.all_findings) for s in Severity}
        found = ", ".join(f"{n} {s}" if s is Severity.INFO else _count(n, str(s))
                          for s, n in sorted(counts.items(), reverse=True) if n)
        head = (f"{self.world}: {self.status} | tasks proved {self.tasks_proved}/"
                f"{len(self.tasks)}" + (f" | {found}" if found else ""))
        lines = [head]
        for f in sorted(aggregate(self.all_findings, len(self.tasks)), key=lambda f: -f.severity):
            lines.append(format_finding(f, None if verbose else width))
            if verbose and f.detail and f.detail not in f.message:
                lines.extend("            " + ln for ln in f.detail.splitlines())
        return "\n".join(lines)

    def to_dict(self) -> dict[str, object]:
        """Plain JSON for ``awm check --json`` (one object per world)."""
        return {"world": self.world, "status": self.status.lower(),
                "tasks": len(self.tasks), "tasks_proved": self.tasks_proved,
                "inserts_failed": self.inserts_failed, "tables_failed": self.tables_failed,
                "tools_probed": self.tools_probed,
                "findings": [f.to_dict() for f in self.all_findings],
                "task_labels": [{"task_idx": t.task_idx, "verifier_mode": t.verifier_mode,
                                 "noop_label": t.noop_label, "solved_label": t.solved_label}
                                for t in self.tasks]}


def _count(n: int, noun: str) -> str:
    """``1 table``, ``3 tables``."""
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _check_task(runtime: WorldRuntime, world: str, t: int, db: sqlite3.Connection,
                routes: Mapping[str, tuple[str, str]]) -> TaskReport:
    wdef = runtime.world_set[world]
    solution = wdef.solutions[t]
    verifier = runtime.verifier_for(world, t)
    if verifier is None or verifier.code is None:
        return TaskReport(t, None, None, None, solution is not None, (Finding(
            Severity.DEFECT, "no_verifier", f"task {t} has no verifier: it cannot be scored",
            task_idx=t),))
    broken = compile_finding(verifier.code, t)
    if broken is not None:  # it cannot run: nothing below can tell more
        return TaskReport(t, verifier.mode, None, None, solution is not None, (broken,))
    findings: list[Finding] = []
    unknown_schema = schema_finding(verifier.code, t, db)
    if unknown_schema is not None:
        findings.append(unknown_schema)
    prepared = runtime.prepared(world)
    [noop] = runtime.scorer.pool().run([VerifyJob(
        verifier.code, verifier.function_name, verifier.mode, prepared.template,
        prepared.template, None)])
    if noop.label == VerifierLabel.COMPLETE:
        findings.append(Finding(
            Severity.DEFECT, "complete_on_initial_state",
            f"task {t}: the verifier says complete on the untouched initial state, so any "
            "episode that ends at once scores", detail=wdef.tasks[t], task_idx=t))
    elif noop.label == VerifierLabel.VERIFIER_ERROR and unknown_schema is None:  # else: that is why
        findings.append(Finding(
            Severity.DEFECT, "verifier_error",
            f"task {t}: the verifier fails on the initial state: {noop.error_kind}: "
            f"{noop.error}", task_idx=t))
    report = (TaskReport(t, verifier.mode, noop.label, None, False, tuple(findings))
              if solution is None else _replay(runtime, world, t, verifier.mode, noop.label,
                                              findings))
    if not report.proved:  # a proved task shows its key did not block the create
        taken = existing_key_finding(t, wdef.tasks[t], solution, verifier.code, routes, db)
        if taken is not None:
            report = replace(report, findings=(*report.findings, taken))
    return report


def _replay(runtime: WorldRuntime, world: str, t: int, mode: VerifierMode,
            noop_label: VerifierLabel | None,
            findings: list[Finding]) -> TaskReport:
    """Replay task ``t``'s reference solution through a real instance and verify it."""
    solution = runtime.world_set[world].solutions[t]
    assert solution is not None  # the caller checked
    runtime.reset([0], [0], [t], [world])
    solved_label = None
    for k, call in enumerate(solution.calls):
        [out] = runtime.step([0], [format_tool_call(call.tool, call.arguments)])
        if (out.info.get(K.ACTION_KIND) != "tool_call"
                or out.info.get(K.TOOL_OUTCOME) != ToolOutcome.OK):
            findings.append(Finding(
                Severity.DEFECT, "solution_failed",
                f"task {t}: reference call {k} ({call.tool}) failed: "
                f"{out.info.get('error') or out.observation}", detail=out.observation,
                task_idx=t, tool=call.tool))
        if out.terminated or out.truncated:
            findings.append(Finding(
                Severity.DEFECT, "solution_failed",
                f"task {t}: the reference solution was cut off at call {k} ({call.tool}): "
                + ("the step limit was reached" if out.truncated else "the episode ended"),
                task_idx=t))
            break
    else:
        [out] = runtime.step([0], [solution.final_answer or "Done."])
        solved_label = out.info.get(K.VERIFIER_LABEL)
        expected = (VerifierLabel.AWAITING_JUDGE if mode == VerifierMode.SQL
                    else VerifierLabel.COMPLETE)
        if solved_label != expected:
            error = out.info.get(K.VERIFIER_ERROR)
            findings.append(Finding(
                Severity.DEFECT, "solution_not_verified",
                f"task {t}: the verifier says {solved_label!r} after the reference solution"
                + (f" ({error})" if error else ""), task_idx=t))
    return TaskReport(t, mode, noop_label, solved_label, True, tuple(findings))


def _static_findings(world_set: WorldSet, name: str) -> list[Finding]:
    """What the rows alone show: world-set problems and seed rows that read the clock."""
    findings = [Finding(Severity.DEFECT, "world_set_problem", str(p))
                for p in world_set.problems_for(name)]
    clock_seeds = find_clock_seeds(world_set[name].samples)
    if clock_seeds:
        tables = sorted({s.table for s in clock_seeds})
        findings.append(Finding(
            Severity.DEFECT, "seed_reads_clock",
            f"{_count(len(clock_seeds), 'seed INSERT')} in {_count(len(tables), 'table')} "
            f"({list_some(tables)}) read the build clock, e.g. {clock_seeds[0].expression}: the "
            "initial state depends on when the database is built",
            detail="\n".join(f"{s.table} statement {s.index}: {s.expression}"
                             for s in clock_seeds)))
    return findings


def _load_findings(runtime: WorldRuntime, name: str) -> list[Finding]:
    """Template build failures and the generated code's defects."""
    prepared = runtime.prepared(name)
    report, findings = prepared.report, []
    if report.failures:
        failures = [f"{t} statement {i}: {e}" if i >= 0 else f"{t} DDL: {e}"
                    for t, i, e in report.failures]
        parts = [f"{report.tables_failed} of {_count(report.tables_total, 'DDL block')}"
                 if report.tables_failed else "",
                 f"{report.inserts_failed} of {_count(report.inserts_total, 'seed INSERT')}"
                 if report.inserts_failed else ""]
        findings.append(Finding(
            Severity.DEFECT, "template",
            f"{' and '.join(p for p in parts if p)} failed (skipped, as AWM does): "
            f"{failures[0]}", detail="\n".join(failures)))
    for defect in prepared.host.defects:
        severity = _HOST_DEFECT_SEVERITY.get(defect.kind, Severity.DEFECT)
        message = defect.detail
        if defect.kind == "blocking_async_handler":
            message = message.split(" (awm_gym calls them directly")[0]
        findings.append(Finding(severity, defect.kind,
                                f"{defect.tool}: {message}" if defect.tool else message,
                                detail=defect.detail, tool=defect.tool))
    return findings


def _proved_on_this_clock(finding: Finding, clock: str) -> Finding:
    """Seed rows that read the clock are only info once every task is proved on this clock (the
    built-in worlds place history relative to "now" on purpose; AWM output has no proofs)."""
    return replace(finding, severity=Severity.INFO,
                   message=f"{finding.message}; every task is proved with the clock at {clock}")


def _check_one(world_set: WorldSet, name: str, config: EnvConfig, pool: VerifierPool
               ) -> WorldReport:
    findings = _static_findings(world_set, name)
    try:
        runtime = WorldRuntime(world_set, [name], 1, config, verifier_pool=pool)
    except WorldLoadError as e:
        return WorldReport(name, (*findings, Finding(Severity.ERROR, "load_error", str(e))))
    try:
        prepared = runtime.prepared(name)
        findings += _load_findings(runtime, name)
        probed, failures = probe_read_tools(prepared.host, prepared.template,
                                            FrozenClock(prepared.base_time), config.tool_timeout_s)
        for failure in failures:
            what = "answers a bare 500" if failure.outcome == ToolOutcome.CRASH else "times out"
            findings.append(Finding(
                Severity.DEFECT, "tool_fails_on_seed_arguments",
                f"{failure.tool} {what} to {failure.arguments} (drawn from the seed rows): "
                f"{failure.detail}", detail=failure.detail, tool=failure.tool))
        routes = {tool: (str(op.get("method", "")), str(op.get("path", "")))
                  for tool, op in prepared.catalogue.operations.items()}
        with closing(sqlite3.connect(":memory:")) as db:
            db.deserialize(prepared.template)
            tasks = tuple(_check_task(runtime, name, t, db, routes)
                          for t in range(len(runtime.world_set[name].tasks)))
        mutated = prepared.host.mutated_state()
        if mutated:  # after the probes and the reference solutions ran
            findings.append(Finding(
                Severity.DEFECT, "module_state",
                f"handlers change module-level variables ({', '.join(mutated)}): that state is "
                "shared by every instance in a process and survives resets"))
    finally:
        runtime.close()  # leaves the shared pool open
    if tasks and all(t.proved for t in tasks):
        findings = [_proved_on_this_clock(f, prepared.base_time)
                    if f.kind == "seed_reads_clock" else f for f in findings]
    unsolved = [t.task_idx for t in tasks if not t.has_solution]
    if unsolved:
        findings.append(Finding(
            Severity.INFO, "no_reference_solution",
            f"{len(unsolved)} of {len(tasks)} tasks have no reference solution "
            f"(gen_solutions.jsonl), so they are not proved solvable: tasks {list_some(unsolved)}"))
    report = prepared.report
    return WorldReport(name, tuple(findings), tasks, report.inserts_failed, report.tables_failed,
                       report.failures, probed)


def check_one_guarded(world_set: WorldSet, name: str, config: EnvConfig, pool: VerifierPool
                      ) -> WorldReport:
    """The report of one world; anything its check raises becomes a ``check_failed`` error."""
    report = capture(_check_one, world_set, name, config, pool)  # one world must not stop the set
    if not isinstance(report, Failure):
        return report
    logger.debug("checking %s raised", name, exc_info=report.error)  # also in the report
    return WorldReport(name, (Finding(
        Severity.ERROR, "check_failed", f"checking this world raised {report.text}",
        detail="".join(traceback.format_exception(report.error))),))


def iter_check(path: str | None = None, worlds: Sequence[str] | None = None, *,
               config: EnvConfig | None = None) -> Iterator[WorldReport]:
    """Check every world (or ``worlds``) of the world set at ``path`` (built-ins when None),
    yielding each :class:`WorldReport` as soon as its world is done.

    The world code of a set from disk runs in a contained worker process
    (:mod:`awm_gym.manager.check_worker`; ``config.isolation="none"`` runs it here), as in a
    vector env: a world that ends or hangs that process gets a ``check_failed`` error and the
    next world is checked in a new one; so does the next world after one whose code left work
    running (its ``work_left_running`` finding).

    Example:
        >>> report = next(iter_check(worlds=["spotify"]))
        >>> report.status, report.worst
        ('OK', <Severity.INFO: 0>)
    """
    config = config or EnvConfig(max_episode_steps=1000)
    world_set = get_world_set(path)
    names = [world_set[w].name for w in worlds] if worlds else world_set.names()
    for report in _iter_reports(world_set, names, config):
        yield replace(report, digest=_digest(world_set, report.world))


def _iter_reports(world_set: WorldSet, names: list[str], config: EnvConfig
                  ) -> Iterator[WorldReport]:
    if config.sharding.is_contained(world_set.root, get_world_set(None).root):
        yield from _iter_contained(world_set, names, config)
        return
    with VerifierPool(num_workers=config.verifier_workers,
                      timeout_s=config.verifier_timeout_s) as pool:  # one pool for every world
        for name in names:
            yield check_one_guarded(world_set, name, config, pool)


def _digest(world_set: WorldSet, name: str) -> str:
    """The world's digest, computed here from its rows (an exclusion file needs it; never taken
    from a contained worker's report)."""
    digest = ""  # a world that cannot be parsed has no digest to record
    with best_effort("computing the digest of %s", name, log=logger):
        digest = world_digest(world_set, name)
    return digest


_WORLD_CHECK_S = 1800.0
"""How long the contained worker may take over one world before it counts as hung."""

LEFT_RUNNING = "work_left_running"
"""The kind of the finding of a world whose code left work running: the contained worker
(:mod:`awm_gym.manager.check_worker`) ends after it, and the next worlds are checked in a new
one."""


def _iter_contained(world_set: WorldSet, names: list[str], config: EnvConfig
                    ) -> Iterator[WorldReport]:
    import dataclasses
    import time

    from awm_gym import containment
    from awm_gym.envs import wire
    from awm_gym.envs.shard_worker import send_message
    from awm_gym.envs.worker_process import WorkerProcess
    from awm_gym.worlds.template_db import default_cache_dir

    containment.warn_missing_layers("awm check")
    config = dataclasses.replace(config, cache_dir=str(config.cache_dir or default_cache_dir()))
    left = list(names)
    while left:
        # without the package __init__ (NumPy's BLAS starts a thread there), as a shard worker:
        # a process with a second thread cannot have its scratch tmpfs
        worker = WorkerProcess("awm_gym.manager.check_worker", contained=True,
                               runs_package_init=False)
        try:
            send_message(worker.requests, (world_set.root, left, config))
            while left:
                try:
                    report = report_from_wire(wire.read_json_frame(
                        worker.replies, time.monotonic() + _WORLD_CHECK_S))
                    if report.world != left[0]:
                        raise wire.ProtocolError(f"a report of {report.world!r}, not {left[0]!r}")
                except (EOFError, TimeoutError, OSError, ValueError) as e:
                    why = ("did not finish within " f"{_WORLD_CHECK_S:g} s"
                           if isinstance(e, TimeoutError) else f"ended ({e})")
                    report = WorldReport(left[0], (Finding(
                        Severity.ERROR, "check_failed",
                        f"the contained process checking this world {why}"),))
                    left.pop(0)
                    yield report
                    break  # a new worker for the rest
                left.pop(0)
                yield report
                if any(f.kind == LEFT_RUNNING for f in report.findings):
                    break  # the worker ended itself after it: a new one for the rest
        finally:
            worker.kill()


def _finding_from_wire(d: object) -> Finding:
    if not (isinstance(d, dict) and isinstance(d.get("kind"), str)
            and isinstance(d.get("message"), str) and isinstance(d.get("detail"), str)
            and d.get("severity") in ("info", "defect", "error")
            and (d.get("task_idx") is None or type(d.get("task_idx")) is int)
            and (d.get("tool") is None or isinstance(d.get("tool"), str))):
        raise ValueError(f"not a finding: {str(d)[:200]}")
    return Finding(Severity[d["severity"].upper()], d["kind"], d["message"], d["detail"],
                   d["task_idx"], d["tool"])


def report_to_wire(report: WorldReport) -> dict[str, object]:
    """The whole report as JSON (for the contained worker's frame; :func:`report_from_wire`
    reads it back)."""
    return {"world": report.world, "findings": [f.to_dict() for f in report.findings],
            "tasks": [{"task_idx": t.task_idx, "verifier_mode": t.verifier_mode,
                       "noop_label": t.noop_label, "solved_label": t.solved_label,
                       "has_solution": t.has_solution,
                       "findings": [f.to_dict() for f in t.findings]} for t in report.tasks],
            "inserts_failed": report.inserts_failed, "tables_failed": report.tables_failed,
            "template_failures": [list(f) for f in report.template_failures],
            "tools_probed": report.tools_probed}


def report_from_wire(d: object) -> WorldReport:
    """The report of :func:`report_to_wire`, checked field by field (``ValueError`` if a field
    is missing or of the wrong type: it came from a process that ran world code)."""
    def text_or_none(v: object) -> bool:
        return v is None or isinstance(v, str)

    if not (isinstance(d, dict) and isinstance(d.get("world"), str)
            and isinstance(d.get("findings"), list) and isinstance(d.get("tasks"), list)
            and all(type(d.get(k)) is int for k in ("inserts_failed", "tables_failed",
                                                    "tools_probed"))
            and isinstance(d.get("template_failures"), list)):
        raise ValueError("not a world report")
    tasks = []
    for t in d["tasks"]:
        if not (isinstance(t, dict) and type(t.get("task_idx")) is int
                and all(text_or_none(t.get(k)) for k in ("verifier_mode", "noop_label",
                                                         "solved_label"))
                and type(t.get("has_solution")) is bool and isinstance(t.get("findings"), list)):
            raise ValueError("not a task report")
        mode, noop, solved = (None if t[k] is None else coerce_enum(kind, t[k], field=k)
                              for k, kind in (("verifier_mode", VerifierMode),
                                              ("noop_label", VerifierLabel),
                                              ("solved_label", VerifierLabel)))
        tasks.append(TaskReport(t["task_idx"], mode, noop, solved, t["has_solution"],
                                tuple(_finding_from_wire(f) for f in t["findings"])))
    failures = []
    for f in d["template_failures"]:
        if not (isinstance(f, list) and len(f) == 3 and isinstance(f[0], str)
                and type(f[1]) is int and isinstance(f[2], str)):
            raise ValueError("not a template failure")
        failures.append(tuple(f))
    return WorldReport(d["world"], tuple(_finding_from_wire(f) for f in d["findings"]),
                       tuple(tasks), d["inserts_failed"], d["tables_failed"], tuple(failures),
                       d["tools_probed"])


def check_world(path: str | None = None, worlds: Sequence[str] | None = None, *,
                config: EnvConfig | None = None) -> list[WorldReport]:
    """Check every world (or ``worlds``) of the world set at ``path`` (built-ins when None).

    Returns:
        One :class:`WorldReport` per world: in name order, or in the order of ``worlds``. A world
        that cannot load, or whose check raised, gets a report with an error finding; the
        others are still checked.
    """
    return list(iter_check(path, worlds, config=config))



def exclusions_of(world_set: WorldSet, reports: Iterable[WorldReport]) -> Exclusions:
    """The tasks ``awm check --write-exclusions`` keeps out: each task with an error or defect
    finding of its own (no verifier, a verifier that does not compile, reads a table the schema
    lacks or crashes, complete on the initial state, a create whose key exists, a reference
    solution that fails), and every task of a world with an error finding (it cannot load, or
    checking it raised). World-level defects (a duplicate route, seed rows that read the clock)
    exclude nothing: the world's tasks still run and score.

    Example:
        >>> from awm_gym.envs.registration import get_world_set
        >>> ex = exclusions_of(get_world_set(None), check_world(worlds=["spotify"]))
        >>> ex.count, list(ex.worlds)
        (0, ['spotify'])
    """
    worlds: dict[str, str] = {}
    reasons: dict[tuple[str, int], list[dict[str, str]]] = {}
    for report in reports:
        worlds[report.world] = report.digest or _digest(world_set, report.world)
        n = len(world_set.entry(report.world).tasks)
        for f in report.all_findings:
            if f.severity < Severity.DEFECT:
                continue
            if f.task_idx is not None:
                targets = [f.task_idx]
            elif f.severity is Severity.ERROR:
                targets = list(range(n))
            else:
                continue
            reason = {"severity": str(f.severity), "kind": f.kind,
                      "message": " ".join(f.message.split())}
            for t in targets:
                reasons.setdefault((report.world, t), []).append(reason)
    return Exclusions(world_set_hash(world_set), worlds, {k: tuple(v) for k, v in reasons.items()},
                      world_set_name=os.path.basename(world_set.root))
