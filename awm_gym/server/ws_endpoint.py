"""The session endpoint (``/ws``): one WebSocket connection drives one instance of the world.

The wire format is in :mod:`awm_gym.wire.protocol`. A connection is refused with
``CAPACITY_REACHED`` when the table is full, gets a ``session`` frame otherwise, then sends
requests and reads one reply per request, in order. The endpoint keeps each session's episode
bookkeeping (so a step before reset, or after the end, is a clear error, never a step of whatever
the instance held before) and hands every reset and step to the runtime thread
(:class:`~awm_gym.server.executor.RuntimeLoop`), whose runtime produces the same observations,
rewards and infos as in-process.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any

from starlette.websockets import WebSocket, WebSocketDisconnect

from awm_gym.errors import EnvUsageError, UnknownWorldError
from awm_gym.server.sessions import Session
from awm_gym.wire.protocol import (
    CLOSE_CODES,
    PROTOCOL_VERSION,
    SESSION_FRAME,
    ErrorCode,
    MessageType,
    ProtocolError,
    Request,
    encode_frame,
    error_frame,
    parse_request,
    reset_arguments,
    step_action,
)

logger = logging.getLogger(__name__)

__all__ = ["SessionEndpoint"]


@dataclass
class _Episode:
    """What a session knows about its instance's current episode."""

    episodes: int = 0
    active: bool = False
    task_idx: int = -1
    seed: int | None = None
    steps: int = 0
    last_reward: float | None = None
    pending: asyncio.Future | None = None
    """The runtime job in flight, if any."""

    def to_dict(self, session: Session, world: str) -> dict[str, Any]:
        return {"session_id": session.session_id, "world": world, "episode": self.episodes,
                "episode_active": self.active, "task_idx": self.task_idx, "seed": self.seed,
                "step_count": self.steps, "last_reward": self.last_reward}


