"""The worker side of a shard: a WorldRuntime that answers requests, in a worker process.

:class:`ShardWorker` holds one :class:`~awm_gym.envs.runtime.WorldRuntime` and turns each request
tuple into one call of it. A local shard worker (:mod:`awm_gym.envs.shards`) runs it in a process
started with ``python -I`` (:class:`~awm_gym.envs.worker_process.WorkerProcess`): requests
arrive as length-prefixed pickles on one inherited descriptor, each with the id its caller
chose, replies leave as checked JSON frames (:mod:`awm_gym.envs.wire`) carrying that id on
another; stdin is ``/dev/null`` and stdout/stderr go to a
log file in the worker's scratch directory, so nothing world code prints reaches the caller's
reader. A Ray actor (:mod:`awm_gym.envs.ray_shards`) starts the same process on its node and
relays its frames (since issue 31 nothing of a world runs in a Ray process). A contained worker
applies :mod:`awm_gym.containment` once its worlds are loaded, before any world code runs, holds
its scratch directory to a total size (:mod:`awm_gym.envs.scratch_quota`) and ends itself after
an action that left work running (:mod:`awm_gym.envs.leftover_work`).
"""

from __future__ import annotations

import dataclasses
import functools
import os
import pickle
import shutil
import socket
import struct
import sys
import tempfile
import warnings
from collections.abc import Callable
from typing import Any, BinaryIO

from awm_gym import containment
from awm_gym import info_keys as K
from awm_gym.boundary import Failure, capture
from awm_gym.envs import leftover_work, wire
from awm_gym.envs.config import EnvConfig
from awm_gym.envs.leftover_work import LeftoverWork
from awm_gym.envs.prepared import probe_world_of_set
from awm_gym.envs.protocol import StepOutcome
from awm_gym.envs.registration import get_world_set
from awm_gym.envs.runtime import WorldRuntime, clip_text
from awm_gym.envs.scratch_quota import QUOTA_OUTCOME, ScratchQuota
from awm_gym.envs.worker_process import open_worker_streams, shared_memory_area
from awm_gym.errors import EnvUsageError, UnknownWorldError, WorldLoadError, WorldSkippedWarning
from awm_gym.scoring.verifier_pool import VerifierPool
from awm_gym.worlds.template_db import default_cache_dir

__all__ = ["ShardWorker", "WorldCodeFences", "contain_world_worker", "encode_message",
           "receive_message", "send_message"]

_HEADER = struct.Struct("!Q")


def encode_message(message: Any) -> bytes:
    """``message`` as a length-prefixed pickle (a request: the worker trusts its caller)."""
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    return _HEADER.pack(len(data)) + data


def send_message(stream: BinaryIO, message: Any) -> None:
    """Write ``message`` to ``stream`` as a length-prefixed pickle."""
    stream.write(encode_message(message))
    stream.flush()


def _read_exactly(stream: BinaryIO, size: int) -> bytes:
    """``size`` bytes from ``stream`` (an unbuffered pipe may return fewer per read)."""
    chunks, left = [], size
    while left:
        chunk = stream.read(left)
        if not chunk:
            raise EOFError("worker pipe closed")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def receive_message(stream: BinaryIO) -> Any:
    """The next message of ``stream`` (``EOFError`` when the other side closed it)."""
    (size,) = _HEADER.unpack(_read_exactly(stream, _HEADER.size))
    return pickle.loads(_read_exactly(stream, size))


@dataclasses.dataclass(frozen=True, slots=True)
class WorldCodeFences:
    """What a contained world-code worker holds after :func:`contain_world_worker`."""

    report: dict[str, dict[str, str]]
    """:meth:`~awm_gym.containment.ContainmentReport.to_dict`: the layers in force."""
    quota: ScratchQuota
    """Its scratch directory's quota (measured with ``statvfs`` on the scratch tmpfs)."""
    leftovers: LeftoverWork
    """Its idle state, to name what an action left running (threads counted where allowed)."""


