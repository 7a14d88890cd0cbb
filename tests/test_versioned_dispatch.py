"""Routing a connection's messages by the protocol version negotiated on it."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from acp_codegen.runtime.rpc.dispatch import InlineHandler
from acp_codegen.runtime.rpc.version_router import VersionedDispatcher


class Recorder:
    def __init__(self, name: str, inline: bool = True) -> None:
        self.name = name
        self.seen: list[tuple[str, Any]] = []
        self._inline = inline

    async def handle_request(self, method: str, params: Any) -> Any:
        self.seen.append((method, params))
        return self.name

    async def handle_notification(self, method: str, params: Any) -> None:
        self.seen.append((method, params))

    def inline_notifications(self) -> dict[str, InlineHandler]:
        if not self._inline:
            return {}
        return {"session/update": lambda params: self.seen.append(("inline", params))}


def test_initialize_goes_to_the_version_it_settles_on() -> None:
    one, two = Recorder("v1"), Recorder("v2")
    settled: list[int] = []
    router = VersionedDispatcher(
        {1: one, 2: two},
        version=lambda: settled[0] if settled else None,
        default=2,
        for_initialize=lambda params: min(params["protocolVersion"], 2),
    )
    assert asyncio.run(router.handle_request("initialize", {"protocolVersion": 1})) == "v1"
    assert asyncio.run(router.handle_request("session/new", {})) == "v2"  # not settled yet
    settled.append(1)
    assert asyncio.run(router.handle_request("session/new", {})) == "v1"
    router.inline_notifications()["session/update"]({"x": 1})
    assert one.seen[-1] == ("inline", {"x": 1}) and two.seen[-1] == ("session/new", {})


def test_initialize_after_settling_stays_on_the_settled_version() -> None:
    one, two = Recorder("v1"), Recorder("v2")
    router = VersionedDispatcher(
        {1: one, 2: two}, version=lambda: 2, default=2, for_initialize=lambda params: 1
    )
    assert asyncio.run(router.handle_request("initialize", {"protocolVersion": 1})) == "v2"


def test_inline_only_where_every_version_is_inline() -> None:
    router = VersionedDispatcher(
        {1: Recorder("v1", inline=False), 2: Recorder("v2")}, version=lambda: None, default=2
    )
    assert router.inline_notifications() == {}


def test_default_must_be_served() -> None:
    with pytest.raises(ValueError, match="default version 3"):
        VersionedDispatcher({2: Recorder("v2")}, version=lambda: None, default=3)


class Holder:
    """A connection's dispatcher slot (what `settle` replaces)."""

    def __init__(self) -> None:
        self.dispatcher: Any = None

    def current(self) -> Any:
        return self.dispatcher


def test_answered_initialize_points_the_connection_at_its_version() -> None:
    two = Recorder("v2")
    settled: list[int] = []
    holder = Holder()

    class Negotiating(Recorder):
        async def handle_request(self, method: str, params: Any) -> Any:
            settled.append(1)  # the v1 side records the version it answered with
            return await super().handle_request(method, params)

    one = Negotiating("v1")
    router = VersionedDispatcher(
        {1: one, 2: two},
        version=lambda: settled[0] if settled else None,
        default=2,
        for_initialize=lambda params: 1,
        connection=holder,
    )
    holder.dispatcher = router
    asyncio.run(router.handle_request("session/new", {}))
    assert holder.dispatcher is router  # nothing settled yet: still routing
    assert asyncio.run(router.handle_request("initialize", {"protocolVersion": 1})) == "v1"
    assert holder.current() is one


def test_a_refused_initialize_keeps_routing() -> None:
    holder = Holder()

    class Refusing(Recorder):
        async def handle_request(self, method: str, params: Any) -> Any:
            raise ValueError("no version fits")

    router = VersionedDispatcher(
        {1: Refusing("v1"), 2: Recorder("v2")},
        version=lambda: None,
        default=2,
        for_initialize=lambda params: 1,
        connection=holder,
    )
    holder.dispatcher = router
    with pytest.raises(ValueError, match="no version fits"):
        asyncio.run(router.handle_request("initialize", {"protocolVersion": 1}))
    assert holder.dispatcher is router


def test_settle_leaves_a_wrapped_router_in_place() -> None:
    holder = Holder()
    router = VersionedDispatcher(
        {1: Recorder("v1"), 2: Recorder("v2")}, version=lambda: 2, default=2, connection=holder
    )
    wrapper = Recorder("wrapper")  # something between the connection and the router
    holder.dispatcher = wrapper
    router.settle()
    assert holder.dispatcher is wrapper
