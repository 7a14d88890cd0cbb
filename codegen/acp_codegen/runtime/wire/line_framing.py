"""Newline-delimited UTF-8 JSON framing over asyncio byte streams.

Lines are found by reading fixed-size chunks and splitting, never by `readline()`, whose 64 KiB
default limit would break on large messages; any StreamReader works, whatever its `limit`.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from json.encoder import encode_basestring, encode_basestring_ascii
from typing import Any, Final, NoReturn, Protocol

from pydantic_core import from_json

from .jsonvalue import JsonValue

DEFAULT_MAX_LINE_BYTES: Final = 1 << 30  # 1 GiB: far above any sane message, still bounded
_CHUNK_BYTES: Final = 1 << 20


class ByteSink(Protocol):
    """The writing half of a transport. `asyncio.StreamWriter` is one."""

    def write(self, data: bytes) -> None: ...

    async def drain(self) -> None: ...

    def close(self) -> None: ...

    def is_closing(self) -> bool: ...


class FrameSource(Protocol):
    """Where a connection reads its messages from: one message's bytes per call, None at the
    end; `LineTooLong` for a message over the limit (skipped)."""

    async def read_line(self) -> bytes | None: ...


class LineTooLong(Exception):
    """A line exceeded the limit; it was skipped up to its newline."""


class LineBuffer:
    """Bytes received so far, handed out one whole line (without its newline) at a time; a line
    over `max_line_bytes` is dropped up to its newline and reported once as `LineTooLong`."""

    def __init__(self, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES) -> None:
        self.max_line_bytes = max_line_bytes
        self._buffer = bytearray()
        self._scanned = 0  # bytes of the buffer already known to hold no newline
        self._discarding = False  # inside an over-long line, dropping bytes until its newline

    def __len__(self) -> int:
        return len(self._buffer)

    def add(self, data: bytes) -> None:
        """Append received bytes. What is known to hold no newline is part of one line: past the
        limit it is dropped now, so an endless line never fills memory."""
        if self._scanned > self.max_line_bytes:
            self._discarding = True
            self._buffer.clear()
            self._scanned = 0
        self._buffer += data

    def next_line(self) -> bytes | None:
        """The next line if the buffer holds all of it, else None. Raises LineTooLong."""
        end = self._buffer.find(b"\n", self._scanned)
        if end < 0:
            self._scanned = len(self._buffer)
            return None
        with memoryview(self._buffer) as view:
            line = bytes(view[:end])  # one copy (a slice would make two)
        del self._buffer[: end + 1]  # bytearray deletes from the front cheaply
        self._scanned = 0
        if self._discarding or len(line) > self.max_line_bytes:
            self._discarding = False
            raise LineTooLong
        return line

    def whole_lines(self) -> list[bytes]:
        """Every whole line the buffer holds, in order ([] when none): what `next_line` would
        hand out one call at a time (its reference: tests/runtime/test_fast_paths_wire.py),
        cut by one `split`. When a line could be over the limit, only `next_line`'s next."""
        buffer = self._buffer
        if self._discarding or len(buffer) > self.max_line_bytes:
            line = self.next_line()
            return [] if line is None else [line]
        end = buffer.rfind(b"\n", self._scanned)
        if end < 0:
            self._scanned = len(buffer)
            return []
        with memoryview(buffer) as view:
            lines = bytes(view[:end]).split(b"\n")
        del buffer[: end + 1]
        self._scanned = len(buffer)  # what is left holds no newline
        return lines

    def final_line(self) -> bytes | None:
        """At end of stream: what is left counts as a last line without its newline (None:
        nothing left). Raises LineTooLong."""
        if self._discarding:
            self._discarding = False
            raise LineTooLong
        if not self._buffer:
            return None
        line = bytes(self._buffer)
        self._buffer.clear()
        self._scanned = 0
        if len(line) > self.max_line_bytes:
            raise LineTooLong
        return line


class LineReader:
    """Yields one line at a time (without the newline) from a StreamReader."""

    def __init__(
        self, reader: asyncio.StreamReader, *, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
    ) -> None:
        self._reader = reader
        self._lines = LineBuffer(max_line_bytes)

    def buffered_line(self) -> bytes | None:
        """The next line if the buffer holds all of it, without reading (the reader loop asks
        this first: no coroutine per line while lines are buffered); else None. Raises
        LineTooLong as `read_line` does."""
        return self._lines.next_line()

    def whole_lines(self) -> list[bytes]:
        """Every whole line buffered (`LineBuffer.whole_lines`), without reading."""
        return self._lines.whole_lines()

    async def read_line(self) -> bytes | None:
        """The next line; None at end of stream. A final line without newline still counts.
        Raises LineTooLong once per over-long line, after skipping it."""
        while True:
            line = self._lines.next_line()
            if line is not None:
                return line
            chunk = await self._reader.read(_CHUNK_BYTES)
            if not chunk:
                return self._lines.final_line()
            self._lines.add(chunk)