class SessionEndpoint:
    """The ASGI WebSocket endpoint; ``server`` is the :class:`~awm_gym.server.app.WorldServer`."""

    def __init__(self, server: Any) -> None:
        self.server = server

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        websocket = WebSocket(scope, receive, send)
        refusal = await self.server.check_headers(websocket)
        if refusal is not None:  # DNS rebinding / cross-site page: refuse the handshake
            await websocket.close(code=1008, reason=refusal)
            return
        await websocket.accept()
        table = self.server.sessions
        client = websocket.client.host if websocket.client else None
        session = table.open("ws", expire=self._expire(websocket), client=client)
        if session is None:
            reason = (f"this client already holds {table.max_per_client} sessions (the "
                      "server's --max-sessions-per-client); close one and retry."
                      if table.client_is_full(client) else
                      f"this server already holds {table.capacity} sessions (its "
                      "--max-sessions); retry later, close idle sessions, or start the server "
                      "with a larger --max-sessions.")
            await websocket.send_text(error_frame(ErrorCode.CAPACITY_REACHED, reason))
            await websocket.close(code=CLOSE_CODES[ErrorCode.CAPACITY_REACHED])
            return
        episode = _Episode()
        try:
            await websocket.send_text(encode_frame(SESSION_FRAME, None, self._hello(session)))
            await self._serve(websocket, session, episode)
        except (WebSocketDisconnect, RuntimeError, OSError):
            pass  # the client went away (or the reaper closed the socket) mid-reply
        finally:
            if episode.pending is not None and not episode.pending.done():
                # cancelled mid-request (server shutdown): the job still runs on the runtime
                # thread, so the instance is given back only when it is done
                episode.pending.add_done_callback(lambda _: table.release(session))
            else:
                table.release(session)
            logger.debug("session %s ended after %d episodes", session.session_id,
                         episode.episodes)

    def _hello(self, session: Session) -> dict[str, Any]:
        server = self.server
        return {"session_id": session.session_id, "protocol": PROTOCOL_VERSION,
                "world": server.world, "num_tasks": server.num_tasks,
                "env_config": server.env_config_dict,
                "max_message_bytes": server.config.max_message_bytes,
                "idle_timeout_s": server.config.idle_timeout_s}

    def _expire(self, websocket: WebSocket) -> Any:
        async def expire(session: Session) -> None:
            timeout = self.server.config.idle_timeout_s
            try:
                await websocket.send_text(error_frame(
                    ErrorCode.SESSION_EXPIRED,
                    f"this session was idle for more than {timeout:g} s (the server's "
                    "--idle-timeout) and was closed; open a new session and reset."))
                await websocket.close(code=CLOSE_CODES[ErrorCode.SESSION_EXPIRED])
            except (RuntimeError, OSError):
                pass  # already gone
        return expire

    async def _serve(self, websocket: WebSocket, session: Session, episode: _Episode) -> None:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect" or session.expired:
                return
            frame = message.get("text")
            if frame is None:
                frame = message.get("bytes") or b""
            session.begin()
            try:
                reply, is_close = await self._answer(frame, session, episode)
            finally:
                session.end()
            await websocket.send_text(reply)
            if is_close:
                await websocket.close(code=1000)
                return

    async def _answer(self, frame: str | bytes, session: Session, episode: _Episode
                      ) -> tuple[str, bool]:
        request_id = None
        try:
            request = parse_request(frame, self.server.config.max_message_bytes)
            request_id = request.id
            data = await self._handle(request, session, episode)
            return encode_frame(request.type.value, request.id, data), \
                request.type is MessageType.CLOSE
        except ProtocolError as e:
            return error_frame(e.code, e.message, e.request_id), False
        except (EnvUsageError, UnknownWorldError) as e:  # the runtime's checks of arguments
            return error_frame(ErrorCode.VALIDATION_ERROR, str(e), request_id), False
        except Exception as e:  # noqa: BLE001 - the boundary: a server bug is an error frame
            logger.exception("request of session %s failed", session.session_id)
            return error_frame(ErrorCode.INTERNAL_ERROR,
                               f"the server failed on this request ({type(e).__name__}: {e}); "
                               "the session goes on. Please report it.", request_id), False

    async def _handle(self, request: Request, session: Session, episode: _Episode) -> Any:
        kind = request.type
        jobs = self.server.jobs
        if kind is MessageType.RESET:
            seed, task_idx = reset_arguments(request)
            observation, info = await _finish(episode, jobs.submit_reset(session.slot, seed,
                                                                         task_idx))
            episode.episodes += 1
            episode.active, episode.steps, episode.last_reward = True, 0, None
            episode.task_idx, episode.seed = info.get("task_idx", -1), seed
            return {"observation": observation, "info": info}
        if kind is MessageType.STEP:
            action = step_action(request)
            if not episode.active:
                what = ("before the first reset" if episode.episodes == 0 else
                        f"after episode {episode.episodes} ended (autoreset is disabled)")
                raise ProtocolError(ErrorCode.EPISODE_NOT_ACTIVE,
                                    f"step {what}; send a reset first.", request.id)
            out = await _finish(episode, jobs.submit_step(session.slot, action))
            episode.steps += 1
            episode.last_reward = float(out.reward)
            episode.active = not (out.terminated or out.truncated)
            return {"observation": out.observation, "reward": float(out.reward),
                    "terminated": bool(out.terminated), "truncated": bool(out.truncated),
                    "info": out.info}
        if kind is MessageType.STATE:
            _no_data(request)
            return episode.to_dict(session, self.server.world)
        if kind is MessageType.TOOLS:
            _no_data(request)
            return {"world": self.server.world, "tools": self.server.tools,
                    "tools_text": self.server.tools_text}
        _no_data(request)  # CLOSE
        return {"session_id": session.session_id, "episodes": episode.episodes}


def _no_data(request: Request) -> None:
    """``state``, ``tools`` and ``close`` take no fields."""
    if request.data:
        raise ProtocolError(ErrorCode.VALIDATION_ERROR,
                            f"{request.type.value} takes no data; got fields "
                            f"{sorted(request.data)}.", request.id)


async def _finish(episode: _Episode, future: asyncio.Future) -> Any:
    """Await a runtime job, remembering it so a cancelled handler can wait for it to end."""
    episode.pending = future
    try:
        return await asyncio.shield(future)
    finally:
        if future.done():
            episode.pending = None
