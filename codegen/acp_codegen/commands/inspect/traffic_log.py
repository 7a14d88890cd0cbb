"""The traffic as the inspector lists it: trace records (the `ACP_TRACE` / `chat --trace`
format, one JSON object per line), each with a short summary for the page's list and the
problems found with it (not JSON-RPC, malformed update, dropped)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, Final

from .trace_file import MAX_TRACE_BYTES, Stored, TraceFile, TraceFileError
from .turns import Turns

UPDATE_METHOD = "session/update"
MAX_LABEL: Final = 120  # characters of a list entry's label
MAX_PROBLEM: Final = 300  # characters of one problem noted with a line
_MAX_OPEN_REQUESTS: Final = 100_000  # requests remembered to name their answers' method
_MAX_SHARED_LABELS: Final = 4096  # labels kept once and shared by every line that has them

__all__ = ["MAX_TRACE_BYTES", "Line", "TraceFileError", "TrafficLog", "read_trace"]


class Line:
    """One record and what the inspector noticed about it. A line of a trace file keeps only
    its place in the file (`stored`) and its summary's fields; its record is read again when
    asked for, so a long trace costs a few hundred bytes a line, not its decoded JSON."""

    __slots__ = ("_record", "direction", "id", "kind", "label", "method", "n", "problems", "stored")

    def __init__(self, n: int, record: dict[str, Any] | None, stored: Stored | None) -> None:
        self.n = n
        self._record = record
        self.stored = stored
        self.direction, self.kind, self.method, self.label = "?", "text", "", ""
        self.id: str | int | None = None
        self.problems: list[str] = []

    @property
    def record(self) -> dict[str, Any]:
        if self._record is not None:
            return self._record
        assert self.stored is not None
        return self.stored.record()

    @property
    def summary(self) -> dict[str, Any]:
        """What the page's list shows for this line."""
        summary: dict[str, Any] = {"n": self.n, "dir": self.direction, "problems": self.problems}
        summary |= {"kind": self.kind, "method": self.method, "label": self.label}
        if self.kind != "text":
            summary["id"] = self.id
        return summary


class TrafficLog:
    """Every record so far, in order; `on_add` hears each new one (the page's event stream)."""

    def __init__(self) -> None:
        self.lines: list[Line] = []
        self.on_add: Callable[[], None] | None = None
        self._methods: dict[tuple[str, Any], str] = {}  # (direction, id) of requests: method
        self._labels: dict[str, str] = {}
        self.turns = Turns()  # the prompt turns, found as lines are added

    def __len__(self) -> int:
        return len(self.lines)

    def add(self, record: dict[str, Any], stored: Stored | None = None) -> Line:
        """Add a record; with `stored`, only its summary is kept (it is read again from there)."""
        line = Line(len(self.lines), None if stored is not None else record, stored)
        self._summarize(line, record)
        self.turns.see(line.n, record)
        self.lines.append(line)
        if self.on_add is not None:
            self.on_add()
        return line

    def mark(self, index: int, problem: str) -> None:
        """Note a problem with line `index` (the runtime refused or repaired it)."""
        self.lines[index].problems.append(problem[:MAX_PROBLEM])
        if self.on_add is not None:
            self.on_add()

    def summaries(self, start: int = 0) -> list[dict[str, Any]]:
        return [line.summary for line in self.lines[start:]]

    def _summarize(self, line: Line, record: dict[str, Any]) -> None:
        direction = str(record.get("dir", "?"))
        line.direction = self._shared(direction)
        message = record.get("message")
        if not isinstance(message, dict):
            text = record.get("text", message)
            line.label = str(text)[:MAX_LABEL]
            why = record.get("problem") or "not JSON-RPC: the client dropped it"
            line.problems.append(str(why)[:MAX_PROBLEM])
            return
        method = message.get("method")
        message_id = message.get("id")
        if isinstance(method, str):
            line.kind = "request" if "id" in message else "notification"
            if "id" in message:
                self._remember(direction, message_id, method)
        else:
            line.kind = "error" if "error" in message else "result"
            asked = "recv" if direction == "send" else "send"
            method = self._methods.pop((asked, _hashable(message_id)), "")
        line.method = self._shared(method[:MAX_LABEL])
        line.id = message_id if isinstance(message_id, str | int) else None
        line.label = self._shared(_label(line.kind, line.method, message)[:MAX_LABEL])

    def _remember(self, direction: str, message_id: Any, method: str) -> None:
        """A request's method, until its answer names it (the oldest forgotten past a bound:
        a trace of requests never answered cannot grow this without end)."""
        if len(self._methods) >= _MAX_OPEN_REQUESTS:
            del self._methods[next(iter(self._methods))]
        self._methods[(direction, _hashable(message_id))] = method[:MAX_LABEL]

    def _shared(self, text: str) -> str:
        """`text`, one copy for every line with the same (a session/update's label, ...)."""
        kept = self._labels.get(text)
        if kept is not None:
            return kept
        if len(self._labels) < _MAX_SHARED_LABELS:
            self._labels[text] = text
        return text


def _hashable(value: Any) -> Any:
    return value if isinstance(value, str | int | float | None) else json.dumps(value)


# The unstable session methods' lines name what they are about: the session forked and the
# fork made (`session/fork`), the title asked for and the one stored (`session/set_title`).
SESSION_DETAILS: Final = {
    "session/fork": {"request": "sessionId", "result": "sessionId"},
    "session/set_title": {"request": "title", "result": "title"},
}


def _label(kind: str, method: str, message: dict[str, Any]) -> str:
    """What the list shows for a message: the method, an update's tag, an error's text."""
    if method == UPDATE_METHOD:
        params = message.get("params")
        update = params.get("update") if isinstance(params, dict) else None
        tag = update.get("sessionUpdate") if isinstance(update, dict) else None
        return f"{method} · {tag}" if isinstance(tag, str) else method
    if method in SESSION_DETAILS and kind in ("request", "result"):
        where = "params" if kind == "request" else "result"
        body = message.get(where)
        detail = body.get(SESSION_DETAILS[method][kind]) if isinstance(body, dict) else None
        base = method if kind == "request" else f"result {method}"
        return f"{base} · {detail}" if isinstance(detail, str) else base
    if kind == "error":
        error = message.get("error")
        text = error.get("message") if isinstance(error, dict) else None
        return f"error {method}: {str(text)[:80]}".strip()
    if kind == "result":
        return f"result {method}".strip()
    return method


def read_trace(path: Path) -> Iterable[dict[str, Any]]:
    """The records of a trace file, read a line at a time (trace_file.py)."""
    trace = TraceFile(path)
    try:
        for record, _ in trace.lines():
            yield record
    finally:
        trace.close()


def trace_bytes(log: TrafficLog) -> bytes:
    """The log as a trace file, readable by `inspect --trace`."""
    return b"".join(trace_pieces(log))


def trace_pieces(log: TrafficLog) -> Iterator[bytes]:
    """The log as a trace file, a line at a time (a long trace is never held whole)."""
    for line in log.lines:
        yield _record_line(line.record)


def _record_line(record: dict[str, Any]) -> bytes:
    text = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
    try:
        return text.encode("utf-8") + b"\n"
    except UnicodeEncodeError:  # a lone surrogate: kept as its JSON escape, valid UTF-8
        return json.dumps(record, separators=(",", ":")).encode("ascii") + b"\n"
