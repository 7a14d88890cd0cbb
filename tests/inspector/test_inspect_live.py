"""`acp-codegen inspect -- AGENT`, in a real browser: a turn with its permission dialog, tool
call, plan and idle state; cancelling a slow turn; markup from the agent shown as text."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from .conftest import DEMO, StartInspector, screenshot

MARKUP_AGENT = [sys.executable, str(Path(__file__).with_name("markup_agent.py"))]


def test_a_turn_with_a_permission_request(start_inspector: StartInspector, page: Any) -> None:
    inspector = start_inspector("--", sys.executable, "-m", "acp_codegen", "demo-agent")
    page.goto(inspector.url)
    expect(page.locator("#source")).to_have_text(
        f"agent: {Path(sys.executable).name} -m acp_codegen demo-agent"
    )
    expect(page.locator("#replay")).to_be_hidden()
    expect(page.locator("#agent")).to_have_text("acp-codegen-demo-agent 1.0.0")
    expect(page.locator("#agent-details")).to_contain_text("protocol version2")
    page.fill("#prompt-text", "count these words")
    page.click("#send")
    dialog = page.locator("#permission")
    expect(dialog).to_be_visible()
    expect(page.locator("#permission-title")).to_have_text("Inspect the prompt?")
    expect(page.locator("#state")).to_have_text("requires_action")
    expect(page.locator("#cancel")).to_be_enabled()
    tool = page.locator("#tool-calls .tool-call")
    expect(tool).to_contain_text("Inspect the prompt (read) pending")
    page.click('#permission-options button[data-option="allow"]')
    expect(page.locator("#state")).to_have_text("idle · end_turn")
    expect(dialog).to_be_hidden()
    expect(page.locator(".message.user")).to_have_text("usercount these words")
    expect(page.locator(".message.thought")).to_contain_text("Reading the prompt.")
    expect(page.locator(".message.agent")).to_have_text("agentcount these words ")
    expect(tool).to_contain_text("completed")
    expect(tool.locator("pre")).to_have_text("17 characters, 3 words")
    expect(page.locator(".plan-entry")).to_have_text(
        ["completed Inspect the prompt", "completed Answer"]
    )
    expect(page.locator("#usage")).to_have_text("usage: context 17/200000")
    expect(page.locator("#sessions li.current .name")).to_have_text("count these words")
    expect(page.locator("#cancel")).to_be_disabled()
    # The traffic lists both directions; a line opens as formatted JSON and points at the state.
    page.fill("#filter-method", "tool_call_update")
    rows = page.locator(".traffic-row")
    expect(rows.first).to_contain_text("session/update · tool_call_update")
    rows.first.click()
    expect(page.locator("#line-touches")).to_contain_text("changes toolCall call_")
    expect(page.locator("#line-json")).to_contain_text('"sessionUpdate": "tool_call_update"')
    expect(tool).to_have_class("tool-call highlight")
    page.fill("#filter-method", "")
    page.select_option("#filter-dir", "send")
    expect(rows.first).to_contain_text("initialize")
    expect(page.locator(".traffic-row", has_text="←")).to_have_count(0)
    page.select_option("#filter-dir", "")
    screenshot(page, "inspect-live")


def test_cancelling_a_slow_turn(start_inspector: StartInspector, page: Any) -> None:
    inspector = start_inspector("--", *DEMO, "--slow", "600")  # it waits until cancelled
    page.goto(inspector.url)
    page.fill("#prompt-text", "take your time")
    page.click("#send")
    expect(page.locator(".message.thought")).to_have_text("thoughtReading the prompt.")
    expect(page.locator("#state")).to_have_text("running")
    page.click("#cancel")
    expect(page.locator("#state")).to_have_text("idle · cancelled")
    expect(page.locator("#send")).to_be_enabled()
    expect(page.locator(".traffic-row", has_text="session/cancel")).to_have_count(1)
    # The session still works: another turn runs to its end.
    page.fill("#prompt-text", "again")
    page.click("#send")
    expect(page.locator("#state")).to_have_text("running")
    # Ctrl-C with the page still listening and a turn running: all of it stops, exit 0.
    assert inspector.interrupt() == 0


def test_the_agents_markup_stays_text(start_inspector: StartInspector, page: Any) -> None:
    from .markup_agent import MARKUP

    inspector = start_inspector("--", *MARKUP_AGENT)
    page.goto(inspector.url)
    page.fill("#prompt-text", "<i>mine</i>")
    page.click("#send")
    expect(page.locator("#state")).to_have_text("idle · end_turn")
    expect(page.locator(".message.user")).to_have_text("user<i>mine</i>")
    expect(page.locator(".message.agent")).to_have_text("agentmessage " + MARKUP)
    expect(page.locator(".tool-call .title")).to_have_text("tool " + MARKUP)
    expect(page.locator(".terminal strong")).to_have_text("terminal " + MARKUP)
    expect(page.locator(".terminal pre")).to_have_text("output " + MARKUP)
    expect(page.locator("#title")).to_have_text(MARKUP)
    assert page.locator("main img, main script, main b, main i").count() == 0
    assert page.evaluate("window.pwned") is None


ODD_AGENT = [sys.executable, str(Path(__file__).parents[1] / "chat" / "odd_agent.py")]


def test_an_agent_that_dies_or_talks_nonsense(start_inspector: StartInspector, page: Any) -> None:
    inspector = start_inspector("--", *ODD_AGENT, "garbage")
    page.goto(inspector.url)
    page.fill("#prompt-text", "go")
    page.click("#send")
    expect(page.locator("#error")).to_contain_text("not JSON-RPC on stdout during the turn")
    dropped = page.locator(".traffic-row.problem")
    expect(dropped).to_contain_text("this is not json")
    page.check("#filter-problems")
    expect(page.locator(".traffic-row")).to_have_count(1)
    died = start_inspector("--", *ODD_AGENT, "die")
    page.goto(died.url)
    page.fill("#prompt-text", "go")
    page.click("#send")
    expect(page.locator("#error")).to_contain_text("exit code 5; last stderr line: giving up now")
    expect(page.locator(".message.agent")).to_have_text("agentpartial")
    expect(page.locator("#send")).to_be_enabled()


def test_a_notice_is_shown(start_inspector: StartInspector, page: Any) -> None:
    inspector = start_inspector("--", *ODD_AGENT, "notice")
    page.goto(inspector.url)
    page.fill("#prompt-text", "go")
    page.click("#send")
    expect(page.locator("#notices")).to_have_text(
        "notice [warning]: Quota low: 2 requests left today"
    )


RESOURCE_AGENT = [sys.executable, str(Path(__file__).with_name("resource_agent.py"))]


def test_a_file_attached_as_a_resource(start_inspector: StartInspector, page: Any) -> None:
    inspector = start_inspector("--", *RESOURCE_AGENT)
    page.goto(inspector.url)
    expect(page.locator("#attach")).to_be_visible()  # the agent accepts embedded context
    page.fill("#prompt-text", "read this")
    notes = {"name": "notes.txt", "mimeType": "text/plain", "buffer": b"caf\xc3\xa9 <b>"}
    page.set_input_files("#attach", files=[notes])
    page.click("#send")
    expect(page.locator(".message.agent")).to_have_text(
        ["agenttext: 'read this'. ", "agentfile:///notes.txt says 'café <b>'. "]
    )
    expect(page.locator(".message.user")).to_contain_text("[resource file:///notes.txt]")
    binary = {"name": "blob.bin", "mimeType": "application/octet-stream", "buffer": b"\xff\x00\xfe"}
    page.set_input_files("#attach", files=[binary])
    page.click("#send")
    expect(page.locator(".message.agent").last).to_have_text(
        "agentfile:///blob.bin holds 3 bytes. "
    )


def test_no_attaching_when_the_agent_does_not_accept_it(
    start_inspector: StartInspector, page: Any
) -> None:
    inspector = start_inspector("--", *DEMO)
    page.goto(inspector.url)
    expect(page.locator("#agent")).to_have_text("acp-codegen-demo-agent 1.0.0")
    expect(page.locator("#attach")).to_be_hidden()


MALFORMED_AGENT = [sys.executable, str(Path(__file__).with_name("malformed_agent.py"))]


def test_a_malformed_update_is_marked(start_inspector: StartInspector, page: Any) -> None:
    inspector = start_inspector("--", *MALFORMED_AGENT)
    page.goto(inspector.url)
    page.fill("#prompt-text", "go")
    page.click("#send")
    expect(page.locator("#state")).to_have_text("idle · end_turn")
    expect(page.locator(".message.agent")).to_have_text("agentbefore after")
    page.check("#filter-problems")
    marked = page.locator(".traffic-row")
    expect(marked).to_have_count(1)
    expect(marked).to_contain_text("session/update · agent_message_chunk")
    marked.click()
    expect(page.locator("#line-touches")).to_contain_text("problems: ")
    expect(page.locator("#line-json")).to_contain_text('"content": 42')
