"""One outgoing stream of a remote connection: the messages for one receiver (an SSE response
or a WebSocket), kept in order until it takes them.

A stream has at most one receiver at a time (a second one is refused: HTTP 409). Messages
queue while no receiver is attached, so a client whose event stream dropped finds them
waiting when it opens the stream again; a receiver whose write failed puts the message back
first (`unget`), so nothing is lost or reordered by a drop. Every queued byte is counted in
the connection's `Backlog`, which holds the agent back while clients are behind.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable


class Backlog:
    """The bytes queued on a connection's streams, and the writers waiting for room."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.size = 0
        self._room = asyncio.Event()
        self._room.set()

    def add(self, count: int) -> None:
        self.size += count
        if self.size >= self.limit:
            self._room.clear()

    def take(self, count: int) -> None:
        self.size -= count
        if self.size < self.limit:
            self._room.set()

    @property
    def full(self) -> bool:
        return self.size >= self.limit

    async def room(self) -> None:
        await self._room.wait()

    def release_all(self) -> None:
        """The connection is closing: nobody waits for room any more."""
        self._room.set()


class StreamClosed(Exception):
    """The stream was finished: its connection is gone."""


class Outbox:
    def __init__(self, backlog: Backlog, on_receiver_change: Callable[[], None] | None = None):
        self._frames: deque[bytes] = deque()
        self._backlog = backlog
        self._waiter: asyncio.Future[bool] | None = None  # the receiver waiting in `next`
        self._finished = False
        self._on_receiver_change = on_receiver_change
        self._lease: object | None = None
        self._alive: Callable[[], bool] | None = None
        self.free = asyncio.Event()  # set while no receiver is attached
        self.free.set()

    def __len__(self) -> int:
        return len(self._frames)

    def push(self, frame: bytes) -> None:
        if self._finished:
            return
        self._frames.append(frame)
        self._backlog.add(len(frame))
        self._wake()

    def unget(self, frame: bytes) -> None:
        """Put back a message its receiver could not deliver: it goes out first next time."""
        if not self._finished:
            self._frames.appendleft(frame)
            self._backlog.add(len(frame))

    def acquire(self, alive: Callable[[], bool] | None = None) -> object | None:
        """Attach a receiver: its lease (give it to `release`), or None when a live receiver
        holds the stream or the stream is over. `alive` tells whether this receiver's client
        is still connected: a new receiver takes the stream over from one that is not (its
        client left and the server has not noticed yet), so a reconnecting client is not
        refused its own stream."""
        if self._finished:
            return None
        if self._lease is not None and (self._alive is None or self._alive()):
            return None
        self._lease, self._alive = object(), alive
        self._wake()  # a receiver it replaced stops waiting
        self.free.clear()
        if self._on_receiver_change is not None:
            self._on_receiver_change()
        return self._lease

    def release(self, lease: object) -> None:
        if self._lease is lease:
            self._lease = self._alive = None
            self.free.set()
            if self._on_receiver_change is not None:
                self._on_receiver_change()

    @property
    def has_receiver(self) -> bool:
        return self._lease is not None

    async def next(self, wait_seconds: float | None, lease: object | None = None) -> bytes | None:
        """The next message; None when `wait_seconds` passed without one (time for a
        keep-alive); StreamClosed once the stream is finished and drained, or once `lease`
        (when given) no longer holds the stream: another receiver took it over."""
        while not self._frames or (lease is not None and lease is not self._lease):
            if self._finished or (lease is not None and lease is not self._lease):
                raise StreamClosed
            if not await self._woken(wait_seconds):
                return None
        frame = self._frames.popleft()
        self._backlog.take(len(frame))
        return frame

    async def next_batch(
        self, wait_seconds: float | None, lease: object | None = None, *, up_to_bytes: int = 0
    ) -> list[bytes] | None:
        """As `next`, then also what else is queued, in order, while the batch is under
        `up_to_bytes` (0: the one message alone, the reference for the batches). A receiver
        writes a batch in one go: one system call, and one read for the client, for what
        queued up while it wrote the last one; nothing waits to fill a batch."""
        frame = await self.next(wait_seconds, lease)
        if frame is None:
            return None
        batch, size, frames = [frame], len(frame), self._frames
        while frames and size + len(frames[0]) <= up_to_bytes:
            more = frames.popleft()
            batch.append(more)
            size += len(more)
        if len(batch) > 1:
            self._backlog.take(size - len(frame))
        return batch

    def unget_all(self, frames: list[bytes]) -> None:
        """`unget` a batch: it goes out first next time, in its order."""
        for frame in reversed(frames):
            self.unget(frame)

    async def _woken(self, wait_seconds: float | None) -> bool:
        """Wait for `_wake`: False when `wait_seconds` passed first. A future and a timer, not
        `wait_for` on an Event: on Python 3.11 that wraps the wait in a task of its own, and a
        message then reaches its receiver three event-loop passes after `push`, not one."""
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[bool] = loop.create_future()
        self._waiter = waiter
        timer = None if wait_seconds is None else loop.call_later(wait_seconds, _expire, waiter)
        try:
            return await waiter
        finally:
            if self._waiter is waiter:  # (a receiver that took the stream over waits anew)
                self._waiter = None
            if timer is not None:
                timer.cancel()

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(True)

    def finish(self) -> None:
        """No more messages come; the receiver still gets what is queued."""
        self._finished = True
        self._wake()


def _expire(waiter: asyncio.Future[bool]) -> None:
    if not waiter.done():
        waiter.set_result(False)
