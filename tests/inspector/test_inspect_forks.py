"""A trace of upstream's unstable session methods (`session/fork`, `session/set_title`, as chat's
`/fork` and `/title` send them to an agent generated with `--unstable`): the inspector names the
fork and the title in the traffic list, lists the fork marked with the session it copies, and
shows the session's title, a hostile one as text. Without a browser, then in Chromium; and live,
against an agent generated with `--unstable` (made once per module: slow), the page offers
*fork* only when the agent advertises `session.fork`."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from acp_codegen.commands.cli import main
from acp_codegen.commands.exits import EXIT_OK
from acp_codegen.commands.inspect.replay import TraceReplay
from acp_codegen.commands.inspect.traffic_log import TrafficLog
from playwright.sync_api import expect

from .conftest import DEMO, REPO, StartInspector

PARENT, FORK = "sess_parent", "sess_fork"
HOSTILE = '<img src=x onerror="document.title=1">\x1b]0;pwned\x07'


def sent(request_id: int, method: str, **params: Any) -> dict[str, Any]:
    message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
    return {"dir": "send", "message": message}


def answer(request_id: int, **result: Any) -> dict[str, Any]:
    return {"dir": "recv", "message": {"jsonrpc": "2.0", "id": request_id, "result": result}}


def info_update(session_id: str, title: str) -> dict[str, Any]:
    update = {"sessionUpdate": "session_info_update", "title": title}
    params = {"sessionId": session_id, "update": update}
    return {
        "dir": "recv",
        "message": {"jsonrpc": "2.0", "method": "session/update", "params": params},
    }


CAPABILITIES: dict[str, Any] = {"session": {"fork": {}, "title": {}, "archive": {}, "status": {}}}
RECORDS = [
    sent(1, "initialize", protocolVersion=2),
    answer(1, protocolVersion=2, info={"name": "u", "version": "1"}, capabilities=CAPABILITIES),
    sent(2, "session/new", cwd="/w"),
    answer(2, sessionId=PARENT),
    sent(3, "session/set_title", sessionId=PARENT, title="Plan the trip"),
    info_update(PARENT, "Plan the trip"),
    answer(3, title="Plan the trip"),
    sent(4, "session/fork", sessionId=PARENT, cwd="/w"),
    answer(4, sessionId=FORK),
    # A title the agent stored without telling (no session_info_update): read from the answer.
    sent(5, "session/set_title", sessionId=FORK, title=HOSTILE),
    answer(5, title=HOSTILE),
]


def test_the_fork_and_the_titles_are_named_in_the_traffic_and_the_sessions() -> None:
    log = TrafficLog()
    for item in RECORDS:
        log.add(item)
    labels = [summary["label"] for summary in log.summaries()]
    assert labels[4:11] == [
        "session/set_title · Plan the trip",
        "session/update · session_info_update",
        "result session/set_title · Plan the trip",
        f"session/fork · {PARENT}",
        f"result session/fork · {FORK}",
        f"session/set_title · {HOSTILE}",
        f"result session/set_title · {HOSTILE}",
    ]
    replay = TraceReplay(log, "forks.jsonl")
    sessions = replay.view()["sessions"]
    assert [(s["id"], s["title"], s["forkedFrom"]) for s in sessions] == [
        (PARENT, "Plan the trip", None),
        (FORK, HOSTILE, PARENT),
    ]
    before_fork = replay.view(at=8)["sessions"]
    assert [s["id"] for s in before_fork] == [PARENT]
    shown = replay.view(session_id=FORK)
    assert shown["session"]["title"] == HOSTILE


def test_the_page_marks_the_fork_and_shows_titles_as_text(
    start_inspector: StartInspector, page: Any, tmp_path: Path
) -> None:
    trace = tmp_path / "forks.jsonl"
    trace.write_text("".join(json.dumps(item) + "\n" for item in RECORDS), encoding="utf-8")
    inspector = start_inspector("--trace", str(trace))
    page.goto(inspector.url)
    expect(page.locator("#position")).to_have_text(f"after line {len(RECORDS)} of {len(RECORDS)}")
    fork = page.locator(f'#sessions li[title="{FORK}"]')
    expect(fork.locator(".fork-of")).to_have_text(f" (fork of {PARENT})")
    expect(page.locator(f'#sessions li[title="{PARENT}"] .fork-of')).to_have_count(0)
    expect(page.locator(f'#sessions li[title="{PARENT}"] .name')).to_have_text("Plan the trip")
    fork.locator(".name").click()
    expect(page.locator("#title")).to_have_text(HOSTILE)  # as text: no element made of it
    expect(page.locator("#sessions img, #title img")).to_have_count(0)
    page.fill("#filter-method", "session/fork")
    expect(page.locator(".traffic-row")).to_have_count(2)
    expect(page.locator(".traffic-row").last).to_contain_text(f"result session/fork · {FORK}")
    assert page.evaluate("document.title") != "1"


@pytest.fixture(scope="module")
def unstable_agent(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[str]]:
    """chat's test agent (`tests/chat/unstable_agent.py`) over a package generated with
    `--unstable`."""
    out = tmp_path_factory.mktemp("unstable_inspect")
    package = "acp_unstable_inspect_agent"
    generated = main(["generate", "--unstable", "--out", str(out), "--package", package, "-q"])
    assert generated == EXIT_OK
    yield [sys.executable, str(REPO / "tests" / "chat" / "unstable_agent.py"), str(out), package]


@pytest.mark.slow
def test_live_the_page_forks_a_session_when_the_agent_offers_it(
    start_inspector: StartInspector, page: Any, unstable_agent: list[str]
) -> None:
    inspector = start_inspector("--", *unstable_agent)
    page.goto(inspector.url)
    page.fill("#prompt-text", "name Trip")
    page.click("#send")
    expect(page.locator("#state")).to_have_text("idle · end_turn")
    expect(page.locator("#title")).to_have_text("Trip")
    items = page.locator("#sessions li")
    parent = items.first.get_attribute("title")
    items.first.locator(".session-fork").click()
    expect(items).to_have_count(2)
    fork = page.locator("#sessions li.current")
    expect(fork).not_to_have_attribute("title", str(parent))
    expect(fork.locator(".fork-of")).to_have_text(f" (fork of {parent})")
    # The fork's history, replayed: the parent's turn and title.
    expect(page.locator(".message.agent")).to_have_text("agentheard: name Trip")
    expect(page.locator("#title")).to_have_text("Trip")


def test_live_no_fork_is_offered_by_an_agent_that_does_not_advertise_it(
    start_inspector: StartInspector, page: Any
) -> None:
    inspector = start_inspector("--", *DEMO)
    page.goto(inspector.url)
    expect(page.locator("#sessions li")).to_have_count(1)
    expect(page.locator("#sessions .session-close")).to_have_count(1)
    expect(page.locator("#sessions .session-fork")).to_have_count(0)
