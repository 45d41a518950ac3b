"""Run many instances of one or more worlds in this process: reset, step, verify, reward.

An instance is ``(world, task, in-memory SQLite connection, step count)``. Every instance of a
world shares that world's executed code (:class:`~awm_gym.tools.host.ToolHost`, loaded once per
process) and owns its database; reset opens a new connection holding the template (nothing an
episode left on the old connection survives:
:meth:`~awm_gym.tools.host.PreparedWorld.reset_slot`). Final answers are verified in a
persistent :class:`~awm_gym.scoring.verifier_pool.VerifierPool`, all finished instances of a
step in one batch. The Gymnasium classes in :mod:`awm_gym.envs.env` and
:mod:`awm_gym.envs.vector_env` are thin shells around this.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from awm_gym import info_keys as K
from awm_gym.boundary import Failure, best_effort, capture, describe
from awm_gym.envs.config import EnvConfig
from awm_gym.envs.prepared import prepare_worlds
from awm_gym.envs.protocol import StepOutcome
from awm_gym.envs.selection import tasks_of
from awm_gym.envs.task_choice import TaskChooser
from awm_gym.errors import EnvUsageError, UnknownWorldError
from awm_gym.scoring.rewards import StepEnd, step_reward
from awm_gym.scoring.scorer import FinishedEpisode, Scorer
from awm_gym.scoring.verifier_pool import VerifierPool
from awm_gym.tools.actions import (
    Action,
    FinalAnswer,
    ListTools,
    Malformed,
    ToolCall,
    UnknownTool,
    parse_action,
)
from awm_gym.tools.db_routing import DatabaseSlot
from awm_gym.tools.host import PreparedWorld
from awm_gym.vocab import ToolOutcome, Turn
from awm_gym.worlds.records import VerifierDef, normalize_scenario_name
from awm_gym.worlds.world_set import WorldSet

logger = logging.getLogger(__name__)

__all__ = ["WorldRuntime", "StepOutcome", "LOADING", "clip_text"]

LOADING = -2
"""``before_each`` position meaning "executing a world's code before its first tool call"."""


@dataclass
class _Instance:
    world: str = ""
    task_idx: int = -1
    seed: int | None = None
    steps: int = 0
    done: bool = True
    slot: DatabaseSlot | None = None
    slot_world: str = ""
    turns: list[Turn] = field(default_factory=list)  # per step, only when a judge reads them



def clip_text(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters with a marker saying so (every observation stays
    in the env's space).

    Example:
        >>> clip_text("abc", 10), len(clip_text("x" * 100, 60))
        ('abc', 60)
    """
    if len(text) > limit:
        marker = f"\n[... truncated to {limit} characters]"
        text = text[:max(0, limit - len(marker))] + marker[:limit]
    return text

