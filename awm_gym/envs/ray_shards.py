"""Shards as Ray actors: ``backend="ray"`` places each of the ``num_workers`` shards in a cluster.

Each shard is one Ray actor holding a :class:`~awm_gym.envs.shard_worker.ShardWorker`, the same
object a local worker process runs, so observations, rewards and infos are those of the
in-process runtime for the same seeds and actions. :class:`~awm_gym.envs.shards.ShardedRuntime`
drives the actors exactly as it drives local processes: a step sends every shard its part of the
batch at once (one actor call per shard) and then collects the replies.

What differs from local workers (docs/runtime.md, "Ray"):

- An actor reports no per-instance progress (one call per batch, nothing streamed back), so an
  actor that dies or hangs names no culprit. It is killed and a new one started; the instances
  it was stepping end truncated with ``info["worker_error"]``, its other live instances get the
  same outcome when next stepped, and each needs a fresh reset. Other shards go on.
- A hang is noticed when the whole batch passes its budget (``tool_timeout_s + 5`` s per action,
  plus one ``import_timeout_s`` for a world whose code first runs in it, plus the verification
  margin), not per action.
- Containment inside an actor keeps what Ray needs: new TCP sockets stay allowed (Ray's gRPC),
  Ray's directory on the node stays writable, and there is no address-space limit (the object
  store is mapped into the process). Environment scrubbing, Landlock and the seccomp process
  filter apply as in a local worker.
- Replies are :mod:`awm_gym.envs.wire` frames the caller checks, so a world cannot make the
  caller unpickle its objects through a reply. Ray's own transport is still pickle, and world
  code shares the actor's process: code that rewrites Ray's serializer there reaches the
  caller's Ray client. Use local workers for world sets you do not trust.

Example:
    >>> import gymnasium as gym, awm_gym, ray  # doctest: +SKIP
    >>> ray.init(address="auto")  # or leave it to make_vec: ray_address="head:6379"  # doctest: +SKIP
    >>> envs = gym.make_vec("AWM/mix-v0", num_envs=1024, num_workers=8,  # doctest: +SKIP
    ...                     backend="ray")
"""

from __future__ import annotations

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

from awm_gym.envs import wire
from awm_gym.envs.config import EnvConfig
from awm_gym.envs.shard_worker import ShardWorker
from awm_gym.errors import EnvUsageError

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


def _ray_write_paths() -> tuple[str, ...]:
    """Ray's temporary directory on this node (session logs, sockets, spill files)."""
    node = getattr(ray._private.worker.global_worker, "node", None)  # no public API names it
    temp = node.get_temp_dir_path() if node is not None else "/tmp/ray"
    return (os.path.realpath(temp),)


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


class _ShardActor:
    """The actor body: one :class:`ShardWorker`; Ray runs its calls one at a time on the
    process's main thread (tool timeouts rely on ``SIGALRM``)."""

    def __init__(self) -> None:
        self.worker = ShardWorker(ray_paths=_ray_write_paths())

    def handle(self, message: tuple[Any, ...]) -> bytes:
        """The reply as a :mod:`awm_gym.envs.wire` frame (checked by the caller, not a pickle
        of world code's objects)."""
        status, payload = self.worker.handle(message)
        try:
            return wire.encode_reply(message[0], status, payload)
        except (TypeError, ValueError, RecursionError) as e:
            return wire.encode_reply(message[0], "error", EnvUsageError(
                f"the actor's reply to {message[0]!r} cannot be sent ({e})"))

    def pid(self) -> int:
        """This actor's process id (tests kill it to check recovery)."""
        return os.getpid()

    def close(self) -> None:
        self.worker.close()


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

    names_culprit = False

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
        """How long a step batch may take: no progress comes back to reset a per-action
        deadline, so every action gets its own allowance."""
        if message[0] != "step":
            return 0.0
        config = self.config
        judge_s = config.judge.timeout_s if config.judge is not None else 0.0
        # a world's code runs before its first tool call (lazy preparation): one import budget
        return (len(message[1]) * (config.tool_timeout_s + 5.0) + config.import_timeout_s
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
        if not isinstance(frame, bytes) or len(frame) < wire.HEADER.size:
            raise wire.ProtocolError(f"{self!r}: the reply is not a frame")
        json_size, blob_size = wire.HEADER.unpack(frame[:wire.HEADER.size])
        if json_size > wire.MAX_JSON_BYTES or wire.HEADER.size + json_size + blob_size != len(frame):
            raise wire.ProtocolError(f"{self!r}: the reply frame's sizes do not add up")
        status, payload = wire.decode_reply(self._kind, frame[wire.HEADER.size:], json_size,
                                            blob_size)
        if status == "error":
            raise payload
        return payload

    def call(self, message: tuple[Any, ...], timeout_s: float = 120.0) -> Any:
        self.request(message)
        return self.reply(time.monotonic() + timeout_s)

    def pid(self) -> int:
        """The actor's process id."""
        return ray.get(self.actor.pid.remote(), timeout=60)

    def close(self) -> None:
        if self.actor is None:
            return
        try:
            ray.get(self.actor.close.remote(), timeout=10)
        except (ray.exceptions.GetTimeoutError, ray.exceptions.RayActorError):
            pass
        self.kill()
