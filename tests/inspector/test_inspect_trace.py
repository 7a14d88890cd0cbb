"""`acp-codegen inspect --trace FILE`, in a real browser: a recorded turn replayed with no agent,
stepped back to the middle of the turn; the exports (trace, self-contained HTML)."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from .conftest import DEMO, REPO, StartInspector, screenshot

PROMPT = "one two three"


def recorded_turn(path: Path) -> list[dict[str, Any]]:
    """A real turn of the demo agent, recorded by `chat --trace`; its records."""
    subprocess.run(
        [sys.executable, "-m", "acp_codegen", "chat", "--prompt", PROMPT, "--approve",
         "--trace", str(path), "--", *DEMO],
        cwd=REPO, check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    return [json.loads(line) for line in path.read_text().splitlines()]


def index_of(records: list[dict[str, Any]], method: str) -> int:
    return next(n for n, r in enumerate(records) if r["message"].get("method") == method)


def test_stepping_back_into_a_recorded_turn(
    start_inspector: StartInspector, page: Any, tmp_path: Path
) -> None:
    trace = tmp_path / "turn.jsonl"
    records = recorded_turn(trace)
    asked = index_of(records, "session/request_permission")
    inspector = start_inspector("--trace", str(trace))
    page.goto(inspector.url)
    expect(page.locator("#position")).to_have_text(f"after line {len(records)} of {len(records)}")
    expect(page.locator("#state")).to_have_text("idle · end_turn")
    expect(page.locator(".message.agent")).to_have_text("agentone two three ")
    expect(page.locator("#prompt-form")).to_be_hidden()  # a trace cannot be driven
    # Back to just after the permission request: the middle of the turn.
    page.locator("#slider").fill(str(asked + 1))
    expect(page.locator("#position")).to_have_text(f"after line {asked + 1} of {len(records)}")
    expect(page.locator("#state")).to_have_text("requires_action")
    expect(page.locator("#permission-title")).to_have_text("Inspect the prompt?")
    expect(page.locator("#permission-options button").first).to_be_disabled()
    expect(page.locator(".tool-call")).to_contain_text("Inspect the prompt (read) pending")
    expect(page.locator(".message.agent")).to_have_count(0)
    expect(page.locator(".plan-entry")).to_have_text(
        ["in_progress Inspect the prompt", "pending Answer"]
    )
    expect(page.locator(".traffic-row.later").first).to_have_attribute("data-n", str(asked + 1))
    screenshot(page, "inspect-trace")
    page.click("#step-forward")  # the answer to the request: the dialog goes
    expect(page.locator("#permission")).to_be_hidden()
    page.click("#step-back")
    expect(page.locator("#permission")).to_be_visible()
    page.click("#step-first")
    expect(page.locator("#state")).to_have_text("(no session)")
    # A line of the traffic shows the state right after it.
    page.fill("#filter-method", "usage_update")
    page.locator(".traffic-row").first.click()
    page.click("#goto-line")
    expect(page.locator("#usage")).to_have_text(f"usage: context {len(PROMPT)}/200000")
    expect(page.locator("#state")).to_have_text("running")


def test_exports_a_trace_and_a_page_that_needs_no_server(
    start_inspector: StartInspector, page: Any, tmp_path: Path
) -> None:
    trace = tmp_path / "turn.jsonl"
    records = recorded_turn(trace)
    inspector = start_inspector("--trace", str(trace))
    bearer = {"Authorization": f"Bearer {inspector.token}"}

    def get(path: str) -> bytes:
        request = urllib.request.Request(inspector.base + path, headers=bearer)
        with urllib.request.urlopen(request, timeout=120) as response:
            body: bytes = response.read()
            return body

    exported = [json.loads(line) for line in get("/api/export/trace").splitlines()]
    assert exported == records
    report = tmp_path / "report.html"
    report.write_bytes(get("/api/export/html"))
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto(report.as_uri())
    expect(page.locator("#state")).to_have_text("idle · end_turn")
    expect(page.locator(".message.agent")).to_have_text("agentone two three ")
    expect(page.locator(".traffic-row").first).to_contain_text("initialize")
    page.locator(".traffic-row").first.click()
    expect(page.locator("#line-json")).to_contain_text('"method": "initialize"')
    # As on the live and trace pages, a line outlines the part of the state it changed.
    page.fill("#filter-method", "tool_call_update")
    page.locator(".traffic-row").first.click()
    expect(page.locator("#line-touches")).to_contain_text("changes toolCall call_")
    expect(page.locator("#tool-calls .tool-call")).to_have_class("tool-call highlight")
    page.fill("#filter-method", "agent_message_chunk")
    page.locator(".traffic-row").first.click()
    expect(page.locator("#tool-calls .tool-call")).to_have_class("tool-call")
    expect(page.locator(".message.agent.highlight")).to_have_count(1)
    assert requested == [report.as_uri()]  # nothing fetched: no server, no network


def test_a_live_session_recorded_then_replayed(
    start_inspector: StartInspector, page: Any, tmp_path: Path
) -> None:
    record = tmp_path / "live.jsonl"
    live = start_inspector("--record", str(record), "--", *DEMO)
    page.goto(live.url)
    page.fill("#prompt-text", "replay me")
    page.click("#send")
    page.click('#permission-options button[data-option="reject"]')
    expect(page.locator("#state")).to_have_text("idle · refusal")
    assert live.interrupt() == 0
    replay = start_inspector("--trace", str(record))
    page.goto(replay.url)
    expect(page.locator("#state")).to_have_text("idle · refusal")
    expect(page.locator(".message.agent")).to_have_text(
        "agentI was not allowed to look, so I stop here."
    )
    expect(page.locator(".tool-call")).to_contain_text("failed")
