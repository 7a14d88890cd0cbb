"""The seam a session writes its reports through when the connection is not v2's."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from ..wire.jsonvalue import JsonObject, JsonValue


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
