"""The client's end of Streamable HTTP, as the TS SDK 2.4.0's `experimental/http-client`:

- the first message (`initialize`) is POSTed alone; its response body is the answer and its
  `Acp-Connection-Id` header names the connection; then the connection's event stream opens;
- a session's event stream opens before the first message for that session is POSTed (and when
  a response names a new `sessionId`); messages for a session carry `Acp-Session-Id`, and so
  does our answer to a request the agent sent on a session's stream;
- a POST refused with 401, 403, 404 or 410, or a network failure, ends the connection; any
  other refused request fails alone, with -32603 and `data: {status, body}`; 409 on a
  session's stream fails that session's requests until `session/resume` (or `session/load`);
- a session's stream that ends fails the requests waiting on it; the next message for the
  session opens it again, and the server kept what was sent meanwhile (docs/remote.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Mapping
from typing import Final

import aiohttp

from ..rpc.messages import RequestId
from ..rpc.task_owner import TaskOwner
from ..wire.jsonvalue import JsonObject
from ..wire.message_frames import FrameQueue
from .remote_wire import (
    CONNECTION_HEADER,
    EVENT_STREAM_TYPE,
    JSON_TYPE,
    SESSION_HEADER,
    SESSION_LOAD,
    SESSION_RESUME,
    IdKey,
    http_status,
    id_key,
    may_route,
    peek,
    shown_url,
)
from .send_queue import Outgoing, fail_request
from .sse import sse_batches

logger = logging.getLogger(__name__)
_CONNECTION_GONE: Final = frozenset({401, 403, 404, 410})
_ERROR_BODY_BYTES: Final = 8 * 1024


class HttpTransport:
    """The HTTP exchanges of one connection. Its sender and its event streams (the
    connection's, one per session) are tasks of `tasks`, which `close` closes before it
    tells the server the connection ended (DELETE)."""

    def __init__(
        self,
        http: aiohttp.ClientSession,
        url: str,
        headers: Mapping[str, str] | None,
        queue: FrameQueue,
        max_message_bytes: int,
        stream_idle_seconds: float | None = None,
    ) -> None:
        self._http, self._url, self._queue = http, url, queue
        self._idle = stream_idle_seconds  # a silent event stream is lost past this
        self._headers = dict(headers or {})
        self._max = max_message_bytes
        self.connection_id: str | None = None
        self.tasks = TaskOwner("an HTTP transport")
        self.outgoing = Outgoing(self._post, self._fail, self.tasks)
        self._ready: dict[str, asyncio.Future[None]] = {}
        self._failed: dict[str, str] = {}  # session -> why its stream was refused (409)
        self._waiting: dict[IdKey, tuple[str, RequestId]] = {}  # our session requests: session, id
        self._answer_to: dict[IdKey, str] = {}  # agent requests from a session's stream

    # -- sending --------------------------------------------------------------------------------

    async def _post(self, frame: bytes) -> None:
        envelope = peek(frame)
        if self.connection_id is None:
            await self._initialize(frame)
            return
        key = id_key(envelope.id) if envelope.has_id else None
        session = envelope.session_id
        if session is None and envelope.is_response and key is not None:
            session = self._answer_to.pop(key, None)
        if session is not None:
            if envelope.method in (SESSION_LOAD, SESSION_RESUME):
                self._failed.pop(session, None)
            refused = self._failed.get(session) or await self._open_session(session)
            if refused is not None:
                if envelope.is_request:
                    data: JsonObject | None = {"status": 409} if session in self._failed else None
                    fail_request(self._queue, envelope.id, refused, data)
                return
            if envelope.is_request and key is not None:
                self._waiting[key] = (session, envelope.id)
        headers = {"Content-Type": JSON_TYPE, CONNECTION_HEADER: self.connection_id}
        if session is not None:
            headers[SESSION_HEADER] = session
        async with self._http.post(self._url, data=frame, headers=self._with(headers)) as answer:
            if answer.status < 300:
                return
            body = (await answer.content.read(_ERROR_BODY_BYTES)).decode("utf-8", "replace")
        if key is not None and session is not None:
            self._waiting.pop(key, None)
        if answer.status in _CONNECTION_GONE or not envelope.is_request:
            raise ConnectionResetError(f"the agent refused a message: HTTP {answer.status} {body}")
        fail_request(
            self._queue,
            envelope.id,
            f"ACP POST failed: {answer.status}",
            _data(answer.status, body),
        )

    async def _initialize(self, frame: bytes) -> None:
        envelope = peek(frame)
        if not envelope.is_initialize:
            raise ValueError("the first message to a remote agent must be initialize")
        headers = self._with({"Content-Type": JSON_TYPE})
        try:
            async with self._http.post(self._url, data=frame, headers=headers) as answer:
                body = await answer.content.read(self._max + 1)
                connection_id = answer.headers.get(CONNECTION_HEADER)
                status = answer.status
        except (aiohttp.ClientError, OSError) as problem:
            said = str(problem).replace(self._url, shown_url(self._url))
            fail_request(self._queue, envelope.id, f"cannot reach {shown_url(self._url)}: {said}")
            raise
        if status != 200 or connection_id is None:
            text = body[:_ERROR_BODY_BYTES].decode("utf-8", "replace")
            why = f"no {CONNECTION_HEADER} in the answer" if status == 200 else http_status(status)
            fail_request(
                self._queue, envelope.id, f"ACP initialize failed: {why}", _data(status, text)
            )
            raise ConnectionRefusedError(f"initialize failed: {why} {text}")
        self.connection_id = connection_id
        self.tasks.spawn(self._read_stream(None, None), name="acp connection event stream")
        self._queue.feed(body)

    def _with(self, headers: dict[str, str]) -> dict[str, str]:
        return {**self._headers, **headers}

    # -- event streams --------------------------------------------------------------------------

    async def _open_session(self, session: str) -> str | None:
        """Open `session`'s stream unless open; None once it is, else why it was refused."""
        if session not in self._ready:
            self._start_stream(session)
        try:
            await asyncio.shield(self._ready[session])
        except ConnectionRefusedError as problem:
            return str(problem)
        return None

    def _start_stream(self, session: str) -> None:
        """Open `session`'s event stream (a task of `tasks`)."""
        ready = self._ready[session] = asyncio.get_running_loop().create_future()
        self.tasks.spawn(self._read_stream(session, ready), name="acp session event stream")

    async def _read_stream(self, session: str | None, ready: asyncio.Future[None] | None) -> None:
        assert self.connection_id is not None
        headers = {"Accept": EVENT_STREAM_TYPE, CONNECTION_HEADER: self.connection_id}
        if session is not None:
            headers[SESSION_HEADER] = session
        why = "the event stream ended"
        try:
            # No total: a stream lasts as long as the connection; a read that waits past
            # `_idle` (not even a keep-alive comment) raises ServerTimeoutError, a ClientError.
            timeout = aiohttp.ClientTimeout(total=None, sock_read=self._idle)
            async with self._http.get(
                self._url, headers=self._with(headers), timeout=timeout
            ) as answer:
                if answer.status != 200:
                    body = (await answer.content.read(_ERROR_BODY_BYTES)).decode("utf-8", "replace")
                    why = f"ACP SSE connection failed: {answer.status} {body}"
                    if session is not None and answer.status == 409:
                        self._failed[session] = why
                    raise ConnectionRefusedError(why)
                if ready is not None and not ready.done():
                    ready.set_result(None)
                async for frames in sse_batches(answer.content.iter_any(), self._max):
                    for frame in frames:
                        self._arrived(frame, session)
        except (aiohttp.ClientError, ConnectionError, OSError, ValueError) as problem:
            why = str(problem) or type(problem).__name__
            if ready is not None and not ready.done():
                ready.set_exception(ConnectionRefusedError(why))
                ready.exception()  # retrieved: nobody may be waiting
        finally:
            self._stream_ended(session, why)

    def _arrived(self, frame: bytes, session: str | None) -> None:
        if not may_route(frame):  # a notification: nothing to note of it here
            self._queue.feed(frame)
            return
        envelope = peek(frame)
        key = id_key(envelope.id) if envelope.has_id else None
        if envelope.result_session_id is not None and envelope.result_session_id not in self._ready:
            self._start_stream(envelope.result_session_id)
        if key is not None:
            if envelope.is_request and session is not None:
                self._answer_to[key] = session
            elif envelope.is_response:
                self._waiting.pop(key, None)
        self._queue.feed(frame)

    def _stream_ended(self, session: str | None, why: str) -> None:
        if self._queue.ended:
            return
        if session is None:
            logger.debug("the connection's event stream ended: %s", why)
            self._queue.end()
            return
        self._ready.pop(session, None)
        for key, (owner, request_id) in list(self._waiting.items()):
            if owner == session:
                del self._waiting[key]
                fail_request(self._queue, request_id, f"the session's event stream ended: {why}")

    # -- end ------------------------------------------------------------------------------------

    def _fail(self, problem: BaseException) -> None:
        logger.debug("the remote connection failed: %s", problem)
        self._queue.end()

    async def close(self) -> None:
        await self.outgoing.stop()
        await self.tasks.close()
        if self.connection_id is not None and not self._http.closed:
            headers = self._with({CONNECTION_HEADER: self.connection_id})
            with contextlib.suppress(aiohttp.ClientError, OSError):
                async with self._http.delete(self._url, headers=headers):
                    pass


def _data(status: int, body: str) -> JsonObject:
    return {"status": status, "body": body}
