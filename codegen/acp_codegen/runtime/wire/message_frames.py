"""The two halves a `Connection` needs when its transport frames messages itself (an HTTP body,
an SSE event, a WebSocket text frame) instead of a newline-delimited byte stream.

- `FrameQueue` is the reading half: the transport `feed`s each message's bytes as they come;
  the connection reads them in that order. Nothing is re-encoded, so the connection parses
  exactly the bytes the peer sent, with the same checks and errors as on stdio. While the
  connection's reader loop waits in `park`, a fed message is handed to the loop's step there
  and then, in the feeder's call (a POST's handler, a WebSocket's reading loop), as
  `PushedLines.park` does for stdio: the reader task would run a loop pass later, and under
  load one pass is milliseconds. A fast path (docs/design.md, "Performance-sensitive paths"):
  its reference is `FrameQueue(parks=False)`, whose loop pulls every message with
  `read_line`; both hand the step the same messages in the same order
  (tests/runtime/test_fast_paths_wire.py). It assumes what parking on stdio assumes: the step
  never blocks, returns what must be awaited instead of awaiting it, and `feed` is called on
  the event loop's thread, one call at a time.
- `FrameSink` is the writing half: the connection writes each message followed by a newline
  (its own message never contains one); the sink cuts there and hands each whole message to
  the transport. `drain` waits for the transport's room, so a slow peer slows the writer.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable

from .line_framing import DEFAULT_MAX_LINE_BYTES, LineTooLong
from .pushed_lines import _GO_ON, YIELD_ONCE, PushedLines, Take, close_handed

Deliver = Callable[[bytes], None]
_YIELD_EVERY = 64  # messages read from a backlog before other tasks get a turn
Room = Callable[[], Awaitable[None]]


class FrameQueue:
    """Messages waiting for the connection's reader loop, in arrival order. `parks=False`:
    the reference path (the reader loop only pulls, with `read_line`)."""

    def __init__(self, *, max_frame_bytes: int = DEFAULT_MAX_LINE_BYTES, parks: bool = True):
        self.parks = parks
        self._frames: deque[bytes | None] = deque()
        self._arrived = asyncio.Event()
        self._max = max_frame_bytes
        self._ended = False
        self._streak = 0  # messages read in a row without waiting
        self._parked: asyncio.Future[Awaitable[None] | None] | None = None  # `park`'s waiter
        self._take: Take | None = None  # the loop's step while it is parked

    def feed(self, frame: bytes) -> None:
        """Queue one whole message (ignored after `end`), or hand it to the parked loop's
        step at once."""
        if self._ended:
            return
        parked = self._parked
        if parked is None or parked.done():
            self._frames.append(frame)
            self._arrived.set()
            return
        assert self._take is not None and not self._frames  # parked only with nothing queued
        try:
            if len(frame) > self._max:
                raise LineTooLong
            rest = self._take(frame)
            if rest is YIELD_ONCE:
                rest = _GO_ON  # the park's end is the yield: the handler's step runs first
            if rest is not None:  # must be awaited before the next message: the loop's turn
                parked.set_result(rest)
        except Exception as problem:  # LineTooLong, or a fault in the step: the loop raises it
            parked.set_exception(problem)

    def end(self) -> None:
        """No more messages: the reader sees end of stream once the queue is drained."""
        if not self._ended:
            self._ended = True
            self._frames.append(None)
            self._arrived.set()
            if self._parked is not None and not self._parked.done():
                self._parked.set_result(None)  # `read_line` takes the end

    @property
    def ended(self) -> bool:
        return self._ended

    @property
    def parked(self) -> bool:
        """Whether the reader loop waits in `park`: a fed message is handled at once."""
        return self._parked is not None and not self._parked.done()

    async def park(self, take: Take) -> Awaitable[None] | None:
        """Wait, handing each message fed meanwhile to `take` at once (in `feed`); return
        the first awaitable `take` returns, or None when there is something for `read_line`
        (queued messages, the end). Raises what `take` raised, or LineTooLong for a message
        over the limit. Only when `parks`."""
        if self._frames:
            return None
        waiter: asyncio.Future[Awaitable[None] | None] = asyncio.get_running_loop().create_future()
        self._parked, self._take = waiter, take
        self._streak = 0
        try:
            return await waiter
        except asyncio.CancelledError:
            close_handed(waiter)
            raise
        finally:
            self._parked = self._take = None

    async def read_line(self) -> bytes | None:
        self._streak += 1
        if self._streak >= _YIELD_EVERY:
            self._streak = 0
            await asyncio.sleep(0)  # a long backlog must not keep other tasks waiting
        while not self._frames:
            self._streak = 0
            self._arrived.clear()
            await self._arrived.wait()
        frame = self._frames.popleft()
        if frame is None:
            self._frames.appendleft(None)  # end of stream stays the end for every later read
            return None
        if len(frame) > self._max:
            raise LineTooLong
        return frame


def parking(source: object) -> PushedLines | FrameQueue | None:
    """`source` when a reader loop may park on it (`park`), else None."""
    return source if isinstance(source, PushedLines | FrameQueue) and source.parks else None


class FrameSink:
    """A `ByteSink` that hands each written message to `deliver` (without its newline).
    `room`, when given, is awaited by `drain`: the transport's flow control."""

    def __init__(self, deliver: Deliver, room: Room | None = None) -> None:
        self._deliver = deliver
        self._room = room
        self._partial = bytearray()
        self._closed = False

    def write(self, data: bytes) -> None:
        if self._closed:
            raise ConnectionResetError("the transport is closed")
        end = data.find(b"\n")
        if end < 0:
            self._partial += data  # a large message comes in two writes: itself, then b"\n"
            return
        while end >= 0:
            if self._partial:
                self._partial += data[:end]
                frame = bytes(self._partial)
                self._partial.clear()
            else:
                frame = data[:end]
            self._deliver(frame)
            data = data[end + 1 :]
            end = data.find(b"\n")
        self._partial += data

    async def drain(self) -> None:
        if self._room is not None and not self._closed:
            await self._room()

    def close(self) -> None:
        self._closed = True

    def is_closing(self) -> bool:
        return self._closed
