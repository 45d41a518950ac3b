"""Shards as Ray actors: ``backend="ray"`` places each of the ``num_workers`` shards in a cluster.

Each shard is one Ray actor that starts, on its node, the same contained worker process a local
shard runs (:class:`~awm_gym.envs.process_shard.ProcessShard`: ``python -I`` on
:mod:`awm_gym.envs.shard_worker`, the scrubbed environment, Landlock, seccomp without the
network, ``RLIMIT_AS``, JSON replies) and relays frames to and from it: the actor's own process,
which holds Ray's module and its sockets to the raylet, runs none of the world's code, so world
code cannot submit Ray tasks or reach the cluster (docs/runtime.md, "Ray"). Observations,
rewards and infos are those of the in-process runtime for the same seeds and actions.
:class:`~awm_gym.envs.shards.ShardedRuntime` drives the actors exactly as it drives local
processes: a step sends every shard its part of the batch at once (one actor call per shard)
and then collects the replies.

The actor reads its worker's progress frames and keeps the same per-action deadlines as the
caller of a local worker (``tool_timeout_s + 5`` s per action): a worker that dies or hangs is
killed by the actor, which answers with the reason and the batch positions its worker reported,
so the culprit is named (and confirmed where its naming may be forged) and the shard's other
episodes are rebuilt by replay, as with local workers. Only an actor that itself dies (its
process killed, its node lost) names no culprit: the instances it was stepping end truncated
with ``info["worker_error"]``, its other live instances get the same outcome when next
stepped. Replies are :mod:`awm_gym.envs.wire` frames
the caller checks; the actor forwards the answer's frame undecoded.

Example:
    >>> import gymnasium as gym, awm_gym, ray  # doctest: +SKIP
    >>> ray.init(address="auto")  # or make_vec(..., ray_address="head:6379")  # doctest: +SKIP
    >>> envs = gym.make_vec("AWM/mix-v0", num_envs=1024, num_workers=8,  # doctest: +SKIP
    ...                     backend="ray")
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import os
import time
from collections.abc import Callable
from typing import Any

try:
    import ray
except ImportError:  # the optional extra; EnvConfig(backend="ray") says how to install it
    ray = None

from awm_gym.envs import leftover_work, wire
from awm_gym.envs.config import EnvConfig
from awm_gym.envs.process_shard import (
    FORGED,
    ProcessShard,
    StepDeadlines,
    decode_final_frame,
    failure_reason,
)
from awm_gym.errors import EnvUsageError
from awm_gym.worlds.template_db import default_cache_dir

logger = logging.getLogger(__name__)

__all__ = ["RayShard", "connect", "check_capacity"]


def connect(address: str | None) -> None:
    """Connect this process to the Ray cluster at ``address`` unless it is connected already
    (None: start a local one)."""
    if ray is None:
        raise ImportError('backend="ray" needs the ray package: pip install "awm-gym[ray]".')
    if not ray.is_initialized():
        logger.info("joining the Ray cluster at %s", address or "a new local cluster")
        ray.init(address=address)


def check_capacity(num_actors: int) -> None:
    """Refuse what Ray would otherwise wait on until the start deadline: more one-CPU shard
    actors than the connected cluster has CPUs (an autoscaling cluster counts the CPUs it has
    now).

    Raises:
        EnvUsageError: naming the count, the cluster's CPUs and both fixes.
    """
    cpus = ray.cluster_resources().get("CPU", 0)
    if num_actors > cpus:
        raise EnvUsageError(
            f"EnvConfig.num_workers={num_actors} with backend='ray': each shard is an actor that "
            f"needs one CPU and the Ray cluster has {cpus:g}, so Ray would wait for CPUs that "
            f"never come. Lower num_workers to {int(cpus)} or give the cluster more CPUs "
            "(`ray start --num-cpus N` on its nodes, or ray.init(num_cpus=N) before make_vec "
            "for a local cluster).")


_Fault = tuple[str, list[int]]
"""The actor's answer when its worker died, hung or broke the reply protocol: ``(the reason,
the progress positions it admitted, in order)``
(:func:`~awm_gym.envs.process_shard.failure_reason`,
:attr:`~awm_gym.envs.process_shard.StepDeadlines.reported`: the caller's own
:class:`~awm_gym.envs.process_shard.StepDeadlines` is told them again, so it names the same
culprit and knows whether that naming may be forged)."""

_DEADLINE_S = 600.0
"""The actor's limit for a request other than a step or a tool call (an init included); the
caller's own deadline is usually shorter and ends the actor first."""


