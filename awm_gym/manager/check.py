"""Check a world set: template build failures, tool defects, and every task proved solvable.

For each world, :func:`check_world` builds the template (reporting failed DDL and INSERTs),
executes the code (reporting load errors and :class:`~awm_gym.tools.host.WorldDefect` s), and for
each task:

* runs its verifier on the untouched state: one that already says ``complete`` is reported
  (AWM's own validation never catches these no-op passes);
* when the task has a reference solution (``gen_solutions.jsonl``), replays it through a real
  environment instance: a reference call that errors is reported, and the verifier must say
  ``complete`` afterwards.

Example:
    >>> [report] = check_world(worlds=["spotify"])
    >>> report.ok, report.tasks_proved
    (True, 10)
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field

from awm_gym.envs.config import EnvConfig
from awm_gym.envs.registration import get_world_set
from awm_gym.errors import WorldLoadError
from awm_gym.tools.actions import format_tool_call

logger = logging.getLogger(__name__)

__all__ = ["check_world", "WorldReport", "TaskReport"]


@dataclass(frozen=True)
class TaskReport:
    """The checks of one task."""

    task_idx: int
    verifier_mode: str | None
    noop_label: str | None
    """The verifier's label on the untouched state (should not be ``complete``)."""
    solved_label: str | None
    """The verifier's label after replaying the reference solution (should be ``complete``)."""
    issues: tuple[str, ...] = ()

    @property
    def proved(self) -> bool:
        return self.solved_label == "complete" and self.noop_label != "complete" and not self.issues


@dataclass(frozen=True)
class WorldReport:
    """The checks of one world."""

    world: str
    load_error: str | None = None
    inserts_failed: int = 0
    tables_failed: int = 0
    template_failures: tuple[tuple[str, int, str], ...] = ()
    defects: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()
    tasks: tuple[TaskReport, ...] = field(default_factory=tuple)

    @property
    def tasks_proved(self) -> int:
        return sum(t.proved for t in self.tasks)

    @property
    def issues(self) -> list[str]:
        out = [f"load error: {self.load_error}"] if self.load_error else []
        out += [f"template: {t} statement {i}: {e}" for t, i, e in self.template_failures]
        out += [f"defect: {d}" for d in self.defects]
        out += [f"problem: {p}" for p in self.problems]
        for t in self.tasks:
            out += [f"task {t.task_idx}: {issue}" for issue in t.issues]
        return out

    @property
    def ok(self) -> bool:
        """No load error, template failure or world-set problem, and every task passes its checks
        (defects are reported but do not fail a world: they are how AWM's own server behaves)."""
        return (self.load_error is None and not self.template_failures and not self.problems
                and all(not t.issues for t in self.tasks))

    def summary(self) -> str:
        head = (f"{self.world}: {'OK' if self.ok else 'ISSUES'} | tasks proved "
                f"{self.tasks_proved}/{len(self.tasks)} | inserts failed {self.inserts_failed} | "
                f"defects {len(self.defects)}")
        return "\n".join([head, *(f"  - {issue}" for issue in self.issues)])


def _check_task(runtime, world, t: int) -> TaskReport:  # noqa: ANN001
    from awm_gym.scoring.verifier_pool import VerifyJob

    wdef = runtime.world_set[world]
    verifier = runtime.verifier_for(world, t)
    if verifier is None:
        return TaskReport(t, None, None, None, ("no verifier for this task",))
    prepared = runtime.prepared(world)
    [noop] = runtime.scorer.pool().run([VerifyJob(verifier.code, verifier.function_name, verifier.mode,
                                           prepared.template, prepared.template, None)])
    issues: list[str] = []
    if noop.label == "complete":
        issues.append("verifier says complete on the untouched state")
    elif noop.label == "verifier_error":
        issues.append(f"verifier error on the untouched state: {noop.error_kind}: {noop.error}")
    solution = wdef.solutions[t]
    if solution is None:
        return TaskReport(t, verifier.mode, noop.label, None,
                          (*issues, "no reference solution (gen_solutions.jsonl)"))
    runtime.reset([0], [0], [t], [world])
    solved_label = None
    for k, call in enumerate(solution.calls):
        [out] = runtime.step([0], [format_tool_call(call.tool, call.arguments)])
        kind = out.info.get("action_kind")
        if kind != "tool_call" or out.info.get("tool_outcome") != "ok":
            issues.append(f"reference call {k} ({call.tool}) failed: "
                          f"{out.info.get('error') or out.observation[:300]}")
        if out.terminated or out.truncated:
            issues.append(f"the reference solution was cut off at call {k} ({call.tool}): "
                          + ("the step limit was reached" if out.truncated else
                             "the episode ended"))
            break
    else:
        [out] = runtime.step([0], [solution.final_answer or "Done."])
        solved_label = out.info.get("verifier_label")
        expected = "awaiting_judge" if verifier.mode == "sql" else "complete"
        if solved_label != expected:
            detail = out.info.get("verifier_error") or ""
            issues.append(f"verifier says {solved_label!r} after the reference solution {detail}"
                          .rstrip())
    return TaskReport(t, verifier.mode, noop.label, solved_label, tuple(issues))


def check_world(path: str | None = None, worlds: Sequence[str] | None = None, *,
                config: EnvConfig | None = None) -> list[WorldReport]:
    """Check every world (or ``worlds``) of the world set at ``path`` (built-ins when None).

    Returns:
        One :class:`WorldReport` per world: in name order, or in the order of ``worlds``. A world that cannot load gets a
        report with ``load_error`` set; the others are still checked.
    """
    from awm_gym.envs.runtime import WorldRuntime
    from awm_gym.scoring.verifier_pool import VerifierPool

    config = config or EnvConfig(max_episode_steps=1000)
    world_set = get_world_set(path)
    names = [world_set[w].name for w in worlds] if worlds else world_set.names()
    reports: list[WorldReport] = []
    with VerifierPool(num_workers=config.verifier_workers,
                      timeout_s=config.verifier_timeout_s) as pool:  # one pool for every world
        for name in names:
            problems = tuple(str(p) for p in world_set.problems_for(name))
            try:
                runtime = WorldRuntime(world_set, [name], 1, config, verifier_pool=pool)
            except WorldLoadError as e:
                reports.append(WorldReport(name, load_error=str(e), problems=problems))
                continue
            try:
                prepared = runtime.prepared(name)
                tasks = tuple(_check_task(runtime, name, t)
                              for t in range(len(world_set[name].tasks)))
            finally:
                runtime.close()  # leaves the shared pool open
            reports.append(WorldReport(
                name, None, prepared.report.inserts_failed, prepared.report.tables_failed,
                prepared.report.failures, tuple(str(d) for d in prepared.host.defects),
                problems, tasks))
    return reports
