"""`acp-codegen inspect --url URL --header 'K: V'`: the page drives the example agent served with
`--http` (a real process, bearer token on) over Streamable HTTP and WebSocket, in a real
browser; a missing token or nobody listening is one line and exit 2, before anything is served."""

from __future__ import annotations

import socket
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.chat import test_chat_url
from tests.chat.test_chat_url import BEARER, TOKEN

from .conftest import StartInspector
from .test_inspect_cli import inspect

# The example agent served with --http and a bearer token, as chat --url reaches it.
demo_url = test_chat_url.demo_url


@pytest.mark.parametrize("scheme", ["http", "ws"])
def test_a_turn_with_a_permission_over_the_network(
    demo_url: str, scheme: str, start_inspector: StartInspector, page: Any
) -> None:
    url = scheme + demo_url.removeprefix("http")
    inspector = start_inspector("--url", url, "--header", BEARER)
    page.goto(inspector.url)
    expect(page.locator("#source")).to_have_text(f"agent: {url}")
    expect(page.locator("#agent")).to_have_text("acp-codegen-demo-agent 1.0.0")
    page.fill("#prompt-text", "hello over the wire")
    page.click("#send")
    expect(page.locator("#permission")).to_be_visible()
    expect(page.locator("#permission-title")).to_have_text("Inspect the prompt?")
    expect(page.locator("#state")).to_have_text("requires_action")
    page.click('#permission-options button[data-option="allow"]')
    expect(page.locator("#state")).to_have_text("idle · end_turn")
    expect(page.locator("#permission")).to_be_hidden()
    expect(page.locator(".message.agent")).to_have_text("agenthello over the wire ")
    expect(page.locator(".tool-call pre")).to_have_text("19 characters, 4 words")
    # The bearer header is the agent's, never shown on the page nor sent to it as traffic.
    expect(page.locator("body")).not_to_contain_text(TOKEN)
    # Ctrl-C disconnects from the agent (which keeps serving) and exits 0.
    assert inspector.interrupt() == 0


def test_a_restarted_inspector_resumes_a_session_with_its_history(
    demo_url: str, start_inspector: StartInspector, page: Any
) -> None:
    first = start_inspector("--url", demo_url, "--header", BEARER)
    page.goto(first.url)
    page.fill("#prompt-text", "remember me")
    page.click("#send")
    page.click('#permission-options button[data-option="allow"]')
    expect(page.locator("#state")).to_have_text("idle · end_turn")
    session_id = page.locator("#sessions li.current").get_attribute("title")
    assert first.interrupt() == 0  # the connection ends; the session waits on the agent

    second = start_inspector("--url", demo_url, "--header", BEARER)
    page.goto(second.url)
    expect(page.locator(".message")).to_have_count(0)  # a new session of its own
    page.click("#list-sessions")
    listed = page.locator(f'#sessions li[title="{session_id}"]')
    expect(listed).to_contain_text("(not open)")
    listed.locator(".session-resume").click()
    expect(page.locator("#sessions li.current")).to_have_attribute("title", str(session_id))
    expect(page.locator(".message.user")).to_have_text("userremember me")
    expect(page.locator(".message.agent")).to_have_text("agentremember me ")
    expect(page.locator(".traffic-row", has_text="session/resume")).to_have_count(2)


def test_a_missing_token_is_one_line(demo_url: str) -> None:
    proc = inspect("--url", demo_url)
    assert proc.returncode == 2
    assert "HTTP 401" in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert proc.stdout == ""  # refused before the page was served


def test_nobody_listening_is_one_line() -> None:
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = inspect("--url", f"ws://127.0.0.1:{port}/", "--header", BEARER)
    assert proc.returncode == 2
    assert f"cannot reach ws://127.0.0.1:{port}/" in proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""
