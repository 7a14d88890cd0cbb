"""One SSE response carrying one of a connection's streams (an `Outbox`) to its reader, for
http_server.py: a `data:` event per message, a comment when there is nothing to send for a
while, and a deadline on every write's progress so a reader that stopped reading cannot hold
the stream, or the server's shutdown, forever, while one that reads slowly gets every
message, however large.
"""

from __future__ import annotations

from aiohttp import web

from ..transports.remote_wire import EVENT_STREAM_TYPE
from .outbox import Outbox, StreamClosed
from .remote_link import RemoteLimits
from .write_progress import progressing
from .ws_server import BATCH_BYTES, abort, writes_at_once


def _events(frames: list[bytes]) -> bytes:
    """One `data:` event per message, joined: the bytes of one write."""
    if len(frames) == 1:
        return b"data: " + frames[0] + b"\n\n"
    return b"".join([part for frame in frames for part in (b"data: ", frame, b"\n\n")])


async def stream_events(
    request: web.Request,
    stream: Outbox,
    lease: object,
    limits: RemoteLimits,
    batch_bytes: int = BATCH_BYTES,
) -> web.StreamResponse:
    """Hand the stream's messages to one SSE response until the stream ends or the client
    leaves, with a comment after `keep_alive_seconds` without one; a message whose write
    failed goes back to the stream. A write of which no byte has gone out for `write_seconds`
    (the client stopped reading; its socket's buffers are full) drops the stream: the TCP
    connection is aborted, so neither this handler nor the server's shutdown waits on it. A
    write that keeps going out, however slowly, is never cut short.
    The message being written goes back to the stream: its end was still queued here, so
    the client cannot have had all of it. What queued while the last write went out is
    written together (up to `batch_bytes`; 0 writes each message alone, the reference):
    the same bytes, in fewer writes and fewer reads for the client."""
    response = web.StreamResponse(
        headers={
            "Content-Type": EVENT_STREAM_TYPE,
            "Cache-Control": "no-cache",
            "X-Accel-Buffering": "no",  # nginx: pass each event on at once
        }
    )
    await response.prepare(request)
    while True:
        try:
            frames = await stream.next_batch(
                limits.keep_alive_seconds, lease, up_to_bytes=batch_bytes
            )
        except StreamClosed:
            break
        events = b":\n\n" if frames is None else _events(frames)
        try:
            if writes_at_once(request, len(events)):
                await response.write(events)
            else:
                async with progressing(request.transport, limits.write_seconds):
                    await response.write(events)
        except TimeoutError:
            if frames is not None:
                stream.unget_all(frames)
            abort(request, "an event stream's reader stopped reading")
            return response
        except BaseException:  # the client left (or the handler was cancelled because it did)
            if frames is not None:
                stream.unget_all(frames)
            raise
    try:
        async with progressing(request.transport, limits.write_seconds):
            await response.write_eof()
    except TimeoutError:
        abort(request, "an event stream's reader stopped reading")
    except ConnectionError:
        pass  # the client left after the last message
    return response
