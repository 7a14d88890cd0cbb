"""The inspector as a developer keeps it open, in a real browser: the traffic grouped by turn
with each turn's timing, plans turn by turn, a line's JSON beside what it changed, the window
filled; a diff drawn as files and hunks (long ones folded) in a tool call and in the permission
question; the replay's slider in step with its buttons and the arrow keys."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import DEMO, VIEWPORT, StartInspector, screenshot
from .test_inspect_trace import recorded_turn

pytestmark = pytest.mark.slow  # a browser

DIFF_AGENT = [sys.executable, str(Path(__file__).with_name("diff_agent.py"))]
# turn 1 · first update 41 ms · 1.20 s · 18 updates, 15/s · end_turn · “the prompt”
TIMING = r"first update \d+ ms · [\d.]+ m?s · \d+ updates, \d+/s"


def turn_heading(n: int, prompt: str) -> re.Pattern[str]:
    return re.compile(rf"^▾ turn {n} · {TIMING} · end_turn · “{prompt}”$")


def test_turns_grouped_with_their_timing_and_plans_turn_by_turn(
    start_inspector: StartInspector, page: Any
) -> None:
    inspector = start_inspector("--", *DEMO)
    page.goto(inspector.url)
    for prompt in ("first turn", "second turn"):
        page.fill("#prompt-text", prompt)
        page.click("#send")
        page.click('#permission-options button[data-option="allow"]')
        expect(page.locator("#send")).to_be_enabled()
    # Only the rows in sight exist: from the top, the first turn's heading, then folded away.
    page.locator("#traffic-scroll").evaluate("list => { list.scrollTop = 0; }")
    headings = page.locator(".turn-row")
    expect(headings.first).to_have_text(turn_heading(1, "first turn"))
    expect(page.locator('.traffic-row[data-n="4"]')).to_have_text(re.compile("session/prompt"))
    headings.first.click()
    expect(headings.first).to_have_text(re.compile(r"^▸ turn 1 · "))
    expect(headings.nth(1)).to_have_text(turn_heading(2, "second turn"))
    expect(page.locator(".traffic-row", has_text="first turn")).to_have_count(0)
    expect(page.locator('.traffic-row[data-n="4"]')).to_have_count(0)  # the first one's
    headings.first.click()
    expect(page.locator('.traffic-row[data-n="4"]')).to_have_text(re.compile("session/prompt"))
    # Each turn made its own plan: two boxes, each named by its turn, not one run-on list.
    plans = page.locator("#plans .plan")
    expect(plans.locator(".plan-head")).to_have_text(["turn 1", "turn 2"])
    expect(plans.nth(1).locator(".plan-entry")).to_have_text(
        ["completed Inspect the prompt", "completed Answer"]
    )
    # The list reaches the bottom of the window; with a line open, its JSON sits beside the
    # part of the state it changed.
    box = page.locator("#traffic-scroll").bounding_box()
    assert box["y"] + box["height"] > VIEWPORT["height"] * 0.9
    page.fill("#filter-method", "tool_call_update")
    page.locator(".traffic-row").last.click()
    expect(page.locator("#line-json")).to_contain_text('"status": "completed"')
    changed = page.locator("#line-changed")
    expect(changed.locator(".tool-call")).to_contain_text("Inspect the prompt (read) completed")
    json_box, changed_box = page.locator("#line-json").bounding_box(), changed.bounding_box()
    assert changed_box["x"] >= json_box["x"] + json_box["width"]  # beside, not below
    assert abs(changed_box["y"] - json_box["y"]) < 40
    expect(page.locator("#conversation-column .tool-call.highlight")).to_have_count(1)
    screenshot(page, "inspect-turns")


def test_a_diff_in_the_question_and_the_tool_call(
    start_inspector: StartInspector, page: Any
) -> None:
    inspector = start_inspector("--", *DIFF_AGENT)
    page.goto(inspector.url)
    page.fill("#prompt-text", "edit the notes")
    page.click("#send")
    asked = page.locator("#permission-diffs .diff")
    expect(asked.locator(".diff-file")).to_have_text("modify /work/project/notes.txt +2 -1")
    expect(asked.locator(".hunk-header")).to_have_text("@@ -1,30 +1,31 @@")
    expect(asked.locator(".diff-line.del")).to_have_text("2-line 2")  # old number, no new one
    # The agent's markup is a line of text, not an element.
    added = asked.locator(".diff-line.add")
    expect(added.first).to_have_text('2+<img src=x onerror="window.pwned=1"><b>bold</b>')
    assert page.locator("#permission-diffs img, #permission-diffs b").count() == 0
    # Long hunks are folded: the first lines shown, the rest behind a summary.
    fold = asked.locator(".diff-fold")
    expect(fold.locator("summary")).to_have_text("20 more lines")
    expect(added.last).to_be_hidden()
    fold.locator("summary").click()
    expect(added.last).to_have_text("31+the new end")
    expect(added.last).to_be_visible()
    screenshot(page, "inspect-diff")
    page.click('#permission-options button[data-option="allow"]')
    expect(page.locator("#state")).to_have_text("idle · end_turn")
    tool = page.locator("#tool-calls .tool-call")
    expect(tool).to_contain_text("Edit notes.txt (edit) completed")
    expect(tool.locator(".diff-file")).to_have_text("modify /work/project/notes.txt +2 -1")
    expect(tool.locator(".diff-line.add").first).to_contain_text("window.pwned")
    expect(tool).not_to_contain_text('"patch"')  # not the JSON it came as
    assert page.evaluate("window.pwned") is None


def test_the_slider_follows_the_buttons_and_the_arrow_keys(
    start_inspector: StartInspector, page: Any, tmp_path: Path
) -> None:
    trace = tmp_path / "turn.jsonl"
    total = len(recorded_turn(trace))
    inspector = start_inspector("--trace", str(trace))
    page.goto(inspector.url)
    slider, position = page.locator("#slider"), page.locator("#position")

    def at(n: int) -> None:
        expect(position).to_have_text(f"after line {n} of {total}")
        expect(slider).to_have_value(str(n))

    at(total)
    for _ in range(3):
        page.click("#step-back")
    at(total - 3)
    slider.focus()
    page.keyboard.press("ArrowLeft")  # from where the buttons left it, not from the end
    at(total - 4)
    page.click("#step-forward")
    at(total - 3)
    page.keyboard.press("ArrowLeft")  # the page's own keys, the button focused
    at(total - 4)
    page.keyboard.press("ArrowRight")
    at(total - 3)
    # The trace's one turn, timed; greyed while the position is before it.
    heading = page.locator(".turn-row")
    expect(heading).to_have_text(re.compile(rf"^▾ turn 1 · {TIMING} · end_turn · “one two three”"))
    expect(heading).not_to_have_class(re.compile("later"))
    page.click("#step-first")
    at(0)
    expect(heading).to_have_class(re.compile("later"))
