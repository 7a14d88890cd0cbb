"""chat shows the child sessions (subagents) an agent announces, the messages between a
session and its children, and removed plans; a child's own work is not the agent's answer, and
every piece of it that came from the agent is shown escaped."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path
from typing import cast

import pytest
from acp_codegen.commands.chat.plain import render_turn
from acp_codegen.commands.chat.transcript import turn_since
from acp_codegen.commands.console import NORMAL, QUIET
from test_chat_escapes import raw
from test_chat_render import snapshot, text

REPO = Path(__file__).resolve().parents[2]
AGENT = [sys.executable, str(Path(__file__).with_name("subagent_agent.py"))]
CHILD = {"sessionId": "c1", "title": "Helper", "description": "counts files"}
BEFORE = snapshot(plans={"p0": {"type": "items", "planId": "p0", "entries": []}})
NOW = snapshot(
    state="idle",
    stopReason="end_turn",
    messages=[
        {
            "messageId": "m1",
            "role": "session",
            "content": [text("count "), text("the files")],
            "senderSessionId": "s1",
            "recipientSessionId": "c1",
        },
        {
            "messageId": "m2",
            "role": "session",
            "content": [text("two files")],
            "senderSessionId": "c1",
            "recipientSessionId": "s1",
        },
        {"messageId": "m3", "role": "agent", "content": [text("done")]},
    ],
    subagents={"c1": {**CHILD, "state": {"state": "idle", "stopReason": "end_turn"}}},
)


def _chat(*args: str) -> tuple[int, str, str]:
    proc = subprocess.run(
        [sys.executable, "-m", "acp_codegen", "chat", "--prompt", "go", "--", *AGENT, *args],
        cwd=REPO,
        capture_output=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
        check=False,
    )
    return proc.returncode, proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8")


def test_plain_shows_the_child_the_messages_between_and_the_removed_plan() -> None:
    out = render_turn(turn_since(BEFORE, NOW, ended=True), NORMAL)
    assert out == (
        "subagent: Helper - counts files [idle]\n"
        "to Helper: count the files\n"
        "from Helper: two files\n"
        "plan removed: p0\n"
        "agent: done\n"
        "[turn ended: end_turn]\n"
    )
    assert render_turn(turn_since(BEFORE, NOW, ended=True), QUIET) == "done\n"


def test_rich_draws_them_too() -> None:
    rich_console = pytest.importorskip("rich.console")
    from acp_codegen.commands.chat.live import render

    console = rich_console.Console(file=io.StringIO(), width=80, color_system=None)
    console.print(render(turn_since(BEFORE, NOW, ended=True), None, NORMAL))
    drawn = cast(io.StringIO, console.file).getvalue()
    for line in (
        "subagent: Helper - counts files [idle]",
        "to Helper: count the files",
        "from Helper: two files",
        "plan removed: p0",
        "done",
    ):
        assert line in drawn


@pytest.mark.slow
def test_a_turn_of_a_delegating_agent_as_chat_prints_it() -> None:
    code, out, err = _chat()
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "[connected: subagent-agent speaks ACP v2]"
    assert lines[1:3] == ["plan:", "  [ ] ask a helper"]
    assert lines[3:8] == [
        "subagent: Helper - counts files",
        "to Helper: count the files",
        "subagent: Helper - counts files [idle]",
        "from Helper: there are two files",
        lines[7],
    ]
    assert lines[7].startswith("plan removed: plan_")
    # The child's own answer ("two files", sent with the child's sessionId) is not the agent's.
    assert lines[8:] == ["agent: done", "[turn ended: end_turn]"]


@pytest.mark.slow
def test_a_hostile_child_title_and_message_are_shown_escaped() -> None:
    code, out, err = _chat("hostile")
    assert code == 0, err
    assert raw(out) == [] and raw(err) == []
    mark = "\\e]0;pwned\\x07\\e[2J"
    assert f"subagent: Helper{mark} - counts files" in out
    assert f"to Helper{mark}: count the files{mark}" in out
