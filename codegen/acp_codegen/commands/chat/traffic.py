"""The traffic tap: the runtime's trace records, fanned out to a `--trace` file, to a shower of
method names (with `--verbose`), to a watcher of lines that are not JSON-RPC and to an optional
hearer of every record (the inspector's traffic list); it also tells
whether the peer ever spoke JSON-RPC of its own or only sent our messages back (`cat`)."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer


class TrafficTap(io.RawIOBase):
    """A write-only binary file the runtime's `Tracer` writes one record per call to."""

    def __init__(
        self,
        file: Path | None,
        *,
        show: Callable[[str], None] | None,
        on_garbage: Callable[[str], None],
        on_record: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        super().__init__()
        self._on_record = on_record
        # Kept open for the tap's life (closed with it), so no context manager.
        opened = None if file is None else open(file, "ab", buffering=0)  # noqa: SIM115
        self._file: IO[bytes] | None = opened
        self._show = show
        self._on_garbage = on_garbage
        self.spoke = False  # the peer sent a JSON-RPC message that is not one of ours
        self.echoed = False  # the peer sent one of our own messages back
        self._sent: set[str] = set()  # ours, while the peer has not spoken (the handshake)

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
        if self._on_record is not None:
            self._on_record(record)
        if "text" in record and record.get("dir") == "recv":
            self._on_garbage(str(record["text"]))
            return len(raw)
        if "message" in record:
            self._watch(record["dir"] == "send", record["message"])
        if self._show is not None:
            self._show_method(record)
        return len(raw)

    def _watch(self, sent: bool, message: Any) -> None:
        if self.spoke:
            return
        canonical = json.dumps(message, sort_keys=True)
        if sent:
            self._sent.add(canonical)
        elif canonical in self._sent:
            self.echoed = True
        else:
            self.spoke = True
            self._sent.clear()

    def _show_method(self, record: dict[str, Any]) -> None:
        message = record.get("message")
        if not isinstance(message, dict) or self._show is None:
            return
        arrow = "->" if record.get("dir") == "send" else "<-"
        if "method" in message:
            what = str(message["method"])
        else:
            what = "error" if "error" in message else "result"
            what = f"{what} #{message.get('id')}"
        self._show(f"{arrow} {what}")

    def close(self) -> None:
        if self._file is not None and not self._file.closed:
            self._file.close()
        super().close()
