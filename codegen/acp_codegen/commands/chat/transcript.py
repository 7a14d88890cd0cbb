"""What one turn added to a session, read from typed snapshots: the part of the conversation a
renderer shows (plain text or live). No merging here; the runtime's `SessionState` did that.

The one-line things both renderers show (a tool call's heading, a terminal's command, a plan
entry, a tag standing for content, usage) are formatted here with `visible_line` (a diff, with
`model.diff_view`, which makes each of its lines visible on its own), so a newline
in an agent's title cannot start a line that reads as chat's own; multi-line text (messages,
output) is escaped where it is written."""

from __future__ import annotations

import base64
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple, cast

from ..._bindings import SessionSnapshot, joined_content
from ..._bindings.snapshot import (
    ContentBlockDict,
    MessageSnapshot,
    PlanEntryDict,
    SubagentSnapshot,
    TerminalSnapshot,
    ToolCallContentDict,
    ToolCallSnapshot,
    UsageSnapshot,
)
from ...model.diff_view import diff_text, diff_view
from .visible import visible_line


class Said(NamedTuple):
    """One message as text: which one, whose (`user`, `agent` or `thought`), what it says."""

    message_id: str
    role: str
    text: str


class Between(NamedTuple):
    """A message between two sessions (a parent and a child it announced): which one, who to
    whom as chat names them (`to Helper`, `from Helper`; one line, escaped), what it says."""

    message_id: str
    label: str
    text: str


@dataclass
class Turn:
    """The messages, plans, tool calls, terminals and child sessions a turn added or changed, in
    the order a reader follows them."""

    messages: list[Said] = field(default_factory=list)  # all roles, in the session's order
    user: list[str] = field(default_factory=list)
    thoughts: list[str] = field(default_factory=list)
    plans: dict[str, list[PlanEntryDict]] = field(default_factory=dict)
    tool_calls: list[ToolCallSnapshot] = field(default_factory=list)
    terminals: list[TerminalSnapshot] = field(default_factory=list)
    answer: list[str] = field(default_factory=list)
    subagents: dict[str, str] = field(default_factory=dict)  # a new or changed child's line
    between: list[Between] = field(default_factory=list)  # messages between the sessions
    removed_plans: list[str] = field(default_factory=list)  # ids of plans held before, gone
    title: str | None = None  # the session's new title (`session_info_update`), one line
    usage: UsageSnapshot | None = None
    stop_reason: str | None = None


def _changed(now: Mapping[str, Any], before: Mapping[str, Any], key: str) -> bool:
    return key not in before or before[key] != now[key]


def turn_since(before: SessionSnapshot, now: SessionSnapshot, *, ended: bool = False) -> Turn:
    """The part of `now` that is new or changed since `before` (the snapshot at turn start)."""
    turn = Turn()
    seen = {message["messageId"]: message for message in before["messages"]}
    for message in now["messages"]:
        if message["messageId"] in seen and seen[message["messageId"]] == message:
            continue
        text = message_text(message)
        if message["role"] == "session":  # not the agent's answer: a child's or one to it
            label = between_label(message, now["subagents"])
            turn.between.append(Between(message["messageId"], label, text))
            continue
        turn.messages.append(Said(message["messageId"], message["role"], text))
        if message["role"] == "user":
            turn.user.append(text)
        elif message["role"] == "thought":
            turn.thoughts.append(text)
        else:
            turn.answer.append(text)
    for key, plan in now["plans"].items():
        if _changed(now["plans"], before["plans"], key):
            entries = cast(Mapping[str, Any], plan).get("entries")
            turn.plans[key] = cast(list[PlanEntryDict], entries or [])
    turn.removed_plans = [key for key in before["plans"] if key not in now["plans"]]
    turn.subagents = {
        key: subagent_line(child)
        for key, child in now["subagents"].items()
        if _changed(now["subagents"], before["subagents"], key)
    }
    turn.tool_calls = [
        call
        for key, call in now["toolCalls"].items()
        if _changed(now["toolCalls"], before["toolCalls"], key)
    ]
    turn.terminals = [
        terminal
        for key, terminal in now["terminals"].items()
        if _changed(now["terminals"], before["terminals"], key)
    ]
    if now["usage"] != before["usage"]:
        turn.usage = now["usage"]
    turn.title = new_title(before, now)
    if ended:
        turn.stop_reason = now["stopReason"]
    return turn


def title_of(info: Any) -> str | None:
    """The title a session's `sessionInfo` slot holds, escaped to one line (None: untitled)."""
    if isinstance(info, Mapping) and isinstance(info.get("title"), str) and info["title"]:
        return visible_line(info["title"])
    return None


