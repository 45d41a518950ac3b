"""Run many instances of one or more worlds in this process: reset, step, verify, reward.

An instance is ``(world, task, in-memory SQLite connection, step count)``. Every instance of a
world shares that world's executed code (:class:`~awm_gym.tools.host.ToolHost`, loaded once per
process) and owns its database; reset is ``Connection.deserialize(template)``. Final answers are
verified in a persistent :class:`~awm_gym.scoring.verifier_pool.VerifierPool`, all finished instances of a step
in one batch. The Gymnasium classes in :mod:`awm_gym.envs.env` and :mod:`awm_gym.envs.vector_env` are thin
shells around this.
"""

from __future__ import annotations

import logging
import random
import threading
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from awm_gym import info_keys as K
from awm_gym.envs.config import EnvConfig
from awm_gym.errors import EnvUsageError, UnknownWorldError, WorldLoadError, WorldSkippedWarning
from awm_gym.tools.actions import FinalAnswer, ListTools, Malformed, ToolCall, parse_action
from awm_gym.tools.catalogue import format_tools_text
from awm_gym.tools.db_routing import DatabaseSlot
from awm_gym.tools.host import PreparedWorld, prepare_world
from awm_gym.worlds.clock import FrozenClock
from awm_gym.worlds.template_db import TemplateCache

logger = logging.getLogger(__name__)

__all__ = ["WorldRuntime", "StepOutcome", "get_prepared_world", "prepare_worlds"]

_PREPARED: dict[tuple[str, str], PreparedWorld] = {}
_FAILED: dict[tuple[str, str], str] = {}  # a world that cannot be prepared is tried once
_PREPARED_LOCK = threading.Lock()


def get_prepared_world(world: Any, config: EnvConfig) -> PreparedWorld:
    """The process-wide prepared copy of ``world`` (its code runs once per process).

    Raises:
        WorldLoadError: the world cannot be prepared (the message names it and the cause); the
            failure is remembered, so later calls raise at once.
    """
    key = (world.content_hash, config.clock)
    with _PREPARED_LOCK:
        prepared = _PREPARED.get(key)
        if prepared is None:
            if key in _FAILED:
                raise WorldLoadError(_FAILED[key])
            try:
                clock = None if config.clock is None else FrozenClock(config.clock)
                prepared = prepare_world(world, clock=clock,
                                         cache=TemplateCache(config.cache_dir),
                                         timeout_s=config.tool_timeout_s)
            except WorldLoadError as e:
                _FAILED[key] = str(e)
                raise
            _PREPARED[key] = prepared
        return prepared


def prepare_worlds(world_set: Any, names: Sequence[str], config: EnvConfig
                   ) -> dict[str, PreparedWorld]:
    """Prepare every world of ``names``; one that cannot be prepared is a per-world problem.

    With several worlds, a world that fails is left out with a
    :class:`~awm_gym.errors.WorldSkippedWarning` naming it and the cause (``config.strict``:
    its :class:`~awm_gym.errors.WorldLoadError` is raised instead). A single world, or a set
    where none can be prepared, raises.
    """
    prepared: dict[str, PreparedWorld] = {}
    failed: list[str] = []
    for name in names:
        try:
            prepared[name] = get_prepared_world(world_set[name], config)
        except WorldLoadError as e:
            if config.strict or len(names) == 1:
                raise
            failed.append(str(e))
            warnings.warn(f"Leaving world {name!r} out of this env: {e} (pass strict=True to "
                          "raise instead).", WorldSkippedWarning, stacklevel=3)
    if not prepared:
        raise WorldLoadError(f"None of the {len(names)} worlds could be prepared: "
                             + " | ".join(failed))
    return prepared


@dataclass
class _Instance:
    world: str = ""
    task_idx: int = -1
    seed: int | None = None
    steps: int = 0
    done: bool = True
    slot: DatabaseSlot | None = None
    slot_world: str = ""
    turns: list[Any] = field(default_factory=list)  # judge.Turn per step, when a judge reads them


@dataclass(frozen=True, slots=True)
class StepOutcome:
    """What one instance returns from a step."""

    observation: str
    reward: float
    terminated: bool
    truncated: bool
    info: dict[str, Any] = field(default_factory=dict)


