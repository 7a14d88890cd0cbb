"""One connection, the protocol version negotiated on it: route each incoming message to the
dispatcher of that version (its schema's checks in front of its wire dialect).

Which version's dispatcher takes a message is the core's rule (`core.versions`): before a
version is settled, an `initialize` request goes to the dispatcher of the version it will
settle on (`for_initialize` reads that from the params: the agent side negotiates, so a v1
client's `initialize` is checked against v1's types); anything else goes to `default`.
Notifications are handled inline (without a coroutine) only where every version's dispatcher
can, so which version is current never changes whether a message is awaited.

Once the version is settled nothing needs routing: given the `connection` it serves, `settle()`
makes the connection talk to the settled version's dispatcher directly, so no message pays the
router's hop after `initialize` (a few percent of a streamed update). The agent side settles
when it has answered `initialize`; the client side when it reads the version from the answer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol

from ..core.versions import initialize_version, routed_version
from ..wire.jsonvalue import JsonParams, JsonValue
from ..wire.protocol import INITIALIZE
from .dispatch import Dispatcher, InlineHandler, inline_notifications, synchronous_requests


class Routed(Protocol):
    """What `settle` needs of a connection: the dispatcher it hands messages to."""

    dispatcher: Dispatcher | None


class VersionedDispatcher:
    """`by_version` maps each served version to its dispatcher; `version()` is the version
    settled on this connection (None before); `default` is used until then. `connection`: the
    one this routes for, which `settle()` then points at the settled dispatcher."""

    def __init__(
        self,
        by_version: Mapping[int, Dispatcher],
        *,
        version: Callable[[], int | None],
        default: int,
        for_initialize: Callable[[JsonValue], int] | None = None,
        connection: Routed | None = None,
    ) -> None:
        if default not in by_version:
            raise ValueError(f"default version {default} has no dispatcher")
        self._by_version = dict(by_version)
        self._version = version
        self._default = default
        self._for_initialize = for_initialize
        self._connection = connection

    def current(self) -> Dispatcher:
        return self._by_version[routed_version(self._version(), self._default)]

    def settle(self) -> None:
        """Once a version is settled, hand the connection its dispatcher, if this router is
        still the connection's (a wrapper around it keeps routing through it: still right)."""
        settled = self._version()
        connection = self._connection
        # A peer without a `dispatcher` (a test's stand-in, a user's own transport) keeps routing.
        if settled is None or connection is None:
            return
        if getattr(connection, "dispatcher", None) is self:
            connection.dispatcher = self._by_version[settled]

    async def handle_request(self, method: str, params: JsonParams) -> object:
        if method != INITIALIZE:
            return await self.current().handle_request(method, params)
        try:
            settled, negotiate = self._version(), self._for_initialize
            # Negotiating raises its own error (-32022, -32602) when no version fits.
            will_settle_on = negotiate(params) if negotiate and settled is None else None
            version = initialize_version(settled, self._default, will_settle_on, self._by_version)
            return await self._by_version[version].handle_request(method, params)
        finally:
            self.settle()  # answered (or refused): a version it settled needs no routing now

    async def handle_notification(self, method: str, params: JsonParams) -> None:
        await self.current().handle_notification(method, params)

    def synchronous_requests(self) -> frozenset[str]:
        """Those every version answers without suspending (routing itself never does)."""
        return frozenset.intersection(
            *(synchronous_requests(dispatcher) for dispatcher in self._by_version.values())
        )

    def inline_notifications(self) -> dict[str, InlineHandler]:
        offered = {
            version: inline_notifications(dispatcher)
            for version, dispatcher in self._by_version.items()
        }
        shared = set.intersection(*(set(handlers) for handlers in offered.values()))
        return {method: self._inline(method, offered) for method in sorted(shared)}

    def _inline(self, method: str, offered: dict[int, dict[str, InlineHandler]]) -> InlineHandler:
        by_version = {version: handlers[method] for version, handlers in offered.items()}
        version, default = self._version, self._default

        def route(params: JsonParams) -> object:
            # routed_version's rule, inlined: this runs per notification until the version
            # settles (and for good where the connection kept the router's inline handlers).
            settled = version()
            return by_version[default if settled is None else settled](params)

        return route
