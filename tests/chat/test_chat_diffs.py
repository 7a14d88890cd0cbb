"""What chat shows of a diff, from typed snapshots and requests: a tool call's diff as its file,
hunks and lines in plain text and with rich (coloured), a permission question with the diffs of
its tool call before its options, folded to fit the screen, and not drawn twice while asked."""

from __future__ import annotations

import io
from typing import Any, cast

import pytest
from acp_codegen._bindings import models
from acp_codegen.commands.chat.plain import render_turn
from acp_codegen.commands.chat.screens import asking, permission_lines
from acp_codegen.commands.chat.transcript import Turn, turn_since
from acp_codegen.commands.console import NORMAL
from test_chat_render import snapshot

PATCH = (
    "diff --git a/src/app.py b/src/app.py\n--- a/src/app.py\n+++ b/src/app.py\n"
    '@@ -1,3 +1,3 @@\n keep\n-greeting = "hello"\n+greeting = "hi"\n'
)
DIFF = {
    "type": "diff",
    "changes": [{"operation": "modify", "path": "/w/src/app.py"}],
    "patch": {"format": "git_patch", "text": PATCH},
}
NEW_TEXT = "".join(f"+n{i}\n" for i in range(80))
NEW_FILE = {
    "type": "diff",
    "changes": [{"operation": "add", "path": "/w/big.txt"}],
    "patch": {
        "format": "git_patch",
        "text": f"--- /dev/null\n+++ b/w/big.txt\n@@ -0,0 +1,80 @@\n{NEW_TEXT}",
    },
}


def edit_call(*content: dict[str, Any]) -> dict[str, Any]:
    return {"toolCallId": "c1", "title": "Edit", "kind": "edit", "status": "pending",
            "content": list(content)}  # fmt: skip


def question(*content: dict[str, Any]) -> models.RequestPermissionRequest:
    return models.RequestPermissionRequest.model_validate(
        {
            "sessionId": "s",
            "title": "Edit app.py?",
            "subject": {"type": "tool_call", "toolCall": edit_call(*content)},
            "options": [
                {"optionId": "yes", "name": "Apply", "kind": "allow_once"},
                {"optionId": "no", "name": "Skip", "kind": "reject_once"},
            ],
        }
    )


def turn_with(*content: dict[str, Any]) -> Turn:
    return turn_since(snapshot(), snapshot(toolCalls={"c1": edit_call(*content)}))


def test_plain_shows_a_tool_calls_diff_as_hunks() -> None:
    out = render_turn(turn_with(DIFF), NORMAL)
    assert out == (
        "tool: Edit (edit): pending\n"
        "  | diff: /w/src/app.py (modify +1 -1)\n"
        "  | @@ -1,3 +1,3 @@\n"
        "  |   keep\n"
        '  | - greeting = "hello"\n'
        '  | + greeting = "hi"\n'
    )


def test_a_question_shows_its_diffs_before_its_options() -> None:
    lines = permission_lines(asking(question(DIFF, NEW_FILE)))
    assert lines[:6] == [
        "permission: Edit app.py?",
        "  diff: /w/src/app.py (modify +1 -1)",
        "  @@ -1,3 +1,3 @@",
        "    keep",
        '  - greeting = "hello"',
        '  + greeting = "hi"',
    ]
    assert "  diff: /w/big.txt (add +80 -0)" in lines
    assert "  + n0" in lines and "  + n79" not in lines  # folded, over both diffs
    folded = lines.index("  diff: /w/big.txt (add +80 -0)") + 1
    assert (
        sum(line.startswith("  + n") for line in lines) == 40 - 4 - 1
    )  # less app.py's hunk, its header
    assert lines[-4:-1] == [f"  ... {80 - 35} more lines", "  [1] Apply (allow_once)",
                            "  [2] Skip (reject_once)"]  # fmt: skip
    assert lines[folded] == "  @@ -0,0 +1,80 @@"


def test_rich_colours_a_diff_and_fits_the_question_in_the_screen() -> None:
    rich_console = pytest.importorskip("rich.console")
    from acp_codegen.commands.chat.live import render, shown_rows
    from acp_codegen.commands.chat.screens import permission_rows

    colours = {span.style for span in shown_rows(permission_rows(asking(question(DIFF))))._spans}
    assert {"green", "red", "cyan", "bold"} <= colours

    request = question(DIFF, NEW_FILE)
    for rows in (24, 60):
        console = rich_console.Console(file=io.StringIO(), width=80, height=rows)
        console.print(render(turn_with(DIFF, NEW_FILE), asking(request), NORMAL, room=rows))
        drawn = cast(io.StringIO, console.file).getvalue()
        assert len(drawn.splitlines()) <= rows + 1  # the tool call's heading above it
        assert "[1] Apply (allow_once)" in drawn and "more lines" in drawn
        # The asked tool call's diffs are the question's: drawn once.
        assert drawn.count('greeting = "hi"') == 1


def test_rich_draws_a_tool_calls_diff_once_answered() -> None:
    rich_console = pytest.importorskip("rich.console")
    from acp_codegen.commands.chat.live import render

    console = rich_console.Console(file=io.StringIO(), width=80, color_system=None)
    console.print(render(turn_with(DIFF), None, NORMAL))
    drawn = cast(io.StringIO, console.file).getvalue()
    assert '  - greeting = "hello"\n  + greeting = "hi"' in drawn
