"""A JSON-RPC 2.0 connection over newline-delimited JSON on asyncio streams.

Concurrency model (wire order is part of the protocol):

- One reader loop (`run`) reads messages in wire order.
- Notifications are handled inline: the loop awaits the dispatcher before it reads on, so
  notifications are handled one at a time in wire order. A notification handler must therefore
  not await a response from the peer (it may spawn a task that does).
- Requests run as tasks, so a handler may itself await a request to the peer (an agent's prompt
  turn waiting on a permission answer). Each task starts eagerly: the loop yields once after
  creating it, so the handler runs up to its first real suspension point before the next message
  is read. Whatever it records before its first `await` is seen by later messages.
- Responses from the peer resolve the matching pending `request()` inline.
- Every write goes through `_write_frame`, which hands the bytes to the transport's synchronous
  `write()` at once, so wire order equals call order. A handler's response is written the moment
  the handler returns: after every notification it sent before returning, and before any other
  task runs.
- Batches (arrays): notifications and responses in them are handled inline in order; requests run
  as tasks; one array of their responses (plus -32600 for each invalid entry) is written when all
  are done. A batch of only notifications gets no reply; an empty batch gets a single -32600.
- `$/cancel_request` is handled here: a still-running request's task is cancelled and answered
  with -32800.
- End of stream, a read or write failure, or `close()`: the connection closes. Pending outgoing
  requests fail at once with `ConnectionClosed`, running request handlers are cancelled, and the
  writer is closed.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections import OrderedDict
from collections.abc import Coroutine
from contextvars import ContextVar
from typing import Any

from .dispatch import Dispatcher
from .errors import ConnectionClosed, RpcError
from .framing import (
    DEFAULT_MAX_LINE_BYTES,
    ByteSink,
    LineReader,
    LineTooLong,
    decode_line,
    encode_json,
)
from .jsonvalue import to_json
from .messages import (
    Invalid,
    Notification,
    Request,
    RequestId,
    Response,
    classify,
    error_message,
    is_valid_id,
    notification_message,
    request_message,
    success_message,
)
from .trace import RECV, SEND, Tracer

logger = logging.getLogger(__name__)

CANCEL_REQUEST_METHOD = "$/cancel_request"
# Frames below this size get their newline appended (a cheap copy) and go out in one write().
_JOIN_BELOW_BYTES = 1 << 16
_WITHDRAWN_KEPT = 1024  # ids of requests we cancelled whose late answers are dropped quietly

# Set in each request handler's task: resolved once its answer (or its batch's) is written.
_ANSWER_WRITTEN: ContextVar[asyncio.Future[None] | None] = ContextVar(
    "answer_written", default=None
)


def answer_written() -> asyncio.Future[None] | None:
    """In a request handler: a future resolved once the answer to the request (for a batch
    entry: the batch's answer) has been written; None outside a handler."""
    return _ANSWER_WRITTEN.get()


def _encode_answer(request_id: RequestId, answer: Any, error: RpcError | None) -> bytes:
    """Encode a response; a result or error data that is not JSON becomes -32603."""
    try:
        if error is None:
            return encode_json(success_message(request_id, to_json(answer)))
        return encode_json(error_message(request_id, error))
    except Exception as problem:  # anything to_json / json.dumps can raise
        logger.error("cannot encode the answer to request %r: %s", request_id, problem)
        fallback = RpcError.internal_error(f"answer is not JSON-serialisable: {problem}")
        return encode_json(error_message(request_id, fallback))


class Connection:
    """One JSON-RPC peer. Start it with `start()` (or `await run()`), then `request`/`notify`.

    `dispatcher` handles what the peer sends; without one, requests get -32601 and
    notifications are ignored. It may be assigned after construction, before `start()`.
    """

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: ByteSink,
        dispatcher: Dispatcher | None = None,
        *,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        trace: Tracer | None = None,
    ) -> None:
        self.dispatcher = dispatcher
        self.trace = trace
        self._withdrawn: OrderedDict[RequestId, None] = OrderedDict()
        self._lines = LineReader(reader, max_line_bytes=max_line_bytes)
        self._writer = writer
        self._ids = itertools.count(1)
        self._pending: dict[RequestId, asyncio.Future[Any]] = {}
        self._inbound: dict[RequestId, asyncio.Task[Any]] = {}
        self._peer_cancelled: set[asyncio.Task[Any]] = set()
        self._tasks: set[asyncio.Task[Any]] = set()  # strong references to running tasks
        self._reader_task: asyncio.Task[None] | None = None
        self._closed = False
        self._close_reason = ""
        self._done = asyncio.Event()

    # -- lifecycle ------------------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._closed

    def start(self) -> asyncio.Task[None]:
        """Run the reader loop in a task (returned, and awaited by `close`)."""
        if self._reader_task is not None:
            raise RuntimeError("connection already started")
        self._reader_task = asyncio.create_task(self.run())
        return self._reader_task

    async def run(self) -> None:
        """Read and handle messages until end of stream or `close()`; then shut down."""
        current = asyncio.current_task()
        if self._reader_task is not None and self._reader_task is not current:
            raise RuntimeError("connection already running")
        self._reader_task = current
        reason = "end of stream"
        try:
            while not self._closed:
                try:
                    line = await self._lines.read_line()
                except LineTooLong:
                    await self._write_error(None, RpcError.parse_error("message too long"))
                    continue
                if line is None:
                    break
                if self.trace is not None:
                    self.trace.record(RECV, line)
                await self._on_line(line)
        except (ConnectionClosed, ConnectionError, OSError) as problem:
            reason = f"transport failed: {problem}"
        except asyncio.CancelledError:
            reason = self._close_reason or "cancelled"
            raise
        finally:
            await self._shutdown(reason)

    async def close(self) -> None:
        """Close the connection (pending requests fail with ConnectionClosed) and wait for it."""
        self._begin_close("closed locally")
        reader_task = self._reader_task
        if reader_task is None:
            await self._shutdown("closed locally")
        elif reader_task is asyncio.current_task():
            return  # called from a notification handler: the loop stops after it returns
        else:
            reader_task.cancel()
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
        current = asyncio.current_task()
        tasks = [task for task in self._tasks if task is not current]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        try:
            self._writer.close()
        except Exception as problem:  # closing a dead transport must not mask the shutdown
            logger.debug("closing the writer failed: %s", problem)
        if self.trace is not None:
            self.trace.close()
        self._done.set()

    # -- outgoing -------------------------------------------------------------------------------

    async def request(self, method: str, params: Any = None) -> Any:
        """Send a request and return its result (JSON); `RpcError` on an error response,
        `ConnectionClosed` when the connection ends first. Cancelling the awaiting task sends
        `$/cancel_request` to the peer."""
        if self._closed:
            raise ConnectionClosed(f"connection closed: {self._close_reason}")
        request_id = next(self._ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        try:
            await self._write_message(request_message(request_id, method, to_json(params)))
            return await future
        except asyncio.CancelledError:
            answered = future.done() and not future.cancelled()  # awaiting cancels the future
            if not self._closed and not answered:
                self._withdraw(request_id)
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

    async def notify(self, method: str, params: Any = None) -> None:
        """Send a notification (written before this returns)."""
        await self._write_message(notification_message(method, to_json(params)))

    async def notify_json(self, method: str, params: Any) -> None:
        """`notify` for params that are already wire JSON (no models inside): written as they
        are, without another conversion walk (the session's updates are converted once)."""
        await self._write_message(notification_message(method, params))

    async def _write_message(self, message: dict[str, Any]) -> None:
        await self._write_frame(encode_json(message))

    async def _write_error(self, request_id: RequestId, error: RpcError) -> None:
        await self._write_frame(encode_json(error_message(request_id, error)))

    def _write_now(self, frame: bytes) -> None:
        if self._closed or self._writer.is_closing():
            raise ConnectionClosed(f"connection closed: {self._close_reason or 'writer closed'}")
        if len(frame) < _JOIN_BELOW_BYTES:
            self._writer.write(frame + b"\n")  # one write: each is a transport call (a syscall)
        else:
            self._writer.write(frame)
            self._writer.write(b"\n")  # separate write: no copy of a large frame
        if self.trace is not None:
            self.trace.record(SEND, frame)

    def _write_nowait(self, message: dict[str, Any]) -> None:
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
        self._begin_close(reason)
        if self._reader_task is not None and self._reader_task is not asyncio.current_task():
            self._reader_task.cancel()

    # -- incoming -------------------------------------------------------------------------------

    def _spawn(self, coroutine: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        task = asyncio.create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _on_line(self, line: bytes) -> None:
        if not line.strip():
            return  # tolerate blank lines between messages
        try:
            payload = decode_line(line)
        except ValueError as problem:
            excerpt = line[:200].decode("utf-8", errors="replace")
            logger.warning("the peer sent a line that is not JSON (%s): %r", problem, excerpt)
            await self._write_error(None, RpcError.parse_error(str(problem)))
            return
        if isinstance(payload, list):
            await self._on_batch(payload)
            return
        if (  # a well-formed notification (most traffic): `classify` would only say so
            type(payload) is dict
            and "id" not in payload
            and payload.get("jsonrpc") == "2.0"
            and type(payload.get("method")) is str
            and type(payload.get("params")) is dict
        ):
            await self._on_notification(payload["method"], payload["params"])
            return
        message = classify(payload)
        if isinstance(message, Request):
            self._track(message.id, self._spawn(self._answer_and_write(message)))
            await asyncio.sleep(0)  # let the handler start before the next message is read
        elif isinstance(message, Notification):
            await self._on_notification(message.method, message.params)
        elif isinstance(message, Response):
            self._on_response(message)
        else:
            await self._write_error(message.id, RpcError.invalid_request(message.reason))

    async def _on_batch(self, items: list[Any]) -> None:
        if not items:
            await self._write_error(None, RpcError.invalid_request("empty batch"))
            return
        parts: list[bytes | asyncio.Task[bytes]] = []
        written: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        for item in items:
            message = classify(item)
            if isinstance(message, Request):
                parts.append(self._start_request(message, written))
                await asyncio.sleep(0)  # as for single requests: start in wire order
            elif isinstance(message, Notification):
                await self._on_notification(message.method, message.params)
            elif isinstance(message, Response):
                self._on_response(message)
            else:
                invalid: Invalid = message
                error = RpcError.invalid_request(invalid.reason)
                parts.append(encode_json(error_message(invalid.id, error)))
        if parts:
            self._spawn(self._write_batch(parts, written))
        else:
            written.set_result(None)

    async def _write_batch(
        self, parts: list[bytes | asyncio.Task[bytes]], written: asyncio.Future[None]
    ) -> None:
        try:
            frames = [part if isinstance(part, bytes) else await part for part in parts]
            await self._write_frame(b"[" + b",".join(frames) + b"]")
        except ConnectionClosed:
            logger.debug("batch answer dropped: connection closed")
        finally:
            if not written.done():
                written.set_result(None)

    async def _on_notification(self, method: str, params: Any) -> None:
        if method == CANCEL_REQUEST_METHOD:
            self._on_cancel_request(params)
            return
        if self.dispatcher is None:
            return
        try:
            await self.dispatcher.handle_notification(method, params)
        except Exception:
            logger.exception("notification handler for %r failed", method)

    def _on_response(self, message: Response) -> None:
        future = self._pending.get(message.id)
        if message.id is None and message.error is not None:
            # No id: the peer could not tell which message it answers (e.g. one it could not parse).
            logger.warning("the peer reported an error without a request id: %s", message.error)
        elif message.id in self._withdrawn:
            del self._withdrawn[message.id]  # a late answer to a request we withdrew
        elif future is None or future.done():
            logger.warning("dropping a response to unknown request id %r", message.id)
        elif message.error is not None:
            future.set_exception(message.error)
        else:
            future.set_result(message.result)

    def _on_cancel_request(self, params: Any) -> None:
        request_id = params.get("requestId") if isinstance(params, dict) else None
        if not is_valid_id(request_id):
            return
        task = self._inbound.get(request_id)
        if task is not None and not task.done():
            self._peer_cancelled.add(task)
            task.cancel()

    def _track(self, request_id: RequestId, task: asyncio.Task[Any]) -> None:
        """Remember a running request's task so `$/cancel_request` can find it."""
        self._inbound[request_id] = task

        def forget(done: asyncio.Task[Any]) -> None:
            self._peer_cancelled.discard(done)
            if self._inbound.get(request_id) is done:
                del self._inbound[request_id]

        task.add_done_callback(forget)

    def _start_request(
        self, message: Request, written: asyncio.Future[None]
    ) -> asyncio.Task[bytes]:
        """A batch entry: the task returns the encoded answer for the batch's array."""
        task: asyncio.Task[bytes] = self._spawn(self._answer(message, written))
        self._track(message.id, task)
        return task

    async def _answer_and_write(self, message: Request) -> None:
        # One task runs the handler and writes: no scheduling gap between return and write.
        written: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        try:
            frame = await self._answer(message, written)
            await self._write_frame(frame)
        except ConnectionClosed:
            logger.debug("answer to %r dropped: connection closed", message.method)
        finally:
            if not written.done():
                written.set_result(None)

    async def _answer(self, message: Request, written: asyncio.Future[None]) -> bytes:
        """Run the handler; return the encoded response (result or error)."""
        _ANSWER_WRITTEN.set(written)  # this task's own context: visible to the handler only
        try:
            if self.dispatcher is None:
                raise RpcError.method_not_found(message.method)
            result = await self.dispatcher.handle_request(message.method, message.params)
            return _encode_answer(message.id, result, None)
        except RpcError as error:
            return _encode_answer(message.id, None, error)
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is None or self._closed:
                raise
            if task in self._peer_cancelled:
                task.uncancel()
                return _encode_answer(message.id, None, RpcError.request_cancelled())
            if task.cancelling():
                raise
            # Nobody cancelled this task: the handler let a CancelledError of its own escape.
            # The peer still gets its one answer.
            logger.error("request handler for %r raised CancelledError", message.method)
            cancelled = RpcError.internal_error("the handler was cancelled")
            return _encode_answer(message.id, None, cancelled)
        except Exception as problem:
            logger.exception("request handler for %r failed", message.method)
            detail = str(problem) or type(problem).__name__
            return _encode_answer(message.id, None, RpcError.internal_error(detail))