def _reject_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not valid JSON")


# Built once: `json.loads(..., parse_constant=...)` would build a new decoder for every line.
_STRICT_DECODER: Final = json.JSONDecoder(parse_constant=_reject_constant)


def decode_line(line: bytes) -> JsonValue:
    """Parse one line; ValueError (UnicodeDecodeError, JSONDecodeError) when it is not JSON.

    pydantic-core's parser reads the bytes directly (several times faster than `json`). It is
    stricter on one point: it rejects escaped lone surrogates (`"\\ud800"`), which `json`
    accepts. So whatever it rejects is parsed again by `json`, which keeps the accepted set and
    the error messages exactly those of `json` (NaN and Infinity stay rejected by both)."""
    try:
        # Short values are cached too (the default): 0.15 µs a line slower than caching keys
        # alone, but a session's state shares its repeated ids and statuses (15 % smaller).
        value: JsonValue = from_json(line, allow_inf_nan=False)
        return value
    except ValueError:
        pass
    try:
        value = _STRICT_DECODER.decode(line.decode("utf-8"))
        return value
    except RecursionError:  # the decoder recurses once per level: a hostile line can be deep
        raise ValueError("nested too deeply") from None


def _compact_encoder(ensure_ascii: bool) -> Callable[[object], str]:
    """Compact JSON text, NaN and infinities refused. `JSONEncoder.encode` builds a new C
    encoder (and its bookkeeping) for every call, a few frames per message sent; this one is
    built once. It skips the check for circular references: what is sent is a tree decoded
    from JSON or built by code, and a cycle still fails (RecursionError) instead of looping."""
    encoder = json.JSONEncoder(ensure_ascii=ensure_ascii, separators=(",", ":"), allow_nan=False)
    c_make_encoder: Any = getattr(json.encoder, "c_make_encoder", None)  # not in typeshed
    if c_make_encoder is None:  # an interpreter without json's C accelerator
        return encoder.encode
    strings = encode_basestring_ascii if ensure_ascii else encode_basestring
    try:
        one_shot = c_make_encoder(
            None, encoder.default, strings, None, ":", ",", False, False, False
        )
    except TypeError:  # the accelerator's signature is CPython's own: if it ever changes
        return encoder.encode

    def encode(message: object) -> str:
        chunks: list[str] = one_shot(message, 0)
        return "".join(chunks)

    return encode


_encode_compact: Final = _compact_encoder(ensure_ascii=False)
# For text UTF-8 cannot carry: every non-ASCII character written as a `\uXXXX` escape.
_encode_ascii: Final = _compact_encoder(ensure_ascii=True)


def encode_json(message: object) -> bytes:
    """Compact UTF-8 JSON; `json` escapes control characters, so it never contains a newline.

    A string may hold a lone surrogate (`"\\ud800"` is valid JSON, so a peer can send one and
    expect it back), which UTF-8 cannot encode. Such a message is written with every non-ASCII
    character escaped instead: valid JSON that decodes to exactly the same text, so every
    string the wire can carry round-trips. Only messages holding one pay for the second pass.

    A fast path (docs/design.md, "Performance-sensitive paths"): CPython's private
    `c_make_encoder`, built once. `encode_json_reference` is the obvious code it must equal,
    byte for byte, on every tree (tests/runtime/test_fast_paths_wire.py)."""
    text = _encode_compact(message)
    try:
        return text.encode()
    except UnicodeEncodeError:
        return _encode_ascii(message).encode("ascii")


def encode_json_reference(message: object) -> bytes:
    """What `encode_json` does, the slow obvious way: `json.dumps` (a new encoder per call).
    Differs only on a cycle, which it reports as ValueError instead of RecursionError."""
    try:
        return json.dumps(
            message, ensure_ascii=False, separators=(",", ":"), allow_nan=False
        ).encode()
    except UnicodeEncodeError:  # a lone surrogate: every non-ASCII character escaped
        return json.dumps(message, separators=(",", ":"), allow_nan=False).encode("ascii")


# `{"type":"text","text":` before a text content block's string, `}` after it.
_TEXT_BLOCK_FRAME: Final = len('{"type":"text","text":}')


def encoded_size(value: JsonValue) -> int:
    """`len(encode_json(value))`. A text content block (`{"type": "text", "text": ...}`, in
    that order: every chunk of a streamed message) is counted without running the encoder,
    from the escaped string alone (the function the encoder itself uses for strings)."""
    if type(value) is dict and len(value) == 2 and next(iter(value)) == "type":
        text = value.get("text")
        if type(text) is str and value["type"] == "text":
            try:
                return _TEXT_BLOCK_FRAME + len(encode_basestring(text).encode())
            except UnicodeEncodeError:
                pass  # a lone surrogate: the message is written with ASCII escapes instead
    return len(encode_json(value))
