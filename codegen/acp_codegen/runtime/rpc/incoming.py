"""The reading half of a JSON-RPC connection: what happens to each message the peer sends.

`Connection` (connection.py, which owns the lifecycle and the writing) inherits these steps,
so its reader loop calls them without an extra hop per line. The rules, part of the
connection's concurrency model (see connection.py):

- a notification is handled before the next message is read: one the dispatcher can handle
  synchronously (`dispatch.inline_notifications`), when well-formed, is recognised without
  `classify` and handled in the step itself; any other is awaited through the dispatcher;
- a request runs as a task that starts before the next message is read; its answer is written
  the moment the handler returns. One the dispatcher answers without suspending
  (`dispatch.synchronous_requests`: `initialize`, a `session/new` no author hook awaits) is
  answered within the read that brought it, without a task;
- a batch: notifications and responses inline in order, requests as tasks, one array of
  answers when all are done (none for a batch of only notifications);
- `$/cancel_request` cancels a running request, which is answered with -32800.

The shortcuts (the inline notification, the request answered without a task, `YIELD_ONCE`) are
fast paths behind one seam, `_take_line`; `ReferenceConnection` (reference_paths.py) replaces
it with the obvious step, and tests/runtime/test_fast_paths_rpc.py requires the same wire
output and the same handled messages from both (docs/design.md, "Performance-sensitive paths").
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from contextvars import ContextVar
from typing import Any

from pydantic_core import from_json

from ..wire.errors import ConnectionClosed, RpcError
from ..wire.jsonvalue import JsonParams, JsonValue, to_json
from ..wire.line_framing import decode_line, encode_json
from ..wire.pushed_lines import YIELD_ONCE
from .dispatch import Dispatcher, InlineHandler, inline_notifications, synchronous_requests
from .messages import (
    Invalid,
    Notification,
    Request,
    RequestId,
    Response,
    classify,
    error_message,
    is_valid_id,
    success_message,
)
from .resumed import Resumed
from .task_owner import TaskOwner

logger = logging.getLogger(__name__)

CANCEL_REQUEST_METHOD = "$/cancel_request"

# Set in each request handler's task: resolved once its answer (or its batch's) is written.
_ANSWER_WRITTEN: ContextVar[asyncio.Future[None] | None] = ContextVar(
    "answer_written", default=None
)


def _nothing() -> Sequence[bytes]:
    return ()  # a frame source that buffers nothing of its own


def answer_written() -> asyncio.Future[None] | None:
    """In a request handler: a future resolved once the answer to the request (for a batch
    entry: the batch's answer) has been written; None outside a handler."""
    return _ANSWER_WRITTEN.get()


def _encode_answer(request_id: RequestId, answer: object, error: RpcError | None) -> bytes:
    """Encode a response; a result or error data that is not JSON becomes -32603."""
    try:
        if error is None:
            return encode_json(success_message(request_id, to_json(answer)))
        return encode_json(error_message(request_id, error))
    except Exception as problem:  # anything to_json / json.dumps can raise
        logger.error("cannot encode the answer to request %r: %s", request_id, problem)
        fallback = RpcError.internal_error(f"answer is not JSON-serialisable: {problem}")
        return encode_json(error_message(request_id, fallback))


class IncomingMessages:
    """Handles each message read from the peer. The state it shares with `Connection` is
    declared here; the writing steps it needs are `Connection`'s."""

    _dispatcher: Dispatcher | None = None
    # What the dispatcher handles synchronously (`dispatch.inline_notifications`), read when it
    # is assigned: those notifications skip the chain of coroutines.
    _inline: dict[str, InlineHandler] = {}  # noqa: RUF012 (replaced, never mutated)
    # The requests it answers without suspending (`dispatch.synchronous_requests`), likewise.
    _synchronous: frozenset[str] = frozenset()
    _closed: bool
    _withdrawn: OrderedDict[RequestId, None]
    _pending: dict[RequestId, asyncio.Future[JsonValue]]
    _inbound: dict[RequestId, asyncio.Task[Any]]
    _peer_cancelled: set[asyncio.Task[Any]]
    _tasks: set[asyncio.Task[Any]]  # the running set of the connection's `TaskOwner`
    tasks: TaskOwner

    @property
    def dispatcher(self) -> Dispatcher | None:
        """Handles what the peer sends (see `Connection`)."""
        return self._dispatcher

    @dispatcher.setter
    def dispatcher(self, dispatcher: Dispatcher | None) -> None:
        inline = {} if dispatcher is None else inline_notifications(dispatcher)
        inline.pop(CANCEL_REQUEST_METHOD, None)  # always the connection's own
        self._dispatcher, self._inline = dispatcher, inline
        self._synchronous = frozenset() if dispatcher is None else synchronous_requests(dispatcher)

    async def _write_frame(self, frame: bytes) -> None:
        raise NotImplementedError  # Connection writes

    async def _write_error(self, request_id: RequestId, error: RpcError) -> None:
        raise NotImplementedError

    def _spawn(self, coroutine: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        return self.tasks.spawn(coroutine)

    @staticmethod
    def _buffered_lines(source: object) -> Callable[[], Sequence[bytes]]:
        """What the reader loop calls for the lines `source` holds whole, before it waits: all
        of them (`whole_lines`: a fast path, whose reference `ReferenceConnection` takes one
        at a time), or none for a source that buffers nothing of its own."""
        whole: Callable[[], list[bytes]] | None = getattr(source, "whole_lines", None)
        return _nothing if whole is None else whole

    def _take_line(self, line: bytes) -> Awaitable[None] | None:
        """The reader loop's step for one line: the seam of the incoming fast paths, whose
        reference is `ReferenceConnection._take_line` (an `async` step for every line).

        Returns None when the line is handled; `YIELD_ONCE` when it started a request's task
        (the loop yields once, so the handler runs up to its first suspension before the next
        message is read); else a coroutine the loop awaits before it takes the next line.
        Handled here at once: a blank line, a well-formed notification with an inline handler
        (most traffic; no `classify`), a response, and a request the dispatcher answers
        without suspending (`_answer_at_once`: no task). Assumes those handlers do, without
        suspending, exactly what the dispatcher's coroutines would; it may run inside a
        transport's callback (`PushedLines.park`), so it never awaits."""
        if not line or line.isspace():
            return None  # tolerate blank lines between messages (`strip()` would copy every line)
        try:  # `decode_line`'s first parse, inline: a call less for almost every line
            payload: JsonValue = from_json(line, allow_inf_nan=False)
        except ValueError:
            try:  # what it refuses, `decode_line` reads again (or refuses) as `json` does
                payload = decode_line(line)
            except ValueError as problem:
                return self._not_json(line, problem)
        if (  # a well-formed notification (most traffic): `classify` would only say so
            type(payload) is dict
            and "id" not in payload
            and payload.get("jsonrpc") == "2.0"
            and type(method := payload.get("method")) is str
            and type(params := payload.get("params")) is dict
        ):
            inline = self._inline.get(method)
            if inline is None:
                return self._on_notification(method, params)
            try:  # `_notify_inline`, without its frame: this is most of the traffic
                inline(params)
            except Exception:
                logger.exception("notification handler for %r failed", method)
            return None
        if type(payload) is dict:  # one request or response: nothing to await to take it
            message = classify(payload)
            if isinstance(message, Request):
                if message.method in self._synchronous:
                    self._answer_at_once(message)
                    return None
                self._spawn_request(
                    message.id, self._answer_and_write(message), forgets_itself=True
                )
                return YIELD_ONCE  # the handler starts before the next message is read
            if isinstance(message, Response):
                self._on_response(message)
                return None
            return self._on_message(message)
        return self._on_payload(payload)

    async def _not_json(self, line: bytes, problem: ValueError) -> None:
        excerpt = line[:200].decode("utf-8", errors="replace")
        logger.warning("the peer sent a line that is not JSON (%s): %r", problem, excerpt)
        await self._write_error(None, RpcError.parse_error(str(problem)))

    async def _on_payload(self, payload: JsonValue) -> None:
        """A decoded message other than a notification handled inline."""
        if isinstance(payload, list):
            await self._on_batch(payload)
            return
        await self._on_message(classify(payload))

    async def _on_message(self, message: Request | Notification | Response | Invalid) -> None:
        if isinstance(message, Request):
            self._spawn_request(message.id, self._answer_and_write(message), forgets_itself=True)
            await asyncio.sleep(0)  # let the handler start before the next message is read
        elif isinstance(message, Notification):
            await self._on_notification(message.method, message.params)
        elif isinstance(message, Response):
            self._on_response(message)
        else:
            await self._write_error(message.id, RpcError.invalid_request(message.reason))

    async def _on_batch(self, items: list[JsonValue]) -> None:
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
        if not parts:
            written.set_result(None)
        elif all(isinstance(part, bytes) or part.done() for part in parts):
            # Every handler has finished: answer now, so a stream that ends right after the
            # batch (`printf ... | agent`) still gets it (end of stream cancels pending tasks).
            await self._write_batch(parts, written)
        else:
            self._spawn(self._write_batch(parts, written))

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

    async def _on_notification(self, method: str, params: JsonParams) -> None:
        if method == CANCEL_REQUEST_METHOD:
            self._on_cancel_request(params)
            return
        inline = self._inline.get(method)
        if inline is not None:
            self._notify_inline(inline, method, params)
            return
        if self._dispatcher is None:
            return
        try:
            await self._dispatcher.handle_notification(method, params)
        except Exception:
            logger.exception("notification handler for %r failed", method)

    @staticmethod
    def _notify_inline(inline: InlineHandler, method: str, params: JsonParams) -> None:
        try:
            inline(params)
        except Exception:
            logger.exception("notification handler for %r failed", method)

    def _on_response(self, message: Response) -> None:
        future = self._pending.get(message.id)
        if message.id is None and message.error is not None:
            # No id: the peer could not tell which message it answers (e.g. one it could not parse).
            logger.warning(
                "the peer reported an error without a request id: %r (%r)",
                message.error.message,
                message.error.code,
            )
        elif message.id in self._withdrawn:
            del self._withdrawn[message.id]  # a late answer to a request we withdrew
        elif future is not None and future.cancelled():
            # Given up on, its task not yet told (it withdraws next): the same late answer.
            logger.debug("late answer to request %r, which was given up on", message.id)
        elif future is None or future.done():
            logger.warning("dropping a response to unknown request id %r", message.id)
        elif message.error is not None:
            future.set_exception(message.error)
        else:
            future.set_result(message.result)

    def _on_cancel_request(self, params: JsonValue) -> None:
        request_id = params.get("requestId") if isinstance(params, dict) else None
        if not is_valid_id(request_id) or not isinstance(request_id, int | str | None):
            return  # (the second test only tells the type checker what the first checked)
        task = self._inbound.get(request_id)
        if task is not None and not task.done():
            self._peer_cancelled.add(task)
            task.cancel()

    def _answer_at_once(self, message: Request) -> None:
        """Handle a request the dispatcher answers without suspending, here and now, in a
        context of its own as a task's (`answer_written()` and the like stay the handler's):
        the coroutine is stepped by hand, no task made. Should it suspend after all (a full
        pipe makes the write wait), a task finishes it from where it stopped (`Resumed`).
        Assumes `asyncio`'s tasks, whose coroutine's first `send(None)` this step takes."""
        coroutine = self._answer_and_write(message)
        context = contextvars.copy_context()
        try:
            waits_on = context.run(coroutine.send, None)
        except StopIteration:
            return  # answered: nothing to find, nothing to cancel
        task = asyncio.get_running_loop().create_task(Resumed(coroutine, waits_on), context=context)
        self._tasks.add(task)
        self._inbound[message.id] = task

    def _spawn_request(
        self,
        request_id: RequestId,
        coroutine: Coroutine[Any, Any, Any],
        *,
        forgets_itself: bool = False,
    ) -> asyncio.Task[Any]:
        """`_spawn` for a request's handler, which `$/cancel_request` can find while it runs;
        the connection's `tasks` own it (added to its running set here: no done callback of
        the owner's). `forgets_itself`: the coroutine calls `_forget` as it ends (a done
        callback would cost a loop pass after each answer); it starts before the next message
        is read, so nothing but closing cancels it before it runs."""
        task = asyncio.create_task(coroutine)
        self._tasks.add(task)
        self._inbound[request_id] = task
        if not forgets_itself:
            task.add_done_callback(lambda finished: self._forget(request_id, finished))
        return task

    def _forget(self, request_id: RequestId, finished: asyncio.Task[Any]) -> None:
        self._tasks.discard(finished)
        self._peer_cancelled.discard(finished)
        if self._inbound.get(request_id) is finished:
            del self._inbound[request_id]

    def _start_request(
        self, message: Request, written: asyncio.Future[None]
    ) -> asyncio.Task[bytes]:
        """A batch entry: the task returns the encoded answer for the batch's array."""
        task: asyncio.Task[bytes] = self._spawn_request(message.id, self._answer(message, written))
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
            task = asyncio.current_task()
            if task is not None:
                self._forget(message.id, task)

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
            if isinstance(problem, ConnectionClosed) and self._closed:
                raise  # the handler spoke to a peer that left: nobody is there to answer
            logger.exception("request handler for %r failed", message.method)
            detail = str(problem) or type(problem).__name__
            return _encode_answer(message.id, None, RpcError.internal_error(detail))
