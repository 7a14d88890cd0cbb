"""What an agent author's turn handler works with: one session and its update helpers.

Every helper sends one `session/update` and returns once it is written; updates reach the wire
in call order. Ids (messageId, toolCallId, terminalId, planId) are generated when not given.
Field names in `**fields` arguments are wire names (`rawInput`, `exitStatus`, ...); passing
`None` for a patch field sends `null`, which clears it on the client.
"""

from __future__ import annotations

import asyncio
import base64
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from .jsonvalue import as_object, to_json
from .peer import Peer
from .protocol import (
    AGENT_MESSAGE,
    AGENT_MESSAGE_CHUNK,
    AGENT_THOUGHT,
    AGENT_THOUGHT_CHUNK,
    PLAN_UPDATE,
    REQUEST_PERMISSION,
    SESSION_UPDATE,
    STATE_REQUIRES_ACTION,
    STATE_RUNNING,
    STATE_UPDATE,
    TERMINAL_OUTPUT_CHUNK,
    TERMINAL_UPDATE,
    TOOL_CALL_CONTENT_CHUNK,
    TOOL_CALL_UPDATE,
    UPDATE_TAG_FIELD,
    USAGE_UPDATE,
    USER_MESSAGE,
)

# A content block: text, a JSON object, or a generated model.
Content = str | Mapping[str, Any] | BaseModel


def new_id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:16]}"


def as_block(content: Content) -> dict[str, Any]:
    """A content block; a plain string becomes a text block."""
    if isinstance(content, str):
        return {"type": "text", "text": content}
    return as_object(content)


@dataclass(frozen=True, slots=True)
class Prompt:
    """One accepted `session/prompt`: its content and the messageId the agent gave it."""

    message_id: str
    content: list[dict[str, Any]]


@dataclass(slots=True)
class Turn:
    """Bookkeeping for one stretch of foreground work (used by `AgentSide`)."""

    task: asyncio.Task[None] | None = None
    started: bool = False
    cancel_requested: bool = False
    cancel_sent: bool = False
    queued: list[Prompt] = field(default_factory=list)


class AgentSession:
    """One session on the agent side. Turn handlers get it as their first argument."""

    def __init__(
        self, session_id: str, peer: Peer, setup: Mapping[str, Any], client_capabilities: Any
    ) -> None:
        self.session_id = session_id
        self.setup = dict(setup)  # the session/new (or resume) params
        self.client_capabilities = client_capabilities
        self._peer = peer
        self._blocked = 0  # outstanding permission requests
        self.turn: Turn | None = None  # the running foreground work, if any

    @property
    def running(self) -> bool:
        return self.turn is not None

    def take_prompts(self) -> list[Prompt]:
        """Prompts accepted while this turn was running, not yet taken. Prompts the handler
        does not take are handed to it one by one after it returns, in the same foreground
        work (no idle in between)."""
        if self.turn is None:
            return []
        taken, self.turn.queued = self.turn.queued, []
        return taken

    # -- raw updates ----------------------------------------------------------------------------

    async def send_update(self, update: Mapping[str, Any] | BaseModel) -> None:
        """Send one update object (a dict with its tag, or a generated model)."""
        params = {"sessionId": self.session_id, "update": to_json(update)}
        await self._peer.notify(SESSION_UPDATE, params)

    async def _send(self, tag: str, **fields: Any) -> None:
        await self.send_update({UPDATE_TAG_FIELD: tag, **fields})

    async def report_state(self, state: str, stop_reason: str | None = None) -> None:
        if stop_reason is None:
            await self._send(STATE_UPDATE, state=state)
        else:
            await self._send(STATE_UPDATE, state=state, stopReason=stop_reason)

    async def report_user_message(self, prompt: Prompt) -> None:
        await self._send(USER_MESSAGE, messageId=prompt.message_id, content=prompt.content)

    # -- messages, thoughts ---------------------------------------------------------------------

    def agent_message(self, message_id: str | None = None) -> MessageStream:
        """A new agent message to stream into (`append`) or set whole (`replace`)."""
        return MessageStream(self, AGENT_MESSAGE, AGENT_MESSAGE_CHUNK, message_id or new_id("msg"))

    def thought(self, message_id: str | None = None) -> MessageStream:
        return MessageStream(
            self, AGENT_THOUGHT, AGENT_THOUGHT_CHUNK, message_id or new_id("thought")
        )

    async def say(self, content: Content | Sequence[Content]) -> str:
        """Send a whole agent message; returns its messageId."""
        stream = self.agent_message()
        await stream.replace(content)
        return stream.message_id

    async def think(self, content: Content | Sequence[Content]) -> str:
        stream = self.thought()
        await stream.replace(content)
        return stream.message_id

    # -- plans, tool calls, terminals, usage -----------------------------------------------------

    async def update_plan(
        self, entries: Sequence[Mapping[str, Any] | BaseModel], *, plan_id: str | None = None
    ) -> str:
        """Replace the plan `plan_id` (a new one when None) with `entries`; returns its id."""
        plan_id = plan_id or new_id("plan")
        plan = {"type": "items", "planId": plan_id, "entries": [as_object(e) for e in entries]}
        await self._send(PLAN_UPDATE, plan=plan)
        return plan_id

    async def start_tool_call(
        self, title: str, *, tool_call_id: str | None = None, **fields: Any
    ) -> ToolCall:
        """Report a new tool call (status defaults to pending on the client)."""
        call = ToolCall(self, tool_call_id or new_id("call"))
        await call.update(title=title, **fields)
        return call

    async def open_terminal(self, *, terminal_id: str | None = None, **fields: Any) -> Terminal:
        """Report a display-only terminal (`command`, `cwd`, ... as wire fields)."""
        terminal = Terminal(self, terminal_id or new_id("term"))
        await terminal.update(**fields)
        return terminal

    async def report_usage(
        self, used: int, size: int, cost: Mapping[str, Any] | BaseModel | None = None
    ) -> None:
        if cost is None:
            await self._send(USAGE_UPDATE, used=used, size=size)
        else:
            await self._send(USAGE_UPDATE, used=used, size=size, cost=as_object(cost))

    # -- permission -----------------------------------------------------------------------------

    async def request_permission(
        self, title: str, options: Sequence[Mapping[str, Any] | BaseModel], **fields: Any
    ) -> Any:
        """Ask the client; returns the `outcome` object. Reports requires_action while the
        first of any concurrent requests is open and running once the last one is answered.
        Read the outcome with `protocol.selected_option`: anything else is not approval."""
        params = {
            "sessionId": self.session_id,
            "title": title,
            "options": [as_object(option) for option in options],
            **fields,
        }
        self._blocked += 1
        if self._blocked == 1:
            await self.report_state(STATE_REQUIRES_ACTION)
        try:
            result = await self._peer.request(REQUEST_PERMISSION, params)
        except asyncio.CancelledError:
            self._blocked -= 1  # the turn is being cancelled: it reports idle, not running
            raise
        except BaseException:
            await self._unblock()
            raise
        await self._unblock()
        return result.get("outcome") if isinstance(result, dict) else None

    async def _unblock(self) -> None:
        self._blocked -= 1
        if self._blocked == 0:
            await self.report_state(STATE_RUNNING)


