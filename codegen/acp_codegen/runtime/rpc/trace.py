"""A record of the traffic: every JSON-RPC line, in both directions, as JSON lines.

Each record is `{"time": <ISO 8601 UTC>, "dir": "send"|"recv", "message": <the JSON>}`; a line
that is not JSON is kept as `"text"` instead of `"message"`, so a stray print on the peer's
stdout shows up in the trace as what it is. Set `ACP_TRACE=FILE` (or pass `trace=` to
`run()` / `spawn()` / `serve_http()` / `connect()`) to turn it on; the file is appended to.
An agent serving remote connections writes all of them to one file, each record naming its
connection: `"connection": <its Acp-Connection-Id>` after `"dir"`.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from typing import IO, Final

from ..wire.line_framing import decode_line

TRACE_ENV: Final = "ACP_TRACE"
SEND: Final = "send"
RECV: Final = "recv"

TraceTarget = str | os.PathLike[str] | IO[bytes]


def _now() -> bytes:
    return datetime.now(UTC).isoformat(timespec="microseconds").encode()


class Tracer:
    """Appends one record per line to a binary file. Writes are unbuffered lines, so a trace
    is complete up to the last message even when the process is killed."""

    def __init__(self, target: TraceTarget, *, connection: str | None = None) -> None:
        if isinstance(target, str | os.PathLike):
            self._file: IO[bytes] = open(target, "ab", buffering=0)  # noqa: SIM115
            self._owned = True
        else:
            self._file = target
            self._owned = False
        # Put in the record as it is: an id the server made (a UUID), nothing to escape.
        self._label = b"" if connection is None else b'"connection":"' + connection.encode() + b'",'

    def for_connection(self, connection: str) -> Tracer:
        """A tracer writing to the same file, each record naming `connection`; closing it
        leaves the file open (this tracer's owner closes it)."""
        return Tracer(self._file, connection=connection)

    def record(self, direction: str, line: bytes) -> None:
        """Record one line as sent or received (without its newline)."""
        head = b'{"time":"' + _now() + b'","dir":"' + direction.encode() + b'",' + self._label
        try:
            decode_line(line)  # a sent frame is always JSON; a received line may not be
            body = b'"message":' + line
        except ValueError:
            text = line.decode("utf-8", errors="replace")
            body = b'"text":' + json.dumps(text, ensure_ascii=False).encode()
        self._file.write(head + body + b"}\n")

    def close(self) -> None:
        if self._owned and not self._file.closed:
            self._file.close()


def tracer_for(trace: TraceTarget | Tracer | None) -> Tracer | None:
    """The tracer `trace` asks for; without one, the one `ACP_TRACE` names (or none)."""
    if isinstance(trace, Tracer):
        return trace
    if trace is not None:
        return Tracer(trace)
    path = os.environ.get(TRACE_ENV)
    return Tracer(path) if path else None
