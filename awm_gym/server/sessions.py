"""The server's session table: capacity, instance slots, activity, and reaping of idle sessions.

Every session (a WebSocket connection or an MCP session) holds one *slot*, an integer below
``capacity``; a WebSocket session's slot is its runtime instance index. A session is idle when it
has no request in flight and its last request ended more than ``idle_timeout_s`` ago; the reaper
(:meth:`SessionTable.reap_forever`, a task on the server's event loop) calls its ``expire``
callback, which ends the session the way its transport allows. Everything here runs on the event
loop thread, so there are no locks.

Example:
    >>> table = SessionTable(capacity=1, idle_timeout_s=60)
    >>> a = table.open("ws")
    >>> a.slot, table.open("ws") is None          # full: the second is refused
    (0, True)
    >>> table.release(a); table.open("mcp").slot   # the slot is free again
    0
"""

from __future__ import annotations

import asyncio
import heapq
import logging
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from awm_gym.boundary import best_effort

logger = logging.getLogger(__name__)

__all__ = ["Session", "SessionTable"]


@dataclass(eq=False)
class Session:
    """One open session.

    Attributes:
        session_id: a random hex id (also sent to the client).
        kind: ``ws`` or ``mcp``.
        slot: its index below the table's capacity (the runtime instance of a ``ws`` session).
        created_at / last_active: ``time.monotonic()`` stamps.
        in_flight: requests started and not yet answered (a busy session is never reaped).
        expired: set once the reaper ended it (late requests are refused).
        expire: how the reaper ends it (close the socket, terminate the MCP transport).
    """

    session_id: str
    kind: str
    slot: int
    created_at: float
    last_active: float
    client: str | None = None
    """The remote address that opened it (for the per-client limit)."""
    in_flight: int = 0
    expired: bool = False
    expire: Callable[[Session], Awaitable[None]] | None = field(default=None, repr=False)

    def touch(self) -> None:
        """The session was used (a request that needs no runtime work)."""
        self.last_active = time.monotonic()

    def begin(self) -> None:
        """A request started."""
        self.in_flight += 1
        self.last_active = time.monotonic()

    def end(self) -> None:
        """A request was answered."""
        self.in_flight -= 1
        self.last_active = time.monotonic()


class SessionTable:
    """Sessions by id, at most ``capacity`` at a time.

    Args:
        capacity: the most sessions held at once.
        idle_timeout_s: idle time after which a session is reaped (0: never).
        max_per_client: the most sessions one remote address may hold (0: no per-client limit).

    Opening is synchronous and runs on the event loop thread, so checking for a free slot and
    taking it is one atomic step: the table never holds more than ``capacity`` sessions.
    """

    capacity: int
    idle_timeout_s: float
    reaped: int
    refused: int

    def __init__(self, capacity: int, idle_timeout_s: float, max_per_client: int = 0) -> None:
        self.capacity, self.idle_timeout_s = capacity, idle_timeout_s
        self.max_per_client = max_per_client
        self._per_client: dict[str, int] = {}
        self._sessions: dict[str, Session] = {}
        self._free = list(range(capacity))  # a heap: the lowest free slot is reused first
        self.reaped = self.refused = 0

    def __repr__(self) -> str:
        return f"SessionTable({len(self._sessions)}/{self.capacity} sessions)"

    def __len__(self) -> int:
        return len(self._sessions)

    @property
    def is_full(self) -> bool:
        return not self._free

    def counts(self) -> dict[str, int]:
        """Open sessions per kind."""
        out = {"ws": 0, "mcp": 0}
        for session in self._sessions.values():
            out[session.kind] = out.get(session.kind, 0) + 1
        return out

    def open(self, kind: str, expire: Callable[[Session], Awaitable[None]] | None = None,
             client: str | None = None) -> Session | None:
        """A new session with a free slot, or None when the table (or ``client``'s share of it,
        see :meth:`client_is_full`) is full."""
        if not self._free or self.client_is_full(client):
            self.refuse()
            return None
        now = time.monotonic()
        session = Session(uuid.uuid4().hex, kind, heapq.heappop(self._free), now, now,
                          client=client, expire=expire)
        self._sessions[session.session_id] = session
        if client is not None:
            self._per_client[client] = self._per_client.get(client, 0) + 1
        return session

    def client_is_full(self, client: str | None) -> bool:
        """Whether ``client`` already holds ``max_per_client`` sessions."""
        return (self.max_per_client > 0 and client is not None
                and self._per_client.get(client, 0) >= self.max_per_client)

    def refuse(self) -> None:
        """Count a session refused for lack of capacity (also by endpoints that check first)."""
        self.refused += 1

    def release(self, session: Session) -> None:
        """Give the session's slot back (idempotent)."""
        if self._sessions.pop(session.session_id, None) is not None:
            heapq.heappush(self._free, session.slot)
            if session.client is not None:
                left = self._per_client.get(session.client, 1) - 1
                if left > 0:
                    self._per_client[session.client] = left
                else:
                    self._per_client.pop(session.client, None)

    def idle_sessions(self, now: float | None = None) -> list[Session]:
        """Sessions idle for longer than ``idle_timeout_s`` (none when reaping is off)."""
        if self.idle_timeout_s <= 0:
            return []
        now = time.monotonic() if now is None else now
        return [s for s in self._sessions.values()
                if s.in_flight == 0 and not s.expired
                and now - s.last_active > self.idle_timeout_s]

    async def reap_once(self) -> int:
        """End every idle session now; returns how many."""
        idle = self.idle_sessions()
        for session in idle:
            session.expired = True
            self.reaped += 1
            logger.info("reaping %s session %s (idle for %.1f s)", session.kind,
                        session.session_id, time.monotonic() - session.last_active)
            try:  # a failing close must not stop the reaper
                with best_effort("closing idle session %s", session.session_id, log=logger,
                                 level=logging.WARNING):
                    if session.expire is not None:
                        await session.expire(session)
            finally:
                self.release(session)
        return len(idle)

    async def reap_forever(self) -> None:
        """Check for idle sessions every quarter of the idle timeout (at most every 5 s)."""
        if self.idle_timeout_s <= 0:
            return
        interval = min(max(self.idle_timeout_s / 4, 0.05), 5.0)
        while True:
            await asyncio.sleep(interval)
            await self.reap_once()
