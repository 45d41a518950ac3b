"""The runtime interface (reset/step/tools) over N sessions of a world server.

:class:`RemoteRuntime` is what :class:`~awm_gym.remote.env.RemoteEnv` and
:class:`~awm_gym.remote.env.RemoteVectorEnv` drive in place of a
:class:`~awm_gym.envs.runtime.WorldRuntime`, so the Gymnasium code (options, masks, checks, batched
infos) is the in-process code, and observations, rewards and infos are the server runtime's.
A batch call sends one request on every session first and then collects the replies, so the
server works on all of them at once (and verifies final answers in one batch).

A lost session is data, not a crash (as a dead worker shard is in :mod:`awm_gym.envs.shards`): a step
on it ends the episode truncated with ``info["worker_error"]``, and the next reset of that
instance opens a new session.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from awm_gym import info_keys as K
from awm_gym.boundary import closing_on_error
from awm_gym.envs.config import EnvConfig
from awm_gym.envs.protocol import StepOutcome
from awm_gym.envs.shards import WORKER_ERROR
from awm_gym.errors import EnvUsageError, UnknownWorldError
from awm_gym.remote.client import RemoteError, SessionClient, SessionLostError
from awm_gym.scoring.rewards import RewardConfig, StepEnd, step_reward

logger = logging.getLogger(__name__)

__all__ = ["RemoteRuntime", "env_config_from"]

_USAGE_CODES = ("VALIDATION_ERROR", "EPISODE_NOT_ACTIVE")


def env_config_from(fields: dict[str, Any]) -> EnvConfig:
    """The server's :class:`EnvConfig` from its JSON form (fields this version lacks ignored)."""
    known = {k: v for k, v in fields.items() if k in EnvConfig.__dataclass_fields__}
    rewards = known.pop("rewards", None) or {}
    rewards = RewardConfig(**{k: v for k, v in rewards.items()
                              if k in RewardConfig.__dataclass_fields__})
    return EnvConfig(**known, rewards=rewards)


def _raise_for(error: RemoteError) -> None:
    """Re-raise a server refusal as the error the same mistake raises in-process."""
    if error.code in _USAGE_CODES:
        raise EnvUsageError(str(error)) from error
    raise error


