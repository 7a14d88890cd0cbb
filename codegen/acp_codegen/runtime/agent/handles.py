"""The handles an agent's turn sends updates through: one message or thought being streamed,
one tool call, one terminal. Each sends `session/update`s through the session that made it
(`agent_session.AgentSession`), which validates and writes them in call order; on a
connection that speaks another version than v2 the session writes them through a
`SessionDialect` (the seam v1/ implements)."""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from typing import Protocol

from pydantic import BaseModel

from ..wire.jsonvalue import JsonObject, JsonValue, as_object
from ..wire.protocol import (
    TERMINAL_OUTPUT_CHUNK,
    TERMINAL_UPDATE,
    TOOL_CALL_CONTENT_CHUNK,
    TOOL_CALL_UPDATE,
    UPDATE_TAG_FIELD,
)

# A content block: text, a JSON object, or a generated model.
Content = str | Mapping[str, object] | BaseModel


def as_block(content: Content) -> JsonObject:
    """A content block; a plain string becomes a text block."""
    if isinstance(content, str):
        return {"type": "text", "text": content}
    return as_object(content)


class UpdateSender(Protocol):
    """What a handle needs of its session: send one update, by tag and wire fields."""

    async def send_fields(self, tag: str, /, **fields: object) -> None: ...

    async def send_json(self, update: JsonObject) -> None: ...


class MessageStream:
    """One agent message or thought with a fixed messageId."""

    def __init__(self, session: UpdateSender, whole_tag: str, chunk_tag: str, message_id: str):
        self.session = session
        self.message_id = message_id
        self._whole_tag = whole_tag
        self._chunk_tag = chunk_tag

    async def append(self, content: Content, **fields: object) -> None:
        """Stream one content block (a chunk; `fields` such as `_meta` are chunk-scoped)."""
        block = as_block(content)
        if fields:
            await self.session.send_fields(
                self._chunk_tag, messageId=self.message_id, content=block, **fields
            )
            return
        # Every part is JSON already (the block is converted): no second walk over the chunk.
        chunk: JsonObject = {
            UPDATE_TAG_FIELD: self._chunk_tag,
            "messageId": self.message_id,
            "content": block,
        }
        await self.session.send_json(chunk)

    async def replace(self, content: Content | Sequence[Content] | None, **fields: object) -> None:
        """Set the whole content (None or [] clears); replaces everything streamed so far."""
        blocks: list[JsonObject] | None
        if content is None:
            blocks = None
        elif isinstance(content, str | Mapping | BaseModel):
            blocks = [as_block(content)]
        else:
            blocks = [as_block(item) for item in content]
        await self.session.send_fields(
            self._whole_tag, messageId=self.message_id, content=blocks, **fields
        )

    async def patch(self, **fields: object) -> None:
        """Update other fields (e.g. `_meta`) and keep the content."""
        await self.session.send_fields(self._whole_tag, messageId=self.message_id, **fields)


class ToolCall:
    def __init__(self, session: UpdateSender, tool_call_id: str) -> None:
        self.session = session
        self.tool_call_id = tool_call_id

    async def update(self, **fields: object) -> None:
        """Patch fields (`status`, `title`, `kind`, `content`, `locations`, `rawInput`, ...);
        `content` replaces everything gathered so far."""
        await self.session.send_fields(TOOL_CALL_UPDATE, toolCallId=self.tool_call_id, **fields)

    async def append_content(self, item: Mapping[str, object] | BaseModel) -> None:
        """Append one tool call content item (e.g. `{"type": "diff", ...}`)."""
        await self.session.send_fields(
            TOOL_CALL_CONTENT_CHUNK, toolCallId=self.tool_call_id, content=as_object(item)
        )

    async def append_text(self, text: str) -> None:
        await self.append_content({"type": "content", "content": as_block(text)})


class Terminal:
    """A display-only terminal the agent runs; its bytes travel base64-encoded."""

    def __init__(self, session: UpdateSender, terminal_id: str) -> None:
        self.session = session
        self.terminal_id = terminal_id

    def as_content(self) -> JsonObject:
        """The tool call content item that shows this terminal."""
        return {"type": "terminal", "terminalId": self.terminal_id}

    async def update(self, **fields: object) -> None:
        await self.session.send_fields(TERMINAL_UPDATE, terminalId=self.terminal_id, **fields)

    async def write(self, data: bytes) -> None:
        """Append output bytes (one base64 chunk)."""
        encoded = base64.b64encode(data).decode("ascii")
        await self.session.send_fields(
            TERMINAL_OUTPUT_CHUNK, terminalId=self.terminal_id, data=encoded
        )

    async def replace_output(self, data: bytes) -> None:
        """Replace all output shown so far with `data` (a snapshot)."""
        await self.update(output={"data": base64.b64encode(data).decode("ascii")})

    async def exit(self, exit_code: int | None = None, signal: str | None = None) -> None:
        status: JsonObject = {}
        if exit_code is not None:
            status["exitCode"] = exit_code
        if signal is not None:
            status["signal"] = signal
        await self.update(exitStatus=status)


class SessionDialect(Protocol):
    """How a session's reports are written when the connection speaks another version than
    the lifecycle's v2 (e.g. `v1.agent_wire.V1SessionDialect`); None on a v2 connection."""

    async def send_update(self, update: JsonObject, *, replay: bool = False) -> None: ...

    def takes_plain_chunk(self, update: JsonObject) -> bool:
        """Whether `update`, a plain text chunk v2's check took (`is_plain_text_chunk`), goes
        on this wire exactly as it is (noting it as sent): the session then writes it itself,
        without `send_update`'s translation and second check (most of a streamed turn)."""
        ...

    async def request_permission(self, params: Mapping[str, JsonValue]) -> JsonValue: ...
