"""Where an agent keeps its sessions, and how long it keeps those nobody is attached to.

On stdio an agent has one connection and one `SessionStore` of its own. Served remotely, every
connection of the agent shares one store (`AgentSide.share_sessions`), so a client that lost
its connection resumes its sessions on the next one. A session whose connection ended is
*detached*: it waits, closed, for a `session/resume` (`session/load` on v1). Detached sessions
are not kept for ever (`DetachedLimits`):

- one detached longer than `idle_seconds` is dropped;
- past `max_sessions` detached sessions, or `max_bytes` bytes of their histories (JSON, as
  `history_limit` counts them), the oldest detached are dropped first until both hold (a
  history larger than `max_bytes` on its own is dropped at once).

A dropped session is forgotten: its resume is answered -32002 "Session expired" (for the last
`_EXPIRED_KEPT` dropped ids; older ones "Unknown session"), unless the author's `load_session`
restores it from storage of its own. Expiry is checked when a session is opened, listed,
resumed or loaded, when another is detached, and at a timer set for the oldest detached
session; `clock` (seconds, monotonic) can be replaced in tests.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from .agent_session import AgentSession

logger = logging.getLogger(__name__)
_EXPIRED_KEPT: Final = 4096  # ids of dropped sessions remembered, for a clearer answer


@dataclass(frozen=True, slots=True)
class DetachedLimits:
    """How long and how many sessions whose connection ended are kept (see the module doc)."""

    idle_seconds: float = 3600.0
    max_sessions: int = 1000
    max_bytes: int = 64 * 1024 * 1024

    def __post_init__(self) -> None:
        if not (self.idle_seconds > 0 and self.max_sessions > 0 and self.max_bytes > 0):
            raise ValueError(f"detached-session limits must be positive: {self}")


@dataclass(slots=True)
class _Detached:
    since: float  # `clock()` when its connection ended
    size: int  # bytes of its history then


class SessionStore:
    """The sessions of an agent (`sessions`, by id, in the order they were opened) and the
    bookkeeping of the detached ones among them."""

    def __init__(
        self,
        limits: DetachedLimits | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.sessions: dict[str, AgentSession] = {}
        # Ids of archived sessions (`session/archive`, unstable): shared like the sessions.
        self.archived: set[str] = set()
        self.limits = limits or DetachedLimits()
        self.clock = clock
        self._detached: OrderedDict[str, _Detached] = OrderedDict()  # oldest first
        self._bytes = 0
        self._expired: OrderedDict[str, None] = OrderedDict()
        self._timer: asyncio.TimerHandle | None = None
        self._timed: str | None = None  # the session the timer is set for

    @property
    def detached_count(self) -> int:
        return len(self._detached)

    @property
    def detached_bytes(self) -> int:
        """Bytes of history the detached sessions hold (as counted when each was detached)."""
        return self._bytes

    def is_detached(self, session_id: str) -> bool:
        return session_id in self._detached

    def expired(self, session_id: str) -> bool:
        """Whether `session_id` was dropped here (detached too long, or past a limit)."""
        return session_id in self._expired

    def detach(self, session: AgentSession) -> None:
        """`session`'s connection ended (its work already stopped): keep it for a resume,
        within the limits."""
        self.attach(session)  # detached again: it counts from now, at the end of the line
        size = session.history_bytes
        if size > self.limits.max_bytes:  # alone past the limit: it goes, not the others
            self._drop(
                session.session_id, f"its history alone is over {self.limits.max_bytes} bytes"
            )
            self.sweep()
            return
        self._detached[session.session_id] = _Detached(self.clock(), size)
        self._bytes += size
        limits = self.limits
        while self._detached and (
            len(self._detached) > limits.max_sessions or self._bytes > limits.max_bytes
        ):
            self._drop(next(iter(self._detached)), "past the limits on detached sessions")
        self.sweep()

    def attach(self, session: AgentSession) -> None:
        """`session` is attached to a connection again (resumed): no longer counted."""
        entry = self._detached.pop(session.session_id, None)
        if entry is not None:
            self._bytes -= entry.size

    def forget(self, session_id: str) -> None:
        """`session_id` is gone for good (deleted)."""
        self.sessions.pop(session_id, None)
        self.archived.discard(session_id)
        entry = self._detached.pop(session_id, None)
        if entry is not None:
            self._bytes -= entry.size

    def sweep(self) -> None:
        """Drop the sessions detached longer than `idle_seconds`; set the timer for the next."""
        now, idle = self.clock(), self.limits.idle_seconds
        while self._detached:
            session_id, entry = next(iter(self._detached.items()))
            if now - entry.since < idle:
                break
            self._drop(session_id, f"detached for {idle:g} s")
        self._arm(now)

    def _drop(self, session_id: str, why: str) -> None:
        logger.info("dropping detached session %r: %s", session_id, why)
        self.forget(session_id)
        self._expired[session_id] = None
        if len(self._expired) > _EXPIRED_KEPT:
            self._expired.popitem(last=False)

    def _arm(self, now: float) -> None:
        """A timer for when the oldest detached session expires, so an agent nobody talks to
        frees them too (no timer outside an event loop, or with nothing detached)."""
        oldest = next(iter(self._detached), None)
        if self._timer is not None:
            if oldest == self._timed:
                return  # set for it already
            self._timer.cancel()
            self._timer = self._timed = None
        if oldest is None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        due = max(self._detached[oldest].since + self.limits.idle_seconds - now, 0.0)
        self._timer, self._timed = loop.call_later(due, self._ring), oldest

    def _ring(self) -> None:
        self._timer = self._timed = None
        self.sweep()
