"""How `ClientSide` reads and writes a protocol version's wire: the `ClientDialect` seam.

The client lifecycle keeps the sessions, their states and the permission requests whatever
version the agent speaks; it says everything version-specific through one dialect object,
the one of the version `initialize` negotiated: `V2ClientWire` (here) until then and on v2,
v1's `v1.client_wire.V1ClientWire` on a v1 connection. The dependency points up: this floor
names the seam, the v1 floor implements it, and the generated `Client` hands `ClientSide` the
dialect's tables (`DialectTables`), so this floor never imports v1. The agent side is built
the same way (`agent.agent_side.AgentDialect`).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, Any, Protocol

from ..rpc.connection import Connection
from ..rpc.dispatch import Dispatcher
from ..wire.jsonvalue import JsonObject, JsonValue
from ..wire.protocol import SESSION_PROMPT

if TYPE_CHECKING:
    from .client_session import ClientSession


class ClientDialect(Protocol):
    """One version's wire, as `ClientSide` speaks it (`V2ClientWire` says what v2 does)."""

    @property
    def loads_sessions(self) -> bool:
        """Whether this wire has `session/load` (v2 resumes with `replayFrom` instead)."""
        ...

    def agent_hello(self, result: JsonObject) -> tuple[JsonValue, JsonValue]:
        """The agent's info and capabilities, read from its `initialize` answer."""
        ...

    def check_request(self, method: str, params: JsonValue) -> None: ...
    def check_notification(self, method: str, params: JsonValue) -> None: ...
    def setup_params(self, method: str, params: JsonObject) -> JsonObject: ...
    def setup_done(self, session: ClientSession[Any], result: JsonValue) -> None: ...
    def loads_instead(
        self, session_id: str, params: JsonObject, agent_capabilities: JsonValue
    ) -> bool: ...
    async def prompt(self, session: ClientSession[Any], blocks: list[JsonValue]) -> str | None:
        """One `session/prompt`; the id of the user message it became, when told."""
        ...

    def prompt_capabilities(self, agent_capabilities: JsonValue) -> JsonValue:
        """The agent's capabilities in v2's form, for the one check of prompt content."""
        ...


class VersionDialect(ClientDialect, Protocol):
    """The dialect of a version other than v2's, which the client also accepts: it adds its
    own fields to `initialize` and reads that version's incoming messages itself."""

    @property
    def version(self) -> int:
        """The protocol version it speaks."""
        ...

    @property
    def capabilities(self) -> JsonObject:
        """The client capabilities that version's agents read."""
        ...

    def hello(self, params: JsonObject, info: JsonObject) -> None:
        """Add this version's names for the client's info and capabilities to `initialize`'s
        params (an agent of another version ignores unknown members)."""
        ...

    def checked(self) -> Dispatcher:
        """This dialect behind that version's checks of incoming messages."""
        ...


class DialectTables(Protocol):
    """What the generated bindings of that version give `ClientSide` (`v1=V1Tables(...)`)."""

    def dialect(
        self, client: Any, *, services: Dispatcher | None, handled: Collection[str]
    ) -> VersionDialect:
        """The dialect of `client` (a `ClientSide`); `services` answers that version's client
        requests, `handled` names the ones it answers."""
        ...


class V2ClientWire:
    """v2's wire: the lifecycle's own words, nothing to translate or check beyond them."""

    loads_sessions = False

    def __init__(self, connection: Connection) -> None:
        self._connection = connection

    def agent_hello(self, result: JsonObject) -> tuple[JsonValue, JsonValue]:
        return result.get("info"), result.get("capabilities")

    def check_request(self, method: str, params: JsonValue) -> None:
        """Nothing: on v2 `ClientSide` sends what it is given."""

    def check_notification(self, method: str, params: JsonValue) -> None:
        """Nothing, as `check_request`."""

    def setup_params(self, method: str, params: JsonObject) -> JsonObject:
        return params

    def setup_done(self, session: ClientSession[Any], result: JsonValue) -> None:
        """Nothing: a v2 setup answer says nothing the session's updates do not."""

    def loads_instead(
        self, session_id: str, params: JsonObject, agent_capabilities: JsonValue
    ) -> bool:
        return False  # v2's resume replays (`replayFrom`) itself

    async def prompt(self, session: ClientSession[Any], blocks: list[JsonValue]) -> str | None:
        """The answer is v2's insertion receipt: its `messageId` names the user message."""
        params = {"sessionId": session.session_id, "prompt": blocks}
        answer = await self._connection.request(SESSION_PROMPT, params)
        message_id = answer.get("messageId") if isinstance(answer, dict) else None
        return message_id if isinstance(message_id, str) else None

    def prompt_capabilities(self, agent_capabilities: JsonValue) -> JsonValue:
        return agent_capabilities
