"""The two halves a `Connection` needs when its transport frames messages itself (an HTTP body,
an SSE event, a WebSocket text frame) instead of a newline-delimited byte stream.

- `FrameQueue` is the reading half: the transport `feed`s each message's bytes as they come;
  the connection reads them in that order. Nothing is re-encoded, so the connection parses
  exactly the bytes the peer sent, with the same checks and errors as on stdio.
- `FrameSink` is the writing half: the connection writes each message followed by a newline
  (its own message never contains one); the sink cuts there and hands each whole message to
  the transport. `drain` waits for the transport's room, so a slow peer slows the writer.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable

from .line_framing import DEFAULT_MAX_LINE_BYTES, LineTooLong

Deliver = Callable[[bytes], None]
_YIELD_EVERY = 64  # messages read from a backlog before other tasks get a turn
Room = Callable[[], Awaitable[None]]


class FrameQueue:
    """Messages waiting for the connection's reader loop, in arrival order."""

    def __init__(self, *, max_frame_bytes: int = DEFAULT_MAX_LINE_BYTES) -> None:
        self._frames: deque[bytes | None] = deque()
        self._arrived = asyncio.Event()
        self._max = max_frame_bytes
        self._ended = False
        self._streak = 0  # messages read in a row without waiting

    def feed(self, frame: bytes) -> None:
        """Queue one whole message (ignored after `end`)."""
        if not self._ended:
            self._frames.append(frame)
            self._arrived.set()

    def end(self) -> None:
        """No more messages: the reader sees end of stream once the queue is drained."""
        if not self._ended:
            self._ended = True
            self._frames.append(None)
            self._arrived.set()

    @property
    def ended(self) -> bool:
        return self._ended

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
