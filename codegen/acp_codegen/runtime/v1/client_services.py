"""v1's client-side services for the agent's author: the file system (`fs/read_text_file`,
`fs/write_text_file`) and terminals (`terminal/create`, `output`, `wait_for_exit`, `kill`,
`release`). A v1 client serves them when it advertises them in `clientCapabilities`; v2
removed them.

`ServicesPeer` is what the generated typed proxy (`Agent.client_services`, the v1 package's
`ClientProxy`) sends through: each call is checked first, and refused with
`ClientServiceUnavailable` (nothing sent) when the connection is not v1, when the client did
not advertise the capability the method needs (the error names it), or when the method is not
one of these services.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..rpc.peer import Peer
from ..wire.errors import ProtocolUsageError
from .constants import SERVICE_CAPABILITY, V1


class ClientServiceUnavailable(ProtocolUsageError):
    """A client service the connection cannot offer (not v1, not advertised, or no service at
    all); nothing was sent. `method` is the service asked for."""

    def __init__(self, method: str, why: str) -> None:
        super().__init__(f"{method}: {why}")
        self.method = method


def refusal(method: str, version: int | None, capabilities: Any) -> str | None:
    """Why `method` cannot be sent on a connection of `version` whose client advertised
    `capabilities` (v1's `clientCapabilities`), or None when it can."""
    path = SERVICE_CAPABILITY.get(method)
    if path is None:
        return "not a client service (file system or terminal); nothing to send"
    if version is None:
        return "the connection is not initialized yet"
    if version != V1:
        return (
            f"this connection speaks protocol version {version}, which has no client "
            "services (upstream removed them after v1)"
        )
    value: Any = capabilities
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    if value is not True:
        return f"the client did not advertise clientCapabilities.{'.'.join(path)}"
    return None


class ServicesPeer:
    """A `Peer` for the typed v1 proxy that lets only the client services through, and only
    those the connection's client offers. `version` and `capabilities` are read at each call
    (they are settled by `initialize`)."""

    def __init__(
        self,
        peer: Peer,
        version: Callable[[], int | None],
        capabilities: Callable[[], Any],
    ) -> None:
        self._peer = peer
        self._version = version
        self._capabilities = capabilities

    async def request(self, method: str, params: Any) -> Any:
        why = refusal(method, self._version(), self._capabilities())
        if why is not None:
            raise ClientServiceUnavailable(method, why)
        return await self._peer.request(method, params)

    async def notify(self, method: str, params: Any) -> None:
        raise ClientServiceUnavailable(method, "not a client service; nothing to send")
