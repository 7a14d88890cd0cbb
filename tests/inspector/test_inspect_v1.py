"""`acp-codegen inspect` on agents that speak ACP v1, in a real browser: the official
TypeScript SDK 2.4.0's router agent in v1 mode through a turn with a permission request (the
page shows it as for v2), and a Python SDK 0.12.1 agent whose file write and command are asked
on the page. The SDKs come from the interop cache (skipped without them, failing under CI)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from acp_codegen import _bindings
from interop.sdk_cache import PY_SDK_V1_VERSION, py_sdk, ts_sdk
from playwright.sync_api import expect

from .conftest import StartInspector, screenshot

INTEROP = Path(__file__).resolve().parents[1] / "interop"

pytestmark = pytest.mark.skipif(
    not hasattr(_bindings, "v1"), reason="the committed bindings carry no v1 subpackage"
)


def test_a_v1_turn_with_a_permission_request(start_inspector: StartInspector, page: Any) -> None:
    inspector = start_inspector("--", "node", str(INTEROP / "ts_v1_agent.mjs"), str(ts_sdk()))
    page.goto(inspector.url)
    expect(page.locator("#agent")).to_have_text("ts-v1-agent 0.0.0")
    expect(page.locator("#protocol")).to_have_text("ACP v1")
    expect(page.locator("#agent-details")).to_contain_text("protocol version1")
    page.fill("#prompt-text", "three small words")
    page.click("#send")
    dialog = page.locator("#permission")
    expect(dialog).to_be_visible()
    expect(page.locator("#permission-title")).to_have_text("Look at the prompt")
    expect(page.locator("#state")).to_have_text("requires_action")
    tool = page.locator("#tool-calls .tool-call")
    expect(tool).to_contain_text("Look at the prompt (read) pending")
    page.click('#permission-options button[data-option="allow"]')
    expect(page.locator("#state")).to_have_text("idle · end_turn")
    expect(dialog).to_be_hidden()
    # v1 agents do not echo the prompt: the client records it under its own id.
    expect(page.locator(".message.user")).to_have_text("userthree small words")
    expect(page.locator(".message.thought")).to_contain_text("Planning the answer.")
    expect(page.locator(".message.agent")).to_contain_text("three small words")
    expect(tool).to_contain_text("completed")
    expect(page.locator(".plan-entry")).to_have_text(["completed Ask to look", "completed Answer"])
    # The traffic shows v1's wire as it came; a line points at what it changed.
    page.fill("#filter-method", "session/request_permission")
    rows = page.locator(".traffic-row")
    expect(rows).to_have_count(2)  # the agent's request and our answer
    rows.first.click()
    expect(page.locator("#line-json")).to_contain_text('"toolCall"')
    page.fill("#filter-method", "tool_call_update")
    rows.first.click()
    expect(page.locator("#line-touches")).to_contain_text("changes toolCall ")
    expect(tool).to_have_class("tool-call highlight")
    # v1's own tags: a created tool call, and the session's one plan.
    page.fill("#filter-method", "plan")
    rows.first.click()
    expect(page.locator("#line-touches")).to_have_text("changes plan plan")
    expect(page.locator(".highlight")).to_have_count(1)
    expect(tool).to_have_class("tool-call")
    page.fill("#filter-method", "tool_call")
    rows.first.click()
    expect(page.locator("#line-head")).to_contain_text("session/update · tool_call")
    expect(page.locator("#line-touches")).to_contain_text("changes toolCall look_")
    expect(tool).to_have_class("tool-call highlight")
    page.fill("#filter-method", "")
    screenshot(page, "inspect-v1")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "notes.txt").write_text("page notes\n", encoding="utf-8")
    return tmp_path


def test_a_v1_agents_write_and_command_are_asked_on_the_page(
    start_inspector: StartInspector, page: Any, project: Path
) -> None:
    inspector = start_inspector(
        "--cwd", str(project), "--",
        sys.executable, str(INTEROP / "py_v1_tools_agent.py"),
        env={"PYTHONPATH": str(py_sdk(PY_SDK_V1_VERSION))},
    )  # fmt: skip
    page.goto(inspector.url)
    expect(page.locator("#protocol")).to_have_text("ACP v1")
    page.fill("#prompt-text", "go")
    page.click("#send")
    title = page.locator("#permission-title")
    written = project.resolve() / "NOTES.txt"
    expect(title).to_have_text(f"The agent asks to write 11 characters to {written}")
    expect(page.locator("#permission-options button")).to_have_text(
        ["Allow (allow_once)", "Refuse (reject_once)"]
    )
    assert not written.exists()  # nothing is written before the answer
    page.click('#permission-options button[data-option="allow"]')
    expect(title).to_contain_text(f"The agent asks to run {sys.executable} -c ")
    page.click('#permission-options button[data-option="reject"]')
    expect(page.locator("#state")).to_have_text("idle · end_turn")
    expect(page.locator("#permission")).to_be_hidden()
    agent = page.locator(".message.agent")
    expect(agent).to_contain_text("read: page notes")
    expect(agent).to_contain_text("wrote NOTES.txt")
    expect(agent).to_contain_text("outside refused")
    expect(agent).to_contain_text("run refused:")
    assert written.read_text(encoding="utf-8") == "PAGE NOTES\n"
    # Cancelled while a write is asked: the write is refused, and so is the command after it.
    (project / "notes.txt").write_text("second\n", encoding="utf-8")
    page.fill("#prompt-text", "again")
    page.click("#send")
    expect(title).to_have_text(f"The agent asks to write 7 characters to {written}")
    page.click("#cancel")
    expect(page.locator("#permission")).to_be_hidden()
    expect(page.locator("#state")).to_contain_text("idle")
    expect(agent.last).to_contain_text("run refused:")
    expect(agent.last).to_contain_text("write refused:")
    assert written.read_text(encoding="utf-8") == "PAGE NOTES\n"