class MessageStream:
    """One agent message or thought with a fixed messageId."""

    def __init__(self, session: AgentSession, whole_tag: str, chunk_tag: str, message_id: str):
        self.session = session
        self.message_id = message_id
        self._whole_tag = whole_tag
        self._chunk_tag = chunk_tag

    async def append(self, content: Content, **fields: Any) -> None:
        """Stream one content block (a chunk; `fields` such as `_meta` are chunk-scoped)."""
        await self.session._send(
            self._chunk_tag, messageId=self.message_id, content=as_block(content), **fields
        )

    async def replace(self, content: Content | Sequence[Content] | None, **fields: Any) -> None:
        """Set the whole content (None or [] clears); replaces everything streamed so far."""
        blocks: list[dict[str, Any]] | None
        if content is None:
            blocks = None
        elif isinstance(content, str | Mapping | BaseModel):
            blocks = [as_block(content)]
        else:
            blocks = [as_block(item) for item in content]
        await self.session._send(
            self._whole_tag, messageId=self.message_id, content=blocks, **fields
        )

    async def patch(self, **fields: Any) -> None:
        """Update other fields (e.g. `_meta`) and keep the content."""
        await self.session._send(self._whole_tag, messageId=self.message_id, **fields)


class ToolCall:
    def __init__(self, session: AgentSession, tool_call_id: str) -> None:
        self.session = session
        self.tool_call_id = tool_call_id

    async def update(self, **fields: Any) -> None:
        """Patch fields (`status`, `title`, `kind`, `content`, `locations`, `rawInput`, ...);
        `content` replaces everything gathered so far."""
        await self.session._send(TOOL_CALL_UPDATE, toolCallId=self.tool_call_id, **fields)

    async def append_content(self, item: Mapping[str, Any] | BaseModel) -> None:
        """Append one tool call content item (e.g. `{"type": "diff", ...}`)."""
        await self.session._send(
            TOOL_CALL_CONTENT_CHUNK, toolCallId=self.tool_call_id, content=as_object(item)
        )

    async def append_text(self, text: str) -> None:
        await self.append_content({"type": "content", "content": as_block(text)})


class Terminal:
    """A display-only terminal the agent runs; its bytes travel base64-encoded."""

    def __init__(self, session: AgentSession, terminal_id: str) -> None:
        self.session = session
        self.terminal_id = terminal_id

    def as_content(self) -> dict[str, Any]:
        """The tool call content item that shows this terminal."""
        return {"type": "terminal", "terminalId": self.terminal_id}

    async def update(self, **fields: Any) -> None:
        await self.session._send(TERMINAL_UPDATE, terminalId=self.terminal_id, **fields)

    async def write(self, data: bytes) -> None:
        """Append output bytes (one base64 chunk)."""
        encoded = base64.b64encode(data).decode("ascii")
        await self.session._send(TERMINAL_OUTPUT_CHUNK, terminalId=self.terminal_id, data=encoded)

    async def replace_output(self, data: bytes) -> None:
        """Replace all output shown so far with `data` (a snapshot)."""
        await self.update(output={"data": base64.b64encode(data).decode("ascii")})

    async def exit(self, exit_code: int | None = None, signal: str | None = None) -> None:
        status: dict[str, Any] = {}
        if exit_code is not None:
            status["exitCode"] = exit_code
        if signal is not None:
            status["signal"] = signal
        await self.update(exitStatus=status)
