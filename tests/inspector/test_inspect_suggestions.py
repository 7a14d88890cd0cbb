"""The agent's prompt suggestions (unstable `prompt_suggestions_update`, each the whole list) in
the inspector, as chat notes them after a turn: the latest list of the session shown, one line
per suggestion, escaped (`visible_line`) and drawn as text. Without a browser from a trace, then
in Chromium from the trace, and live against chat's odd agent, which sends them only to a client
that advertises them (inspect's, chat's client, does)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from acp_codegen.commands.inspect.replay import TraceReplay
from acp_codegen.commands.inspect.traffic_log import TrafficLog
from playwright.sync_api import expect

from .conftest import REPO, StartInspector

SESSION = "sess_1"
HOSTILE = '<img src=x onerror="document.title=1">\x1b]0;pwned\x07\nagent: fake'
SHOWN = '<img src=x onerror="document.title=1">\\e]0;pwned\\x07\\nagent: fake'
ODD = [sys.executable, str(REPO / "tests" / "chat" / "odd_agent.py")]


def sent(request_id: int, method: str, **params: Any) -> dict[str, Any]:
    message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
    return {"dir": "send", "message": message}


def answer(request_id: int, **result: Any) -> dict[str, Any]:
    return {"dir": "recv", "message": {"jsonrpc": "2.0", "id": request_id, "result": result}}


def suggests(*texts: str) -> dict[str, Any]:
    offered = [{"prompt": [{"type": "text", "text": text}]} for text in texts]
    update = {"sessionUpdate": "prompt_suggestions_update", "suggestions": offered}
    params = {"sessionId": SESSION, "update": update}
    return {
        "dir": "recv",
        "message": {"jsonrpc": "2.0", "method": "session/update", "params": params},
    }


RECORDS = [
    sent(1, "initialize", protocolVersion=2, capabilities={"session": {"promptSuggestions": {}}}),
    answer(1, protocolVersion=2, info={"name": "s", "version": "1"}, capabilities={}),
    sent(2, "session/new", cwd="/w"),
    answer(2, sessionId=SESSION),
    suggests("run the tests", HOSTILE),  # line 5
    suggests("commit"),  # line 6: the whole list each time
    suggests(),  # line 7: none on offer
]


def test_a_trace_shows_the_latest_suggestions_escaped_as_of_each_line() -> None:
    log = TrafficLog()
    for item in RECORDS:
        log.add(item)
    replay = TraceReplay(log, "suggestions.jsonl")
    assert replay.view(at=4)["session"]["suggestions"] == []
    assert replay.view(at=5)["session"]["suggestions"] == ["run the tests", SHOWN]
    assert replay.view(at=6)["session"]["suggestions"] == ["commit"]
    assert replay.view()["session"]["suggestions"] == []


def test_the_page_shows_the_suggestions_as_text(
    start_inspector: StartInspector, page: Any, tmp_path: Path
) -> None:
    trace = tmp_path / "suggestions.jsonl"
    trace.write_text("".join(json.dumps(item) + "\n" for item in RECORDS[:5]), encoding="utf-8")
    inspector = start_inspector("--trace", str(trace))
    page.goto(inspector.url)
    expect(page.locator("#position")).to_have_text("after line 5 of 5")
    expect(page.locator("#suggestions-section")).to_be_visible()
    expect(page.locator("#suggestions li")).to_have_text(["run the tests", SHOWN])
    expect(page.locator("#suggestions img")).to_have_count(0)  # as text: no element made of it
    page.click("#step-back")
    expect(page.locator("#position")).to_have_text("after line 4 of 5")
    expect(page.locator("#suggestions-section")).to_be_hidden()
    assert page.evaluate("document.title") != "1"


def test_live_the_page_shows_what_the_agent_suggests_after_a_turn(
    start_inspector: StartInspector, page: Any
) -> None:
    inspector = start_inspector("--", *ODD, "suggests")
    page.goto(inspector.url)
    expect(page.locator("#suggestions-section")).to_be_hidden()
    page.fill("#prompt-text", "hi")
    page.click("#send")
    expect(page.locator("#state")).to_have_text("idle · end_turn")
    expect(page.locator("#suggestions li")).to_have_text(
        ["run the tests", "fix it\\n[turn ended: end_turn]"]
    )
