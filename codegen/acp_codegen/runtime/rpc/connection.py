"""A JSON-RPC 2.0 connection over any transport: newline-delimited JSON on a byte stream, or one
message per frame (`FrameSource`: HTTP bodies, WebSocket frames).

Concurrency model (wire order is part of the protocol):

- One reader loop (`run`) reads messages in wire order. Fed by `PushedLines` (stdio), it lets
  the transport's callback handle what arrives while it waits, one line at a time and in order,
  up to the first line whose handling must be awaited, which it then awaits itself.
- Notifications are handled inline: the loop awaits the dispatcher before it reads on, so
  notifications are handled one at a time in wire order. A notification handler must therefore
  not await a response from the peer (it may spawn a task that does).
- Requests run as tasks, so a handler may itself await a request to the peer (an agent's prompt
  turn waiting on a permission answer). Each task starts eagerly: the loop yields once after
  creating it, so the handler runs up to its first real suspension point before the next message
  is read. Whatever it records before its first `await` is seen by later messages.
  A request the dispatcher answers without ever suspending (`synchronous_requests`:
  `initialize`, a `session/new` no author hook awaits) needs no task: it is handled and
  answered as it is read, in a context of its own; should it suspend after all (a full pipe),
  a task finishes it.
- Responses from the peer resolve the matching pending `request()` inline.
- Every write goes through `_write_now`, or (a held burst, when the event loop next runs)
  `_end_burst`, so wire order equals call order. Requests, responses
  and a lone notification are handed to the transport's synchronous `write()` at once. A burst
  of notifications sent without yielding to the event loop (a streamed message) goes out with
  its first one, then in writes of about `_BURST_BYTES` and the rest when the loop next runs: one
  system call (and one wake-up of the reader) per few dozen chunks instead of one each. One that
  comes `_BURST_SECONDS` or more after the last write goes out at once (with what is held). Any
  other write first takes what the burst holds, so a handler's response still follows every
  notification it sent before returning. (A fast path: `ReferenceConnection` writes each frame
  at once, and the bytes on the wire must be the same; docs/design.md says what it buys.)
- Batches (arrays): notifications and responses in them are handled inline in order; requests run
  as tasks; one array of their responses (plus -32600 for each invalid entry) is written when all
  are done. A batch of only notifications gets no reply; an empty batch gets a single -32600.
- `$/cancel_request` is handled here: a still-running request's task is cancelled and answered
  with -32800.
- End of stream, a read or write failure, or `close()`: the connection closes. Pending outgoing
  requests fail at once with `ConnectionClosed`, the reader loop stops, what `tasks` owns (the
  request handlers, and through `tasks.on_close` e.g. an agent side's turns) is cancelled and
  waited for, and the writer is closed.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable
from typing import Any

from ..wire.errors import ConnectionClosed, RpcError
from ..wire.jsonvalue import JsonObject, JsonValue, to_json
from ..wire.line_framing import (
    DEFAULT_MAX_LINE_BYTES,
    ByteSink,
    FrameSource,
    LineReader,
    LineTooLong,
    encode_json,
)
from ..wire.message_frames import parking
from ..wire.pushed_lines import PushedLines
from .dispatch import Dispatcher
from .incoming import CANCEL_REQUEST_METHOD, IncomingMessages, answer_written
from .messages import RequestId, error_message, notification_message, request_message
from .task_owner import TaskOwner
from .trace import RECV, SEND, Tracer

logger = logging.getLogger(__name__)

__all__ = ["CANCEL_REQUEST_METHOD", "Connection", "answer_written"]  # the reading half's too

# Frames below this size get their newline appended (a cheap copy) and go out in one write().
_JOIN_BELOW_BYTES = 1 << 16
# A burst's notifications are held until this many bytes (then written and drained, so a peer
# that stops reading still stops the sender), or until the event loop runs again, or until one
# comes this long after the last write (an author blocking the loop between chunks, reading a
# synchronous model stream, still gets each chunk out as it comes).
_BURST_BYTES = 4096
_BURST_SECONDS = 0.001
_WITHDRAWN_KEPT = 1024  # ids of requests we cancelled whose late answers are dropped quietly


class Connection(IncomingMessages):
    """One JSON-RPC peer. Start it with `start()` (or `await run()`), then `request`/`notify`.

    `dispatcher` handles what the peer sends; without one, requests get -32601 and
    notifications are ignored. It may be assigned after construction, before `start()`.
    `reader` is a byte stream of newline-delimited messages, or a `FrameSource` that yields
    one message at a time (a transport with its own framing: HTTP bodies, WebSocket frames),
    or `PushedLines` (stdio) or a `FrameQueue` (remote) that its transport fills: what arrives
    while the reader loop waits is handled in the transport's callback, a loop pass sooner
    (unless made with `parks=False`, its reference path: then the loop pulls each line).
    `max_line_bytes` bounds a line of either newline-delimited kind."""

    def __init__(
        self,
        reader: asyncio.StreamReader | FrameSource,
        writer: ByteSink,
        dispatcher: Dispatcher | None = None,
        *,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        trace: Tracer | None = None,
    ) -> None:
        self.dispatcher = dispatcher
        self.trace = trace
        # Whether a request given up on is withdrawn with `$/cancel_request` (v2); a peer of a
        # version without it (v1) just gets its late answer ignored.
        self.sends_cancel_request = True
        self._withdrawn: OrderedDict[RequestId, None] = OrderedDict()
        self._lines: FrameSource = (
            LineReader(reader, max_line_bytes=max_line_bytes)
            if isinstance(reader, asyncio.StreamReader)
            else reader
        )
        if isinstance(reader, PushedLines):  # newline framing too: the same limit
            reader.max_line_bytes = max_line_bytes
        self._writer = writer
        self._burst: list[bytes] = []  # frames (and their newlines) of the current burst
        self._burst_bytes = 0
        self._in_burst = False  # a notification went out since the event loop last ran
        self._last_write = 0.0  # time.monotonic() of the last write of a notification
        self._ids = itertools.count(1)
        self._pending: dict[RequestId, asyncio.Future[JsonValue]] = {}
        self._inbound: dict[RequestId, asyncio.Task[Any]] = {}
        self._peer_cancelled: set[asyncio.Task[Any]] = set()
        # The request handlers (and what `tasks.on_close` adds); closing the connection closes
        # it, after the reader loop has stopped (task_owner.py).
        self.tasks = TaskOwner("a connection")
        self._tasks = self.tasks.running  # the reading half adds its handlers here directly
        self._reader_task: asyncio.Task[None] | None = None
        self._closed = False
        self._close_reason = ""
        self._stopping_reader = False  # the connection itself cancelled the reader loop
        self._done = asyncio.Event()

    # -- lifecycle ------------------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._closed

    def start(self) -> asyncio.Task[None]:
        """Run the reader loop in a task (returned, and awaited by `close`)."""
        if self._reader_task is not None:
            raise RuntimeError("connection already started")
        # The connection's own (not in `tasks`, whose close it runs): `close()` stops it.
        self._reader_task = asyncio.create_task(self.run(), name="acp connection reader")
        return self._reader_task

    async def run(self) -> None:
        """Read and handle messages until end of stream or `close()`; then shut down."""
        current = asyncio.current_task()
        if self._reader_task is not None and self._reader_task is not current:
            raise RuntimeError("connection already running")
        self._reader_task = current
        reason = "end of stream"
        buffered = self._buffered_lines(self._lines)  # what is buffered: no coroutine per line
        pushed = parking(self._lines)  # stdio's pushed lines, a remote connection's queue
        try:
            while not self._closed:
                try:
                    lines = buffered()
                    if not lines and pushed is not None:
                        # Parked: what arrives is handled in the transport's callback, up to
                        # the first line whose handling must be awaited.
                        handover = await pushed.park(self._take_arrived)
                        if handover is not None:
                            await handover
                            continue
                    if not lines:
                        line = await self._lines.read_line()
                        if line is None:
                            break
                        lines = (line,)
                except LineTooLong:
                    await self._write_error(None, RpcError.parse_error("message too long"))
                    continue
                take = self._take_line if self.trace is None else self._take_arrived
                for line in lines:
                    rest = take(line)  # a coroutine only for what must be awaited
                    if rest is not None:
                        await rest
                    if self._closed:
                        break
        except (ConnectionClosed, ConnectionError, OSError) as problem:
            reason = f"transport failed: {problem}"
        except asyncio.CancelledError:
            reason = self._close_reason or "cancelled"
            if not self._stopping_reader or _cancelled_by_others(current):
                raise
            # Our own stop (`close()`, or a write that found the peer gone): the loop ends as at
            # end of stream, so `serve_stdio` returns and an agent exits 0, without a traceback.
        finally:
            self._stopping_reader = True  # the loop is ending: no later stop cancels the cleanup
            await self._shutdown(reason)

    def _take_arrived(self, line: bytes) -> Awaitable[None] | None:
        if self.trace is not None:
            self.trace.record(RECV, line)
        return self._take_line(line)

    async def close(self) -> None:
        """Close the connection (pending requests fail with ConnectionClosed) and wait for it."""
        self._begin_close("closed locally")
        reader_task = self._reader_task
        if reader_task is None:
            await self._shutdown("closed locally")
        elif reader_task is asyncio.current_task():
            return  # called from a notification handler: the loop stops after it returns
        else:
            self._stop_reader(reader_task)
            await asyncio.gather(reader_task, return_exceptions=True)
            if not self._done.is_set():  # cancelled before it ever ran: no cleanup happened
                await self._shutdown("closed locally")
        await self._done.wait()

    async def wait_closed(self) -> None:
        await self._done.wait()

    async def __aenter__(self) -> Connection:
        if self._reader_task is None:
            self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    def _begin_close(self, reason: str) -> None:
        """Mark closed and fail every pending request now (synchronously: never hang)."""
        if self._closed:
            return
        self._closed = True
        self._close_reason = reason
        for future in self._pending.values():
            if not future.done():
                future.set_exception(ConnectionClosed(f"connection closed: {reason}"))
        self._pending.clear()

    async def _shutdown(self, reason: str) -> None:
        self._begin_close(reason)
        await self.tasks.close()
        try:
            self._end_burst()  # what the last burst holds goes out before the writer closes
            self._writer.close()
        except Exception as problem:  # closing a dead transport must not mask the shutdown
            logger.debug("closing the writer failed: %s", problem)
        if self.trace is not None:
            self.trace.close()
        self._done.set()

    # -- outgoing -------------------------------------------------------------------------------

    async def request(self, method: str, params: object = None) -> Any:
        """Send a request and return its result (JSON); `RpcError` on an error response,
        `ConnectionClosed` when the connection ends first. Cancelling the awaiting task sends
        `$/cancel_request` to the peer."""
        if self._closed:
            raise ConnectionClosed(f"connection closed: {self._close_reason}")
        request_id = next(self._ids)
        future: asyncio.Future[JsonValue] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        try:
            await self._write_message(request_message(request_id, method, to_json(params)))
            return await future
        except asyncio.CancelledError:
            answered = future.done() and not future.cancelled()  # awaiting cancels the future
            if not self._closed and not answered:
                self._withdraw(request_id)
            if not self._closed and not answered and self.sends_cancel_request:
                self._write_nowait(
                    notification_message(CANCEL_REQUEST_METHOD, {"requestId": request_id})
                )
            raise
        finally:
            self._pending.pop(request_id, None)

    def _withdraw(self, request_id: RequestId) -> None:
        """Remember a request we gave up on: the peer may still answer it (e.g. a permission
        request answered `cancelled` after session/cancel), which is no error."""
        self._withdrawn[request_id] = None
        if len(self._withdrawn) > _WITHDRAWN_KEPT:
            self._withdrawn.popitem(last=False)

    async def notify(self, method: str, params: object = None) -> None:
        """Send a notification: written before this returns, or, sent in a burst without
        yielding to the event loop, in order with the burst (see the module's notes)."""
        await self._write_notification(encode_json(notification_message(method, to_json(params))))

    async def notify_json(self, method: str, params: JsonValue) -> bytes:
        """`notify` for params in wire JSON already (no conversion walk); returns the frame."""
        await self._write_notification(frame := encode_json(notification_message(method, params)))
        return frame

    async def _write_notification(self, frame: bytes) -> None:
        """Write a notification's frame, or hold it in the burst (the module's notes): the seam
        of the burst fast path, whose reference (`ReferenceConnection`) writes it at once.
        Assumes the writer keeps the order of `write` calls and that the loop runs `call_soon`
        callbacks."""
        now = time.monotonic()
        if not self._in_burst:  # the first since the loop last ran goes out at once
            self._in_burst = True
            asyncio.get_running_loop().call_soon(self._end_burst)
            self._last_write = now
            await self._write_frame(frame)
            return
        if len(frame) >= _BURST_BYTES or now - self._last_write >= _BURST_SECONDS:
            self._last_write = now  # a large one, or a late one: out now, after the burst
            await self._write_frame(frame)
            return
        if self._closed or self._writer.is_closing():
            raise ConnectionClosed(f"connection closed: {self._close_reason or 'writer closed'}")
        self._burst.append(frame)
        self._burst.append(b"\n")
        self._burst_bytes += len(frame) + 1
        if self.trace is not None:
            self.trace.record(SEND, frame)
        if self._burst_bytes >= _BURST_BYTES:
            self._last_write = now
            await self._write_frame(b"")  # the burst so far, then drained

    def _take_burst(self, frame: bytes) -> bytes:
        """The held burst joined with `frame` (with its newline; b"": the burst alone)."""
        burst = self._burst
        if frame:
            burst.append(frame)
            burst.append(b"\n")
        data = b"".join(burst)
        burst.clear()
        self._burst_bytes = 0
        return data

    def _end_burst(self) -> None:
        """The event loop ran: write what the burst holds (nothing waits on it to drain)."""
        self._in_burst = False
        if not self._burst:
            return
        data = self._take_burst(b"")
        if self._writer.is_closing():
            logger.debug("dropped %d bytes of notifications: the writer closed", len(data))
            return
        try:
            self._writer.write(data)
        except (ConnectionError, OSError, RuntimeError) as problem:
            self._abort(f"write failed: {problem}")

    async def _write_message(self, message: JsonObject) -> None:
        await self._write_frame(encode_json(message))

    async def _write_error(self, request_id: RequestId, error: RpcError) -> None:
        await self._write_frame(encode_json(error_message(request_id, error)))

    def _write_now(self, frame: bytes) -> None:
        """Hand `frame` (b"": nothing) to the writer, after what the burst holds."""
        if self._closed or self._writer.is_closing():
            raise ConnectionClosed(f"connection closed: {self._close_reason or 'writer closed'}")
        big = len(frame) >= _JOIN_BELOW_BYTES
        if self._burst:  # the burst's notifications first: with the frame when it is small
            self._writer.write(self._take_burst(b"" if big else frame))
        elif frame and not big:
            self._writer.write(frame + b"\n")  # one write: each is a transport call (a syscall)
        if big:
            self._writer.write(frame)
            self._writer.write(b"\n")  # separate write: no copy of a large frame
        if self.trace is not None and frame:
            self.trace.record(SEND, frame)

    def _write_nowait(self, message: JsonObject) -> None:
        try:
            self._write_now(encode_json(message))
        except (ConnectionClosed, ConnectionError, OSError) as problem:
            logger.debug("could not send %s: %s", message.get("method"), problem)

    async def _write_frame(self, frame: bytes) -> None:
        self._write_now(frame)
        try:
            await self._writer.drain()
        except (ConnectionError, OSError, RuntimeError) as problem:
            self._abort(f"write failed: {problem}")
            raise ConnectionClosed(f"connection closed: {self._close_reason}") from problem

    def _abort(self, reason: str) -> None:
        """The peer is gone: fail pending requests now and stop the reader loop."""
        if self._closed:
            return  # closing already: whoever closed it stops the loop (or it is stopping)
        self._begin_close(reason)
        if self._reader_task is not None and self._reader_task is not asyncio.current_task():
            self._stop_reader(self._reader_task)

    def _stop_reader(self, reader_task: asyncio.Task[None]) -> None:
        """Cancel the reader loop, which then ends normally (see `run`)."""
        if not self._stopping_reader:
            self._stopping_reader = True
            reader_task.cancel()


def _cancelled_by_others(task: asyncio.Task[Any] | None) -> bool:
    """Whether `task` was cancelled more often than the one time the connection did."""
    return task is None or task.uncancel() > 0
