"""The session list of `inspect`, in a real browser: open another session, switch, close one and
resume it, ask the agent for its list."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from .conftest import DEMO, StartInspector

RESOURCE_AGENT = [sys.executable, str(Path(__file__).with_name("resource_agent.py"))]


def test_sessions_open_close_resume(start_inspector: StartInspector, page: Any) -> None:
    inspector = start_inspector("--", *DEMO)
    page.goto(inspector.url)
    page.fill("#prompt-text", "first")
    page.click("#send")
    page.click('#permission-options button[data-option="allow"]')
    expect(page.locator("#state")).to_have_text("idle · end_turn")
    items = page.locator("#sessions li")
    expect(items).to_have_count(1)
    first_id = items.first.get_attribute("title")
    page.click("#new-session")
    expect(items).to_have_count(2)
    expect(page.locator("#sessions li.current")).not_to_have_attribute("title", first_id)
    expect(page.locator("#state")).to_have_text("(no state yet)")
    expect(page.locator(".message")).to_have_count(0)
    first = page.locator(f'#sessions li[title="{first_id}"]')
    first.locator(".name").click()  # back to the first: its conversation
    expect(page.locator("#sessions li.current")).to_have_attribute("title", first_id)
    expect(page.locator(".message.agent")).to_have_text("agentfirst ")
    first.locator(".session-close").click()
    expect(first).to_contain_text("(not open)")
    page.click("#list-sessions")  # the agent lists only the open one now
    expect(items).to_have_count(2)
    first.locator(".session-resume").click()
    expect(first).not_to_contain_text("(not open)")
    expect(page.locator("#sessions li.current")).to_have_attribute("title", first_id)
    expect(page.locator(".message.agent")).to_have_text("agentfirst ")
    expect(page.locator(".traffic-row", has_text="session/resume")).to_have_count(2)


def test_delete_when_the_agent_offers_it(start_inspector: StartInspector, page: Any) -> None:
    demo = start_inspector("--", *DEMO)
    page.goto(demo.url)
    expect(page.locator("#sessions li .session-close")).to_have_count(1)
    expect(page.locator("#sessions li .session-delete")).to_have_count(0)  # not advertised
    inspector = start_inspector("--", *RESOURCE_AGENT)
    page.goto(inspector.url)
    items = page.locator("#sessions li")
    expect(items).to_have_count(1)
    first_id = items.first.get_attribute("title")
    page.click("#new-session")
    expect(items).to_have_count(2)
    page.locator(f'#sessions li[title="{first_id}"] .session-delete').click()
    expect(items).to_have_count(1)
    expect(items.first).not_to_have_attribute("title", first_id)
    expect(page.locator(".traffic-row", has_text="session/delete")).to_have_count(2)
    page.click("#list-sessions")
    expect(items).to_have_count(1)  # the agent no longer lists it