class RemoteRuntime:
    """``num_instances`` sessions of the server at ``url``, one instance each.

    Args:
        url: the server's address (``http://127.0.0.1:8001``).
        num_instances: sessions to open.
        connect_timeout_s: see :class:`~awm_gym.remote.client.SessionClient`.
        message_timeout_s: see :class:`~awm_gym.remote.client.SessionClient`.
        auth_token: see :class:`~awm_gym.remote.client.SessionClient`.
    """

    url: str
    worlds: tuple[str, ...]
    num_instances: int
    config: EnvConfig
    num_tasks: int
    tasks: tuple[tuple[str, int], ...]

    def __init__(self, url: str, num_instances: int, *, connect_timeout_s: float = 10.0,
                 message_timeout_s: float = 300.0, auth_token: str | None = None) -> None:
        self.url, self.num_instances = url, num_instances
        self._timeouts = {"connect_timeout_s": connect_timeout_s,
                          "message_timeout_s": message_timeout_s, "auth_token": auth_token}
        self._clients: list[SessionClient | None] = []
        with closing_on_error(self.close):
            for _ in range(num_instances):
                self._clients.append(SessionClient(url, **self._timeouts))
        info = self._clients[0].info
        self.worlds = (info.world,)
        self.num_tasks = info.num_tasks
        self.tasks = tuple((info.world, t) for t in range(info.num_tasks))
        self.config = env_config_from(info.env_config)
        self._task_of = [-1] * num_instances
        self._tools: list[dict[str, Any]] | None = None
        self._tools_text: str | None = None

    def __repr__(self) -> str:
        return (f"RemoteRuntime({self.worlds[0]!r} at {self.url}, "
                f"num_instances={self.num_instances})")

    # -- what policies need -----------------------------------------------------------------
    def _fetch_tools(self) -> None:
        client = next((c for c in self._clients if c is not None), None)
        if client is None:
            client = self._clients[0] = SessionClient(self.url, **self._timeouts)
        reply = client.request("tools")
        self._tools, self._tools_text = reply["tools"], reply["tools_text"]

    def _check_world(self, world: str | None) -> None:
        if world is not None and world != self.worlds[0]:
            raise UnknownWorldError(f"World {world!r} is not served by {self.url}; it serves "
                                    f"{self.worlds[0]!r} (start one server per world).")

    def tools_text(self, world: str) -> str:
        """The ``list_tools`` reply of the served world."""
        self._check_world(world)
        if self._tools_text is None:
            self._fetch_tools()
        return self._tools_text  # type: ignore[return-value]

    def tools(self, world: str) -> list[dict[str, Any]]:
        """The served world's tools as MCP lists them."""
        self._check_world(world)
        if self._tools is None:
            self._fetch_tools()
        return [dict(t) for t in self._tools]  # type: ignore[union-attr]

    def instance_world(self, i: int) -> tuple[str, int]:
        return self.worlds[0], self._task_of[i]

    def database(self, i: int) -> None:
        return None  # instance databases live in the server

    def snapshot(self, i: int) -> None:
        return None  # instance databases live in the server

    def template(self, world: str) -> None:
        """None: the world's initial database lives in the server (so episodes over a server
        carry no database diff)."""
        self._check_world(world)
        return None

    # -- reset / step -----------------------------------------------------------------------
    def reset(self, indices: Sequence[int], seeds: Sequence[int | None],
              task_idx: Sequence[int | None], worlds: Sequence[str | None]
              ) -> list[tuple[str, dict[str, Any]]]:
        """Reset the given instances (reopening lost sessions); ``(observation, info)`` each."""
        for t, w in zip(task_idx, worlds, strict=True):  # check all before touching any
            self._check_world(w)
            if t is not None and not 0 <= t < self.num_tasks:
                raise EnvUsageError(f"options['task_idx']={t}: out of range for "
                                    f"{self.worlds[0]!r} ({self.num_tasks} tasks, numbered "
                                    "from 0).")
        requests = [{"seed": s, "task_idx": t} for s, t in zip(seeds, task_idx, strict=True)]
        pending = [self._send(i, "reset", data) for i, data in zip(indices, requests, strict=True)]
        out, first_error = [], None
        for i, data, request_id in zip(indices, requests, pending, strict=True):
            try:
                try:
                    reply = self._receive(i, request_id)
                except SessionLostError:  # reaped or dropped while idle: once more, on a new one
                    self._reopen(i)
                    reply = self._receive(i, self._send(i, "reset", data))
            except SessionLostError:
                raise
            except RemoteError as e:
                first_error = first_error or e
                continue
            self._task_of[i] = reply["info"].get(K.TASK_IDX, -1)
            out.append((reply["observation"], reply["info"]))
        if first_error is not None:
            _raise_for(first_error)
        return out

    def step(self, indices: Sequence[int], actions: Sequence[Any]) -> list[StepOutcome]:
        """Advance the given instances by one action each."""
        pending = [self._send(i, "step", {"action": a})
                   for i, a in zip(indices, actions, strict=True)]
        out: list[StepOutcome] = []
        first_error = None
        for i, request_id in zip(indices, pending, strict=True):
            try:
                reply = self._receive(i, request_id)
            except SessionLostError as e:
                out.append(self._lost(i, e))
                continue
            except RemoteError as e:
                first_error = first_error or e
                continue
            out.append(StepOutcome(reply["observation"], float(reply["reward"]),
                                   bool(reply["terminated"]), bool(reply["truncated"]),
                                   reply["info"]))
        if first_error is not None:
            _raise_for(first_error)
        return out

    def _reopen(self, i: int) -> SessionClient:
        old, self._clients[i] = self._clients[i], None
        if old is not None:
            old.close()
        client = self._clients[i] = SessionClient(self.url, **self._timeouts)
        return client

    def _send(self, i: int, kind: str, data: dict[str, Any]) -> int | SessionLostError:
        """Send a request on instance ``i``'s session (a reset opens one if it has none); a lost
        session comes back as the error, to be raised when its reply is collected."""
        try:
            client = self._clients[i]
            if client is None:
                if kind != "reset":
                    raise SessionLostError(f"instance {i}'s session was lost; reset it to open "
                                           "a new one.")
                client = self._reopen(i)
            return client.send(kind, data)
        except SessionLostError as e:
            return e

    def _receive(self, i: int, request_id: int | SessionLostError) -> dict[str, Any]:
        if isinstance(request_id, SessionLostError):
            raise request_id
        return self._clients[i].receive(request_id)  # type: ignore[union-attr]

    def _lost(self, i: int, error: SessionLostError) -> StepOutcome:
        client, self._clients[i] = self._clients[i], None
        if client is not None:
            client.close()
        logger.warning("instance %d lost its session (%s); it must be reset", i, error)
        end = step_reward(StepEnd.UNSCORED, self.config.rewards)
        return StepOutcome(f"Error: the session with the world server was lost ({error}); the "
                           "episode cannot continue.", end.reward, False, True,
                           {K.WORLD: self.worlds[0], WORKER_ERROR: str(error), **end.info})

    def close(self) -> None:
        """Close every session (safe to call twice)."""
        for client in self._clients:
            if client is not None:
                client.close()
        self._clients = [None] * len(self._clients)
