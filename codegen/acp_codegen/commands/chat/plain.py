"""A turn as plain text written as it happens (no colours, no cursor movement): for pipes,
files and terminals without the `chat` extra. `--quiet` keeps the answer alone.

`PlainLog` is fed each update as the session folds it in (the client's `session_update` hook),
so it writes in the order things happen. It remembers what it has written of each message, tool
call, plan, terminal and child session, and writes only what is new: a streamed chunk is
appended as it comes (the protocol makes a chunk an append, so its text is the new part; most
traffic, and no snapshot needed), any other change is read from the session the runtime folded
(`show`, one snapshot) and compared with what was written. Text replaced rather than extended
is written again, marked `revised`. `end` compares once more, for what changed without an
update (tool calls a cancel marked cancelled), then writes usage and the stop reason.
"""

from __future__ import annotations

import base64
import codecs
import io
import sys
from collections.abc import Callable
from typing import TextIO, cast

from ..._bindings import models
from ..._bindings._runtime.wire.convert import to_wire
from ..._bindings.snapshot import (
    ContentBlockDict,
    PlanEntryDict,
    ToolCallContentDict,
    ToolCallSnapshot,
)
from ..console import QUIET
from .lines import Lines, Stream
from .transcript import (
    Turn,
    block_text,
    ended_text,
    exit_text,
    plan_text,
    removed_plan_text,
    terminal_bytes,
    terminal_heading,
    tool_content_text,
    tool_heading,
    tool_output,
    usage_text,
)
from .visible import visible_line

PLAN_MARKS = {"pending": "[ ]", "in_progress": "[>]", "completed": "[x]"}
STREAMS = {
    "agent": Stream("agent: ", "", "agent (revised): "),
    "thought": Stream("(thinking) ", "", "(thinking, revised) "),
    "output": Stream("  | ", "  | ", "  | (revised) "),
    "answer": Stream("", "", ""),  # --quiet: the answer alone
}
# Updates read from the folded session; chunks are taken as they come, the rest changes nothing
# a turn shows until it ends (usage, stop reason).
FOLDED = (
    models.AgentMessage,
    models.AgentThought,
    models.SessionToolCallUpdate,
    models.PlanUpdate,
    models.TerminalUpdate,
    models.SubagentUpdate,
    models.SessionInfoUpdate,
    models.SessionMessage,
    models.SessionMessageChunk,
)
Key = tuple[str, str]


