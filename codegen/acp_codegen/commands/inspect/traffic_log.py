"""The traffic as the inspector lists it: trace records (the `ACP_TRACE` / `chat --trace`
format, one JSON object per line), each with a short summary for the page's list and the
problems found with it (not JSON-RPC, malformed update, dropped)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

UPDATE_METHOD = "session/update"
MAX_TRACE_BYTES = 512 * 1024 * 1024  # a trace larger than this is refused, not read into memory


@dataclass
class Line:
    """One record and what the inspector noticed about it."""

    record: dict[str, Any]
    summary: dict[str, Any]
    problems: list[str] = field(default_factory=list)


class TrafficLog:
    """Every record so far, in order; `on_add` hears each new one (the page's event stream)."""

    def __init__(self) -> None:
        self.lines: list[Line] = []
        self.on_add: Callable[[], None] | None = None
        self._methods: dict[tuple[str, Any], str] = {}  # (direction, id) of requests: method

    def __len__(self) -> int:
        return len(self.lines)

    def add(self, record: dict[str, Any]) -> Line:
        summary = self._summary(len(self.lines), record)
        line = Line(record, summary, list(summary["problems"]))
        self.lines.append(line)
        if self.on_add is not None:
            self.on_add()
        return line

    def mark(self, index: int, problem: str) -> None:
        """Note a problem with line `index` (the runtime refused or repaired it)."""
        line = self.lines[index]
        line.problems.append(problem)
        line.summary["problems"] = list(line.problems)
        if self.on_add is not None:
            self.on_add()

    def summaries(self, start: int = 0) -> list[dict[str, Any]]:
        return [line.summary for line in self.lines[start:]]

    def _summary(self, index: int, record: dict[str, Any]) -> dict[str, Any]:
        direction = str(record.get("dir", "?"))
        summary: dict[str, Any] = {"n": index, "dir": direction, "problems": []}
        message = record.get("message")
        if not isinstance(message, dict):
            summary["kind"] = "text"
            text = record.get("text", message)
            summary["method"] = ""
            summary["label"] = str(text)[:120]
            why = record.get("problem") or "not JSON-RPC: the client dropped it"
            summary["problems"] = [str(why)]
            return summary
        method = message.get("method")
        message_id = message.get("id")
        if isinstance(method, str):
            summary["kind"] = "request" if "id" in message else "notification"
            if "id" in message:
                self._methods[(direction, _hashable(message_id))] = method
        else:
            summary["kind"] = "error" if "error" in message else "result"
            asked = "recv" if direction == "send" else "send"
            method = self._methods.get((asked, _hashable(message_id)), "")
        summary["method"] = method
        summary["id"] = message_id if isinstance(message_id, str | int) else None
        summary["label"] = _label(summary["kind"], method, message)
        return summary


def _hashable(value: Any) -> Any:
    return value if isinstance(value, str | int | float | None) else json.dumps(value)


def _label(kind: str, method: str, message: dict[str, Any]) -> str:
    """What the list shows for a message: the method, an update's tag, an error's text."""
    if method == UPDATE_METHOD:
        params = message.get("params")
        update = params.get("update") if isinstance(params, dict) else None
        tag = update.get("sessionUpdate") if isinstance(update, dict) else None
        return f"{method} · {tag}" if isinstance(tag, str) else method
    if kind == "error":
        error = message.get("error")
        text = error.get("message") if isinstance(error, dict) else None
        return f"error {method}: {str(text)[:80]}".strip()
    if kind == "result":
        return f"result {method}".strip()
    return method


class TraceFileError(Exception):
    """A trace that cannot be read at all (missing, unreadable, too large)."""


def read_trace(path: Path) -> Iterable[dict[str, Any]]:
    """The records of a trace file. A line that is not a record (cut short, not JSON, no
    direction) is kept as a text record, so the page lists it marked instead of losing it."""
    try:
        if path.stat().st_size > MAX_TRACE_BYTES:
            raise TraceFileError(f"{path}: larger than {MAX_TRACE_BYTES // 2**20} MiB")
        raw = path.read_bytes()
    except OSError as error:
        raise TraceFileError(f"{path}: {error.strerror or error}") from None
    for number, line in enumerate(raw.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            record = None
        if not isinstance(record, dict) or record.get("dir") not in ("send", "recv"):
            text = line.decode("utf-8", errors="replace")
            yield {"dir": "?", "text": text, "problem": f"line {number} is not a trace record"}
            continue
        yield record


def trace_bytes(log: TrafficLog) -> bytes:
    """The log as a trace file, readable by `inspect --trace`."""
    return b"".join(_record_line(line.record) for line in log.lines)


def _record_line(record: dict[str, Any]) -> bytes:
    text = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
    try:
        return text.encode("utf-8") + b"\n"
    except UnicodeEncodeError:  # a lone surrogate: kept as its JSON escape, valid UTF-8
        return json.dumps(record, separators=(",", ":")).encode("ascii") + b"\n"