def contain_world_worker(root: str, config: EnvConfig, scratch: str,
                         start_helpers: Callable[[], None], cache_writable: bool, *,
                         shm: str) -> WorldCodeFences:
    """Apply :mod:`awm_gym.containment` to a worker process that runs world code (a shard
    worker, ``awm check``'s worker): world code may read its world set and the template cache,
    write ``scratch`` (and the cache only in a worker that builds cold worlds), and nothing else.

    A worker process gets no new thread (unless it calls the LLM judge, whose client runs
    one), no new socket of any family (but ``AF_INET``/``AF_INET6`` for the judge), and a
    scratch directory that is a tmpfs of the scratch quota in namespaces
    of its own (a network namespace too without the judge). ``start_helpers`` starts its
    verifier pool with a spawner (``pool.start(spawner=True)``): no new socket after this.
    """
    cache = str(config.cache_dir or default_cache_dir())
    os.makedirs(cache, exist_ok=True)
    judged = config.judge is not None
    families = (socket.AF_INET, socket.AF_INET6) if judged else ()  # the verifier pool's new
    # workers come from its spawner (awm_gym.scoring.verifier_spawner), over a socketpair
    # made before this
    policy = containment.ContainmentPolicy(
        scratch_dir=scratch, memory_mb=config.worker_memory_mb,
        read_paths=(os.path.realpath(root), cache),
        write_paths=(shm, *((cache,) if cache_writable else ())),
        blocks_network=not judged,  # the LLM judge is called from the worker
        file_size_mb=config.scratch_quota_mb, signals_helpers=True,
        blocks_threads=not judged, socket_families=families, allows_socketpair=judged,
        scratch_fs_mb=config.scratch_quota_mb)
    report = containment.contain_this_process(policy, start_helpers).to_dict()
    refused = "threads" in report["active"].get("seccomp", "")
    return WorldCodeFences(
        report, ScratchQuota(scratch, config.scratch_quota_mb,
                             is_filesystem="scratch_fs" in report["active"]),
        LeftoverWork(counts_threads=not refused))


