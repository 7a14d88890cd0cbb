"""The inspector's reading of the traffic, without a browser: the turns found in a trace (v2
ends a turn with the session's idle state, v1 with the prompt's answer), their timing and the
plans each touched; a v1 trace replayed as the client reads v1; diffs as the page gets them
(model/diff_view.py's files and hunks, each line numbered), v1's whole texts and v2's patch
alike, also in a permission question."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from acp_codegen._bindings import models
from acp_codegen._bindings._runtime.v1.client_updates import _diff
from acp_codegen._bindings._runtime.wire.jsonvalue import JsonObject, JsonValue
from acp_codegen.commands.inspect.diff_view import MAX_DIFF_LINES, page_diff
from acp_codegen.commands.inspect.live import LiveInspector
from acp_codegen.commands.inspect.replay import TraceReplay, permission_view
from acp_codegen.commands.inspect.traffic_log import TrafficLog

SESSION = "s1"


def record(second: float, direction: str, **message: Any) -> dict[str, Any]:
    time = f"2026-01-01T00:00:{second:09.6f}+00:00"
    return {"time": time, "dir": direction, "message": {"jsonrpc": "2.0", **message}}


def prompt(second: float, request_id: int, text: str) -> dict[str, Any]:
    params = {"sessionId": SESSION, "prompt": [{"type": "text", "text": text}]}
    return record(second, "send", id=request_id, method="session/prompt", params=params)


def update(second: float, **fields: Any) -> dict[str, Any]:
    params = {"sessionId": SESSION, "update": fields}
    return record(second, "recv", method="session/update", params=params)


def log_of(records: list[dict[str, Any]]) -> TrafficLog:
    log = TrafficLog()
    for item in records:
        log.add(item)
    return log


def test_v2_turns_end_with_the_idle_state_and_are_timed() -> None:
    plan = {"type": "items", "planId": "p1", "entries": []}
    log = log_of(
        [
            prompt(1.0, 3, "first"),
            record(1.01, "recv", id=3, result={"messageId": "m"}),  # v2: the turn goes on
            update(1.02, sessionUpdate="user_message", messageId="m", content=[]),  # an echo
            update(1.25, sessionUpdate="plan_update", plan=plan),
            update(2.0, sessionUpdate="state_update", state="idle", stopReason="end_turn"),
            prompt(3.0, 4, "second"),
            update(3.5, sessionUpdate="plan_update", plan={**plan, "planId": "p2"}),
        ]
    )
    first, second = log.turns.views()
    assert first == {
        "n": 1,
        "session": SESSION,
        "start": 0,
        "end": 4,
        "prompt": "first",
        "stop": "end_turn",
        "updates": 3,
        "firstUpdate": 0.25,  # the prompt's echo is not the agent's first word
        "duration": 1.0,
    }
    assert (second["start"], second["end"], second["duration"]) == (5, None, 0.5)
    assert log.turns.plan_turns(len(log)) == {"p1": 1, "p2": 2}
    assert log.turns.plan_turns(5) == {"p1": 1}  # as of a line before the second turn


def test_v1_turns_end_with_the_prompts_answer_or_an_error() -> None:
    log = log_of(
        [
            prompt(1.0, 1, "look"),
            update(1.5, sessionUpdate="plan", entries=[]),
            record(2.0, "recv", id=1, result={"stopReason": "cancelled"}),
            prompt(3.0, 2, "again"),
            record(3.25, "recv", id=2, error={"code": -32603, "message": "no"}),
        ]
    )
    first, second = log.turns.views()
    assert (first["end"], first["stop"], first["firstUpdate"]) == (2, "cancelled", 0.5)
    assert (second["end"], second["stop"], second["updates"]) == (4, "error", 0)
    assert log.turns.plan_turns(len(log)) == {"plan": 1}


def test_a_v1_diff_is_numbered_as_its_v2_form() -> None:
    v1: JsonObject = {
        "type": "diff", "path": "/w/a.py", "oldText": "a\nb\nc\n", "newText": "a\nB\nc\nd\n"
    }  # fmt: skip
    view = page_diff(v1)
    assert view == page_diff(_diff(v1))  # the client's own v1 to v2 conversion reads the same
    (file,) = view["files"]
    assert (file["operation"], file["path"], file["added"], file["removed"]) == (
        "modify", "/w/a.py", 2, 1
    )  # fmt: skip
    (hunk,) = file["hunks"]
    assert hunk["header"] == "@@ -1,3 +1,4 @@"
    assert hunk["lines"] == [
        ["ctx", 1, 1, "a"],
        ["del", 2, None, "b"],
        ["add", None, 2, "B"],
        ["ctx", 3, 3, "c"],
        ["add", None, 4, "d"],
    ]
    created = page_diff({"type": "diff", "path": "/w/new.txt", "oldText": None, "newText": "x"})
    assert created["files"][0]["operation"] == "add"
    assert created["files"][0]["hunks"][0]["lines"] == [["add", None, 1, "x"]]


def test_a_v2_patch_numbered_from_its_hunk_headers_and_bounded() -> None:
    text = (
        "diff --git a/src/x.py b/src/x.py\n--- a/src/x.py\n+++ b/src/x.py\n"
        "@@ -10,2 +10,2 @@ def f():\n-    old\n+    new\n     kept\n"
        "diff --git a/y b/z\nrename from y\nrename to z\n--- a/y\n+++ b/z\n"
        "@@ -1 +1 @@\n-1\n+2\u202e\n\\ No newline at end of file\n"
    )
    changes: list[JsonValue] = [
        {"operation": "modify", "path": "/src/x.py"},
        {"operation": "move", "oldPath": "/y", "path": "/z"},
    ]
    view = page_diff({"type": "diff", "changes": changes, "patch": {"format": "p", "text": text}})
    first, moved = view["files"]
    assert first["hunks"][0]["header"] == "@@ -10,2 +10,2 @@ def f():"
    assert first["hunks"][0]["lines"] == [
        ["del", 10, None, "    old"],
        ["add", None, 10, "    new"],
        ["ctx", 11, 11, "    kept"],
    ]
    assert (moved["operation"], moved["oldPath"], moved["path"]) == ("move", "/y", "/z")
    *lines, note = moved["hunks"][0]["lines"]
    assert lines == [["del", 1, None, "1"], ["add", None, 1, "2\\u202e"]]  # made visible
    assert note == ["note", None, None, "\\ No newline at end of file"]
    assert page_diff({"type": "diff", "changes": changes})["files"][0]["hunks"] == []
    assert page_diff({"type": "content"}) == {"files": []}
    long = "--- a/f\n+++ b/f\n@@ -0,0 +1,9000 @@\n" + "+x\n" * 9000
    bounded = page_diff({"type": "diff", "changes": [], "patch": {"format": "p", "text": long}})
    (file,) = bounded["files"]
    assert len(file["hunks"][0]["lines"]) == MAX_DIFF_LINES - 1  # its header is a row too
    assert file["hidden"] == 9000 - (MAX_DIFF_LINES - 1)


def test_a_permission_question_carries_its_diffs_on_v1_and_v2() -> None:
    v1_diff: JsonObject = {"type": "diff", "path": "/a", "oldText": "1\n", "newText": "2\n"}
    v2_diff = _diff(v1_diff)
    options = [{"optionId": "ok", "name": "Apply", "kind": "allow_once"}]
    v2 = {
        "title": "Apply?",
        "options": options,
        "subject": {"type": "tool_call", "toolCall": {"toolCallId": "c", "content": [v2_diff]}},
    }
    v1 = {
        "toolCall": {"toolCallId": "c", "title": "Edit", "content": [v1_diff]},
        "options": options,
    }
    for params in (v1, v2):
        (shown,) = permission_view(1, params)["diffs"]
        assert shown == page_diff(v1_diff)
    assert permission_view(1, {"options": options})["diffs"] == []


def test_a_v1_write_asked_on_the_page_carries_its_diff() -> None:
    """A question chat's gate passes on with a write's diff (`Question.diff`) is asked as a
    permission request about a tool call with that diff, which the dialog draws."""
    diff = _diff({"type": "diff", "path": "/a", "oldText": "1\n", "newText": "2\n"})
    asked: list[Any] = []

    async def ask(request: Any) -> Any:
        asked.append(request)
        return models.SelectedPermissionOutcome(outcome="selected", option_id="allow")

    page = SimpleNamespace(
        _cancelled=False, link=SimpleNamespace(session=SimpleNamespace(session_id="s")), _ask=ask
    )
    question = SimpleNamespace(title="write /a", details=(), diff=diff)
    assert asyncio.run(LiveInspector._confirm(page, question))  # type: ignore[arg-type]
    (request,) = asked
    params = request.model_dump(mode="json", by_alias=True)
    (shown,) = permission_view(1, params)["diffs"]
    assert shown["files"][0]["path"] == "/a"
    plain = SimpleNamespace(
        title="run ls", details=("ls",), diff=None
    )  # a command: no diff, no subject
    assert asyncio.run(LiveInspector._confirm(page, plain))  # type: ignore[arg-type]
    assert asked[1].subject is None


def test_a_v1_trace_replays_as_the_client_reads_v1() -> None:
    """initialize settled on 1: the prompt is the user's message, the states v1 does not send
    are made up, updates are read in their v2 form (a diff as files and hunks), and a
    permission question's diff is drawn."""
    v1_diff = {"type": "diff", "path": "/a", "oldText": "1\n", "newText": "2\n"}
    call = {"toolCallId": "c", "title": "Edit", "content": [v1_diff]}
    options = [{"optionId": "ok", "name": "Apply", "kind": "allow_once"}]
    asked = {"sessionId": SESSION, "toolCall": call, "options": options}
    chunk = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "ok"}}
    answer = {"outcome": {"outcome": "selected", "optionId": "ok"}}
    info = {"name": "old-agent", "version": "1"}
    hello = {"protocolVersion": 1, "agentInfo": info, "agentCapabilities": {}}
    log = log_of(
        [
            record(0.0, "send", id=1, method="initialize", params={"protocolVersion": 1}),
            record(0.1, "recv", id=1, result=hello),
            record(0.2, "send", id=2, method="session/new", params={"cwd": "/"}),
            record(0.3, "recv", id=2, result={"sessionId": SESSION}),
            prompt(1.0, 3, "edit"),
            update(1.1, sessionUpdate="tool_call", **call),
            record(1.2, "recv", id=9, method="session/request_permission", params=asked),
            record(1.3, "send", id=9, result=answer),
            update(1.4, **chunk),
            record(1.5, "recv", id=3, result={"stopReason": "end_turn"}),
        ]
    )
    replay = TraceReplay(log, "v1.jsonl")
    asking = replay.view(7)
    assert asking["agent"]["name"] == "old-agent"
    assert asking["session"]["state"] == "requires_action"
    (drawn,) = asking["permission"]["diffs"]
    assert drawn == page_diff(v1_diff)
    (tool_call,) = asking["session"]["toolCalls"]
    assert tool_call["content"] == [{"kind": "diff", **page_diff(v1_diff)}]
    assert replay.view(8)["session"]["state"] == "running"
    done = replay.view()["session"]
    assert (done["state"], done["stopReason"]) == ("idle", "end_turn")
    assert [m["role"] for m in done["messages"]] == ["user", "agent"]
    assert not any(line.problems for line in log.lines)
