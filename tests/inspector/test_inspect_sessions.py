"""The session list of `inspect`, in a real browser: open another session, switch, close one and
resume it, ask the agent for its list."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from .conftest import DEMO, StartInspector


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
