"""One shard in a local worker process, and the per-action deadlines its caller keeps.

:class:`ProcessShard` starts a worker process (:class:`~awm_gym.envs.worker_process.WorkerProcess`
on :mod:`awm_gym.envs.shard_worker`), sends it pickled requests and reads its answers as checked
JSON frames (:mod:`awm_gym.envs.wire`), each preceded by the ``progress`` frames that name the
instance about to run. World code can write to the reply descriptor, so every frame is held to
the request it answers: it must carry the random id the request was sent with (world code
that does not read it from the worker's memory cannot write a frame the caller takes, and the
worker's answer to an earlier request is never read as this one's), and the request's
:class:`~awm_gym.envs.reply_bounds.ReplyBounds` (positions, order, sizes, an overall time that
no frame extends); a frame that breaks them counts as the worker's death; so does a request
that cannot be written (the worker died between requests, or stopped reading them).
:class:`~awm_gym.envs.shards.ShardedRuntime` drives it on this machine; a Ray actor
(:mod:`awm_gym.envs.ray_shards`) drives one on its node and relays the answer frame undecoded
(:meth:`ProcessShard.reply_frame`, which checks the id), which the caller checks with
:func:`decode_final_frame`. :class:`StepDeadlines` is the deadline of each action (set by each
admitted progress frame, within the request's overall budget) and remembers which instance was
running when a worker died or hung, and whether other world code ran before it in that request
(then the progress frame naming it may be forged).
"""

from __future__ import annotations

import os
import secrets
import select
import subprocess
import time
from collections.abc import Callable
from typing import Any

from awm_gym.envs import leftover_work, wire
from awm_gym.envs.config import EnvConfig
from awm_gym.envs.reply_bounds import VERIFYING, ReplyBounds, phase_s
from awm_gym.envs.shard_worker import encode_message, send_message
from awm_gym.envs.worker_process import WorkerProcess

__all__ = ["FORGED", "ProcessShard", "StepDeadlines", "WorkerGone", "decode_final_frame",
           "failure_reason"]

FORGED = "broke the reply protocol"
"""The failure reason of a worker whose reply channel carried a frame its request does not
allow (world code writing to the reply descriptor)."""


class WorkerGone(EOFError):
    """A request could not be written: the worker died after its last answer, or stopped
    reading its requests. No action of the request ran."""


def failure_reason(error: BaseException) -> str:
    """How a shard's failure is named (``info["worker_error"]``, the observation): ``timed
    out``, the worker ended itself because an action left work running
    (:data:`~awm_gym.envs.leftover_work.REASON`), its reply broke the protocol
    (:data:`FORGED`), else ``died``."""
    if isinstance(error, TimeoutError):
        return "timed out"
    if isinstance(error, wire.ProtocolError):
        return FORGED
    return leftover_work.REASON if isinstance(error, leftover_work.WorkLeftRunning) else "died"


