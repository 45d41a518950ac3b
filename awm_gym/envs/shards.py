"""Shard instances over worker processes: one crashing or hanging world cannot take the env down.

``num_workers=k`` splits the instances into k contiguous shards; each shard lives in its own
Python process (started with ``python -I`` on :mod:`awm_gym.envs.shard_worker`, so the caller's
``__main__``, working directory and ``PYTHONPATH`` are never on its import path; replies come
back as checked JSON frames, never pickles: :mod:`awm_gym.envs.wire`) that loads its worlds
once and runs a :class:`~awm_gym.envs.runtime.WorldRuntime`. A step sends every shard its part
at once and collects the replies, so shards run in parallel. A *contained* shard
(``isolation="process"``) also applies :mod:`awm_gym.containment` before it executes any world
code.

A worker reports which instance it is about to step, so each instance gets its own deadline
(``tool_timeout_s`` plus a margin) and a worker that dies (a tool called ``os._exit``, a
segfault) or hangs (a loop that ignores SIGALRM) names the instance that did it. The worker is
killed and restarted, the other instances of its shard are rebuilt by replaying their episodes
so far (resets are seeded and the clock is deterministic, so the replay is exact), and the batch
is run again without the culprit, which gets an error observation naming the cause and goes on
from its state before that action. World code can write a progress frame naming a later
instance of its batch before it ends the worker, so a culprit named after other world code ran
in the same request is run alone first and blamed only if it takes the worker down again. Only
when a replay fails too do the shard's stepped instances end truncated with
``info["worker_error"]``.

The worker side is one class, :class:`~awm_gym.envs.shard_worker.ShardWorker`, and the parent
talks to a shard through the :class:`Shard` protocol, so the same code runs a shard in a local
process (:class:`~awm_gym.envs.process_shard.ProcessShard`, over pipes) or in a Ray actor
anywhere in a cluster (:mod:`awm_gym.envs.ray_shards`, ``backend="ray"``: the actor starts the
same worker process on its node and relays its frames). When no instance can be named (a Ray
actor itself died), the shard's stepped episodes are lost instead: they end truncated with
``info["worker_error"]``, its other live instances get the same outcome when next stepped, and
each needs a fresh reset.

Besides episodes, a shard holds *tool sessions* (:meth:`ShardedRuntime.call_tool`: the server's
MCP sessions, raw tool calls on a database of their own); their calls are replayed after a
restart too.
"""

from __future__ import annotations

import logging
import sqlite3
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from awm_gym import info_keys as K
from awm_gym.envs import wire
from awm_gym.envs.config import EnvConfig
from awm_gym.envs.leftover_work import REASON as LEFT_WORK
from awm_gym.envs.process_shard import (
    FORGED,
    ProcessShard,
    StepDeadlines,
    WorkerGone,
    failure_reason,
)
from awm_gym.envs.protocol import StepOutcome
from awm_gym.envs.runtime import clip_text
from awm_gym.envs.selection import tasks_of
from awm_gym.envs.warm_start import CatalogueTexts, warm_worlds
from awm_gym.errors import EnvUsageError, UnknownWorldError, WorldSkippedWarning
from awm_gym.scoring.rewards import StepEnd, step_reward
from awm_gym.vocab import ToolOutcome
from awm_gym.worlds.template_db import default_cache_dir
from awm_gym.worlds.world_set import WorldSet

logger = logging.getLogger(__name__)

__all__ = ["WORKER_ERROR", "Shard", "ShardFactory", "ShardedRuntime"]

WORKER_ERROR = "worker_error"


