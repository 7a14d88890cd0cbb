"""What a turn shows, from two typed snapshots: only what the turn added or changed, in plain
text and with rich, including what the demo agent never sends (terminals, diffs, cost)."""

from __future__ import annotations

import base64
import io
from typing import Any, cast

import pytest
from acp_codegen._bindings import SessionSnapshot
from acp_codegen.commands.chat.plain import render_turn
from acp_codegen.commands.chat.transcript import turn_since
from acp_codegen.commands.console import NORMAL, QUIET


def snapshot(**fields: Any) -> SessionSnapshot:
    empty: dict[str, Any] = {
        "state": "running", "stopReason": None, "messages": [], "toolCalls": {},
        "terminals": {}, "plans": {}, "subagents": {}, "usage": None, "availableCommands": None,
        "configOptions": None, "sessionInfo": None, "unknown": [],
    }  # fmt: skip
    return cast(SessionSnapshot, {**empty, **fields})


def text(value: str) -> dict[str, str]:
    return {"type": "text", "text": value}


OLD_CALL = {"toolCallId": "c0", "title": "Old", "status": "completed", "content": []}
BEFORE = snapshot(
    messages=[{"messageId": "m0", "role": "agent", "content": [text("earlier answer")]}],
    toolCalls={"c0": OLD_CALL},
)
NOW = snapshot(
    state="idle",
    stopReason="end_turn",
    messages=[
        {"messageId": "m0", "role": "agent", "content": [text("earlier answer")]},
        {"messageId": "m1", "role": "agent", "content": [text("new "), text("answer")]},
    ],
    toolCalls={
        "c0": OLD_CALL,
        "c1": {
            "toolCallId": "c1",
            "title": "Edit",
            "kind": "edit",
            "status": "completed",
            "content": [{"type": "diff", "changes": [{"path": "/p/a.py", "operation": "modify"}]}],
        },
    },
    terminals={
        "t1": {
            "terminalId": "t1",
            "command": "make test",
            "output": base64.b64encode(b"ok 1\nok 2\n").decode(),  # snapshots hold bytes so
            "exitStatus": {"exitCode": 0},
        }
    },
    usage={"used": 5, "size": 100, "cost": {"amount": 0.25, "currency": "USD"}},
)


def test_plain_shows_only_what_the_turn_changed() -> None:
    out = render_turn(turn_since(BEFORE, NOW, ended=True), NORMAL)
    assert out == (
        "tool: Edit (edit): completed\n"
        "  | diff: /p/a.py (modify)\n"
        "terminal: make test\n"
        "  | ok 1\n"
        "  | ok 2\n"
        "  exit: 0\n"
        "agent: new answer\n"
        "usage: context 5/100, cost 0.25 USD\n"
        "[turn ended: end_turn]\n"
    )
    assert render_turn(turn_since(BEFORE, NOW, ended=True), QUIET) == "new answer\n"


def test_rich_draws_the_same_turn() -> None:
    rich_console = pytest.importorskip("rich.console")
    from acp_codegen.commands.chat.live import render

    console = rich_console.Console(file=io.StringIO(), width=80, color_system=None)
    console.print(render(turn_since(BEFORE, NOW, ended=True), None, NORMAL))
    drawn = cast(io.StringIO, console.file).getvalue()
    for line in ("tool: Edit (edit): completed", "diff: /p/a.py (modify)", "terminal: make test",
                 "new answer", "cost 0.25 USD", "turn ended: end_turn"):  # fmt: skip
        assert line in drawn
    assert "earlier answer" not in drawn and "Old" not in drawn