class ProcessShard:
    """One local worker process (:class:`~awm_gym.envs.worker_process.WorkerProcess`) and the
    global instance indices it owns."""

    names_culprit = True

    def __init__(self, spec: tuple[Any, ...], indices: range) -> None:
        self.spec, self.indices = spec, indices
        self.worker: WorkerProcess | None = None
        self._kind = ""
        self._bounds: ReplyBounds | None = None  # of the request in flight
        self._request_id = 0  # of the request in flight: every frame of its reply carries it
        self._sent_at = 0.0
        self._unsent: BaseException | None = None  # why the request in flight was not written
        self.start()

    @property
    def scratch(self) -> str:
        """The running worker's scratch directory ('' when none runs)."""
        return self.worker.scratch if self.worker is not None else ""

    def start(self) -> None:
        self.worker = WorkerProcess("awm_gym.envs.shard_worker", contained=bool(self.spec[3]),
                                    runs_package_init=False)
        os.set_blocking(self.worker.requests.fileno(), False)  # writes wait with a deadline
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
        """Send ``message`` with a new random id (never 0), which every frame of its reply must
        carry; a worker that cannot take it (dead, or not reading within one action's time)
        makes the reply raise :class:`WorkerGone`, never this call."""
        self._kind = message[0]
        self._bounds = ReplyBounds.for_request(message, self.spec[2], len(self.spec[1]))
        self._request_id = secrets.randbelow(2**64 - 1) + 1
        self._sent_at = time.monotonic()
        self._unsent = None
        try:
            self._write(encode_message((self._request_id, message)))
        except (OSError, ValueError, TimeoutError) as e:  # a closed or full pipe
            self._unsent = e

    def _write(self, data: bytes) -> None:
        """Write ``data`` to the worker's (non-blocking) request pipe; ``TimeoutError`` when
        the worker takes none of it for one action's time."""
        fd, view = self.worker.requests.fileno(), memoryview(data)
        wait_s = phase_s(self.spec[2], 0)
        while view:
            if not select.select([], [fd], [], wait_s)[1]:
                raise TimeoutError("the worker does not read its requests")
            try:
                view = view[os.write(fd, view):]
            except BlockingIOError:
                continue

    def reply(self, deadline: float, on_progress: Callable[[int], float] | None = None) -> Any:
        """The worker's answer; each ``progress`` frame before it sets the deadline to
        ``on_progress(pos)``, never past the request's overall budget
        (:class:`~awm_gym.envs.reply_bounds.ReplyBounds`). A frame that is not what the
        request allows, or does not carry its id, is a :class:`~awm_gym.envs.wire.ProtocolError`
        (an ``EOFError``: the worker counts as dead)."""
        return decode_final_frame(self._kind, self.reply_frame(deadline, on_progress))

    def reply_frame(self, deadline: float,
                    on_progress: Callable[[int], float] | None = None) -> bytes:
        """The answer's frame (header and body) as the worker wrote it, after its ``progress``
        frames (decoded and passed to ``on_progress``): a Ray actor relays it undecoded and the
        caller checks it (:func:`decode_final_frame`). A worker that ended itself because an
        action left work running raises :class:`~awm_gym.envs.leftover_work.WorkLeftRunning`."""
        if self._unsent is not None:
            raise WorkerGone(f"the worker could not take a {self._kind!r} request "
                             f"({type(self._unsent).__name__}: {self._unsent})")
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
        replies, bounds = self.worker.replies, self._bounds
        overall = (self._sent_at + bounds.budget_s if bounds.budget_s is not None
                   else float("inf"))  # no frame extends it
        deadline = min(deadline, overall)
        while True:
            header = wire.read_exactly(replies, wire.REPLY_HEADER.size, deadline)
            json_size, blob_size, request_id = wire.REPLY_HEADER.unpack(header)
            if request_id != self._request_id:  # forged blind, or an earlier request's answer
                raise wire.ProtocolError(
                    f"a frame in reply to a {self._kind!r} request carries another request's "
                    "id; the worker is treated as dead")
            bounds.check_sizes(json_size, blob_size)  # before reading a byte of the body
            body = wire.read_exactly(replies, json_size + blob_size, deadline)
            if not body.startswith(_PROGRESS):  # the answer: decoded by whoever uses it
                return header + body
            _, pos = wire.decode_reply(self._kind, body, json_size, blob_size)
            bounds.admit(pos)  # a position the request holds, in order, once
            if on_progress is not None:
                deadline = min(on_progress(pos), overall)

    def call(self, message: Any, timeout_s: float = 120.0) -> Any:
        self.request(message)
        return self.reply(time.monotonic() + timeout_s)

    def close(self) -> None:
        if self.worker is not None:
            try:
                send_message(self.worker.requests, (0, ("close",)))
                self.worker.proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired, ValueError):
                pass
        self.kill()


_PROGRESS = b'["progress",'
"""How a progress frame's body starts (:func:`awm_gym.envs.wire.encode_reply`)."""


def decode_final_frame(kind: str, frame: bytes) -> Any:
    """The payload of the answer ``frame`` to a request of ``kind`` (header and body, checked
    by :func:`awm_gym.envs.wire.decode_reply`; its request id was checked by its reader,
    :meth:`ProcessShard.reply_frame`); an ``error`` answer is raised, and a frame that is not an
    answer is a :class:`~awm_gym.envs.wire.ProtocolError`."""
    size = wire.REPLY_HEADER.size
    if len(frame) < size:
        raise wire.ProtocolError(f"a reply to {kind!r} is not a frame")
    json_size, blob_size, _ = wire.REPLY_HEADER.unpack(frame[:size])
    if json_size > wire.MAX_JSON_BYTES or size + json_size + blob_size != len(frame):
        raise wire.ProtocolError(f"a reply to {kind!r}: the frame's sizes do not add up")
    status, payload = wire.decode_reply(kind, frame[size:], json_size, blob_size)
    if status == "error":
        raise payload
    if status != "ok":
        raise wire.ProtocolError(f"a reply to {kind!r} is a {status!r} frame, not an answer")
    return payload


class StepDeadlines:
    """Per-instance deadlines while a shard steps, and which instance was running (the
    positions it is told of were admitted by the request's
    :class:`~awm_gym.envs.reply_bounds.ReplyBounds`)."""

    def __init__(self, config: EnvConfig) -> None:
        self.config = config
        self.reported: list[int] = []
        """Every position told, in order (a Ray actor sends them on to its caller)."""

    def __call__(self, pos: int) -> float:
        self.reported.append(pos)
        return self.deadline_for(pos)

    @property
    def culprit(self) -> int | None:
        """The batch position to blame for a death: the position told last; while verifying
        (no world code runs in the worker then, so world code that claimed it was) the last
        action that ran; :data:`~awm_gym.envs.runtime.LOADING` while loading a world; None
        before any."""
        if not self.reported:
            return None
        if self.reported[-1] != VERIFYING:
            return self.reported[-1]
        return next((pos for pos in reversed(self.reported) if pos >= 0), None)

    @property
    def may_be_forged(self) -> bool:
        """Whether the frame naming :attr:`culprit` (a batch position) may be world code's:
        other world code (an earlier action's, a world's loading) ran before it in this
        request. The first frame of a request is the worker's own (no world code of the request
        runs before it), and frames name positions in increasing order, so world code can only
        name a position later than its own."""
        culprit = self.culprit
        return culprit is not None and culprit >= 0 and self.reported.index(culprit) > 0

    def deadline_for(self, pos: int) -> float:
        return time.monotonic() + phase_s(self.config, pos)
