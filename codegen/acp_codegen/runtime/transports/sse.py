"""Reading a `text/event-stream` body into messages: the `data:` lines of each event, joined
by newlines, make one message (lines end in CRLF, LF or a lone CR; comments and other fields
are skipped). An event over `max_bytes` is an error: the stream cannot be trusted after it.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator
from typing import Final

_BOM: Final = b"\xef\xbb\xbf"


class EventTooLarge(Exception):
    """An event stream sent a message over the limit."""


async def sse_messages(chunks: AsyncIterable[bytes], max_bytes: int) -> AsyncIterator[bytes]:
    """The data of each event in the byte stream `chunks`."""
    pending = bytearray()
    data: list[bytes] = []
    size = 0
    async for chunk in chunks:
        pending += chunk
        while True:
            end = _line_end(pending)
            if end < 0:
                if len(pending) > max_bytes + 16:
                    raise EventTooLarge(f"an event line over {max_bytes} bytes")
                break
            line = bytes(pending[:end])
            skip = 2 if pending[end : end + 2] == b"\r\n" else 1
            if pending[end : end + 1] == b"\r" and end + 1 == len(pending):
                break  # a CR at the end of the chunk: wait, it may be the start of CRLF
            del pending[: end + skip]
            line = line.removeprefix(_BOM)
            if not line:
                if data:
                    yield b"\n".join(data)
                data, size = [], 0
                continue
            if line.startswith(b"data:"):
                value = line[5:].removeprefix(b" ")
                size += len(value) + 1
                if size > max_bytes + 1:
                    raise EventTooLarge(f"an event over {max_bytes} bytes")
                data.append(value)
    if data:
        yield b"\n".join(data)


def _line_end(buffer: bytearray) -> int:
    newline, carriage = buffer.find(b"\n"), buffer.find(b"\r")
    if carriage < 0:
        return newline
    if newline < 0:
        return carriage
    return min(newline, carriage)
