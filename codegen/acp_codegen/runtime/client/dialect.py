"""What `ClientSide` needs of another protocol version's wire: the `ClientDialect` seam.

The client lifecycle keeps the sessions, their states and the permission requests whatever
version the agent speaks; a dialect (v1's is `v1.client_wire.V1ClientWire`) reads that
version's messages into them and writes what that version expects. The dependency points up:
this floor names the seam, the dialect's floor implements it, and the generated `Client` hands
`ClientSide` the dialect's tables (`DialectTables`), so this floor never imports v1.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, Any, Protocol

from ..rpc.dispatch import Dispatcher

if TYPE_CHECKING:
    from .client_session import ClientSession


class ClientDialect(Protocol):
    """One `ClientSide`'s speaker of another version (see `v1.client_wire` for what each does)."""

    capabilities: dict[str, Any]  # the `clientCapabilities` that version's agents read

    def checked(self) -> Dispatcher: ...
    def check_request(self, method: str, params: Any) -> None: ...
    def check_notification(self, method: str, params: Any) -> None: ...
    def setup_params(self, method: str, params: dict[str, Any]) -> dict[str, Any]: ...
    def setup_done(self, session: ClientSession[Any], result: Any) -> None: ...
    def loads_instead(
        self, session_id: str, params: dict[str, Any], agent_capabilities: Any
    ) -> bool: ...
    async def prompt(self, session: ClientSession[Any], blocks: list[Any]) -> str: ...
    def prompt_capabilities(self, agent_capabilities: Any) -> dict[str, Any]:
        """The agent's prompt capabilities in v2's form (one check of prompt content)."""
        ...


class DialectTables(Protocol):
    """What the generated bindings of that version give `ClientSide` (`v1=V1Tables(...)`)."""

    def dialect(
        self, client: Any, *, services: Dispatcher | None, handled: Collection[str]
    ) -> ClientDialect:
        """The dialect of `client` (a `ClientSide`); `services` answers that version's client
        requests, `handled` names the ones it answers."""
        ...