class ShardWorker:
    """The worker side of a shard: a :class:`WorldRuntime` answering one request at a time.

    A worker process runs it over pipes (:func:`_serve`), started by the caller or by a Ray
    actor (:mod:`awm_gym.envs.ray_shards`). Requests are tuples: ``("init", root, worlds, config,
    contained, tasks, cache_writable, warm, n)`` first, then ``reset``, ``step``, ``lost_turn``,
    ``tools_text``, ``tools``,
    ``snapshot``, ``template``, ``title``, ``call_tool``, ``end_tool_session`` with the arguments
    of the :class:`WorldRuntime` method.

    Args:
        scratch: the scratch directory (a contained worker makes one where None).
        shm: its area in ``/dev/shm`` (made, and removed at close, where None).
    """

    def __init__(self, *, scratch: str | None = None, shm: str | None = None) -> None:
        self.scratch, self.shm = scratch, shm
        self._own_shm = False  # made by this object: removed at close
        self.runtime: WorldRuntime | None = None
        self.quota: ScratchQuota | None = None  # a contained worker's scratch quota
        self.leftovers: LeftoverWork | None = None  # a contained worker process's idle state

    def handle(self, message: tuple[Any, ...], report: Callable[[int], None] | None = None
               ) -> tuple[str, Any]:
        """``("ok", reply)``, or ``("error", exception)`` for a request that raised (programmer
        errors travel back to the caller). ``report(pos)`` is called before the action at batch
        position ``pos`` runs (``-1``: before verifying)."""
        reply = capture(self._dispatch, message, report)  # programmer errors travel back
        return ("error", reply.error) if isinstance(reply, Failure) else ("ok", reply)

    def _dispatch(self, message: tuple[Any, ...], report: Callable[[int], None] | None) -> Any:
        kind = message[0]
        if kind == "init":
            reply: Any = self._init(*message[1:])
        elif kind == "reset":  # task texts cut as the caller cuts them: its size bound
            limit = self.runtime.config.max_text_length  # (awm_gym.envs.reply_bounds) holds
            reply = [(clip_text(obs, limit), info)
                     for obs, info in self.runtime.reset(*message[1:])]
        elif kind == "step":
            reply = self._step(*message[1:], report=report)
        elif kind == "lost_turn":
            reply = [self.runtime.count_lost_turn(i) for i in message[1]]
        elif kind == "tools_text":
            reply = self.runtime.tools_text(message[1])
        elif kind == "tools":
            reply = self.runtime.tools(message[1])
        elif kind == "snapshot":
            reply = self.runtime.snapshot(message[1])
        elif kind == "template":
            reply = self.runtime.template(message[1])
        elif kind == "title":
            reply = self.runtime.title(message[1])
        elif kind == "call_tool":
            if self.leftovers is not None:
                self.leftovers.begin()
            reply = self.runtime.call_tool(*message[1:], before_call=report)
            self._end_if_work_left()
            if self.quota is not None and self.quota.exceeded():
                reply = (self.quota.message(), True)
        elif kind == "end_tool_session":
            reply = self.runtime.end_tool_session(message[1])
        else:
            raise EnvUsageError(f"unknown worker request {kind!r}")
        return reply

    def _step(self, indices: list[int], actions: list[Any],
              report: Callable[[int], None] | None) -> list[StepOutcome]:
        """:meth:`_run_step`, with each ``list_tools`` observation that is its world's whole
        catalogue sent as a :class:`~awm_gym.envs.wire.CatalogueRef` (the caller holds it)."""
        outcomes = self._run_step(indices, actions, report)
        for pos, outcome in enumerate(outcomes):
            if outcome.info.get(K.ACTION_KIND) == "list_tools":
                world = outcome.info[K.WORLD]
                if outcome.observation is self.runtime.tools_text(world):  # not cut short
                    outcomes[pos] = dataclasses.replace(outcome,
                                                        observation=wire.CatalogueRef(world))
        return outcomes

    def _run_step(self, indices: list[int], actions: list[Any],
                  report: Callable[[int], None] | None) -> list[StepOutcome]:
        """``runtime.step``; with a quota, the scratch directory is measured after each action,
        and an action after which it is over quota reads an error (its files are removed)."""
        quota = self.quota
        if quota is None and self.leftovers is None:
            return self.runtime.step(indices, actions, before_each=report)
        unchecked: list[int] = []  # the position whose action ran last (not yet measured)
        over: list[int] = []

        def each(pos: int) -> None:
            if unchecked:
                self._end_if_work_left()  # the caller still names unchecked[0] as running
            if unchecked and quota is not None and quota.exceeded():
                over.append(unchecked[0])
            unchecked[:] = [pos] if pos >= 0 else []
            if pos >= 0 and self.leftovers is not None:
                self.leftovers.begin()
            if report is not None:
                report(pos)

        outcomes = self.runtime.step(indices, actions, before_each=each)
        if unchecked:
            self._end_if_work_left()
        if unchecked and quota is not None and quota.exceeded():
            over.append(unchecked[0])
        for pos in over:
            outcome = outcomes[pos]
            info = {**outcome.info, K.TOOL_OUTCOME: QUOTA_OUTCOME, K.ERROR: quota.message()}
            outcomes[pos] = StepOutcome(f"Error: {quota.message()}", outcome.reward,
                                        outcome.terminated, outcome.truncated, info)
        return outcomes

    def _end_if_work_left(self) -> None:
        """End this process now if the action that just ran left work behind
        (:mod:`awm_gym.envs.leftover_work`): the caller restarts it and replays its episodes
        without that action, which reads that it ended its worker."""
        left = self.leftovers.found() if self.leftovers is not None else None
        if left is not None:
            sys.stderr.write(f"awm_gym worker: an action left work running after it answered "
                             f"({left}); ending the worker\n")
            sys.stderr.flush()
            os._exit(leftover_work.EXIT_STATUS)

    def _init(self, root: str, worlds: list[str], config: EnvConfig, contained: bool,
              tasks: dict[str, tuple[int, ...]] | None, cache_writable: bool,
              warm: dict[str, str], n: int
              ) -> tuple[dict[str, dict[str, str]] | None, list[str], list[str]]:
        """Start the runtime. ``warm``: world -> content hash of the worlds the parent found
        in the cache (their probes passed): they load when first used, unchecked here."""
        # resolved now: a local worker starts with a scrubbed environment (no $AWM_GYM_CACHE,
        # HOME is its scratch directory), so the world set's index and hashes are read from the
        # cache the config names, the caller's
        config = dataclasses.replace(config, cache_dir=str(default_cache_dir()
                                                          if config.cache_dir is None
                                                          else config.cache_dir))
        world_set = get_world_set(root, cache_dir=config.cache_dir)
        for name in worlds:  # import-time hangs and exits, while this process may
            if name in warm:  # still start the probe's child (a failure is remembered)
                continue
            try:
                probe_world_of_set(world_set, name, config)
            except (WorldLoadError, UnknownWorldError):
                pass  # WorldRuntime below leaves it out, or raises, as it should
        if contained:  # every temporary file of this process, multiprocessing's too
            tempfile.tempdir = self.scratch or tempfile.mkdtemp(prefix="awm-world-")
        if contained and self.shm is None:  # none given: its own area, made here
            self.shm, self._own_shm = shared_memory_area(), True
        pool = VerifierPool(num_workers=config.verifier_workers,
                            timeout_s=config.verifier_timeout_s, state_dir=self.shm)
        # its processes must exist before this one gives up starting any; started inside the
        # worker's Landlock domain, so the worker may still signal (time out) them
        start = functools.partial(pool.start, spawner=True)  # no new socket after containment
        report = None
        if contained:
            fences = contain_world_worker(root, config, tempfile.tempdir, start, cache_writable,
                                          shm=self.shm)
            report, self.quota, self.leftovers = fences.report, fences.quota, fences.leftovers
        else:
            pool.start()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", WorldSkippedWarning)
            self.runtime = WorldRuntime(world_set, worlds, n, config, verifier_pool=pool,
                                        tasks=tasks, warm=warm)
        return (report, list(self.runtime.worlds),
                [str(w.message) for w in caught if w.category is WorldSkippedWarning])

    def close(self) -> None:
        if self.runtime is not None:
            self.runtime.close()
            self.runtime = None
        if self._own_shm and self.shm:
            shutil.rmtree(self.shm, ignore_errors=True)
            self.shm = None


