"""Reading a trace without a browser: every line kept (marked when it is not a record or the
runtime refuses it), and the state rebuilt as of any line, forwards and back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from acp_codegen.commands.inspect.page import script_json
from acp_codegen.commands.inspect.replay import TraceReplay
from acp_codegen.commands.inspect.traffic_log import TrafficLog, read_trace, trace_bytes

SESSION = "sess_1"


def update(body: dict[str, Any]) -> dict[str, Any]:
    params = {"sessionId": SESSION, "update": body}
    return {
        "dir": "recv",
        "message": {"jsonrpc": "2.0", "method": "session/update", "params": params},
    }


RECORDS = [
    {"dir": "send", "message": {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}},
    {
        "dir": "recv",
        "message": {
            "jsonrpc": "2.0",
            "id": 1,
            "result": {"protocolVersion": 2, "info": {"name": "a", "version": "1"}},
        },
    },
    {"dir": "send", "message": {"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": {}}},
    {"dir": "recv", "message": {"jsonrpc": "2.0", "id": 2, "result": {"sessionId": SESSION}}},
    update({"sessionUpdate": "state_update", "state": "running"}),
    update(
        {
            "sessionUpdate": "agent_message_chunk",
            "messageId": "m",
            "content": {"type": "text", "text": "one "},
        }
    ),
    update({"sessionUpdate": "agent_message_chunk", "messageId": "m", "content": "not a block"}),
    update(
        {
            "sessionUpdate": "agent_message_chunk",
            "messageId": "m",
            "content": {"type": "text", "text": "two"},
        }
    ),
    update({"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"}),
]


def write_trace(path: Path, extra: bytes = b"") -> None:
    lines = [json.dumps(record).encode() for record in RECORDS]
    path.write_bytes(b"\n".join(lines[:5]) + b"\n" + extra + b"\n".join(lines[5:]) + b"\n")


def load(path: Path) -> TraceReplay:
    log = TrafficLog()
    for record in read_trace(path):
        log.add(record)
    return TraceReplay(log, str(path))


def test_the_state_as_of_any_line(tmp_path: Path) -> None:
    trace = tmp_path / "t.jsonl"
    write_trace(trace, b'{"dir": "recv", "message": {"jsonrpc"\n')  # cut short
    replay = load(trace)
    assert len(replay.log) == len(RECORDS) + 1
    end = replay.view()
    assert end["agent"]["name"] == "a" and end["agent"]["protocolVersion"] == 2
    assert end["session"]["state"] == "idle" and end["session"]["stopReason"] == "end_turn"
    assert end["session"]["messages"][0]["blocks"] == [{"kind": "text", "text": "one two"}]
    middle = replay.view(7)  # the state update, the cut line and the first chunk
    assert middle["session"]["state"] == "running"
    assert middle["session"]["messages"][0]["blocks"] == [{"kind": "text", "text": "one "}]
    assert replay.view(0)["session"] is None
    assert replay.view(7) == middle  # back and forth gives the same state
    problems = {line.summary["n"]: line.problems for line in replay.log.lines if line.problems}
    assert list(problems) == [5, 7]
    assert "not a trace record" in problems[5][0]
    assert problems[7][0].startswith("malformed update, not folded")


def test_an_exported_trace_reads_back_the_same(tmp_path: Path) -> None:
    trace = tmp_path / "t.jsonl"
    write_trace(trace)
    replay = load(trace)
    again = tmp_path / "again.jsonl"
    again.write_bytes(trace_bytes(replay.log))
    assert load(again).view() == {**replay.view(), "source": str(again)}


def test_embedded_report_data_cannot_close_its_script_element() -> None:
    hostile = {"text": "</script><script>alert(1)</script><!-- \u2028 &amp;"}
    text = script_json(hostile)
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text
    assert json.loads(text) == hostile


def test_lone_surrogates_and_nul_survive_export_and_embedding(tmp_path: Path) -> None:
    odd = "bad \ud800 and \x00 end"
    log = TrafficLog()
    for record in RECORDS[:4]:
        log.add(record)
    log.add(update({"sessionUpdate": "agent_message_chunk", "messageId": "m",
                    "content": {"type": "text", "text": odd}}))  # fmt: skip
    exported = trace_bytes(log)
    exported.decode("utf-8")  # valid UTF-8 throughout
    again = tmp_path / "again.jsonl"
    again.write_bytes(exported)
    replay = load(again)
    assert replay.view()["session"]["messages"][0]["blocks"][0]["text"] == odd
    assert json.loads(script_json(replay.view()))["session"] == replay.view()["session"]
    script_json(replay.view()).encode("ascii")


def test_a_cancel_in_the_trace_is_folded_as_the_client_did(tmp_path: Path) -> None:
    call = {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "c1",
        "title": "t",
        "status": "pending",
    }
    asked = {"jsonrpc": "2.0", "id": 7, "method": "session/request_permission",
             "params": {"sessionId": SESSION, "title": "May I?", "options": [
                 {"optionId": "y", "name": "Yes", "kind": "allow_once"}]}}  # fmt: skip
    cancel = {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": SESSION}}
    records = [*RECORDS[:5], update(call), {"dir": "recv", "message": asked},
               {"dir": "send", "message": cancel}]  # fmt: skip
    trace = tmp_path / "t.jsonl"
    trace.write_text("".join(json.dumps(record) + "\n" for record in records))
    replay = load(trace)
    before = replay.view(len(records) - 1)
    assert before["permission"]["title"] == "May I?"
    assert before["permission"]["options"] == [{"id": "y", "name": "Yes", "kind": "allow_once"}]
    assert before["session"]["toolCalls"][0]["status"] == "pending"
    after = replay.view()
    assert after["permission"] is None
    assert after["session"]["toolCalls"][0]["status"] == "cancelled"