class PlainLog:
    def __init__(self, out: TextIO, verbosity: int) -> None:
        self._lines = Lines(out)
        self._quiet = verbosity == QUIET
        self._texts: dict[Key, str] = {}  # what each text stream holds so far
        self._heads: dict[Key, str] = {}  # the heading line written for a tool call, terminal
        self._plans: dict[str, list[str]] = {}
        self._gone: set[str] = set()  # plans whose removal was written
        self._output: dict[str, bytearray] = {}  # a terminal's output so far, and its decoder
        self._decoders: dict[str, codecs.IncrementalDecoder] = {}

    def note(self, text: str) -> None:
        """Lines from outside the turn (a permission answer, `cancelling`), below the text."""
        self._lines.line(text)

    def aside(self, text: str) -> None:
        """A line on stderr (the traffic with `-v`, the agent's stderr), after ending the line
        being streamed; escaped (`visible_line`), as it may quote the agent."""
        self._lines.close()
        print(visible_line(text), file=sys.stderr, flush=True)

    def heard(self, update: models.SessionUpdate, now: Callable[[], Turn]) -> None:
        """One update, just folded into the session; `now()` reads the turn so far."""
        if isinstance(update, models.AgentMessageChunk | models.AgentThoughtChunk):
            role = "agent" if isinstance(update, models.AgentMessageChunk) else "thought"
            self._grew(
                ("message", update.message_id),
                role,
                block_text(cast(ContentBlockDict, to_wire(update.content))),
            )
        elif isinstance(update, models.ToolCallContentChunk) and not self._quiet:
            key = ("tool", update.tool_call_id)
            if key not in self._heads:  # the chunk made the call: read its heading too
                self.show(now())
            else:
                self._grew(
                    key,
                    "output",
                    tool_content_text(cast(ToolCallContentDict, to_wire(update.content))),
                )
        elif isinstance(update, models.TerminalOutputChunk) and not self._quiet:
            if ("terminal", update.terminal_id) not in self._heads:
                self.show(now())
            else:
                self._terminal_grew(update.terminal_id, update.data)
        elif isinstance(update, models.PlanRemoved):
            if update.plan_id in self._plans:  # one never shown (or unknown) has nothing to undo
                self._plan_removed(update.plan_id)
        elif isinstance(update, FOLDED):
            self.show(now())

    def show(self, turn: Turn) -> None:
        """Write what `turn` has that was not written yet."""
        for said in turn.messages:
            if said.role == "thought" and not self._quiet:
                self._text_is(("message", said.message_id), self._stream("thought"), said.text)
        if not self._quiet:
            if turn.title is not None:
                self._head(("title", ""), f"title: {turn.title}")
            for session_id, line in turn.subagents.items():
                self._head(("subagent", session_id), line)
            for between in turn.between:
                stream = Stream(f"{between.label}: ", "", f"{between.label} (revised): ")
                self._text_is(("message", between.message_id), stream, between.text)
            for plan_id, entries in turn.plans.items():
                self._plan(plan_id, [_plan_line(entry) for entry in entries])
            for plan_id in turn.removed_plans:
                self._plan_removed(plan_id)
            for call in turn.tool_calls:
                self._tool(call)
            for terminal in turn.terminals:
                self._head(("terminal", terminal["terminalId"]), terminal_heading(terminal))
                self._terminal_is(terminal["terminalId"], terminal_bytes(terminal))
                exited = exit_text(terminal)
                if exited is not None:
                    self._head(("exit", terminal["terminalId"]), f"  {exited}")
        for said in turn.messages:
            if said.role == "agent":
                self._text_is(("message", said.message_id), self._stream("agent"), said.text)

    def end(self, turn: Turn) -> None:
        """The rest of the turn, its usage and how it ended."""
        self.show(turn)
        if not self._quiet and turn.usage is not None:
            self._lines.line(f"usage: {usage_text(turn.usage)}")
        if not self._quiet and turn.stop_reason is not None:
            self._lines.line(f"[{ended_text(turn.stop_reason)}]")
        self._lines.close()

    # -- one entity: what changed since it was last written --------------------------------------

    def _stream(self, role: str) -> Stream:
        return STREAMS["answer" if self._quiet and role == "agent" else role]

    def _grew(self, key: Key, role: str, text: str) -> None:
        if role == "thought" and self._quiet:
            return
        self._texts[key] = self._texts.get(key, "") + text
        self._lines.add(key, self._stream(role), text)

    def _text_is(self, key: Key, stream: Stream, text: str) -> None:
        seen = self._texts.get(key, "")
        self._texts[key] = text
        if text.startswith(seen):
            self._lines.add(key, stream, text[len(seen) :])
        else:
            self._lines.add(key, stream, text, revised=True)

    def _head(self, key: Key, line: str) -> None:
        if self._heads.get(key) != line:
            self._heads[key] = line
            self._lines.line(line)

    def _tool(self, call: ToolCallSnapshot) -> None:
        key = ("tool", call["toolCallId"])
        self._head(key, tool_heading(call))
        self._text_is(key, STREAMS["output"], tool_output(call))

    def _plan(self, plan_id: str, lines: list[str]) -> None:
        if self._plans.get(plan_id) != lines:
            self._plans[plan_id] = lines
            self._gone.discard(plan_id)
            self._lines.line("\n".join(["plan:", *lines]))

    def _plan_removed(self, plan_id: str) -> None:
        if plan_id not in self._gone and not self._quiet:
            self._gone.add(plan_id)
            self._plans.pop(plan_id, None)
            self._lines.line(removed_plan_text(plan_id))

    def _terminal_grew(self, terminal_id: str, data: str) -> None:
        try:
            new = base64.b64decode(data, validate=True)
        except ValueError:  # the runtime dropped it too (and logged it)
            return
        self._output.setdefault(terminal_id, bytearray()).extend(new)
        self._terminal_text(terminal_id, new, revised=False)

    def _terminal_is(self, terminal_id: str, output: bytes) -> None:
        seen = self._output.get(terminal_id, bytearray())
        revised = not output.startswith(seen)
        new = output if revised else output[len(seen) :]
        self._output[terminal_id] = bytearray(output)
        self._terminal_text(terminal_id, new, revised=revised)

    def _terminal_text(self, terminal_id: str, new: bytes, *, revised: bool) -> None:
        # Bytes, not text, are appended: a character may be split between two chunks.
        if revised or terminal_id not in self._decoders:
            self._decoders[terminal_id] = codecs.getincrementaldecoder("utf-8")("replace")
        text = self._decoders[terminal_id].decode(new)
        self._lines.add(("terminal", terminal_id), STREAMS["output"], text, revised=revised)


def _plan_line(entry: PlanEntryDict) -> str:
    mark = PLAN_MARKS.get(entry["status"]) or visible_line(f"[{entry['status']}]")
    return f"  {mark} {plan_text(entry)}"


def render_turn(turn: Turn, verbosity: int) -> str:
    """The whole turn at once, as `PlainLog` writes it when it sees it only at the end."""
    out = io.StringIO()
    PlainLog(out, verbosity).end(turn)
    return out.getvalue()
