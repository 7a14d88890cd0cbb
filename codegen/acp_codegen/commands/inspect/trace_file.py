"""Reading a trace file (`ACP_TRACE`, `chat --trace`: one JSON record per line) a line at a
time, with bounded memory: the file is never read whole, each line is decoded, looked at and
let go, and a line is read again from the file when the page asks for it. What is kept per
line is its place in the file (`Stored`) and a short summary (traffic_log.py).

Bounds (docs/inspect.md): a file over `MAX_TRACE_BYTES` is refused; a line over
`MAX_LINE_BYTES` or nested deeper than `MAX_DEPTH` levels is kept as a marked line, not
decoded; after `MAX_LINES` lines the rest of the file is left unread, with a line saying so.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Final

from pydantic_core import from_json

MAX_TRACE_BYTES: Final = 512 * 1024 * 1024  # a larger trace is refused, not read
MAX_LINE_BYTES: Final = 64 * 1024 * 1024  # two of the largest message a transport takes
MAX_LINES: Final = 1_000_000  # lines listed; about 200 bytes of memory each
MAX_DEPTH: Final = 200  # what the runtime's fast decoder reads (pydantic-core's limit)
MAX_SHOWN_TEXT: Final = 64 * 1024  # of a line that is not a record, what the page is sent
CUT_SHORT: Final = f"the trace goes on past {MAX_LINES} lines: the rest is not read"
_TOO_DEEP: Final = "recursion limit exceeded"
_READ: Final = 1024 * 1024
_TOO_DEEP_VALUE: Final = object()


class TraceFileError(Exception):
    """A trace that cannot be read at all (missing, unreadable, too large)."""


@dataclass(frozen=True, slots=True)
class Stored:
    """Where one line is in its trace file, to read it again."""

    file: TraceFile
    offset: int
    length: int
    number: int  # 1-based, as an editor counts lines

    def record(self) -> dict[str, Any]:
        return self.file.record_at(self)


class TraceFile:
    """An open trace file: its lines as records, read in order once, then one at a time."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            if path.stat().st_size > MAX_TRACE_BYTES:
                raise TraceFileError(f"{path}: larger than {_size(MAX_TRACE_BYTES)}")
            self._file: IO[bytes] = open(path, "rb")  # noqa: SIM115 (kept for re-reading)
        except OSError as error:
            raise TraceFileError(f"{path}: {error.strerror or error}") from None

    def close(self) -> None:
        self._file.close()

    def lines(self) -> Iterator[tuple[dict[str, Any], Stored]]:
        """Each line's record and place, in order (blank lines skipped)."""
        offset, number = 0, 0
        self._file.seek(0)
        while True:
            line = self._file.readline(MAX_LINE_BYTES + 1)
            if not line:
                return
            number += 1
            length = len(line)
            if length > MAX_LINE_BYTES and not line.endswith(b"\n"):
                length += self._skip_rest_of_line()
                stored = Stored(self, offset, length, number)
                too_long = f"line {number} is over {_size(MAX_LINE_BYTES)}: not read"
                yield _text_record(b"", too_long), stored
            elif line.strip():
                if number > MAX_LINES:
                    yield _text_record(b"", CUT_SHORT), Stored(self, offset, 0, 0)
                    return
                stored = Stored(self, offset, length, number)
                yield decode_record(line, number), stored
            offset += length

    def _skip_rest_of_line(self) -> int:
        skipped = 0
        while True:
            chunk = self._file.readline(_READ)
            skipped += len(chunk)
            if not chunk or chunk.endswith(b"\n"):
                return skipped

    def record_at(self, stored: Stored) -> dict[str, Any]:
        """The record of a line read before (a file changed since is said to have)."""
        if stored.number == 0:
            return _text_record(b"", CUT_SHORT)
        if stored.length > MAX_LINE_BYTES:
            return _text_record(b"", f"line {stored.number} is over {_size(MAX_LINE_BYTES)}")
        try:
            line = os.pread(self._file.fileno(), stored.length, stored.offset)
        except (OSError, ValueError) as error:
            return _text_record(b"", f"line {stored.number} cannot be read again: {error}")
        return decode_record(line, stored.number)


def decode_record(line: bytes, number: int) -> dict[str, Any]:
    """One line as a record; a line that is none (cut short, not JSON, no direction, nested
    too deep) as a text record saying why, so the page lists it marked instead of losing it."""
    try:
        record = from_json(line, allow_inf_nan=False)
    except ValueError as error:
        # json reads what the fast decoder refuses (a lone surrogate's escape), not depth.
        record = _TOO_DEEP_VALUE if _TOO_DEEP in str(error) else _slow_decode(line)
    if record is _TOO_DEEP_VALUE:
        too_deep = f"line {number} is nested deeper than {MAX_DEPTH} levels: not read"
        return _text_record(line, too_deep)
    if not isinstance(record, dict) or record.get("dir") not in ("send", "recv"):
        return _text_record(line, f"line {number} is not a trace record")
    return record


def _slow_decode(line: bytes) -> Any:
    try:
        value = json.loads(line.decode("utf-8"))
    except RecursionError:
        return _TOO_DEEP_VALUE
    except ValueError:
        return None
    return value if _shallow(value) else _TOO_DEEP_VALUE


def _shallow(value: Any) -> bool:
    """Whether `value` is nested at most MAX_DEPTH levels (looked at without recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > MAX_DEPTH:
                return False
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return True


def _text_record(line: bytes, problem: str) -> dict[str, Any]:
    text = line[:MAX_SHOWN_TEXT].decode("utf-8", errors="replace")
    return {"dir": "?", "text": text, "problem": problem}


def _size(count: int) -> str:
    return f"{count // 2**20} MiB" if count >= 2**20 else f"{count} bytes"
