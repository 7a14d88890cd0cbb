"""Routing a connection's messages by the protocol version negotiated on it."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from acp_codegen.runtime.dispatch import InlineHandler
from acp_codegen.runtime.versioned import VersionedDispatcher


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