def new_title(before: SessionSnapshot, now: SessionSnapshot) -> str | None:
    """The title `now` holds when it is not the one `before` held."""
    title = title_of(now["sessionInfo"])
    return title if title != title_of(before["sessionInfo"]) else None


def child_name(session_id: str, children: Mapping[str, SubagentSnapshot]) -> str:
    """A child session as chat names it: the title its parent gave it, else its id."""
    child = children.get(session_id)
    return str((child.get("title") if child is not None else None) or session_id)


def between_label(message: MessageSnapshot, children: Mapping[str, SubagentSnapshot]) -> str:
    """`to NAME` for a message to a child, `from NAME` for one from a child (one line)."""
    sender, recipient = message.get("senderSessionId"), message.get("recipientSessionId")
    if sender is not None and sender in children:
        return visible_line(f"from {child_name(sender, children)}")
    if recipient is not None and recipient in children:
        return visible_line(f"to {child_name(recipient, children)}")
    return visible_line(f"{sender or '?'} to {recipient or '?'}")


def subagent_line(child: SubagentSnapshot) -> str:
    """`subagent: NAME - what it is for [state]` on one line (what the parent said of it)."""
    text = f"subagent: {child.get('title') or child['sessionId']}"
    if child.get("description"):
        text += f" - {child.get('description')}"
    state = child.get("state")
    activity = cast(Mapping[str, Any], state).get("state") if state else None
    if activity:
        text += f" [{activity}]"
    return visible_line(text)


def removed_plan_text(plan_id: str) -> str:
    return visible_line(f"plan removed: {plan_id}")


def block_text(block: ContentBlockDict) -> str:
    """A content block as text: its text, or a short tag for what a terminal cannot show."""
    fields = cast(Mapping[str, Any], block)
    kind = fields.get("type")
    if kind == "text":
        return str(fields.get("text", ""))
    if kind == "resource_link":
        return visible_line(f"[link {fields.get('name')}: {fields.get('uri')}]")
    if kind == "resource":
        resource = fields.get("resource")
        uri = resource.get("uri") if isinstance(resource, dict) else None
        return visible_line(f"[resource {uri}]")
    return visible_line(f"[{kind}]")


def message_text(message: MessageSnapshot) -> str:
    return "".join(block_text(block) for block in joined_content(message))


def tool_content_text(item: ToolCallContentDict) -> str:
    """One item of a tool call's output as text."""
    fields = cast(Mapping[str, Any], item)
    kind = fields.get("type")
    if kind == "content":
        return block_text(cast(ContentBlockDict, fields.get("content", {})))
    view = diff_view(fields)
    if view is not None:  # its own lines: each file, its hunks, long ones folded
        return f"\n{diff_text(view)}\n"
    if kind == "terminal":
        return visible_line(f"[terminal {fields.get('terminalId')}]")
    return visible_line(f"[{kind}]")


def tool_output(call: ToolCallSnapshot) -> str:
    """A tool call's output: consecutive text pieces joined, other items on their own."""
    return "".join(tool_content_text(item) for item in call["content"])


def usage_text(usage: UsageSnapshot) -> str:
    text = f"context {usage['used']}/{usage['size']}"
    cost = usage.get("cost")
    if cost:
        text += f", cost {cost['amount']} {cost['currency']}"
    return visible_line(text)


def tool_heading(call: ToolCallSnapshot) -> str:
    """`tool: TITLE (KIND): STATUS` on one line (kind and status when the agent gave them)."""
    kind = f" ({call['kind']})" if call.get("kind") else ""
    status = f": {call['status']}" if call.get("status") else ""
    return visible_line(f"tool: {call.get('title') or call['toolCallId']}{kind}{status}")


def terminal_heading(terminal: TerminalSnapshot) -> str:
    return visible_line(f"terminal: {terminal.get('command') or terminal['terminalId']}")


def exit_text(terminal: TerminalSnapshot) -> str | None:
    """How a terminal's command ended (`exit: 0`, `exit: SIGKILL`), None while it runs."""
    status = terminal.get("exitStatus")
    if not status:
        return None
    code = status.get("exitCode")
    return visible_line(f"exit: {status.get('signal') if code is None else code}")


def plan_text(entry: PlanEntryDict) -> str:
    return visible_line(str(entry["content"]))


def ended_text(stop_reason: str) -> str:
    return visible_line(f"turn ended: {stop_reason}")


def terminal_bytes(terminal: TerminalSnapshot) -> bytes:
    """A terminal's output as bytes (snapshots carry it base64-encoded; None: none reported)."""
    return base64.b64decode(terminal.get("output") or "")


def terminal_text(terminal: TerminalSnapshot) -> str:
    return terminal_bytes(terminal).decode("utf-8", errors="replace")
