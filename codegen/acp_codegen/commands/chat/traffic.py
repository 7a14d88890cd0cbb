"""The traffic tap: the runtime's trace records, fanned out to a `--trace` file, to stderr
(method names, with `--verbose`) and to a watcher of lines that are not JSON-RPC."""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer


class TrafficTap(io.RawIOBase):
    """A write-only binary file the runtime's `Tracer` writes one record per call to."""

    def __init__(
        self, file: Path | None, *, show_methods: bool, on_garbage: Callable[[str], None]
    ) -> None:
        super().__init__()
        self._file: IO[bytes] | None = None if file is None else open(file, "ab", buffering=0)  # noqa: SIM115
        self._show_methods = show_methods
        self._on_garbage = on_garbage

    def writable(self) -> bool:
        return True

    def write(self, data: ReadableBuffer) -> int:
        raw = bytes(data)
        if self._file is not None:
            self._file.write(raw)
        try:
            record: dict[str, Any] = json.loads(raw)
        except ValueError:  # the tracer always writes JSON; nothing to watch otherwise
            return len(raw)
        if "text" in record and record.get("dir") == "recv":
            self._on_garbage(str(record["text"]))
        elif self._show_methods:
            self._show(record)
        return len(raw)

    def _show(self, record: dict[str, Any]) -> None:
        message = record.get("message")
        if not isinstance(message, dict):
            return
        arrow = "->" if record.get("dir") == "send" else "<-"
        if "method" in message:
            what = str(message["method"])
        else:
            what = "error" if "error" in message else "result"
            what = f"{what} #{message.get('id')}"
        print(f"{arrow} {what}", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self._file is not None and not self._file.closed:
            self._file.close()
        super().close()
