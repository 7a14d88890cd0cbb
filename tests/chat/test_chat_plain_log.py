"""`PlainLog`, fed update by update as the chat's `session_update` hook feeds it (each update
folded into a real `SessionState` first): what is on stdout after each one, so what a reader
sees while the turn runs, and that nothing is lost or written twice."""

from __future__ import annotations

import base64
import io
from typing import Any

from acp_codegen._bindings import SessionSnapshot, models
from acp_codegen._bindings._runtime.state.session_state import SessionState
from acp_codegen._bindings._runtime.wire.convert import from_wire
from acp_codegen._bindings.merge_rules import MERGE_RULES
from acp_codegen.commands.chat.plain import PlainLog
from acp_codegen.commands.chat.transcript import Turn, turn_since
from acp_codegen.commands.console import NORMAL, QUIET


class Feed:
    """A session state and a log on a string, fed one wire update at a time."""

    def __init__(self, verbosity: int = NORMAL) -> None:
        self.state: SessionState[SessionSnapshot] = SessionState(MERGE_RULES)
        self.before = self.state.snapshot()
        self.out = io.StringIO()
        self.log = PlainLog(self.out, verbosity)

    def now(self, *, ended: bool = False) -> Turn:
        return turn_since(self.before, self.state.snapshot(), ended=ended)

    def __call__(self, tag: str, **fields: Any) -> str:
        """Apply one update; everything written so far."""
        update = {"sessionUpdate": tag, **fields}
        self.state.apply(update)
        self.log.heard(from_wire(models.SessionUpdate, update), self.now)
        return self.out.getvalue()

    def end(self) -> str:
        self.log.end(self.now(ended=True))
        return self.out.getvalue()


def text(value: str) -> dict[str, str]:
    return {"type": "text", "text": value}


def output(value: str) -> list[dict[str, Any]]:
    return [{"type": "content", "content": text(value)}]


def test_chunks_are_appended_to_one_line_as_they_come_and_others_interrupt_it() -> None:
    feed = Feed()
    assert feed("agent_thought_chunk", messageId="t1", content=text("  Let me")) == (
        "(thinking) Let me"
    )
    assert feed("agent_thought_chunk", messageId="t1", content=text(" look. ")).endswith(
        "Let me look."  # trailing space waits for what follows it
    )
    feed("tool_call_update", toolCallId="c1", title="Read a.py", kind="read", status="pending")
    feed("tool_call_update", toolCallId="c1", status="in_progress")
    feed("tool_call_content_chunk", toolCallId="c1", content=output("line 1\n")[0])
    feed("tool_call_content_chunk", toolCallId="c1", content=output("line 2")[0])
    feed("tool_call_update", toolCallId="c1", status="completed")  # content unchanged
    feed("agent_message_chunk", messageId="m1", content=text("The file "))
    feed("agent_message_chunk", messageId="m1", content=text("has two lines."))
    assert feed.out.getvalue().endswith("agent: The file has two lines.")  # line still open
    feed("plan_update", plan={"type": "items", "planId": "p", "entries": [
        {"content": "Read", "priority": "high", "status": "completed"},
    ]})  # fmt: skip
    feed("agent_message_chunk", messageId="m1", content=text(" Done."))
    feed("usage_update", used=5, size=100)
    feed("state_update", state="idle", stopReason="end_turn")
    assert feed.end() == (
        "(thinking) Let me look.\n"
        "tool: Read a.py (read): pending\n"
        "tool: Read a.py (read): in_progress\n"
        "  | line 1\n"
        "  | line 2\n"
        "tool: Read a.py (read): completed\n"
        "agent: The file has two lines.\n"
        "plan:\n"
        "  [x] Read\n"
        "agent: Done.\n"
        "usage: context 5/100\n"
        "[turn ended: end_turn]\n"
    )


def test_replaced_text_is_written_again_marked_and_extended_text_is_not() -> None:
    feed = Feed()
    feed("agent_message_chunk", messageId="m1", content=text("Hello"))
    feed("agent_message", messageId="m1", content=[text("Hello, world")])  # extends: appended
    assert feed.out.getvalue() == "agent: Hello, world"
    feed("agent_message", messageId="m1", content=[text("Goodbye")])  # replaces
    feed("agent_message", messageId="m1")  # no content: unchanged
    feed("agent_message_chunk", messageId="m1", content=text("!"))
    feed("tool_call_update", toolCallId="c", title="T", status="in_progress",
         content=output("old"))  # fmt: skip
    feed("tool_call_update", toolCallId="c", content=output("new"))
    assert feed.end() == (
        "agent: Hello, world\n"
        "agent (revised): Goodbye!\n"
        "tool: T: in_progress\n"
        "  | old\n"
        "  | (revised) new\n"
    )


def test_terminal_bytes_split_inside_a_character_and_exit() -> None:
    feed = Feed()
    euro = "€ 1\n".encode()
    feed("terminal_update", terminalId="t", command="make")
    for piece in (euro[:1], euro[1:], b"ok\n"):
        feed("terminal_output_chunk", terminalId="t", data=base64.b64encode(piece).decode())
    feed("terminal_update", terminalId="t", exitStatus={"exitCode": 0})
    assert feed.end() == "terminal: make\n  | € 1\n  | ok\n  exit: 0\n"


def test_what_changed_without_an_update_is_written_at_the_end() -> None:
    """Cancelling marks unfinished tool calls cancelled in the client's own state."""
    feed = Feed()
    feed("tool_call_update", toolCallId="c", title="Slow", status="in_progress")
    feed.state.mark_cancelled()
    feed("state_update", state="idle", stopReason="cancelled")
    assert feed.end() == (
        "tool: Slow: in_progress\ntool: Slow: cancelled\n[turn ended: cancelled]\n"
    )


def test_quiet_streams_the_answer_alone() -> None:
    feed = Feed(QUIET)
    feed("agent_thought_chunk", messageId="t", content=text("hmm"))
    feed("tool_call_update", toolCallId="c", title="T", status="completed")
    assert feed("agent_message_chunk", messageId="m", content=text(" just ")) == "just"
    feed("agent_message_chunk", messageId="m", content=text("this "))
    feed("state_update", state="idle", stopReason="end_turn")
    assert feed.end() == "just this\n"


def test_the_whole_turn_at_once_reads_the_same_as_streamed() -> None:
    streamed = Feed()
    streamed("agent_message_chunk", messageId="m", content=text("a"))
    streamed("agent_message_chunk", messageId="m", content=text("b"))
    streamed("state_update", state="idle", stopReason="end_turn")
    at_once = io.StringIO()
    PlainLog(at_once, NORMAL).end(streamed.now(ended=True))
    assert streamed.end() == at_once.getvalue() == "agent: ab\n[turn ended: end_turn]\n"
