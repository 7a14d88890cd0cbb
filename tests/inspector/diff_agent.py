"""An agent that edits a file: it asks permission for a tool call carrying the diff (as a git
patch), then completes the call with the same diff. The new text holds markup, and the file
is long enough that the page folds its hunk."""

from __future__ import annotations

import difflib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "generated"))

from acp_bindings import Agent, Prompt, Session, models

PATH = "/work/project/notes.txt"
MARKUP = '<img src=x onerror="window.pwned=1"><b>bold</b>'
OLD = [f"line {n}" for n in range(1, 31)]
NEW = [MARKUP if n == 2 else f"line {n}" for n in range(1, 31)] + ["the new end"]


def patch() -> str:
    lines = difflib.unified_diff(OLD, NEW, f"a{PATH}", f"b{PATH}", lineterm="", n=30)
    return f"diff --git a{PATH} b{PATH}\n" + "\n".join(lines) + "\n"


DIFF = {
    "type": "diff",
    "changes": [{"operation": "modify", "path": PATH}],
    "patch": {"format": "git_patch", "text": patch()},
}


class DiffAgent(Agent):
    info = models.Implementation(name="diff-agent", version="1.0.0")

    async def on_prompt(self, session: Session, prompt: Prompt) -> str | None:
        call = await session.start_tool_call("Edit notes.txt", kind="edit", status="pending")
        subject = models.ToolCallPermissionSubject.model_validate(
            {"type": "tool_call", "toolCall": {"toolCallId": call.tool_call_id, "content": [DIFF]}}
        )
        await session.request_permission(
            "Apply this edit?",
            [models.PermissionOption(option_id="allow", name="Apply", kind="allow_once")],
            subject=subject,
        )
        await call.update(status="completed", content=[models.Diff.model_validate(DIFF)])
        return "end_turn"


if __name__ == "__main__":
    DiffAgent().run()
