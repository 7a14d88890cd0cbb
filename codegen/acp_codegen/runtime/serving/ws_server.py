"""An agent's WebSocket connection (aiohttp), on the TS SDK 2.4.0's wire: the `101` names the
connection (`Acp-Connection-Id`); every message is one text frame, both ways, in order; the
first must be `initialize` (else the socket closes with 1002). A JSON array is answered with
one -32600 (ACP has no batches) and not passed on; binary frames are ignored; a frame over the
size limit closes the socket (1009). Everything else goes to the connection as it came, so
the connection answers parse errors and invalid requests exactly as on stdio.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

from aiohttp import WSCloseCode, WSMsgType, web

from ..rpc.messages import error_message
from ..transports.remote_wire import CONNECTION_HEADER, peek
from ..wire.errors import ConnectionClosed, RpcError
from ..wire.line_framing import encode_json
from .outbox import StreamClosed
from .remote_link import LimitExceeded, RemoteLimits, RemoteLink
from .write_progress import progressing
from .ws_batch import text_frames

logger = logging.getLogger(__name__)
_PROTOCOL_ERROR = 1002
RETRY_AFTER = "1"  # seconds, on a 503: a slot may well be free by then
_AT_ONCE = 16 * 1024  # under asyncio's default high-water mark of 64 KiB, with room for framing
BATCH_BYTES = 12 * 1024  # messages sent in one write, at most (then framed: under _AT_ONCE)


async def serve_websocket(
    request: web.Request, new_link: Callable[[], RemoteLink], limits: RemoteLimits
) -> web.StreamResponse:
    """Serve the WebSocket `request` asks for on a connection `new_link` makes."""
    try:
        link = new_link()
    except LimitExceeded as problem:
        return busy(str(problem))
    socket = web.WebSocketResponse(
        max_msg_size=limits.max_message_bytes,
        heartbeat=limits.heartbeat_seconds,  # pings find half-open sockets
        decode_text=False,  # text frames as bytes: the connection parses them itself
    )
    socket.headers[CONNECTION_HEADER] = link.id
    pump: asyncio.Task[None] | None = None
    try:
        await socket.prepare(request)
        async for message in socket:
            if message.type is not WSMsgType.TEXT:
                continue
            frame: bytes = message.data
            link.touch()
            envelope = peek(frame)
            if envelope.value is None and frame.lstrip(b" \t\r\n").startswith(b"["):
                batch = RpcError(-32600, "JSON-RPC batches are not supported")
                await socket.send_frame(encode_json(error_message(None, batch)), WSMsgType.TEXT)
                continue
            if pump is None:
                if not envelope.is_initialize or envelope.id is None:
                    await socket.close(
                        code=_PROTOCOL_ERROR, message=b"First message must be initialize"
                    )
                    break
                try:
                    answer = await link.initialize(frame, envelope)
                except ConnectionClosed as problem:  # the agent ended it during initialize
                    failed = RpcError(-32603, "Initialize failed", str(problem))
                    answer = encode_json(error_message(envelope.id, failed))
                    await socket.send_frame(answer, WSMsgType.TEXT)
                    await socket.close(code=WSCloseCode.INTERNAL_ERROR)
                    break
                await socket.send_frame(answer, WSMsgType.TEXT)
                pump = link.tasks.spawn(
                    _pump(link, socket, request, limits.write_seconds), name="acp websocket pump"
                )
                continue
            if envelope.is_initialize:
                refused = RpcError(-32600, "Initialize not allowed on existing connection")
                await socket.send_frame(
                    encode_json(error_message(envelope.id, refused)), WSMsgType.TEXT
                )
                continue
            try:
                link.accept(frame, envelope, envelope.session_id)
            except LimitExceeded as problem:
                await socket.close(code=WSCloseCode.POLICY_VIOLATION, message=str(problem).encode())
                break
    finally:
        await link.close()
        if pump is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await pump
        await _close(socket, request, limits.write_seconds)
    return socket


async def _pump(
    link: RemoteLink, socket: web.WebSocketResponse, request: web.Request, write_seconds: float
) -> None:
    """Send the agent's messages in order until the connection ends, then close the socket.
    The socket holds the connection's stream meanwhile: an open socket is never idle. A frame
    of which no byte has gone out for `write_seconds` (the peer stopped reading) ends the
    connection: the TCP connection is aborted, so nothing waits on it. A frame that keeps
    going out, however slowly, is never cut short. What queued while the last write went out
    is framed and written in one go (ws_batch.py) when it fits a write that cannot wait."""
    lease = link.main.acquire()
    batch_bytes = 0 if socket.compress else BATCH_BYTES  # compressed: aiohttp frames each one
    try:
        while True:
            try:
                frames = await link.main.next_batch(None, lease, up_to_bytes=batch_bytes)
            except StreamClosed:
                break
            if frames is None:
                continue
            if len(frames) > 1:
                framed = text_frames(frames)
                transport = request.transport
                if (
                    transport is not None
                    and not transport.is_closing()
                    and writes_at_once(request, len(framed))
                ):
                    transport.write(framed)  # whole frames, nothing queued before them
                    continue
            for frame in frames:
                await _send(socket, request, frame, write_seconds)
    except TimeoutError:
        link.close_soon("the peer stopped reading")
        abort(request, "a WebSocket peer stopped reading")
    except ConnectionError as problem:
        logger.debug("websocket %s: %s", link.id, problem)
        link.close_soon("the socket failed")
    finally:
        link.main.release(lease)
        await _close(socket, request, write_seconds)


async def _send(
    socket: web.WebSocketResponse, request: web.Request, frame: bytes, write_seconds: float
) -> None:
    """One frame through aiohttp, under a write deadline unless it cannot wait."""
    if writes_at_once(request, len(frame)):
        await socket.send_frame(frame, WSMsgType.TEXT)
        return
    async with progressing(request.transport, write_seconds):  # no task per frame
        await socket.send_frame(frame, WSMsgType.TEXT)


async def _close(socket: web.WebSocketResponse, request: web.Request, write_seconds: float) -> None:
    """Close the socket politely if the peer takes the close frame in time, else abort it;
    a socket the heartbeat gave up on is aborted too (what it still queues has no reader)."""
    try:
        async with progressing(request.transport, write_seconds):  # after what is queued
            await socket.close()
    except TimeoutError:
        abort(request, "a WebSocket peer took no close frame")
    transport = request.transport
    if transport is not None and transport.is_closing() and transport.get_write_buffer_size():
        abort(request, "a closed WebSocket's peer read nothing more")


def abort(request: web.Request, reason: str) -> None:
    """Drop the request's TCP connection at once, with whatever is still queued for it."""
    transport = request.transport
    if transport is not None:
        logger.info("dropping a client's connection: %s", reason)
        transport.abort()


def busy(reason: str) -> web.Response:
    """503, to try again after `RETRY_AFTER`; the socket is closed, which frees its slot."""
    response = web.Response(status=503, text=reason, headers={"Retry-After": RETRY_AFTER})
    response.force_close()
    return response


def writes_at_once(request: web.Request, size: int) -> bool:
    """Whether writing `size` more bytes to the request's socket cannot wait: nothing is
    queued on it (so its writer is not paused) and `size` alone stays under the point where
    asyncio pauses a writer. Such a write needs no deadline, and arming one costs more than
    the write itself."""
    transport = request.transport
    return transport is not None and not transport.get_write_buffer_size() and size < _AT_ONCE
