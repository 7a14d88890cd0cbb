"""What the generated proxies need from a connection: send a request, send a notification."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol

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


def notifier(peer: Peer) -> Callable[[str, object], Awaitable[None]]:
    """How to send notifications whose params are wire JSON already (converted once): a
    connection that can write JSON as it is (`notify_json`) skips its own conversion walk."""
    notify_json: Callable[[str, object], Awaitable[None]] | None
    notify_json = getattr(peer, "notify_json", None)
    return notify_json if callable(notify_json) else peer.notify
