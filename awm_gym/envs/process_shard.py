"""One shard in a local worker process, and the per-action deadlines its caller keeps.

:class:`ProcessShard` starts a worker process (:class:`~awm_gym.envs.worker_process.WorkerProcess`
on :mod:`awm_gym.envs.shard_worker`), sends it pickled requests and reads its answers as checked
JSON frames (:mod:`awm_gym.envs.wire`), each preceded by the ``progress`` frames that name the
instance about to run. :class:`~awm_gym.envs.shards.ShardedRuntime` drives it on this machine;
a Ray actor (:mod:`awm_gym.envs.ray_shards`) drives one on its node and relays the answer frame
undecoded (:meth:`ProcessShard.reply_frame`), which the caller checks with
:func:`decode_final_frame`. :class:`StepDeadlines` is the deadline of each action (reset by
every progress frame) and remembers which instance was running when a worker died or hung.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from typing import Any

from awm_gym.envs import leftover_work, wire
from awm_gym.envs.config import EnvConfig
from awm_gym.envs.runtime import LOADING
from awm_gym.envs.shard_worker import send_message
from awm_gym.envs.worker_process import WorkerProcess

__all__ = ["ProcessShard", "StepDeadlines", "decode_final_frame", "failure_reason"]


def failure_reason(error: BaseException) -> str:
    """How a shard's failure is named (``info["worker_error"]``, the observation): ``timed
    out``, the worker ended itself because an action left work running
    (:data:`~awm_gym.envs.leftover_work.REASON`), else ``died``."""
    if isinstance(error, TimeoutError):
        return "timed out"
    return leftover_work.REASON if isinstance(error, leftover_work.WorkLeftRunning) else "died"


class ProcessShard:
    """One local worker process (:class:`~awm_gym.envs.worker_process.WorkerProcess`) and the
    global instance indices it owns."""

    names_culprit = True

    def __init__(self, spec: tuple[Any, ...], indices: range) -> None:
        self.spec, self.indices = spec, indices
        self.worker: WorkerProcess | None = None
        self._kind = ""
        self.start()

    @property
    def scratch(self) -> str:
        """The running worker's scratch directory ('' when none runs)."""
        return self.worker.scratch if self.worker is not None else ""

    def start(self) -> None:
        self.worker = WorkerProcess("awm_gym.envs.shard_worker", contained=bool(self.spec[3]),
                                    runs_package_init=False)
        self.request(("init", *self.spec, len(self.indices)))

    def kill(self) -> None:
        if self.worker is not None:
            self.worker.kill()
            self.worker = None

    def restart(self) -> Any:
        """Kill and start the worker again; returns its init reply."""
        self.kill()
        self.start()
        return self.reply(time.monotonic() + 600)

    def request(self, message: Any) -> None:
        self._kind = message[0]
        send_message(self.worker.requests, message)

    def reply(self, deadline: float, on_progress: Callable[[int], float] | None = None) -> Any:
        """The worker's answer; ``progress`` frames before it reset the deadline to
        ``on_progress(pos)``. A frame that is not what the request asked for is a
        :class:`~awm_gym.envs.wire.ProtocolError` (an ``EOFError``: the worker counts as dead)."""
        return decode_final_frame(self._kind, self.reply_frame(deadline, on_progress))

    def reply_frame(self, deadline: float,
                    on_progress: Callable[[int], float] | None = None) -> bytes:
        """The answer's frame (header and body) as the worker wrote it, after its ``progress``
        frames (decoded and passed to ``on_progress``): a Ray actor relays it undecoded and the
        caller checks it (:func:`decode_final_frame`). A worker that ended itself because an
        action left work running raises :class:`~awm_gym.envs.leftover_work.WorkLeftRunning`."""
        try:
            return self._read_answer(deadline, on_progress)
        except wire.ProtocolError:
            raise
        except EOFError as e:
            if self._exit_status() == leftover_work.EXIT_STATUS:
                raise leftover_work.WorkLeftRunning(
                    f"the worker {leftover_work.REASON} (see its log)") from e
            raise

    def _exit_status(self) -> int | None:
        """The worker's exit status once it has ended (its pipe closed), else None."""
        try:
            return self.worker.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:  # alive: world code closed the pipe, not an exit
            return None

    def _read_answer(self, deadline: float, on_progress: Callable[[int], float] | None) -> bytes:
        replies = self.worker.replies
        while True:
            header = wire.read_exactly(replies, wire.HEADER.size, deadline)
            json_size, blob_size = wire.HEADER.unpack(header)
            if json_size > wire.MAX_JSON_BYTES:
                raise wire.ProtocolError(f"a reply of {json_size} bytes is over the limit")
            body = wire.read_exactly(replies, json_size + blob_size, deadline)
            if not body.startswith(_PROGRESS):  # the answer: decoded by whoever uses it
                return header + body
            _, pos = wire.decode_reply(self._kind, body, json_size, blob_size)
            if on_progress is not None:
                deadline = on_progress(pos)

    def call(self, message: Any, timeout_s: float = 120.0) -> Any:
        self.request(message)
        return self.reply(time.monotonic() + timeout_s)

    def close(self) -> None:
        if self.worker is not None:
            try:
                send_message(self.worker.requests, ("close",))
                self.worker.proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired, ValueError):
                pass
        self.kill()


_PROGRESS = b'["progress",'
"""How a progress frame's body starts (:func:`awm_gym.envs.wire.encode_reply`)."""


def decode_final_frame(kind: str, frame: bytes) -> Any:
    """The payload of the answer ``frame`` to a request of ``kind`` (header and body, checked
    by :func:`awm_gym.envs.wire.decode_reply`); an ``error`` answer is raised, and a frame that
    is not an answer is a :class:`~awm_gym.envs.wire.ProtocolError`."""
    if len(frame) < wire.HEADER.size:
        raise wire.ProtocolError(f"a reply to {kind!r} is not a frame")
    json_size, blob_size = wire.HEADER.unpack(frame[:wire.HEADER.size])
    if json_size > wire.MAX_JSON_BYTES or wire.HEADER.size + json_size + blob_size != len(frame):
        raise wire.ProtocolError(f"a reply to {kind!r}: the frame's sizes do not add up")
    status, payload = wire.decode_reply(kind, frame[wire.HEADER.size:], json_size, blob_size)
    if status == "error":
        raise payload
    if status != "ok":
        raise wire.ProtocolError(f"a reply to {kind!r} is a {status!r} frame, not an answer")
    return payload


class StepDeadlines:
    """Per-instance deadlines while a shard steps, and which instance was running."""

    def __init__(self, config: EnvConfig) -> None:
        self.config, self.running = config, None

    def __call__(self, pos: int) -> float:
        self.running = pos
        return self.deadline_for(pos)

    def deadline_for(self, pos: int) -> float:
        if pos >= 0:
            return time.monotonic() + self.config.tool_timeout_s + 5.0
        if pos == LOADING:  # a world's code runs before its first call, as at import
            return time.monotonic() + self.config.import_timeout_s + 10.0
        judge_s = self.config.judge.timeout_s if self.config.judge is not None else 0.0
        return time.monotonic() + 2 * self.config.verifier_timeout_s + judge_s + 10.0
