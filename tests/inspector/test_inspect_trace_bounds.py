"""A crafted trace against `inspect --trace`: a line nested a thousand levels deep, a line too
long to read, more lines than are listed, requests never answered. Each is a marked line or a
bound, never a traceback; what is kept per line is its place in the file and its summary, not
its decoded JSON (the memory this saves is measured in docs/robustness.md)."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import pytest
from acp_codegen.commands.inspect import replay, trace_file
from acp_codegen.commands.inspect.replay import TraceReplay

from .conftest import StartInspector
from .test_inspect_replay import RECORDS, SESSION

DEEP = 1200  # deeper than Python's recursion limit


def deep_line(depth: int, *, odd: bool = False) -> bytes:
    """A session/update whose update holds `depth` nested arrays (written as text: json.dumps
    would recurse); `odd` puts a lone surrogate's escape first, which the fast decoder
    refuses, so the slow one reads the rest."""
    text = "\\ud800" if odd else "x"
    head = (
        '{"dir":"recv","message":{"jsonrpc":"2.0","method":"session/update","params":'
        f'{{"sessionId":"{SESSION}","update":{{"sessionUpdate":"agent_message_chunk",'
        f'"messageId":"m","content":{{"type":"text","text":"{text}"}},"deep":'
    )
    return (head + "[" * depth + "]" * depth + "}}}}").encode()


def write(path: Path, *middle: bytes) -> None:
    lines = [json.dumps(record).encode() for record in RECORDS]
    path.write_bytes(b"\n".join([*lines[:5], *middle, *lines[5:]]) + b"\n")


@pytest.mark.parametrize("odd", [False, True])
def test_a_line_nested_too_deep_is_marked_not_read(tmp_path: Path, odd: bool) -> None:
    trace = tmp_path / "deep.jsonl"
    write(trace, deep_line(DEEP, odd=odd), deep_line(150))
    loaded = TraceReplay.load(trace)
    assert len(loaded.log) == len(RECORDS) + 2
    deep, shallow = loaded.log.lines[5], loaded.log.lines[6]
    assert deep.problems == ["line 6 is nested deeper than 200 levels: not read"]
    assert deep.record["dir"] == "?"  # read again from the file: still refused
    assert shallow.kind == "notification" and shallow.problems == []
    end = loaded.view()
    assert end["session"]["messages"][0]["blocks"] == [{"kind": "text", "text": "xone two"}]
    assert loaded.view(6)["at"] == 6  # folding again from the start passes it the same way


def test_inspect_serves_a_trace_with_a_deep_line(
    tmp_path: Path, start_inspector: StartInspector
) -> None:
    trace = tmp_path / "deep.jsonl"
    write(trace, deep_line(DEEP))
    inspector = start_inspector("--trace", str(trace))
    for path in ("/api/line?n=5", "/api/traffic", "/api/view?at=6"):
        request = urllib.request.Request(
            inspector.base + path, headers={"Authorization": f"Bearer {inspector.token}"}
        )
        with urllib.request.urlopen(request, timeout=120) as response:
            body = json.loads(response.read())
        if path == "/api/traffic":
            assert body[5]["problems"] == ["line 6 is nested deeper than 200 levels: not read"]
    assert inspector.interrupt() == 0
    assert inspector.process.stderr is not None
    assert "Traceback" not in inspector.process.stderr.read()


def test_a_line_keeps_its_place_in_the_file_not_its_json(tmp_path: Path) -> None:
    trace = tmp_path / "t.jsonl"
    write(trace)
    loaded = TraceReplay.load(trace)
    for line, record in zip(loaded.log.lines, RECORDS, strict=True):
        assert not hasattr(line, "__dict__")  # slots: a fixed size per line
        assert line.stored is not None and line.stored.length > 0
        assert line.record == record  # read again from the file when asked for


def test_a_line_too_long_and_lines_past_the_cap_are_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(trace_file, "MAX_LINE_BYTES", 4096)
    monkeypatch.setattr(trace_file, "MAX_LINES", 8)
    trace = tmp_path / "t.jsonl"
    write(trace, b'{"dir":"recv","text":"' + b"y" * 10_000 + b'"}')
    loaded = TraceReplay.load(trace)
    problems = [line.problems for line in loaded.log.lines]
    assert problems[5] == ["line 6 is over 4096 bytes: not read"]
    assert len(loaded.log) == 9  # eight lines, and the note that the rest was left
    assert problems[8] == [trace_file.CUT_SHORT]


def test_requests_never_answered_are_remembered_up_to_a_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(replay, "MAX_OPEN", 50)
    big = "z" * 100_000
    asks = []
    for number in range(200):
        params = {"sessionId": SESSION, "prompt": [{"type": "text", "text": big}]}
        message = {"jsonrpc": "2.0", "id": 100 + number, "method": "session/prompt"}
        asks.append(json.dumps({"dir": "send", "message": {**message, "params": params}}))
    trace = tmp_path / "t.jsonl"
    write(trace, *(ask.encode() for ask in asks))
    fold = TraceReplay.load(trace)._fold
    assert len(fold.prompts) == 50 and len(fold._asked) == 50
    assert all(big not in json.dumps(kept) for kept in fold._asked.values())
