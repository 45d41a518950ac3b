"""Shard instances over worker processes: one crashing or hanging world cannot take the env down.

``num_workers=k`` splits the instances into k contiguous shards; each shard lives in its own
Python process (started with ``python -m awm_gym.envs.shards``, so the caller's ``__main__`` is never
re-imported) that loads its worlds once and runs a :class:`~awm_gym.envs.runtime.WorldRuntime`.
A step sends every shard its part at once and collects the replies, so shards run in parallel.

A shard whose reply does not come within its deadline (``tool_timeout_s`` per stepped instance
plus verification and a margin), or whose process dies (a tool called ``os._exit``, a segfault),
is killed and restarted. Only its instances are affected: those stepped in that call get an
error observation and end truncated (``info["worker_error"]``), since their databases died with
the process; every instance of the shard must be reset before its next step.
"""

from __future__ import annotations

import logging
import os
import pickle
import struct
import subprocess
import sys
import time
import warnings
from collections.abc import Sequence
from typing import Any, BinaryIO

from awm_gym import info_keys as K
from awm_gym.envs.config import EnvConfig
from awm_gym.envs.runtime import StepOutcome
from awm_gym.errors import EnvUsageError, WorldSkippedWarning

logger = logging.getLogger(__name__)

__all__ = ["ShardedRuntime"]

WORKER_ERROR = "worker_error"
_HEADER = struct.Struct("!Q")


def _send(stream: BinaryIO, message: Any) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)) + data)
    stream.flush()


def _recv(stream: BinaryIO) -> Any:
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        raise EOFError("worker pipe closed")
    (size,) = _HEADER.unpack(header)
    data = stream.read(size)
    if len(data) < size:
        raise EOFError("worker pipe closed mid-message")
    return pickle.loads(data)


