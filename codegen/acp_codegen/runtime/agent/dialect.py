"""How `AgentSide` reads and writes a protocol version's wire: the `AgentDialect` seam.

The agent lifecycle keeps the sessions, their turns and the author's hooks whatever version
the client speaks; what depends on the version is said by one dialect object, given to
`AgentSide.initialize`: `V2AgentWire` (here) on v2, v1's `v1.agent_side.V1AgentSide` on a v1
connection (a `VersionDialect`, to which `AgentSide.versioned` routes v1's messages). The
dependency points up: this floor names the seam, the v1 floor implements it, and this floor
never imports v1. The client side is built the same way (`client.dialect.ClientDialect`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

from ..rpc.dispatch import Dispatcher
from ..wire.jsonvalue import JsonObject, JsonValue
from .handles import SessionDialect

if TYPE_CHECKING:
    from .agent_session import AgentSession


class AgentDialect(Protocol):
    """One version's wire, as `AgentSide` speaks it (`V2AgentWire` says what v2 does)."""

    @property
    def version(self) -> int | None:
        """The version it speaks (None: any of v2's); asked to settle another: a wiring bug."""
        ...

    @property
    def sends_cancel_request(self) -> bool:
        """Whether this wire has `$/cancel_request` (sent for a call the caller abandoned)."""
        ...

    def client_hello(self, params: JsonObject) -> tuple[JsonValue, JsonValue]:
        """The client's capabilities and info, read from its `initialize` params."""
        ...

    def hello(self, version: int) -> JsonObject:
        """The `initialize` answer for `version`: the agent's info and what it serves."""
        ...

    @property
    def session_dialect(self) -> Callable[[AgentSession], SessionDialect] | None:
        """What writes each session's reports in this version's words (None: v2's own)."""
        ...


class VersionDialect(AgentDialect, Protocol):
    """The dialect of a version other than v2's, which the agent also serves: it reads that
    version's requests itself, over the same `AgentSide` (see `AgentSide.versioned`)."""

    @property
    def version(self) -> int:
        """The protocol version it speaks."""
        ...

    def checked(self) -> Dispatcher:
        """This adapter behind that version's checks of incoming messages."""
        ...


class V2AgentWire:
    """v2's wire: the lifecycle's own words. `info`, `capabilities` and `auth_methods` are the
    agent's, as `AgentSide` advertises them."""

    version = None
    sends_cancel_request = True
    session_dialect = None

    def __init__(
        self, info: JsonObject, capabilities: JsonObject, auth_methods: Sequence[JsonObject]
    ) -> None:
        self._info = info
        self._capabilities = capabilities
        self._auth_methods = auth_methods

    def client_hello(self, params: JsonObject) -> tuple[JsonValue, JsonValue]:
        return params.get("capabilities"), params.get("info")

    def hello(self, version: int) -> JsonObject:
        result: JsonObject = {
            "protocolVersion": version,
            "info": self._info,
            "capabilities": self._capabilities,
        }
        if self._auth_methods:
            methods: list[JsonValue] = [*self._auth_methods]  # a copy: the answer is the client's
            result["authMethods"] = methods
        return result