class WorldRuntime:
    """``num_instances`` instances over ``worlds`` of a world set, in this process.

    Args:
        world_set: a loaded :class:`~awm_gym.worlds.world_set.WorldSet`.
        worlds: the world names instances may use (seeds pick among their tasks).
        num_instances: how many instances.
        config: limits, timeouts, rewards.
        verifier_pool: a shared pool; by default the runtime starts its own on first use.
    """

    def __init__(self, world_set: Any, worlds: Sequence[str], num_instances: int,
                 config: EnvConfig, verifier_pool: Any = None) -> None:
        if not worlds:
            raise UnknownWorldError(f"No worlds to run from {world_set.root}.")
        self.world_set, self.config = world_set, config
        self.num_instances = num_instances
        self._prepared = prepare_worlds(world_set, [world_set[w].name for w in worlds], config)
        self.worlds = tuple(self._prepared)  # worlds that cannot be prepared are left out
        self._tasks = [(w, t) for w in self.worlds for t in range(len(world_set[w].tasks))]
        self._instances = [_Instance() for _ in range(num_instances)]
        self._tool_names = {w: frozenset(p.host._tools_by_name) for w, p in self._prepared.items()}
        self._tools_text: dict[str, str] = {}
        self._pool = verifier_pool
        self._owns_pool = verifier_pool is None
        self._judge: Any = None
        if config.judge is not None:
            from awm_gym.scoring.judge import LLMJudge

            self._judge = LLMJudge(config.judge)

    def __repr__(self) -> str:
        return f"WorldRuntime(worlds={len(self.worlds)}, num_instances={self.num_instances})"

    # -- what policies need -----------------------------------------------------------------
    def prepared(self, world: str) -> PreparedWorld:
        return self._prepared[world]

    def tools_text(self, world: str) -> str:
        """The ``list_tools`` reply for ``world``."""
        text = self._tools_text.get(world)
        if text is None:
            text = self._tools_text[world] = format_tools_text(self._prepared[world].host.tools)
        return text

    def tools(self, world: str) -> list[dict[str, Any]]:
        """``world``'s tools as MCP lists them (``name``, ``description``, ``inputSchema``)."""
        return [t.to_dict() for t in self._prepared[world].host.tools]

    def instance_world(self, i: int) -> tuple[str, int]:
        inst = self._instances[i]
        return inst.world, inst.task_idx

    def database(self, i: int) -> Any:
        """The live SQLite connection of instance ``i`` (read it, don't keep it across resets)."""
        slot = self._instances[i].slot
        return None if slot is None else slot.conn

    def snapshot(self, i: int) -> bytes | None:
        """Instance ``i``'s database as bytes (``Connection.serialize``), None before its reset."""
        slot = self._instances[i].slot
        return None if slot is None else slot.conn.serialize()

    def template(self, world: str) -> bytes:
        """``world``'s initial database as bytes (what every reset starts from)."""
        return self._prepared[world].template

    # -- reset ------------------------------------------------------------------------------
    def choose_task(self, seed: int | None, world: str | None, task_idx: int | None
                    ) -> tuple[str, int]:
        """The (world, task) a seed picks; ``world``/``task_idx`` pin either."""
        if world is not None:
            world = self.world_set[world].name
            if world not in self._prepared:
                raise UnknownWorldError(f"World {world!r} is not one of this env's worlds "
                                        f"({', '.join(self.worlds)}).")
            candidates = [(w, t) for w, t in self._tasks if w == world]
        else:
            candidates = self._tasks
        if task_idx is not None:
            pinned = [(w, t) for w, t in candidates if t == task_idx]
            if not pinned:
                raise EnvUsageError(f"options['task_idx']={task_idx}: out of range for "
                                    f"{world or self.worlds}; tasks are numbered from 0.")
            candidates = pinned
        rng = random.Random(seed) if seed is not None else random.Random()
        return candidates[rng.randrange(len(candidates))]

    def reset(self, indices: Sequence[int], seeds: Sequence[int | None],
              task_idx: Sequence[int | None], worlds: Sequence[str | None]
              ) -> list[tuple[str, dict[str, Any]]]:
        """Reset the given instances; returns ``(observation, info)`` for each."""
        out = []
        chosen = [self.choose_task(seed, w, t)  # check every instance before touching any
                  for seed, t, w in zip(seeds, task_idx, worlds, strict=True)]
        for i, seed, (world, task) in zip(indices, seeds, chosen, strict=True):
            inst = self._instances[i]
            prepared = self._prepared[world]
            if inst.slot is None or inst.slot_world != world:
                if inst.slot is not None:
                    inst.slot.conn.close()
                inst.slot = prepared.open_slot(self.config.clock_step_s)
                inst.slot_world = world
            else:
                prepared.reset_slot(inst.slot)  # initial state, clock back at the base time
            inst.world, inst.task_idx, inst.seed, inst.steps, inst.done = world, task, seed, 0, False
            inst.turns = []
            info = {K.WORLD: world, K.TASK_IDX: task, K.SEED: -1 if seed is None else seed}
            out.append((self.world_set[world].tasks[task], info))
        return out

    # -- step -------------------------------------------------------------------------------
    def step(self, indices: Sequence[int], actions: Sequence[Any]) -> list[StepOutcome]:
        """Advance the given instances by one action each (verifying final answers in one batch)."""
        outcomes: list[StepOutcome | None] = []
        pending: list[tuple[int, int, str]] = []  # (position, instance, final answer)
        for pos, (i, action) in enumerate(zip(indices, actions, strict=True)):
            inst = self._instances[i]
            if inst.done:
                raise EnvUsageError(
                    f"Instance {i} was stepped after its episode ended (autoreset is disabled). "
                    "Reset it first: envs.reset(seed=..., options={'reset_mask': mask}).")
            inst.steps += 1
            parsed = parse_action(action, self._tool_names[inst.world])
            if isinstance(parsed, FinalAnswer):
                inst.done = True
                pending.append((pos, i, parsed.text))
                outcomes.append(None)
                continue
            outcome = self._act(inst, parsed)
            if self.config.keeps_trajectory:
                from awm_gym.scoring.judge import Turn

                inst.turns.append(Turn(action, outcome.observation))
            outcomes.append(outcome)
        if pending:
            self._verify(pending, outcomes)
        return outcomes  # type: ignore[return-value]

    def _act(self, inst: _Instance, parsed: Any) -> StepOutcome:
        rewards = self.config.rewards
        info: dict[str, Any] = {K.WORLD: inst.world, K.TASK_IDX: inst.task_idx, K.STEP: inst.steps}
        if isinstance(parsed, Malformed):
            inst.done = True
            info.update({K.ACTION_KIND: "malformed", K.FORMAT_ERROR: True,
                         K.ERROR: parsed.reason, K.REWARD_VALID: True})
            return StepOutcome(f"Error: {parsed.reason}", rewards.format_error, True, False, info)
        info[K.DROPPED_CALLS] = parsed.dropped_calls
        if isinstance(parsed, ListTools):
            info[K.ACTION_KIND] = "list_tools"
            text = self.tools_text(inst.world)
        else:
            assert isinstance(parsed, ToolCall)
            result = self._prepared[inst.world].host.call(
                inst.slot, parsed.tool, parsed.arguments, timeout_s=self.config.tool_timeout_s)
            text = f"Error: {result.text}" if result.is_error else result.text
            info.update({K.ACTION_KIND: "tool_call", K.TOOL: parsed.tool,
                         K.TOOL_OUTCOME: result.outcome,
                         K.TOOL_STATUS: -1 if result.status_code is None else result.status_code})
            if self.config.record_timings:
                info[K.TOOL_TIME_S] = result.elapsed_s
            if result.detail:
                info[K.ERROR] = result.detail
        limit = self.config.max_text_length
        if len(text) > limit:  # keep every observation inside the observation space
            marker = f"\n[... truncated to {limit} characters]"
            text = text[:max(0, limit - len(marker))] + marker[:limit]
        truncated = inst.steps >= self.config.max_episode_steps
        if truncated:
            inst.done = True
            info[K.REWARD_VALID] = True
        return StepOutcome(text, self.config.rewards.truncated if truncated else 0.0,
                           False, truncated, info)

    def verifier_for(self, world: str, task: int) -> Any:
        """The :class:`~awm_gym.worlds.world_set.VerifierDef` this runtime uses for a task, or None."""
        wdef = self.world_set[world]
        mode = self.config.verifier_mode
        code = wdef.code_verifiers[task] if mode in ("auto", "code") else None
        sql = wdef.sql_verifiers[task] if mode in ("auto", "sql") else None
        chosen = code if code is not None and code.code else sql
        return chosen if chosen is not None and chosen.code else None

    def pool(self) -> Any:
        """The verifier pool (the one passed in, or this runtime's own, started on first use)."""
        if self._pool is None:
            from awm_gym.scoring.verifier_pool import VerifierPool

            self._pool = VerifierPool(num_workers=self.config.verifier_workers,
                                      timeout_s=self.config.verifier_timeout_s)
        return self._pool

    def _verifiers_needed(self, world: str, task: int) -> list[Any]:
        """The verifiers a final answer runs: the rubric's needs, else :meth:`verifier_for`."""
        rubric = self.config.rubric
        if rubric is None:
            chosen = self.verifier_for(world, task)
            return [] if chosen is None else [chosen]
        wdef = self.world_set[world]
        out = []
        for need, verifier in (("code", wdef.code_verifiers[task]),
                               ("judge", wdef.sql_verifiers[task])):
            if need in rubric.requires and verifier is not None and verifier.code:
                out.append(verifier)
        return out

    def _verify(self, pending: list[tuple[int, int, str]],
                outcomes: list[StepOutcome | None]) -> None:
        from awm_gym.scoring.verifier_pool import VerifyJob

        jobs, owners = [], []  # owners[k] = index into pending of jobs[k]
        for n, (_, i, answer) in enumerate(pending):
            inst = self._instances[i]
            prepared = self._prepared[inst.world]
            for verifier in self._verifiers_needed(inst.world, inst.task_idx):
                jobs.append(VerifyJob(verifier.code, verifier.function_name, verifier.mode,
                                      prepared.template, inst.slot.conn.serialize(),
                                      answer if verifier.mode == "code" else None,
                                      initial_key=f"{self.world_set[inst.world].content_hash}"
                                                  f"-{self.config.clock}"))
                owners.append(n)
        start = time.perf_counter()
        results = self.pool().run(jobs) if jobs else []
        by_episode: list[dict[str, Any]] = [{} for _ in pending]
        for n, job, result in zip(owners, jobs, results, strict=True):
            by_episode[n][job.mode] = result
        verdicts = self._judge_episodes(pending, by_episode)
        elapsed = time.perf_counter() - start
        for n, (pos, i, answer) in enumerate(pending):
            outcomes[pos] = self._finished(self._instances[i], answer, by_episode[n],
                                           verdicts.get(n), elapsed)

    def _judge_episodes(self, pending: list[tuple[int, int, str]],
                        by_episode: list[dict[str, Any]]) -> dict[int, Any]:
        """Judge, in one batch, every episode whose sql-mode verifier produced evidence."""
        if self._judge is None:
            return {}
        from awm_gym.scoring.judge import JudgeRequest, criteria_from_raw_response

        requests, owners = [], []
        for n, (_, i, answer) in enumerate(pending):
            result = by_episode[n].get("sql")
            if result is None or result.label != "awaiting_judge":
                continue
            inst = self._instances[i]
            wdef = self.world_set[inst.world]
            verifier = wdef.sql_verifiers[inst.task_idx]
            requests.append(JudgeRequest(
                wdef.tasks[inst.task_idx], tuple(inst.turns), answer, result.output,
                criteria_from_raw_response(verifier.raw_response if verifier else None)))
            owners.append(n)
        return dict(zip(owners, self._judge.judge(requests), strict=True))

    def _finished(self, inst: _Instance, answer: str, results: dict[str, Any], verdict: Any,
                  verify_s: float) -> StepOutcome:
        r = self.config.rewards
        info: dict[str, Any] = {K.WORLD: inst.world, K.TASK_IDX: inst.task_idx,
                                K.STEP: inst.steps, K.ACTION_KIND: "final_answer",
                                K.FINAL_ANSWER: answer}
        if self.config.record_timings:
            info[K.VERIFY_TIME_S] = verify_s
        result = results.get("code") or results.get("sql")
        label = "no_verifier" if result is None else result.label
        info[K.VERIFIER_LABEL] = label
        for res in results.values():
            if res.error_kind is not None:
                info[K.VERIFIER_ERROR] = f"{res.error_kind}: {res.error}"
        sql = results.get("sql")
        if sql is not None and sql.label == "awaiting_judge":
            if sql.output is not None:
                info[K.VERIFIER_OUTPUT] = sql.output
            if verdict is None:
                info[K.AWAITING_JUDGE] = True
        if verdict is not None:
            info[K.JUDGE_LABEL] = verdict.label
            if verdict.error_kind is not None:
                info[K.JUDGE_ERROR] = f"{verdict.error_kind}: {verdict.error}"
        if self.config.rubric is not None:
            from awm_gym.scoring.rubrics import EpisodeOutcome

            code = results.get("code")
            reward, components = self.config.rubric.evaluate(EpisodeOutcome(
                answer, None if code is None else code.label,
                None if verdict is None else verdict.label, inst.steps))
            info[K.REWARD_COMPONENTS] = components
            valid, success = reward is not None, reward is not None and reward >= 1.0
        elif verdict is not None and result is sql:
            reward = r.judge_table.get(verdict.label)
            valid, success = reward is not None, verdict.label == "complete"
        else:
            reward = {"complete": r.complete, "others": r.others}.get(label)
            valid, success = reward is not None, label == "complete"
        info[K.REWARD_VALID], info[K.SUCCESS] = valid, success
        return StepOutcome("", r.unscored if reward is None else reward, True, False, info)

    def close(self) -> None:
        if self._owns_pool and self._pool is not None:
            self._pool.close()
            self._pool = None
        if self._judge is not None:
            self._judge.close()
            self._judge = None
        for inst in self._instances:
            if inst.slot is not None:
                inst.slot.conn.close()
                inst.slot = None
