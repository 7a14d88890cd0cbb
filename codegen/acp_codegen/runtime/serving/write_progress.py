"""A deadline on lack of progress, not on a write's duration: `progressing(transport, seconds)`
raises TimeoutError in its body once `seconds` pass without a byte of `transport`'s write
buffer going out (the reader stopped reading), however long the whole write takes. A slow
reader that keeps reading gets a large message whole; one that stops is cut off `seconds`
after its last read (at most a quarter of `seconds` later: that is how often it is looked at).

Only what the kernel takes counts, so the body should write its message in one go at its
start (as one SSE event or one WebSocket frame is written): bytes added later make the buffer
grow, and growth is not progress. No task per write: a timer looks at the buffer, and the
deadline is `asyncio.timeout`'s, moved to now once the buffer has stood still for `seconds`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Final, Protocol

_LOOKS_PER_DEADLINE: Final = 4


class WriteBuffer(Protocol):
    """What `progressing` reads of a transport (asyncio's write transports have it)."""

    def get_write_buffer_size(self) -> int: ...


@contextlib.asynccontextmanager
async def progressing(transport: WriteBuffer | None, seconds: float) -> AsyncIterator[None]:
    """TimeoutError in the body once `transport`'s write buffer has not shrunk for `seconds`
    (no transport: the socket is gone; then only the body's own failure ends it)."""
    loop = asyncio.get_running_loop()
    async with asyncio.timeout(None) as deadline:
        watch = _Watch(loop, transport, deadline, seconds)
        try:
            yield
        finally:
            watch.stop()


class _Watch:
    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        transport: WriteBuffer | None,
        deadline: asyncio.Timeout,
        seconds: float,
    ) -> None:
        self._loop, self._transport, self._deadline = loop, transport, deadline
        self._seconds = seconds
        self._waiting = self._buffered()  # bytes still to go out when it last went down
        self._moved_at = loop.time()
        self._timer: asyncio.TimerHandle | None = loop.call_later(self._every, self._look)

    @property
    def _every(self) -> float:
        return self._seconds / _LOOKS_PER_DEADLINE

    def _buffered(self) -> int:
        return 0 if self._transport is None else self._transport.get_write_buffer_size()

    def _look(self) -> None:
        now, waiting = self._loop.time(), self._buffered()
        if waiting < self._waiting:  # some went out since the last look: progress
            self._moved_at = now
        self._waiting = waiting
        if now - self._moved_at >= self._seconds:
            self._timer = None
            self._deadline.reschedule(now)  # the body's await ends in TimeoutError
            return
        self._timer = self._loop.call_later(self._every, self._look)

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
