"""What the generated proxies need from a connection: send a request, send a notification."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol


class Peer(Protocol):
    """The other side of a connection, as wire JSON."""

    async def request(self, method: str, params: Any) -> Any:
        """Send a request and return the result's JSON; raises RpcError on an error answer."""
        ...

    async def notify(self, method: str, params: Any) -> None:
        """Send a notification."""
        ...


def notifier(peer: Peer) -> Callable[[str, Any], Awaitable[None]]:
    """How to send notifications whose params are wire JSON already (converted once): a
    connection that can write JSON as it is (`notify_json`) skips its own conversion walk."""
    notify_json = getattr(peer, "notify_json", None)
    return notify_json if callable(notify_json) else peer.notify
