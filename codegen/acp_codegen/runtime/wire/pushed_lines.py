"""Lines the transport pushes as they arrive, handled in its callback while the reader waits.

Read through a StreamReader, every chunk costs the reader loop an event-loop pass: the
transport's callback stores the bytes and wakes the reader task, which runs a pass later, and
what it starts (a request's handler, the caller of a request just answered) runs a pass after
that. `PushedLines` is fed by the transport's callback itself (`PipeLines`, the protocol of
an agent's stdin and of a spawned agent's stdout). While the connection's reader loop waits in
`park`, each whole line is handed to the loop's step there and then, so a round trip takes one
pass less on each side. Wire order is kept: lines are handled one at a time, in order, either
here (only while the loop is parked) or by the loop; the first line whose handling must be
awaited ends the park, and the loop awaits it before it takes the next.

Back-pressure: while the loop is busy, arriving bytes wait in the buffer; past
`PAUSE_ABOVE_BYTES` the transport stops reading until the loop parks again.

A fast path (docs/design.md, "Performance-sensitive paths"). The seam is `park`; its
reference is `PushedLines(parks=False)`, which the loop never parks on: it pulls every line
with `read_line`, as from any stream. Both must hand the loop's step the same lines in the same
order (tests/runtime/test_fast_paths_wire.py). What parking assumes: the step never blocks and
returns what must be awaited rather than awaiting it; the transport calls `received` on the
event loop's thread, one call at a time.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Generator
from typing import Final

from .line_framing import LineBuffer

logger = logging.getLogger(__name__)

# Arriving bytes the buffer holds while the reader loop is busy before the transport pauses.
PAUSE_ABOVE_BYTES: Final = 1 << 20

Take = Callable[[bytes], Awaitable[None] | None]


class _YieldOnce:
    """Awaiting it yields to the event loop once, as `asyncio.sleep(0)` does."""

    def __await__(self) -> Generator[None, None, None]:
        yield


class _GoOn:
    """Awaiting it returns at once."""

    def __await__(self) -> Generator[None, None, None]:
        return
        yield  # a generator that never yields


# What the reader's step returns when it has started a request's task: the reader yields once,
# so the handler runs up to its first suspension before the next message is read. Handed over
# by a park, the yield is already done: the loop wakes after the handler's step, queued first.
YIELD_ONCE: Final = _YieldOnce()
_GO_ON: Final = _GoOn()
_END: Final = _GoOn()  # what a park ends with at end of stream (by identity)
# What the loop's waiter is resolved with: None (a line to read), or what `take` handed over.
_Handed = Awaitable[None] | None


class PushedLines:
    """A `FrameSource` whose bytes a protocol callback pushes (`received`, `ended`). The
    connection reading it sets its `max_line_bytes`. `parks=False`: the reference path, for
    tests (the reader loop only pulls, with `read_line`)."""

    def __init__(self, *, parks: bool = True) -> None:
        self.parks = parks
        self._lines = LineBuffer()
        self._transport: asyncio.ReadTransport | None = None
        self._paused = False
        self._ended = False
        self._problem: BaseException | None = None  # why the transport ended, if it failed
        self._waiter: asyncio.Future[_Handed] | None = None  # the reader loop waits on it
        self._take: Take | None = None  # the loop's step while it is parked

    # -- the transport's side -----------------------------------------------------------------

    def attach(self, transport: asyncio.ReadTransport) -> None:
        """The transport to pause when too much waits."""
        self._transport = transport

    @property
    def transport(self) -> asyncio.ReadTransport | None:
        return self._transport

    def received(self, data: bytes) -> None:
        self._lines.add(data)
        waiter = self._waiter
        if waiter is None or waiter.done():  # the loop is busy: it takes the lines itself
            self._hold_back()
            return
        take = self._take
        if take is None:  # `read_line` waits: it takes the line
            waiter.set_result(None)
            return
        try:
            while not waiter.done():  # a step may stop the loop (a handler closing): then stop
                line = self._lines.next_line()
                if line is None:
                    return
                rest = take(line)
                if rest is YIELD_ONCE:
                    rest = _GO_ON
                if rest is not None:  # must be awaited before the next line: the loop's turn
                    waiter.set_result(rest)
        except Exception as problem:  # LineTooLong, or a fault in the step: the loop raises it
            if waiter.done():
                logger.exception("reading a line after the reader stopped failed")
            else:
                waiter.set_exception(problem)

    def ended(self, problem: BaseException | None = None) -> None:
        """End of stream (`problem`: the transport failed)."""
        self._ended = True
        self._problem = problem
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(_END if self._take is not None else None)

    def _hold_back(self) -> None:
        if not self._paused and len(self._lines) > PAUSE_ABOVE_BYTES and self._transport:
            self._paused = True
            self._transport.pause_reading()

    def _go_on(self) -> None:
        if self._paused and self._transport is not None:
            self._paused = False
            self._transport.resume_reading()

    # -- the reader loop's side ---------------------------------------------------------------

    @property
    def max_line_bytes(self) -> int:
        return self._lines.max_line_bytes

    @max_line_bytes.setter
    def max_line_bytes(self, limit: int) -> None:
        self._lines.max_line_bytes = limit

    @property
    def parked(self) -> bool:
        """Whether the reader loop waits in `park`: lines that arrive are handled at once."""
        return self._take is not None and self._waiter is not None and not self._waiter.done()

    def buffered_line(self) -> bytes | None:
        """The next line if the buffer holds all of it (no waiting), else None."""
        return self._lines.next_line()

    def whole_lines(self) -> list[bytes]:
        """Every whole line buffered (`LineBuffer.whole_lines`), without waiting."""
        return self._lines.whole_lines()

    async def park(self, take: Take) -> Awaitable[None] | None:
        """Wait, handing each whole line that arrives to `take` at once (in the transport's
        callback); return the first awaitable `take` returns, or None at end of stream (then
        `read_line` gives what is left). Raises what `take` or the framing raised
        (`LineTooLong`). Call it with no whole line buffered, and only when `parks`."""
        if self._ended:
            return None
        got = await self._wait(take)
        return None if got is _END else got

    async def read_line(self) -> bytes | None:
        """The next line; None at end of stream (a last line without newline still counts).
        Raises LineTooLong once per over-long line, or the transport's failure at the end."""
        while True:
            line = self._lines.next_line()
            if line is not None:
                return line
            if self._ended:
                if self._problem is not None:
                    raise self._problem
                return self._lines.final_line()
            await self._wait(None)

    async def _wait(self, take: Take | None) -> _Handed:
        self._go_on()  # parked or reading: whatever arrives is taken now
        waiter: asyncio.Future[_Handed] = asyncio.get_running_loop().create_future()
        self._waiter, self._take = waiter, take
        try:
            return await waiter
        except asyncio.CancelledError:
            close_handed(waiter)
            raise
        finally:
            self._waiter = self._take = None


def close_handed(waiter: asyncio.Future[_Handed]) -> None:
    """A parked reader was cancelled: close the coroutine its waiter was handed, if any (the
    loop stops before awaiting it: no "never awaited" warning)."""
    handed = None if waiter.cancelled() or waiter.exception() else waiter.result()
    if asyncio.iscoroutine(handed):
        handed.close()


class PipeLines(asyncio.Protocol):
    """The protocol of a read pipe (or socket) that pushes into `lines`."""

    def __init__(self, lines: PushedLines) -> None:
        self.lines = lines

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        if isinstance(transport, asyncio.ReadTransport):
            self.lines.attach(transport)

    def data_received(self, data: bytes) -> None:
        self.lines.received(data)

    def eof_received(self) -> bool | None:
        self.lines.ended()
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        self.lines.ended(exc)