class Shard(Protocol):
    """The parent's handle on one shard: a worker that owns the instances ``indices``.

    ``spec`` is ``(world set root, worlds, config, contained, tasks, cache_writable, warm)``
    (``warm``: world -> content hash of the worlds the caller found in the worker's template
    cache, which the worker then loads when first used without checking them again);
    :meth:`start` sends the worker ``("init", *spec, len(indices))`` and its reply is read like
    any other.
    """

    indices: range
    names_culprit: bool
    """Whether the shard reports which instance it is stepping, so a death names the culprit
    (then the others are rebuilt by replay); without it a death loses the shard's episodes."""

    def start(self) -> None:
        """Start the worker and send it the init request."""
        ...

    def restart(self) -> Any:
        """Kill and start the worker again; returns its init reply."""
        ...

    def request(self, message: Any) -> None:
        """Send one request (its reply is read with :meth:`reply`)."""
        ...

    def reply(self, deadline: float, on_progress: Callable[[int], float] | None = None) -> Any:
        """The reply to the last request; raises ``EOFError`` or ``OSError`` when the worker
        died, ``TimeoutError`` past ``deadline`` (``time.monotonic()``), or the worker's own
        exception."""
        ...

    def call(self, message: Any, timeout_s: float = 120.0) -> Any:
        """:meth:`request`, then :meth:`reply`."""
        ...

    def close(self) -> None:
        """Ask the worker to finish, then end it. Safe to call twice."""
        ...


ShardFactory = Callable[[tuple[Any, ...], range], Shard]
"""Builds a started shard from ``(spec, indices)``."""



def _ray_shards(config: EnvConfig, num_shards: int) -> ShardFactory:
    # the optional ray extra: imported only when asked for
    from awm_gym.envs import ray_shards

    ray_shards.connect(config.ray_address)
    ray_shards.check_capacity(num_shards)
    return ray_shards.RayShard


_SHARD_BACKENDS: dict[str, Callable[[EnvConfig, int], ShardFactory]] = {
    "local": lambda config, num_shards: ProcessShard,
    "ray": _ray_shards,
}
"""``EnvConfig.backend`` -> a function of the config and the shard count that returns the shard
factory."""


@dataclass
class _Episode:
    """What the parent knows of an instance's current episode: enough to replay it."""

    world: str = ""
    task_idx: int = -1
    seed: int | None = None
    turns: list[Any] = field(default_factory=list)  # actions; None marks a turn a crash lost
    done: bool = True
    lost: str = ""  # why its worker lost it (it then waits for a reset)


@dataclass
class _PendingStep:
    """A step :meth:`ShardedRuntime.start_step` sent: the batch, the outcomes known without a
    worker (lost episodes), the positions sent, and each shard's part."""

    indices: list[int]
    actions: list[Any]
    out: list[Any]
    sent: list[int]
    plan: dict[Any, tuple[list[int], list[int], list[list[Any]]]]


