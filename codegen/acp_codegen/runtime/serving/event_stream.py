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
from .ws_server import abort, writes_at_once


async def stream_events(
    request: web.Request, stream: Outbox, lease: object, limits: RemoteLimits
) -> web.StreamResponse:
    """Hand the stream's messages to one SSE response until the stream ends or the client
    leaves, with a comment after `keep_alive_seconds` without one; a message whose write
    failed goes back to the stream. A write of which no byte has gone out for `write_seconds`
    (the client stopped reading; its socket's buffers are full) drops the stream: the TCP
    connection is aborted, so neither this handler nor the server's shutdown waits on it. A
    write that keeps going out, however slowly, is never cut short.
    The message being written goes back to the stream: its end was still queued here, so
    the client cannot have had all of it."""
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
            frame = await stream.next(limits.keep_alive_seconds, lease)
        except StreamClosed:
            break
        event = b":\n\n" if frame is None else b"data: " + frame + b"\n\n"
        try:
            if writes_at_once(request, len(event)):
                await response.write(event)
            else:
                async with progressing(request.transport, limits.write_seconds):
                    await response.write(event)
        except TimeoutError:
            if frame is not None:
                stream.unget(frame)
            abort(request, "an event stream's reader stopped reading")
            return response
        except BaseException:  # the client left (or the handler was cancelled because it did)
            if frame is not None:
                stream.unget(frame)
            raise
    try:
        async with progressing(request.transport, limits.write_seconds):
            await response.write_eof()
    except TimeoutError:
        abort(request, "an event stream's reader stopped reading")
    except ConnectionError:
        pass  # the client left after the last message
    return response
