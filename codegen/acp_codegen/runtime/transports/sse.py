"""Reading a `text/event-stream` body into messages, as the event stream format has it: lines
end in CRLF, LF or a lone CR; a BOM that starts the stream is skipped; the `data` fields of one
event (up to a blank line), joined by newlines, make its message, and an event without data
makes none; comments and other fields are skipped; an event the stream ends inside, before its
blank line, is dropped (the server sends it again: docs/remote.md). A line or an event over
`max_bytes` is an error: the stream cannot be trusted after it.

`sse_batches` is the client's reader, a fast path (docs/design.md, "Performance-sensitive
paths"): each chunk that arrives is split into lines at once and its events are handed on
together. Its reference, `sse_messages`, takes one line at a time; both give the same messages
in the same order, and fail at the same place (tests/runtime/test_fast_paths_sse.py).
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator
from typing import Final

_BOM: Final = b"\xef\xbb\xbf"
_LINE_ENDS: Final = (10, 13)  # LF, CR
_SLACK: Final = 16  # a line may hold `data: ` and a line end beside its message


class EventTooLarge(Exception):
    """An event stream sent a message over the limit."""


class _Events:
    """The fields of the event being read: `add` takes one line, and says what the event
    made when the line was the blank one that ends it."""

    def __init__(self, max_bytes: int) -> None:
        self._max = max_bytes
        self._data: list[bytes] = []
        self._size = 0

    def add(self, line: bytes) -> bytes | None:
        if not line:
            data = self._data
            if not data:
                return None
            self._data, self._size = [], 0
            return data[0] if len(data) == 1 else b"\n".join(data)
        if line[:5] == b"data:":
            value = line[6:] if line[5:6] == b" " else line[5:]
        elif line == b"data":
            value = b""
        else:
            return None  # a comment, or a field other than data
        self._size += len(value) + 1
        if self._size > self._max + 1:
            raise EventTooLarge(f"an event over {self._max} bytes")
        self._data.append(value)
        return None


async def sse_batches(chunks: AsyncIterable[bytes], max_bytes: int) -> AsyncIterator[list[bytes]]:
    """The data of each event in the byte stream `chunks`, those a chunk completes together.
    Events completed before a line over the limit are handed on before EventTooLarge."""
    events = _Events(max_bytes)
    # The start of a line whose end has not come yet: a bytearray, so a line sent a byte at a
    # time costs a byte each, not an object each.
    carried = bytearray()
    after_cr = False  # the last chunk ended in CR: an LF that starts this one belongs to it
    started = False  # a line has ended: a BOM is no longer the stream's start
    async for chunk in chunks:
        if after_cr and chunk:
            after_cr = False
            chunk = chunk.removeprefix(b"\n")
        if not chunk:
            continue
        after_cr = chunk[-1] == 13
        if b"\n" not in chunk and b"\r" not in chunk:
            carried += chunk
            if len(carried) > max_bytes + _SLACK:
                raise EventTooLarge(f"an event line over {max_bytes} bytes")
            continue
        lines = chunk.splitlines()  # bytes split at CRLF, LF and CR only
        rest = lines.pop() if chunk[-1] not in _LINE_ENDS else b""  # a line not ended yet
        if carried:
            lines[0] = bytes(carried + lines[0])
            carried.clear()
        if not started:
            lines[0] = lines[0].removeprefix(_BOM)
            started = True
        batch: list[bytes] = []
        try:
            for line in lines:
                message = events.add(line)
                if message is not None:
                    batch.append(message)
        except EventTooLarge:
            if batch:
                yield batch
            raise
        if rest:
            carried += rest
            if len(carried) > max_bytes + _SLACK:
                if batch:
                    yield batch
                raise EventTooLarge(f"an event line over {max_bytes} bytes")
        if batch:
            yield batch


async def sse_messages(chunks: AsyncIterable[bytes], max_bytes: int) -> AsyncIterator[bytes]:
    """The data of each event in `chunks`, one line at a time: `sse_batches`'s reference."""
    events = _Events(max_bytes)
    pending = bytearray()
    started = False
    async for chunk in chunks:
        pending += chunk
        while True:
            end = _line_end(pending)
            if end < 0:
                if len(pending) > max_bytes + _SLACK:
                    raise EventTooLarge(f"an event line over {max_bytes} bytes")
                break
            if pending[end] == 13 and end + 1 == len(pending):
                break  # a CR that may be the start of CRLF: wait for more
            line = bytes(pending[:end])
            del pending[: end + (2 if pending[end : end + 2] == b"\r\n" else 1)]
            if not started:
                line, started = line.removeprefix(_BOM), True
            message = events.add(line)
            if message is not None:
                yield message
    if pending.endswith(b"\r"):  # the stream's last line, ended by a CR
        line = bytes(pending[:-1])
        message = events.add(line if started else line.removeprefix(_BOM))
        if message is not None:
            yield message


def _line_end(buffer: bytearray) -> int:
    newline, carriage = buffer.find(b"\n"), buffer.find(b"\r")
    if carriage < 0:
        return newline
    if newline < 0:
        return carriage
    return min(newline, carriage)