class ShardedRuntime:
    """The :class:`~awm_gym.envs.protocol.Runtime` over ``num_workers`` processes or Ray actors.

    Args:
        world_set, worlds, num_instances, config: as for :class:`WorldRuntime`.
        num_workers: worker processes (at most one per instance).
        contained: apply :mod:`awm_gym.containment` in each worker before world code runs.
        tasks: as for :class:`WorldRuntime` (the task indices resets may use per world).
        shard_factory: builds one shard from ``(spec, indices)``; None picks it from
            ``config.backend`` (local processes, or Ray actors:
            :class:`~awm_gym.envs.ray_shards.RayShard`).
    """

    def __init__(self, world_set: WorldSet, worlds: Sequence[str], num_instances: int,
                 config: EnvConfig, num_workers: int, *, contained: bool = False,
                 tasks: Mapping[str, Sequence[int]] | None = None,
                 shard_factory: ShardFactory | None = None) -> None:
        if num_workers < 1:
            raise EnvUsageError(f"num_workers={num_workers}: must be >= 1 (0 means in-process).")
        num_workers = min(num_workers, num_instances)
        if shard_factory is None:
            shard_factory = _SHARD_BACKENDS[config.backend](config, num_workers)
        self.world_set, self.worlds, self.config = world_set, tuple(worlds), config
        self.num_instances = num_instances
        local = {} if config.backend != "local" or config.cache_dir is not None else {
            "cache_dir": str(default_cache_dir())}  # a contained worker's $HOME is its scratch
        shard_config = EnvConfig(**{**config.__dict__, **local, "verifier_workers":
                                    max(1, config.verifier_workers // num_workers)})
        allowed = None if tasks is None else {w: tuple(t) for w, t in tasks.items()}
        cache_writable, warm = True, {}
        if config.backend == "local":  # a Ray cluster's nodes keep caches of their own
            warm = warm_worlds(world_set, self.worlds, shard_config, contained, ProcessShard)
            # workers that run tool calls see a warm cache read-only (only builders write it)
            cache_writable = not (contained and len(warm) == len(self.worlds))
        spec = (world_set.root, list(self.worlds), shard_config, contained, allowed,
                cache_writable, warm)
        bounds = [round(k * num_instances / num_workers) for k in range(num_workers + 1)]
        self._shards = [shard_factory(spec, range(bounds[k], bounds[k + 1]))
                        for k in range(num_workers)]
        self._owner = [(s, i - s.indices.start) for s in self._shards for i in s.indices]
        self._episodes = [_Episode() for _ in range(num_instances)]
        self._tool_calls: dict[int, list[tuple[str, str, Any]]] = {}
        """Tool session -> its calls so far (replayed after its worker restarts)."""
        self._lost_tool_sessions: dict[int, str] = {}  # tool session -> why its worker lost it
        self._catalogue_texts = CatalogueTexts(warm, shard_config.cache_dir)
        asked = self.worlds
        try:  # made while the workers start; again below if they leave a world out
            early: tuple[tuple[str, int], ...] | None = tuple(tasks_of(asked, world_set, allowed))
        except UnknownWorldError:  # a world whose rows turned out broken: a worker says which
            early = None
        for k, shard in enumerate(self._shards):  # wait until every worker has started
            containment, worlds, skipped = shard.reply(time.monotonic() + 600)
            self.worlds = tuple(worlds)  # minus those that cannot be prepared
            for message in skipped if k == 0 else ():  # said where the caller sees it
                warnings.warn(message, WorldSkippedWarning, stacklevel=3)
        self.tasks: tuple[tuple[str, int], ...] = (
            early if early is not None and self.worlds == asked
            else tuple(tasks_of(self.worlds, world_set, allowed)))
        """Every ``(world, task_idx)`` a reset may pick (the workers hold the same list)."""
        self._world_names = frozenset(self.worlds).intersection(asked)  # what a reply may name
        self.containment: dict[str, dict[str, str]] | None = containment
        """Which containment layers are active in the workers (None: not contained)."""
        if containment is not None and containment.get("missing"):  # the workers' own warnings
            from awm_gym import containment as layers  # go to their logs: said here

            layers.warn_missing_layers("world code", containment["missing"])

    def __repr__(self) -> str:
        return (f"ShardedRuntime(worlds={len(self.worlds)}, num_instances={self.num_instances}, "
                f"num_workers={len(self._shards)})")

    def _scatter(self, indices: Sequence[int], *columns: Sequence[Any]
                 ) -> dict[Shard, tuple[list[int], list[int], list[list[Any]]]]:
        plan: dict[Shard, tuple[list[int], list[int], list[list[Any]]]] = {}
        for pos, i in enumerate(indices):
            shard, local = self._owner[i]
            entry = plan.setdefault(shard, ([], [], [[] for _ in columns]))
            entry[0].append(pos)
            entry[1].append(local)
            for col, values in zip(entry[2], columns, strict=True):
                col.append(values[pos])
        return plan

    def reset(self, indices: Sequence[int], seeds: Sequence[int | None],
              task_idx: Sequence[int | None], worlds: Sequence[str | None]
              ) -> list[tuple[str, dict[str, Any]]]:
        plan = self._scatter(indices, seeds, task_idx, worlds)
        for shard, (_, local, cols) in plan.items():
            shard.request(("reset", local, *cols))
        out: list[Any] = [None] * len(indices)
        for shard, (positions, local, cols) in plan.items():
            try:
                results = self._checked(shard.reply(time.monotonic() + 120), len(positions),
                                        "reset", shard)
            except (EOFError, TimeoutError, OSError) as e:
                for pos in positions:  # these were being reset: nothing of theirs to keep
                    self._episodes[indices[pos]] = _Episode()
                results = self._reset_again(shard, ("reset", local, *cols), e)
            for pos, (obs, info) in zip(positions, results, strict=True):
                out[pos] = (obs, info)
                self._episodes[indices[pos]] = _Episode(info[K.WORLD], info[K.TASK_IDX],
                                                        seeds[pos], [], False)
        return out

    def _reset_again(self, shard: Shard, message: tuple[Any, ...], error: BaseException
                     ) -> list[Any]:
        """Reset ``shard``'s instances of ``message`` after its worker failed the reset (world
        code of an earlier request may have left the channel broken, or ended the worker
        between requests): restart it and replay its other episodes, then reset again; if that
        fails too, its other episodes are lost and a bare worker resets them. Raises
        :class:`EnvUsageError` only when a bare worker cannot reset (no world code ran there)."""
        for replays in (True, False):
            reason = failure_reason(error)
            logger.warning("worker for instances %d-%d %s while resetting (%s); restarting it",
                           shard.indices.start, shard.indices.stop - 1, reason, error)
            try:
                if replays:
                    self._restart_and_replay(shard)
                else:
                    self._lose_all(shard, [], reason)
                return self._checked(shard.call(message), len(message[1]), "reset", shard)
            except (EOFError, TimeoutError, OSError) as e:
                error = e
        raise EnvUsageError(f"a new worker could not reset instances {message[1]} of its shard "
                            f"({error}); see the worker's log.") from error

    def step(self, indices: Sequence[int], actions: Sequence[Any]) -> list[StepOutcome]:
        return self.finish_step(self.start_step(indices, actions))

    def start_step(self, indices: Sequence[int], actions: Sequence[Any]) -> _PendingStep:
        """Send every shard its part of a step and return without waiting for the replies
        (:meth:`finish_step` reads them): a runtime over several of these steps them all at
        once (:mod:`awm_gym.envs.world_shards`)."""
        out: list[Any] = [None] * len(indices)
        sent = []  # positions of instances whose worker still holds their episode
        for pos, i in enumerate(indices):
            if self._episodes[i].lost:
                out[pos] = self._lost_outcome(i, self._episodes[i].lost)
            else:
                sent.append(pos)
        plan = self._scatter([indices[p] for p in sent], [actions[p] for p in sent])
        for shard, (_, local, cols) in plan.items():
            shard.request(("step", local, *cols))
        return _PendingStep(list(indices), list(actions), out, sent, plan)

    def finish_step(self, pending: _PendingStep) -> list[StepOutcome]:
        """The outcomes of a step :meth:`start_step` sent, in its order."""
        indices, actions, out, sent = pending.indices, pending.actions, pending.out, pending.sent
        for shard, (positions, local, cols) in pending.plan.items():
            positions = [sent[p] for p in positions]
            progress = StepDeadlines(self.config)
            try:
                results = self._checked(shard.reply(progress.deadline_for(0), progress),
                                        len(positions), "step", shard)
            except (EOFError, TimeoutError, OSError) as e:
                reason = failure_reason(e)
                logger.warning("worker for instances %d-%d %s (%s); restarting it",
                               shard.indices.start, shard.indices.stop - 1, reason, e)
                culprit = progress.culprit if shard.names_culprit else None
                results = self._recover(shard, [indices[p] for p in positions], local, cols[0],
                                        culprit, reason, unsent=isinstance(e, WorkerGone),
                                        may_be_forged=progress.may_be_forged)
            for pos, result in zip(positions, results, strict=True):
                out[pos] = result
                episode = self._episodes[indices[pos]]
                if result.terminated or result.truncated:
                    episode.done = True
                elif WORKER_ERROR not in result.info:
                    episode.turns.append(actions[pos])
        return out

    def forget(self, i: int) -> None:
        """Instance ``i``'s episode goes on elsewhere (another world's runtime): its state here
        is not replayed after a restart, nor reported lost."""
        self._episodes[i] = _Episode()

    def _checked(self, results: Any, expected: int, kind: str, shard: Shard) -> list[Any]:
        """A worker's ``step``/``reset`` results as the caller may use them: one per instance
        asked for (else a :class:`~awm_gym.envs.wire.ProtocolError`: the worker counts as dead),
        each :class:`~awm_gym.envs.wire.CatalogueRef` replaced by the catalogue's text (one of
        this env's worlds, else a ``ProtocolError``; ``shard`` sends a text this process cannot
        read from its cache) and every observation within ``max_text_length``, which world code
        writing a frame of its own to the reply descriptor could otherwise skip."""
        if len(results) != expected:
            raise wire.ProtocolError(f"a reply to {kind!r} has {len(results)} results for "
                                     f"{expected} instances; the worker is treated as dead")
        limit = self.config.max_text_length
        if kind == "reset":
            return [(clip_text(obs, limit), info) for obs, info in results]
        results = [replace(r, observation=self._referred_text(r.observation, shard))
                   if isinstance(r.observation, wire.CatalogueRef) else r for r in results]
        return [r if len(r.observation) <= limit else
                replace(r, observation=clip_text(r.observation, limit))
                for r in results]

    # -- recovery -----------------------------------------------------------------------------
    def _recover(self, shard: Shard, instances: list[int], local: list[int],
                 actions: list[Any], culprit: int | None, reason: str, *,
                 unsent: bool = False, may_be_forged: bool = False) -> list[StepOutcome]:
        """Restart ``shard``, rebuild its live instances, and rerun the batch without the
        instance that was running when the worker died (``culprit``, a position in the batch
        sent); repeat while another action of the batch takes the worker down. ``unsent``:
        the batch never reached the worker (it had died after its last answer): it is rerun
        whole, once.

        A culprit named after other world code ran in its request (``may_be_forged``:
        :attr:`~awm_gym.envs.process_shard.StepDeadlines.may_be_forged`) may be an innocent
        neighbour that an earlier action's world code named in a progress frame of its own
        before it ended or hung the worker. Its blame is confirmed before it is given: after
        the restart and replay its action runs alone (a request of one action, where no other
        position's code runs). If the worker dies, hangs or breaks the protocol again, the
        blame stands; if it answers, that is its outcome, and the rest of the batch is rerun
        (where the real culprit takes the worker down again and is named). Each position runs
        alone at most once (a suspect's action runs at most twice: in the batch and alone), so
        a batch of n actions is settled after at most 2n + 1 restarts; a confirmed hang costs
        its deadline twice, a confirmed death a restart and a replay more. A death with no
        other world code before it in its request (the honest single suspect) is blamed at
        once.
        """
        blamed: dict[int, str] = {}  # batch position -> why
        results: dict[int, StepOutcome] = {}  # batch position -> its outcome
        part = list(range(len(local)))  # the positions of the request that failed
        while True:
            alone: int | None = None  # a culprit whose blame is to be confirmed
            if unsent and culprit is None:  # no action of the batch ran: nobody to blame
                unsent = False
            elif culprit is None or not 0 <= culprit < len(part):  # died before any action,
                return self._lose_all(shard, instances, reason)  # loading, or while replaying
            elif may_be_forged and len(part) > 1:
                alone = part[culprit]
            else:
                blamed[part[culprit]] = reason
            culprit, may_be_forged = None, False
            progress: StepDeadlines | None = None  # of the request in flight
            try:  # the outcomes kept so far are replayed as one more turn of their episodes
                self._restart_and_replay(shard, {instances[k]: actions[k] for k in results})
                truncated = dict(zip(blamed, shard.call(("lost_turn", [local[k] for k in blamed])),
                                     strict=True)) if blamed else {}
                if alone is not None:
                    part, progress = [alone], StepDeadlines(self.config)
                    results[alone] = self._step_part(shard, local, actions, part, progress)[0]
                part = [k for k in range(len(local)) if k not in blamed and k not in results]
                if part:
                    progress = StepDeadlines(self.config)
                    results.update(zip(part, self._step_part(shard, local, actions, part,
                                                             progress), strict=True))
                break
            except (EOFError, TimeoutError, OSError) as e:
                reason = failure_reason(e)
                logger.warning("worker for instances %d-%d %s again (%s)", shard.indices.start,
                               shard.indices.stop - 1, reason, e)
                if progress is not None:
                    culprit, may_be_forged = progress.culprit, progress.may_be_forged
        for k, why in blamed.items():
            results[k] = self._blame(instances[k], why, truncated[k])
        return [results[k] for k in range(len(local))]

    def _step_part(self, shard: Shard, local: list[int], actions: list[Any], part: list[int],
                   progress: StepDeadlines) -> list[StepOutcome]:
        """The outcomes of the batch positions ``part`` (of a batch being recovered), stepped
        in one request whose progress ``progress`` follows."""
        shard.request(("step", [local[k] for k in part], [actions[k] for k in part]))
        return self._checked(shard.reply(progress.deadline_for(0), progress), len(part), "step",
                             shard)

    def _blame(self, i: int, reason: str, truncated: bool) -> StepOutcome:
        """The outcome of an action that took its worker down; the episode goes on from the
        state before it (rebuilt by replay), unless that turn was its last."""
        episode = self._episodes[i]
        episode.turns.append(None)
        info = {K.WORLD: episode.world, K.TASK_IDX: episode.task_idx, K.STEP: len(episode.turns),
                K.ACTION_KIND: "tool_call", K.TOOL_OUTCOME: (
                    ToolOutcome.WORKER_TIMED_OUT if reason == "timed out"
                    else ToolOutcome.WORKER_DIED),
                WORKER_ERROR: reason, K.REWARD_VALID: True}
        text = f"Error: {_crash_text(reason)}"
        end = step_reward(StepEnd.TRUNCATED if truncated else StepEnd.ONGOING, self.config.rewards)
        return StepOutcome(text, end.reward, False, truncated, info)

    def _restart_and_replay(self, shard: Shard, taken: Mapping[int, Any] | None = None) -> None:
        """Restart ``shard`` and replay every live episode of its instances (seeded resets,
        then their actions turn by turn; lost turns are counted again). ``taken``: instance ->
        an action of the batch being recovered whose outcome is kept, replayed as one more
        turn."""
        shard.restart()
        for i in shard.indices:  # tool sessions (MCP): their calls again, in order
            for world, name, arguments in self._tool_calls.get(i, ()):
                shard.call(("call_tool", i - shard.indices.start, world, name, arguments),
                           timeout_s=self.config.tool_timeout_s + self.config.import_timeout_s
                           + 15)
        taken = taken or {}
        live = [(i - shard.indices.start, self._episodes[i],
                 [*self._episodes[i].turns, *([taken[i]] if i in taken else [])])
                for i in shard.indices if not self._episodes[i].done]
        if not live:
            return
        shard.call(("reset", [loc for loc, _, _ in live], [e.seed for _, e, _ in live],
                    [e.task_idx for _, e, _ in live], [e.world for _, e, _ in live]))
        for t in range(max(len(turns) for _, _, turns in live)):
            due = [(loc, turns[t]) for loc, _, turns in live if len(turns) > t]
            acted = [(loc, a) for loc, a in due if a is not None]
            lost = [loc for loc, a in due if a is None]
            if acted:
                shard.call(("step", [loc for loc, _ in acted], [a for _, a in acted]),
                           timeout_s=len(acted) * (self.config.tool_timeout_s + 5) + 60)
            if lost:
                shard.call(("lost_turn", lost))

    def _lose_all(self, shard: Shard, instances: list[int], reason: str) -> list[StepOutcome]:
        """The fallback: the stepped instances end truncated with ``worker_error``; the shard's
        other live episodes are lost too and get that outcome when next stepped."""
        stepped = set(instances)
        for i in shard.indices:
            episode = self._episodes[i]
            if not episode.done and i not in stepped:
                episode.lost = reason
            episode.done = True
            if self._tool_calls.pop(i, None) is not None:
                self._lost_tool_sessions[i] = reason
        shard.restart()
        return [self._lost_outcome(i, reason) for i in instances]

    def _lost_outcome(self, i: int, reason: str) -> StepOutcome:
        episode = self._episodes[i]
        episode.lost = ""  # reported once; the caller must reset the instance now
        end = step_reward(StepEnd.UNSCORED, self.config.rewards)
        return StepOutcome(
            f"Error: the worker process running this instance {reason}; the episode cannot "
            "continue.", end.reward, False, True,
            {K.WORLD: episode.world, WORKER_ERROR: reason, **end.info})

    # -- the rest of the Runtime protocol -------------------------------------------------------
    def tools_text(self, world: str) -> str:
        if world not in self._world_names:
            raise UnknownWorldError(f"World {world!r} is not one of this env's worlds "
                                    f"({len(self.worlds)}, e.g. {', '.join(self.worlds[:3])}).")
        return self._catalogue_texts.text(world, self._asker(self._shards[0]))

    def _referred_text(self, ref: wire.CatalogueRef, shard: Shard) -> str:
        """The text of a worker's catalogue reference: only this env's worlds may be named,
        and ``shard`` (the one whose reply named it, so it is idle) sends what the cache lacks."""
        if ref.world not in self._world_names:
            raise wire.ProtocolError(f"a worker named the catalogue of {ref.world!r}, which is "
                                     "not one of this env's worlds; it is treated as dead")
        return self._catalogue_texts.text(ref.world, self._asker(shard))

    @staticmethod
    def _asker(shard: Shard) -> Callable[[str], str]:
        return lambda world: shard.call(("tools_text", world), 60)

    def tools(self, world: str) -> list[dict[str, Any]]:
        return self._shards[0].call(("tools", world), 60)

    def instance_world(self, i: int) -> tuple[str, int]:
        episode = self._episodes[i]
        return episode.world, episode.task_idx

    def database(self, i: int) -> sqlite3.Connection | None:
        """A copy of instance ``i``'s database as it is now (it lives in a worker process:
        read the copy, writes to it go nowhere); None before its first reset."""
        data = self.snapshot(i)
        if data is None:
            return None
        conn = sqlite3.connect(":memory:")
        conn.deserialize(data)
        return conn

    def snapshot(self, i: int) -> bytes | None:
        shard, local = self._owner[i]
        return shard.call(("snapshot", local), 60)

    def template(self, world: str) -> bytes:
        return self._shards[0].call(("template", world), 60)

    def title(self, world: str) -> str:
        return self._shards[0].call(("title", world), self.config.import_timeout_s + 70)

    # -- raw tool calls (MCP sessions) ----------------------------------------------------------
    def call_tool(self, key: int, world: str, name: str, arguments: Any) -> tuple[str, bool]:
        """:meth:`WorldRuntime.call_tool` in the worker that owns instance ``key`` (the server
        gives a tool session an instance index no episode holds meanwhile). A call that ends or
        hangs its worker gets an error result; the worker is restarted and the shard's episodes
        and tool sessions are rebuilt by replay without that call. Where the replay fails too,
        the shard's tool sessions are lost: each of their calls then gets an error result until
        :meth:`end_tool_session`."""
        lost = self._lost_tool_sessions.get(key)
        if lost is not None:
            return (f"the worker process running this session {lost} and its database was "
                    "lost; start a new session.", True)
        shard, local = self._owner[key]
        calls = self._tool_calls.setdefault(key, [])  # the worker may open its database now
        progress = StepDeadlines(self.config)
        try:
            shard.request(("call_tool", local, world, name, arguments))
            result = shard.reply(progress.deadline_for(0), progress)
        except (EOFError, TimeoutError, OSError) as e:
            reason = failure_reason(e)
            logger.warning("worker for instances %d-%d %s in a call of %s (%s); restarting it",
                           shard.indices.start, shard.indices.stop - 1, reason, name, e)
            try:
                self._restart_and_replay(shard)
            except (EOFError, TimeoutError, OSError):
                self._lose_all(shard, [], reason)
            return _crash_text(reason), True
        calls.append((world, name, arguments))
        return result

    def end_tool_session(self, key: int) -> None:
        """Close tool session ``key``'s database in its worker."""
        self._lost_tool_sessions.pop(key, None)
        if self._tool_calls.pop(key, None) is None:
            return  # it made no call: its worker holds no database for it
        shard, local = self._owner[key]
        try:
            shard.call(("end_tool_session", local), 60)
        except (EOFError, TimeoutError, OSError) as e:  # its next request restarts it
            logger.warning("ending tool session %d failed (%s)", key, e)

    def close(self) -> None:
        for shard in self._shards:
            shard.close()


def _crash_text(reason: str) -> str:
    """What a call that took its worker down reads (``reason``: :func:`failure_reason`)."""
    cause = {"timed out": "ran past its timeout and ignored it",
             LEFT_WORK: ("left work running after it answered (a thread, a timer or a signal "
                         "handler), so the process running it was ended"),
             FORGED: ("wrote to the reply channel of the process running it (a frame its "
                      "request does not allow), so that process was ended"),
             }.get(reason, "ended the process running it")
    return f"the tool call {cause}; the world was restored to its state before this call."