class _ShardActor:
    """The actor body: one local worker process on this node
    (:class:`~awm_gym.envs.process_shard.ProcessShard`), started by the ``init`` request, and
    the frames relayed to and from it. Nothing of a world is imported or run in this
    process."""

    def __init__(self) -> None:
        self.shard: ProcessShard | None = None
        self.config: EnvConfig | None = None

    def handle(self, message: tuple[Any, ...]) -> bytes | _Fault:
        """The worker's answer frame (undecoded: the caller checks it), or a :data:`_Fault`."""
        kind = message[0]
        if kind == "init":
            self._stop_worker()
            # the template cache of this node: a contained worker's $HOME is its scratch
            config = message[3]
            if config.cache_dir is None:
                config = dataclasses.replace(config, cache_dir=str(default_cache_dir()))
            self.config = config
            spec = (message[1], message[2], config, *message[4:-1])
            self.shard = ProcessShard(spec, range(message[-1]))  # starts it and sends the init
        elif self.shard is None:
            return ("died", [])  # its worker was lost; the caller starts a new actor
        else:
            self.shard.request(message)
        progress = StepDeadlines(self.config)
        timed = kind in ("step", "call_tool")
        deadline = progress.deadline_for(0) if timed else time.monotonic() + _DEADLINE_S
        try:
            return self.shard.reply_frame(deadline, progress if timed else None)
        except (EOFError, TimeoutError, OSError) as e:
            self._stop_worker()
            return (failure_reason(e), list(progress.reported))

    def _stop_worker(self) -> None:
        if self.shard is not None:
            self.shard.kill()
            self.shard = None

    def pid(self) -> int:
        """This actor's process id (tests kill it to check recovery)."""
        return os.getpid()

    def worker_pid(self) -> int | None:
        """The process id of the worker this actor relays to (None: none runs)."""
        return self.shard.worker.proc.pid if self.shard is not None else None

    def close(self) -> None:
        if self.shard is not None:
            self.shard.close()
            self.shard = None


@functools.cache
def _remote_actor_class() -> Any:
    return ray.remote(_ShardActor)


class RayShard:
    """One shard of a :class:`~awm_gym.envs.shards.ShardedRuntime` as a Ray actor.

    Args:
        spec: ``(world set root, worlds, config, contained, tasks, cache_writable, warm)`` (see
            :class:`~awm_gym.envs.shards.Shard`; the root must exist at the same path on every
            node, e.g. the built-in worlds of an installed awm-gym).
        indices: the global instance indices this shard owns.
    """

    names_culprit = True  # the actor names the position its worker was running when it failed

    def __init__(self, spec: tuple[Any, ...], indices: range) -> None:
        self.spec, self.indices = spec, indices
        self.config: EnvConfig = spec[2]
        self.actor: Any = None
        self._pending: Any = None  # the ObjectRef of the request in flight
        self._budget_s = 0.0
        self._kind = ""
        self.start()

    def __repr__(self) -> str:
        return f"RayShard(instances {self.indices.start}-{self.indices.stop - 1})"

    def start(self) -> None:
        # one CPU each, spread over the nodes; no Ray restarts: recovery is ShardedRuntime's
        self.actor = _remote_actor_class().options(num_cpus=1, max_restarts=0,
                                                   scheduling_strategy="SPREAD").remote()
        self.request(("init", *self.spec, len(self.indices)))

    def kill(self) -> None:
        if self.actor is not None:
            ray.kill(self.actor, no_restart=True)
            self.actor, self._pending = None, None

    def restart(self) -> Any:
        self.kill()
        self.start()
        return self.reply(time.monotonic() + 600)

    def request(self, message: tuple[Any, ...]) -> None:
        self._kind = message[0]
        self._pending = self.actor.handle.remote(message)
        self._budget_s = self._batch_budget_s(message)

    def _batch_budget_s(self, message: tuple[Any, ...]) -> float:
        """How long a step batch or tool call may take as a whole: the actor keeps the
        per-action deadlines itself (its worker's progress does not reach this process), so
        this only ends an actor that stopped answering."""
        if message[0] not in ("step", "call_tool"):
            return 0.0
        actions = len(message[1]) if message[0] == "step" else 1
        config = self.config
        judge_s = config.judge.timeout_s if config.judge is not None else 0.0
        # a world's code runs before its first tool call (lazy preparation): one import budget
        return (actions * (config.tool_timeout_s + 5.0) + config.import_timeout_s
                + 2 * config.verifier_timeout_s + judge_s + 10.0)

    def reply(self, deadline: float, on_progress: Callable[[int], float] | None = None) -> Any:
        ref, self._pending = self._pending, None
        timeout_s = max(deadline - time.monotonic(), self._budget_s, 0.0)
        try:
            frame = ray.get(ref, timeout=timeout_s)
        except ray.exceptions.GetTimeoutError as e:
            raise TimeoutError(f"{self!r}: no reply within {timeout_s:.0f} s") from e
        except ray.exceptions.RayActorError as e:
            raise EOFError(f"{self!r}: the actor died ({type(e).__name__})") from e
        if isinstance(frame, tuple):  # the actor's worker died or hung, after these positions
            reason, reported = frame
            for pos in reported if on_progress is not None else ():
                on_progress(pos)
            error = {"timed out": TimeoutError, FORGED: wire.ProtocolError,
                     leftover_work.REASON: leftover_work.WorkLeftRunning}.get(reason, EOFError)
            raise error(f"{self!r}: the worker process {reason}")
        if not isinstance(frame, bytes):
            raise EOFError(f"{self!r}: the actor's reply is not a frame")
        return decode_final_frame(self._kind, frame)

    def call(self, message: tuple[Any, ...], timeout_s: float = 120.0) -> Any:
        self.request(message)
        return self.reply(time.monotonic() + timeout_s)

    def pid(self) -> int:
        """The actor's process id."""
        return ray.get(self.actor.pid.remote(), timeout=60)

    def worker_pid(self) -> int | None:
        """The process id of the worker the actor relays to (None: none runs now)."""
        return ray.get(self.actor.worker_pid.remote(), timeout=60)

    def close(self) -> None:
        if self.actor is None:
            return
        try:
            ray.get(self.actor.close.remote(), timeout=10)
        except (ray.exceptions.GetTimeoutError, ray.exceptions.RayActorError):
            pass
        self.kill()
