"""Getting a remote agent back after its connection dropped: connect again, a bounded number
of times with a growing pause between tries, until one attempt (connect, initialize, resume the
session) succeeds.

The session belongs to the served agent, not to the connection, so it outlives the drop; the
attempt itself lives in `AgentLink.reattach`, this module only paces and bounds it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from ..._bindings import ConnectionClosed

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