def _serve(request_fd: int, reply_fd: int, scratch: str, shm: str) -> None:
    """Worker process main loop: a :class:`ShardWorker` answering requests (pickles of
    ``(request id, request)`` on ``request_fd``) with JSON frames on ``reply_fd``, each
    carrying the id of the request it answers (:data:`~awm_gym.envs.wire.REPLY_HEADER`), until
    'close' or EOF."""
    requests, replies = open_worker_streams(request_fd, reply_fd)
    worker = ShardWorker(scratch=scratch, shm=shm)
    kind, request_id = "", 0

    def report(pos: int) -> None:
        replies.write(wire.encode_reply(kind, "progress", pos, request_id))

    while True:
        if worker.leftovers is not None:
            worker.leftovers.idle()
        try:
            request_id, message = receive_message(requests)
        except EOFError:
            break
        if message[0] == "close":
            break
        if worker.leftovers is not None:
            worker.leftovers.busy()
        kind = message[0]
        status, payload = worker.handle(message, report)
        try:
            frame = wire.encode_reply(kind, status, payload, request_id)
        except (TypeError, ValueError, RecursionError) as e:  # a reply JSON cannot carry
            frame = wire.encode_reply(kind, "error", EnvUsageError(
                f"the worker's reply to {kind!r} cannot be sent ({e})"), request_id)
        replies.write(frame)
    worker.close()


if __name__ == "__main__":
    _serve(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4])
