"""Getting a remote agent back after its connection dropped: connect again, a bounded number
of times with a growing pause between tries, until one attempt (connect, initialize, resume
every session that was open) succeeds.

The session belongs to the served agent, not to the connection, so it outlives the drop; the
attempt itself lives in `AgentLink.reattach`, this module only paces and bounds it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..._bindings import ClientSession, ConnectionClosed, RpcError
from ..._bindings._runtime.client.client_side import ClientSide
from .visible import visible_line

# What may go away on its own by the next try: nobody listening yet, the connection dropping
# again (aiohttp's client errors are OSErrors).
RETRYABLE: tuple[type[BaseException], ...] = (OSError, ConnectionClosed, TimeoutError)


@dataclass(frozen=True)
class Backoff:
    """How often and how patiently to try: the first try at once, then after `first_pause`
    seconds, doubling up to `longest_pause`."""

    attempts: int = 5
    first_pause: float = 0.5
    longest_pause: float = 8.0

    def pauses(self) -> list[float]:
        """The pause before each attempt (the first is none)."""
        pauses = [0.0]
        for tried in range(1, self.attempts):
            pauses.append(min(self.first_pause * 2 ** (tried - 1), self.longest_pause))
        return pauses


class GaveUp(Exception):
    """Every attempt failed; says how many and the last reason."""


async def retrying(
    attempt: Callable[[], Awaitable[None]],
    backoff: Backoff,
    pause: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> None:
    """Run `attempt` until it succeeds, pausing as `backoff` says; an error outside
    `RETRYABLE` (the agent refusing the resume) is raised at once, for no retry would help."""
    last: BaseException | None = None
    for wait in backoff.pauses():
        if wait:
            await pause(wait)
        try:
            await attempt()
            return
        except RETRYABLE as error:
            last = error
    reason = str(last) or type(last).__name__
    raise GaveUp(f"gave up after {backoff.attempts} attempts ({reason})")


async def resume_all(
    lifecycle: ClientSide[Any], sessions: Sequence[tuple[str, str]], current: str
) -> list[str]:
    """Resume each of `sessions` (id, cwd) in order (as the page lists them) with its history
    replayed from the start (v1: `session/load`). The agent refusing `current` (the one chat
    prompts) is raised: chat cannot go on without it; refusing another only leaves that one
    behind. Returns the ids left behind."""
    left: list[str] = []
    for session_id, cwd in sessions:
        try:
            await lifecycle.resume_session(session_id, cwd, replayFrom={"type": "start"})
        except RpcError:
            if session_id == current:
                raise
            left.append(session_id)
    return left


def open_sessions(lifecycle: ClientSide[Any], current: ClientSession) -> list[tuple[str, str]]:
    """(id, cwd) of every session open on the lost connection, `current` (prompted) too,
    but none another connection took over: resuming it would take it back unasked."""
    sessions = lifecycle.sessions.values()
    return [
        (s.session_id, s.cwd)
        for s in sessions
        if (not s.closed or s is current) and not s.taken_over
    ]


def reconnected_line(agent: str, sessions: Sequence[tuple[str, str]], left: Sequence[str]) -> str:
    """The one line chat prints after a reattach of `sessions`, but those `left` behind."""
    resumed = [session_id for session_id, _ in sessions if session_id not in left]
    which = f"session {resumed[0]}" if len(resumed) == 1 else f"sessions {', '.join(resumed)}"
    which = which if resumed else "no session"
    line = f"[reconnected: {agent}, {which} resumed"
    if left:
        line += f"; the agent refused to resume {', '.join(left)}"
    return visible_line(line + "]")  # the name and session ids are the agent's
