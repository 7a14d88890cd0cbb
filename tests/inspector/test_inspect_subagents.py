"""Subagents (child sessions) in the inspector: a session lists the children it announced
(`subagent_update`) with the title, state and description its parent gave each, escaped
(`visible_line`) and drawn as text; a child's own updates make it a session of its own, listed
as its parent's, whose transcript shows when chosen. Without a browser from a trace, then in
Chromium from the trace, and live against chat's delegating agent."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from acp_codegen.commands.inspect.replay import TraceReplay
from acp_codegen.commands.inspect.traffic_log import TrafficLog
from playwright.sync_api import expect

from .conftest import REPO, StartInspector

PARENT, CHILD = "sess_1", "sess_child"
HOSTILE = '<img src=x onerror="document.title=1">\x1b]0;pwned\x07\nagent: fake'
SHOWN = '<img src=x onerror="document.title=1">\\e]0;pwned\\x07\\nagent: fake'
DELEGATING = [sys.executable, str(REPO / "tests" / "chat" / "subagent_agent.py")]


def sent(request_id: int, method: str, **params: Any) -> dict[str, Any]:
    message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
    return {"dir": "send", "message": message}


def answer(request_id: int, **result: Any) -> dict[str, Any]:
    return {"dir": "recv", "message": {"jsonrpc": "2.0", "id": request_id, "result": result}}


def told(session_id: str, **update: Any) -> dict[str, Any]:
    params = {"sessionId": session_id, "update": update}
    return {
        "dir": "recv",
        "message": {"jsonrpc": "2.0", "method": "session/update", "params": params},
    }


RECORDS = [
    sent(1, "initialize", protocolVersion=2, capabilities={}),
    answer(1, protocolVersion=2, info={"name": "s", "version": "1"}, capabilities={}),
    sent(2, "session/new", cwd="/w"),
    answer(2, sessionId=PARENT),
    told(  # line 5: the child announced on its parent
        PARENT,
        sessionUpdate="subagent_update",
        sessionId=CHILD,
        title=HOSTILE,
        description="counts\nfiles",
        state={"state": "running"},
    ),
    told(  # line 6: the child's own answer, under the child's id
        CHILD,
        sessionUpdate="agent_message_chunk",
        messageId="c1",
        content={"type": "text", "text": "two files"},
    ),
    told(  # line 7: its state, mirrored on the parent
        PARENT,
        sessionUpdate="subagent_update",
        sessionId=CHILD,
        state={"state": "idle", "stopReason": "end_turn"},
    ),
]


def test_a_trace_lists_a_sessions_subagents_escaped_and_shows_the_childs_transcript() -> None:
    log = TrafficLog()
    for item in RECORDS:
        log.add(item)
    replay = TraceReplay(log, "subagents.jsonl")
    assert replay.view(at=4)["session"]["subagents"] == []
    announced = replay.view(at=5)
    assert announced["session"]["subagents"] == [
        {"id": CHILD, "title": SHOWN, "state": "running", "description": "counts\\nfiles"}
    ]
    assert [s["id"] for s in announced["sessions"]] == [PARENT]  # no update of its own yet
    done = replay.view()
    assert done["session"]["subagents"][0]["state"] == "idle"
    rows = {row["id"]: row for row in done["sessions"]}
    assert rows[CHILD]["parentId"] == PARENT
    assert rows[CHILD]["title"] == SHOWN  # untitled itself: named as its parent named it
    assert rows[PARENT]["parentId"] is None
    child = replay.view(session_id=CHILD)
    assert child["sessionId"] == CHILD
    assert [m["blocks"][0]["text"] for m in child["session"]["messages"]] == ["two files"]


def test_the_page_lists_the_subagents_as_text_and_opens_a_childs_transcript(
    start_inspector: StartInspector, page: Any, tmp_path: Path
) -> None:
    trace = tmp_path / "subagents.jsonl"
    trace.write_text("".join(json.dumps(item) + "\n" for item in RECORDS), encoding="utf-8")
    inspector = start_inspector("--trace", str(trace))
    page.goto(inspector.url)
    expect(page.locator("#position")).to_have_text("after line 7 of 7")
    expect(page.locator("#subagents-section")).to_be_visible()
    expect(page.locator("#subagents li")).to_have_text([f"{SHOWN} [idle] - counts\\nfiles"])
    expect(page.locator("#subagents img")).to_have_count(0)  # as text: no element made of it
    expect(page.locator("#sessions .subagent-of")).to_have_text([f" (subagent of {PARENT})"])
    page.click("#subagents .name")
    expect(page.locator("#sessions li.current")).to_have_attribute("title", CHILD)
    expect(page.locator("#messages .message")).to_contain_text(["two files"])
    expect(page.locator("#subagents-section")).to_be_hidden()  # the child announced none
    assert page.evaluate("document.title") != "1"


def test_live_the_page_lists_the_helper_and_shows_its_own_transcript(
    start_inspector: StartInspector, page: Any
) -> None:
    inspector = start_inspector("--", *DELEGATING, "hostile")
    page.goto(inspector.url)
    expect(page.locator("#subagents-section")).to_be_hidden()
    page.fill("#prompt-text", "hi")
    page.click("#send")
    expect(page.locator("#state")).to_have_text("idle · end_turn")
    expect(page.locator("#subagents li")).to_have_text(
        ["Helper\\e]0;pwned\\x07\\e[2J [idle] - counts files"]
    )
    page.click("#subagents .name")
    expect(page.locator("#sessions .subagent-of")).to_have_count(1)
    expect(page.locator("#messages .message")).to_contain_text(["two files"])
