"""Stage ``finalize``: assemble the kept worlds and proved tasks into a world set, and check it.

The stage files in the output directory hold everything that passed its own stage. The final
world set, ``<output_dir>/worlds/``, holds only what passed every gate: a world whose code
started and answered (it has a ``gen_envs`` row) with the tasks that have every configured
verifier and a proved reference solution. Tasks are renumbered (AWM identifies a task by its
position), and the verifier and solution rows follow. The set is written to a scratch directory,
checked with :func:`awm_gym.manager.check.check_world` (template, defects, each task proved again
through a fresh runtime), stripped of any world that fails, then written file by file
(atomically) with ``manifest.json`` last, so a complete manifest means a complete set.

Example:
    >>> keep_tasks(3, {0, 2}, {"code": {0, 1, 2}})
    [0, 2]
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping
from typing import Any

from .context import RunContext, StageReport
from .jsonl_io import read_jsonl, write_json, write_jsonl
from .repair import StageCounter
from .stage import Stage
from .store import rows_by_world, world_row_key
from .verifier import VERIFIER_FILES

__all__ = ["run_stage", "keep_tasks", "FINAL_DIR", "MANIFEST_FILE", "SPEC"]

STAGE = "finalize"
FINAL_DIR = "worlds"
MANIFEST_FILE = "manifest.json"
_PER_WORLD = ("gen_scenario.jsonl", "gen_tasks.jsonl", "gen_db.jsonl", "gen_sample.jsonl",
              "gen_spec.jsonl", "gen_envs.jsonl")


def keep_tasks(n: int, solved: set[int], verified: Mapping[str, set[int]]) -> list[int]:
    """Task indices (of ``n``) with a solution and a verifier in every mode."""
    return [i for i in range(n) if i in solved and all(i in v for v in verified.values())]


def _per_task(path: str) -> dict[tuple[str, int], dict[str, Any]]:
    out: dict[tuple[str, int], dict[str, Any]] = {}
    for row in read_jsonl(path):
        world = world_row_key(row)
        if world is not None and isinstance(row.get("task_idx"), int):
            out.setdefault((world, row["task_idx"]), row)
    return out


def _assemble(run: RunContext) -> tuple[dict[str, list[dict[str, Any]]], dict[str, int]]:
    modes = run.config.verifier_modes
    per_world = {f: rows_by_world(run.path(f), "name" if f == "gen_scenario.jsonl" else
                                  "scenario") for f in _PER_WORLD}
    verifiers = {m: _per_task(run.path(VERIFIER_FILES[m])) for m in modes}
    solutions = _per_task(run.path("gen_solutions.jsonl"))
    files: dict[str, list[dict[str, Any]]] = {f: [] for f in (*_PER_WORLD, "gen_solutions.jsonl",
                                                           *(VERIFIER_FILES[m] for m in modes))}
    kept: dict[str, int] = {}
    for world, task_row in per_world["gen_tasks.jsonl"].items():
        if not run.wants(world) or world not in per_world["gen_envs.jsonl"]:
            continue
        n = len(task_row["tasks"])
        keep = keep_tasks(n, {i for (w, i) in solutions if w == world},
                          {m: {i for (w, i) in verifiers[m] if w == world} for m in modes})
        if not keep:
            run.failures.record(STAGE, world, "no task of this world has a proved solution",
                                attempts=1)
            continue
        run.failures.succeeded(STAGE, world)
        kept[world] = len(keep)
        for f in _PER_WORLD:
            row = per_world[f].get(world)
            if f == "gen_tasks.jsonl":
                row = {**row, "tasks": [row["tasks"][i] for i in keep]}
            if row is not None:
                files[f].append(row)
        for new, old in enumerate(keep):
            for m in modes:
                v = verifiers[m][(world, old)]
                files[VERIFIER_FILES[m]].append({**v, "task_idx": new,
                                                 "task": task_row["tasks"][old]})
            files["gen_solutions.jsonl"].append({**solutions[(world, old)], "task_idx": new})
    return files, kept


def _drop(files: dict[str, list[dict[str, Any]]], worlds: set[str]) -> None:
    for name, rows in files.items():
        field = "name" if name == "gen_scenario.jsonl" else "scenario"
        rows[:] = [r for r in rows if world_row_key(r, field) not in worlds]


def run_stage(run: RunContext) -> StageReport:
    """Write ``<output_dir>/worlds/`` from the stage files; returns worlds kept and dropped."""
    from awm_gym.envs import EnvConfig
    from awm_gym.manager import check_world

    files, kept = _assemble(run)
    dropped: dict[str, str] = {}
    scratch = tempfile.mkdtemp(prefix=".finalize-", dir=run.config.output_dir)
    try:
        if kept:
            for name, rows in files.items():
                write_jsonl(os.path.join(scratch, name), rows)
            config = EnvConfig(cache_dir=run.path(".cache"), max_episode_steps=1000,
                               tool_timeout_s=run.config.tool_timeout_s,
                               verifier_timeout_s=run.config.verifier_timeout_s)
            for report in check_world(scratch, list(kept), config=config):
                if not report.ok:
                    dropped[report.world] = "; ".join(report.issues[:5])
                    run.failures.record(STAGE, report.world, "check_world: "
                                        + dropped[report.world], attempts=1)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    _drop(files, set(dropped))
    final = run.path(FINAL_DIR)
    os.makedirs(final, exist_ok=True)
    manifest = os.path.join(final, MANIFEST_FILE)
    if os.path.exists(manifest):
        os.unlink(manifest)  # an incomplete set must never look complete
    for name, rows in files.items():
        write_jsonl(os.path.join(final, name), rows)
    worlds = {w: n for w, n in kept.items() if w not in dropped}
    write_json(manifest, {"worlds": worlds, "tasks": sum(worlds.values()),
                          "verifier_modes": list(run.config.verifier_modes),
                          "dropped": dropped})
    counter = StageCounter(ok=len(worlds), failed=len(dropped))
    return run.report(STAGE, counter, 0, (f"{sum(worlds.values())} tasks in {len(worlds)} "
                                          f"worlds written to {final}",))


SPEC = Stage(STAGE, ("gen_tasks.jsonl", "gen_db.jsonl", "gen_envs.jsonl"), (), run_stage)
"""Writes ``<output_dir>/worlds/`` (no file a later stage reads)."""