class _Shard:
    """One worker process and the global instance indices it owns."""

    def __init__(self, spec: tuple[Any, ...], indices: range) -> None:
        self.spec, self.indices = spec, indices
        self.proc: subprocess.Popen | None = None
        self.start()

    def start(self) -> None:
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen([sys.executable, "-m", "awm_gym.envs.shards"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        _send(self.proc.stdin, ("init", *self.spec, len(self.indices)))

    def kill(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            for stream in (self.proc.stdin, self.proc.stdout):
                try:
                    stream.close()
                except OSError:
                    pass
            self.proc = None

    def restart(self) -> None:
        self.kill()
        self.start()

    def request(self, message: Any) -> None:
        _send(self.proc.stdin, message)

    def reply(self, deadline: float) -> Any:
        import select

        stdout = self.proc.stdout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("worker reply deadline passed")
            ready, _, _ = select.select([stdout], [], [], remaining)
            if ready:
                status, payload = _recv(stdout)
                if status == "error":
                    raise payload
                return payload


class ShardedRuntime:
    """The :class:`~awm_gym.envs.runtime.WorldRuntime` interface over ``num_workers`` processes."""

    def __init__(self, world_set: Any, worlds: Sequence[str], num_instances: int,
                 config: EnvConfig, num_workers: int) -> None:
        if num_workers < 1:
            raise EnvUsageError(f"num_workers={num_workers}: must be >= 1 (0 means in-process).")
        num_workers = min(num_workers, num_instances)
        self.world_set, self.worlds, self.config = world_set, tuple(worlds), config
        self.num_instances = num_instances
        shard_config = EnvConfig(**{**config.__dict__, "verifier_workers":
                                    max(1, config.verifier_workers // num_workers)})
        spec = (world_set.root, list(self.worlds), shard_config)
        bounds = [round(k * num_instances / num_workers) for k in range(num_workers + 1)]
        self._shards = [_Shard(spec, range(bounds[k], bounds[k + 1])) for k in range(num_workers)]
        self._owner = [(s, i - s.indices.start) for s in self._shards for i in s.indices]
        self._world_of: list[str] = [""] * num_instances
        self._tools_text: dict[str, str] = {}
        for k, shard in enumerate(self._shards):  # wait until every worker loaded its worlds
            worlds, skipped = shard.reply(time.monotonic() + 600)
            self.worlds = tuple(worlds)  # minus those that cannot be prepared
            for message in skipped if k == 0 else ():  # said where the caller sees it
                warnings.warn(message, WorldSkippedWarning, stacklevel=3)

    def __repr__(self) -> str:
        return (f"ShardedRuntime(worlds={len(self.worlds)}, num_instances={self.num_instances}, "
                f"num_workers={len(self._shards)})")

    def _scatter(self, indices: Sequence[int], *columns: Sequence[Any]
                 ) -> dict[_Shard, tuple[list[int], list[int], list[list[Any]]]]:
        plan: dict[_Shard, tuple[list[int], list[int], list[list[Any]]]] = {}
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
        for shard, (positions, _, _) in plan.items():
            try:
                results = shard.reply(time.monotonic() + 120)
            except (EOFError, TimeoutError, OSError) as e:
                shard.restart()
                shard.reply(time.monotonic() + 600)
                raise EnvUsageError(f"a worker died while resetting ({e}); it was restarted: "
                                    "reset again.") from e
            for pos, result in zip(positions, results, strict=True):
                out[pos] = result
                self._world_of[indices[pos]] = result[1][K.WORLD]
        return out

    def step(self, indices: Sequence[int], actions: Sequence[Any]) -> list[StepOutcome]:
        plan = self._scatter(indices, actions)
        for shard, (_, local, cols) in plan.items():
            shard.request(("step", local, *cols))
        out: list[Any] = [None] * len(indices)
        for shard, (positions, local, _) in plan.items():
            deadline = time.monotonic() + (len(local) * self.config.tool_timeout_s
                                           + 2 * self.config.verifier_timeout_s + 10)
            try:
                results = shard.reply(deadline)
            except (EOFError, TimeoutError, OSError) as e:
                logger.warning("worker for instances %d-%d failed (%s); restarting it",
                               shard.indices.start, shard.indices.stop - 1, e)
                shard.restart()
                shard.reply(time.monotonic() + 600)
                reason = ("timed out" if isinstance(e, TimeoutError) else "died")
                results = [StepOutcome(
                    f"Error: the worker process running this instance {reason}; the episode "
                    "cannot continue.", self.config.rewards.unscored, False, True,
                    {K.WORLD: self._world_of[indices[pos]], WORKER_ERROR: reason,
                     K.REWARD_VALID: False}) for pos in positions]
            for pos, result in zip(positions, results, strict=True):
                out[pos] = result
        return out

    def tools_text(self, world: str) -> str:
        text = self._tools_text.get(world)
        if text is None:
            shard = self._shards[0]
            shard.request(("tools_text", world))
            text = self._tools_text[world] = shard.reply(time.monotonic() + 60)
        return text

    def tools(self, world: str) -> list[dict[str, Any]]:
        shard = self._shards[0]
        shard.request(("tools", world))
        return shard.reply(time.monotonic() + 60)

    def instance_world(self, i: int) -> tuple[str, int]:
        return self._world_of[i], -1

    def database(self, i: int) -> None:
        return None  # instance databases live in the worker processes

    def snapshot(self, i: int) -> bytes | None:
        shard, local = self._owner[i]
        shard.request(("snapshot", local))
        return shard.reply(time.monotonic() + 60)

    def template(self, world: str) -> bytes:
        shard = self._shards[0]
        shard.request(("template", world))
        return shard.reply(time.monotonic() + 60)

    def close(self) -> None:
        for shard in self._shards:
            if shard.proc is not None:
                try:
                    _send(shard.proc.stdin, ("close",))
                    shard.proc.wait(timeout=5)
                except (OSError, subprocess.TimeoutExpired, ValueError):
                    pass
                shard.kill()


def _serve() -> None:
    """Worker process main loop: build a WorldRuntime, answer requests until 'close' or EOF."""
    from awm_gym.envs.registration import get_world_set
    from awm_gym.envs.runtime import WorldRuntime

    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # generated code printing must not corrupt the protocol stream
    runtime = None
    while True:
        try:
            message = _recv(stdin)
        except EOFError:
            break
        kind = message[0]
        try:
            if kind == "init":
                root, worlds, config, n = message[1:]
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always", WorldSkippedWarning)
                    runtime = WorldRuntime(get_world_set(root), worlds, n, config)
                reply: Any = (list(runtime.worlds), [str(w.message) for w in caught
                                                     if w.category is WorldSkippedWarning])
            elif kind == "reset":
                reply = runtime.reset(*message[1:])
            elif kind == "step":
                reply = runtime.step(*message[1:])
            elif kind == "tools_text":
                reply = runtime.tools_text(message[1])
            elif kind == "tools":
                reply = [t.to_dict() for t in runtime.prepared(message[1]).host.tools]
            elif kind == "snapshot":
                reply = runtime.snapshot(message[1])
            elif kind == "template":
                reply = runtime.template(message[1])
            elif kind == "close":
                break
            else:
                raise EnvUsageError(f"unknown worker request {kind!r}")
            _send(stdout, ("ok", reply))
        except Exception as e:  # noqa: BLE001 - programmer errors travel back to the caller
            _send(stdout, ("error", e))
    if runtime is not None:
        runtime.close()


if __name__ == "__main__":
    _serve()