class WorldRuntime:
    """``num_instances`` instances over ``worlds`` of a world set, in this process.

    Args:
        world_set: a loaded :class:`~awm_gym.worlds.world_set.WorldSet`.
        worlds: the world names instances may use (seeds pick among their tasks).
        num_instances: how many instances.
        config: limits, timeouts, rewards.
        verifier_pool: a shared pool; by default the runtime starts its own on first use.
        tasks: world -> the task indices resets may use (a split's subset, see
            :mod:`awm_gym.envs.selection`); None: every task of each world.
        warm: world -> content hash of the worlds the caller found in the template cache (a
            shard worker's parent sends them): they are loaded when first used, unchecked.
    """

    def __init__(self, world_set: WorldSet, worlds: Sequence[str], num_instances: int,
                 config: EnvConfig, verifier_pool: VerifierPool | None = None,
                 tasks: Mapping[str, Sequence[int]] | None = None,
                 warm: Mapping[str, str] | None = None) -> None:
        if not worlds:
            raise UnknownWorldError(f"No worlds to run from {world_set.root}.")
        self.world_set, self.config = world_set, config
        self.episode = config.episode
        """The limits of each episode (the part of ``config`` a step reads)."""
        self.num_instances = num_instances
        world_set.entries(worlds)  # every world's tasks in one pass over gen_tasks.jsonl
        # normalized here, checked in prepare_worlds: a world whose rows broke since the
        # caller chose it (a shard's probe parses it) is left out there, not raised here
        self._prepared = prepare_worlds(world_set, [normalize_scenario_name(w) for w in worlds],
                                        config, warm)
        self.worlds = tuple(self._prepared)  # worlds that cannot be prepared are left out
        allowed = None if tasks is None else {w: tuple(t) for w, t in tasks.items()}
        self.tasks: tuple[tuple[str, int], ...] = tuple(tasks_of(self.worlds, world_set, allowed))
        """Every ``(world, task_idx)`` a reset may pick, in world then task order."""
        if not self.tasks:
            raise EnvUsageError(f"No task to run: the selected subset gives worlds "
                                f"{list(self.worlds)} no task index; pick another subset or "
                                "other worlds.")
        self._chooser = TaskChooser(lambda w: world_set.entry(w).tasks, self.tasks,
                                    config.world_weights, lambda w: world_set.entry(w).name,
                                    self.worlds)
        self._instances = [_Instance() for _ in range(num_instances)]
        self._tool_sessions: dict[int, tuple[str, DatabaseSlot]] = {}  # key -> (world, slot)
        self._tool_names: dict[str, frozenset[str]] = {}
        self.scorer = Scorer(config.scoring, verifier_pool)
        """Turns final answers into rewards (verifiers, judge, rubric)."""

    def __repr__(self) -> str:
        return f"WorldRuntime(worlds={len(self.worlds)}, num_instances={self.num_instances})"

    # -- what policies need -----------------------------------------------------------------
    def prepared(self, world: str) -> PreparedWorld:
        return self._prepared[world]

    def tools_text(self, world: str) -> str:
        """The ``list_tools`` reply for ``world``."""
        return self._prepared[world].catalogue.text

    def tools(self, world: str) -> list[dict[str, Any]]:
        """``world``'s tools as MCP lists them (``name``, ``description``, ``inputSchema``)."""
        return [t.to_dict() for t in self._prepared[world].catalogue.tools]

    def tool_names(self, world: str) -> frozenset[str]:
        """The names of ``world``'s tools."""
        names = self._tool_names.get(world)
        if names is None:
            names = self._tool_names[world] = self._prepared[world].catalogue.names
        return names

    def instance_world(self, i: int) -> tuple[str, int]:
        inst = self._instances[i]
        return inst.world, inst.task_idx

    def database(self, i: int) -> sqlite3.Connection | None:
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

    def title(self, world: str) -> str:
        """The title of ``world``'s app (what its MCP server is named); executes its code."""
        return self._prepared[world].host.app.title or world

    # -- raw tool calls (an MCP session: no episode, no parsing, no reward) --------------------
    def call_tool(self, key: int, world: str, name: str, arguments: Any,
                  before_call: Callable[[int], None] | None = None) -> tuple[str, bool]:
        """Call tool ``name`` of ``world`` on tool session ``key``'s database (opened from the
        template on its first call, its own clock); returns ``(text, is_error)`` exactly as
        :meth:`awm_gym.tools.host.ToolHost.call` words them (AWM's MCP text).
        ``before_call(LOADING)`` is called before the world's code is first executed and
        ``before_call(0)`` before the call runs (a contained worker reports progress so).

        Raises:
            ToolHostError: ``world`` has no tool ``name`` (check :meth:`tool_names` first).
        """
        prepared = self._prepared[world]
        if before_call is not None:
            if not prepared.is_host_loaded:
                before_call(LOADING)
            before_call(0)
        session = self._tool_sessions.get(key)
        if session is None or session[0] != world:
            self.end_tool_session(key)
            session = self._tool_sessions[key] = (
                world, prepared.open_slot(self.config.clock_step_s))
        result = prepared.host.call(session[1], name, arguments,
                                    timeout_s=self.config.tool_timeout_s)
        return result.text, result.is_error

    def end_tool_session(self, key: int) -> None:
        """Close tool session ``key``'s database (a later call opens a fresh one)."""
        session = self._tool_sessions.pop(key, None)
        if session is not None:
            session[1].conn.close()

    # -- reset ------------------------------------------------------------------------------
    def choose_task(self, seed: int | None, world: str | None, task_idx: int | None
                    ) -> tuple[str, int]:
        """The (world, task) a seed picks; ``world``/``task_idx`` pin either
        (:class:`~awm_gym.envs.task_choice.TaskChooser`)."""
        return self._chooser.choose(seed, world, task_idx)

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
            inst.world, inst.task_idx, inst.seed = world, task, seed
            inst.steps, inst.done = 0, False
            inst.turns = []
            info = {K.WORLD: world, K.TASK_IDX: task, K.SEED: -1 if seed is None else seed}
            out.append((self.world_set.entry(world).tasks[task], info))
        return out

    # -- step -------------------------------------------------------------------------------
    def step(self, indices: Sequence[int], actions: Sequence[Any],
             before_each: Callable[[int], None] | None = None) -> list[StepOutcome]:
        """Advance the given instances by one action each (verifying final answers in one batch).

        Every instance gets exactly one outcome: nothing an action contains raises out of here
        (an error inside our own handling of one instance becomes that instance's error
        observation, see :meth:`_step_one`). The only errors raised are the caller's mistakes
        (:class:`EnvUsageError`), and those are raised before any instance is touched.
        ``before_each(pos)`` is called before the action at ``pos`` runs world code (a tool
        call: ``list_tools``, an unknown tool or a malformed action runs none), with ``-1``
        before the batch's verification, and with :data:`LOADING` before the code of a world
        whose tool is about to be called for the first time is executed: a contained worker
        reports its progress through it (loading is not part of any call's time limit), one
        frame per call rather than per action (a ``list_tools`` step of 1,024 sent 1,024).
        """
        for i in indices:  # check the whole batch first: a bad index must not half-run it
            if self._instances[i].done:
                raise EnvUsageError(
                    f"Instance {i} was stepped after its episode ended (autoreset is disabled). "
                    "Reset it first: envs.reset(seed=..., options={'reset_mask': mask}).")
        early = self._load_called_worlds(indices, actions, before_each)
        outcomes: list[StepOutcome | None] = []
        pending: list[tuple[int, int, str]] = []  # (position, instance, final answer)
        for pos, (i, action) in enumerate(zip(indices, actions, strict=True)):
            inst = self._instances[i]
            inst.steps += 1
            act = early[pos] if pos in early else self._parse(inst.world, action)
            if before_each is not None and isinstance(act, ToolCall):
                before_each(pos)
            if isinstance(act, FinalAnswer):
                inst.done = True
                pending.append((pos, i, act.text))
                outcomes.append(None)
                continue
            outcome = self._step_one(inst, act)
            if self.scorer.keeps_turns:
                inst.turns.append(Turn(action, outcome.observation))
            outcomes.append(outcome)
        if pending:
            if before_each is not None:
                before_each(-1)
            self._verify(pending, outcomes)
        return outcomes  # type: ignore[return-value]

    def _parse(self, world: str, action: Any) -> Action | Exception:
        """``action`` parsed against ``world``'s tools, or the exception parsing raised (its
        step reports it, see :meth:`_step_one`)."""
        parsed = capture(parse_action, action, self.tool_names(world),
                         self.episode.max_action_chars)
        return parsed.error if isinstance(parsed, Failure) else parsed

    def _load_called_worlds(self, indices: Sequence[int], actions: Sequence[Any],
                            before_each: Callable[[int], None] | None
                            ) -> dict[int, Action | Exception]:
        """Execute the code of every world this batch calls a tool of and whose code has not run
        yet (a world started from the cache runs it at its first tool call). A failure is left
        for the call to report. Returns the actions it parsed to find those calls, by position
        (the step uses them: each action is parsed once); the others are parsed when they run."""
        early: dict[int, Action | Exception] = {}
        seen: set[str] = set()
        for pos, (i, action) in enumerate(zip(indices, actions, strict=True)):
            world = self._instances[i].world
            if world in seen or self._prepared[world].is_host_loaded:
                continue
            act = early[pos] = self._parse(world, action)
            if not isinstance(act, ToolCall):
                continue
            seen.add(world)
            if before_each is not None:
                before_each(LOADING)
            # on failure the action's own step reports what went wrong
            with best_effort("loading world %s before its call", world, log=logger):
                _ = self._prepared[world].host
        return early

    def count_lost_turn(self, i: int) -> bool:
        """Count a turn of instance ``i`` that a dead worker lost (its state was rebuilt
        without it); True when that turn reached the step limit and ended the episode."""
        inst = self._instances[i]
        inst.steps += 1
        inst.done = inst.steps >= self.episode.max_episode_steps
        return inst.done

    def _step_one(self, inst: _Instance, parsed: Action | Exception) -> StepOutcome:
        """Act on one parsed action that is not a final answer: the per-instance boundary of a
        batch.

        Any exception from parsing or acting (``RecursionError``, ``MemoryError``, a bug of
        ours) ends this instance's episode with an unscored error observation naming it, and
        the rest of the batch goes on.
        """
        outcome = Failure(parsed) if isinstance(parsed, Exception) else capture(
            self._act, inst, parsed)
        if isinstance(outcome, Failure):  # one action must not break a batch
            logger.warning("handling an action of %s task %d failed", inst.world, inst.task_idx,
                           exc_info=outcome.error)
            inst.done = True
            reason = f"the action could not be handled ({describe(outcome.error, limit=200)})"
            end = step_reward(StepEnd.UNSCORED, self.config.rewards)
            info = {K.WORLD: inst.world, K.TASK_IDX: inst.task_idx, K.STEP: inst.steps,
                    K.ACTION_KIND: "error", K.ERROR: reason, **end.info}
            return StepOutcome(f"Error: {reason}", end.reward, True, False, info)
        return outcome

    def _act(self, inst: _Instance, parsed: ToolCall | ListTools | UnknownTool | Malformed
             ) -> StepOutcome:
        info: dict[str, Any] = {K.WORLD: inst.world, K.TASK_IDX: inst.task_idx, K.STEP: inst.steps}
        if isinstance(parsed, UnknownTool) and self.episode.unknown_tool == "format_error":
            parsed = Malformed(parsed.hint, parsed.dropped_calls)
        if isinstance(parsed, Malformed):
            inst.done = True
            end = step_reward(StepEnd.FORMAT_ERROR, self.config.rewards)
            info.update({K.ACTION_KIND: "malformed", K.FORMAT_ERROR: True,
                         K.ERROR: parsed.reason, **end.info})
            return StepOutcome(self._clip(f"Error: {parsed.reason}"), end.reward, True, False,
                               info)
        info[K.DROPPED_CALLS] = parsed.dropped_calls
        if isinstance(parsed, ListTools):
            info[K.ACTION_KIND] = "list_tools"
            text = self.tools_text(inst.world)
        elif isinstance(parsed, UnknownTool):  # AWM's agent answers and the episode goes on
            text = f"Error: {parsed.awm_text}"
            info.update({K.ACTION_KIND: "tool_call", K.TOOL: parsed.name,
                         K.TOOL_OUTCOME: ToolOutcome.UNKNOWN_TOOL, K.TOOL_STATUS: -1,
                         K.ERROR: parsed.hint})
        else:
            assert isinstance(parsed, ToolCall)
            result = self._prepared[inst.world].host.call(
                inst.slot, parsed.tool, parsed.arguments, timeout_s=self.episode.tool_timeout_s)
            text = f"Error: {result.text}" if result.is_error else result.text
            info.update({K.ACTION_KIND: "tool_call", K.TOOL: parsed.tool,
                         K.TOOL_OUTCOME: result.outcome,
                         K.TOOL_STATUS: -1 if result.status_code is None else result.status_code})
            if self.episode.record_timings:
                info[K.TOOL_TIME_S] = result.elapsed_s
            if result.detail:
                info[K.ERROR] = result.detail
        text = self._clip(text)
        truncated = inst.steps >= self.episode.max_episode_steps
        inst.done = inst.done or truncated
        end = step_reward(StepEnd.TRUNCATED if truncated else StepEnd.ONGOING,
                          self.config.rewards)
        info.update(end.info)
        return StepOutcome(text, end.reward, False, truncated, info)

    def _clip(self, text: str) -> str:
        return clip_text(text, self.episode.max_text_length)

    def verifier_for(self, world: str, task: int) -> VerifierDef | None:
        """The verifier the default rubric runs for a task, or None (see :class:`Scorer`)."""
        return self.scorer.verifier_for(self.world_set[world], task)

    def _verify(self, pending: list[tuple[int, int, str]],
                outcomes: list[StepOutcome | None]) -> None:
        episodes = []
        for _, i, answer in pending:
            inst = self._instances[i]
            wdef = self.world_set[inst.world]
            episodes.append(FinishedEpisode(
                wdef, inst.task_idx, answer, self._prepared[inst.world].template,
                inst.slot.conn.serialize(), f"{wdef.content_hash}-{self.config.clock}",
                tuple(inst.turns), inst.steps))
        for (pos, i, answer), score in zip(pending, self.scorer.score(episodes), strict=True):
            inst = self._instances[i]
            info = {K.WORLD: inst.world, K.TASK_IDX: inst.task_idx, K.STEP: inst.steps,
                    K.ACTION_KIND: "final_answer", K.FINAL_ANSWER: answer, **score.info}
            outcomes[pos] = StepOutcome("", score.reward, True, False, info)

    def close(self) -> None:
        self.scorer.close()
        for key in list(self._tool_sessions):
            self.end_tool_session(key)
        for inst in self._instances:
            if inst.slot is not None:
                inst.slot.conn.close()
                inst.slot = None
