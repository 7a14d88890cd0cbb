"""What the generated proxies need from a connection: send a request, send a notification.

The agent's typed proxy to the client (`Agent.client`) sends through `GatedPeer`: a request
the client did not advertise it takes (an `elicitation/create` in a mode it did not name; the
rules are core/client_gates.py's) is refused with `ClientLacksCapability`, nothing sent.
Everything else goes through as it is."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol

from ..core.client_gates import ClientGates
from ..wire.errors import ProtocolUsageError
from ..wire.jsonvalue import JsonValue


class Peer(Protocol):
    """The other side of a connection, as wire JSON."""

    async def request(self, method: str, params: object) -> JsonValue:
        """Send a request (params: JSON, or a model to convert) and return the result's JSON;
        raises RpcError on an error answer."""
        ...

    async def notify(self, method: str, params: object) -> None:
        """Send a notification (params as for `request`)."""
        ...


def notifier(peer: Peer) -> Callable[[str, object], Awaitable[object]]:
    """How to send notifications whose params are wire JSON already (converted once): a
    connection that can write JSON as it is (`notify_json`) skips its own conversion walk
    (and answers the frame it wrote: bytes; anything else is no frame)."""
    notify_json: Callable[[str, object], Awaitable[object]] | None
    notify_json = getattr(peer, "notify_json", None)
    return notify_json if callable(notify_json) else peer.notify


class ClientLacksCapability(ProtocolUsageError):
    """A request the client did not advertise it can take; nothing was sent. `method` is the
    request's method; the message names the capability."""

    def __init__(self, method: str, why: str) -> None:
        super().__init__(f"{method}: {why}")
        self.method = method


class GatedPeer:
    """`peer`, with each request checked against `gates()` (read at each call: `initialize`
    settles them) first."""

    def __init__(self, peer: Peer, gates: Callable[[], ClientGates]) -> None:
        self._peer = peer
        self._gates = gates

    async def request(self, method: str, params: object) -> JsonValue:
        why = self._gates().refusal(method, params)
        if why is not None:
            raise ClientLacksCapability(method, why)
        return await self._peer.request(method, params)

    async def notify(self, method: str, params: object) -> None:
        await self._peer.notify(method, params)
