"""What the generated proxies need from a connection: send a request, send a notification."""

from __future__ import annotations

from typing import Any, Protocol


class Peer(Protocol):
    """The other side of a connection, as wire JSON."""

    async def request(self, method: str, params: Any) -> Any:
        """Send a request and return the result's JSON; raises RpcError on an error answer."""
        ...

    async def notify(self, method: str, params: Any) -> None:
        """Send a notification."""
        ...
