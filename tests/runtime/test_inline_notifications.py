"""Notifications a dispatcher handles synchronously (`inline_notifications`) behave as when
awaited: same order, same checks and repairs, failures logged, the connection reads on."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from acp_codegen.runtime.rpc.connection import CANCEL_REQUEST_METHOD, Connection
from acp_codegen.runtime.rpc.dispatch import (
    InlineHandler,
    TableDispatcher,
    ValidatingDispatcher,
    inline_notifications,
)
from pydantic import ValidationError

from .rpc_fixtures import METHODS, Handler, expect_silence, notification, request
from .streams import connected, run

# The reading half's tests: each runs with lines pushed by the transport and pulled.
pytestmark = pytest.mark.usefixtures("reading_modes")


class Recorder:
    """A dispatcher that handles `note` both ways and records which way each one came."""

    def __init__(self, connection: Connection, *, inline: bool = True) -> None:
        self.table = TableDispatcher(METHODS, Handler(connection))
        self.inline = inline
        self.seen: list[tuple[str, Any]] = []

    async def handle_request(self, method: str, params: Any) -> Any:
        return await self.table.handle_request(method, params)

    async def handle_notification(self, method: str, params: Any) -> None:
        self.seen.append(("awaited", params))

    def inline_notifications(self) -> dict[str, InlineHandler]:
        if not self.inline:
            return {}
        return {"note": self._note, "explode": self._explode, CANCEL_REQUEST_METHOD: self._note}

    def _note(self, params: Any) -> None:
        self.seen.append(("inline", params))

    def _explode(self, params: Any) -> None:
        raise RuntimeError("handler failed")


def test_offered_notifications_are_handled_inline_in_wire_order() -> None:
    async def scenario() -> None:
        connection, peer = await connected(Recorder)
        recorder = connection.dispatcher
        assert isinstance(recorder, Recorder)
        await peer.send(
            notification("note", {"i": 1}),
            notification("other", {"i": 2}),
            notification("note", {"i": 3}),
            [notification("note", {"i": 4})],  # in a batch too
        )
        await expect_silence(peer)
        assert recorder.seen == [
            ("inline", {"i": 1}),
            ("awaited", {"i": 2}),
            ("inline", {"i": 3}),
            ("inline", {"i": 4}),
        ]
        await connection.close()

    run(scenario())


def test_a_failing_inline_handler_is_logged_and_reading_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def scenario() -> None:
        connection, peer = await connected(Recorder)
        recorder = connection.dispatcher
        assert isinstance(recorder, Recorder)
        with caplog.at_level(logging.ERROR):
            await peer.send(notification("explode", {}), notification("note", {"i": 1}))
            await expect_silence(peer)
        assert recorder.seen == [("inline", {"i": 1})]
        assert "notification handler for 'explode' failed" in caplog.text
        await connection.close()

    run(scenario())


def test_cancel_request_stays_the_connections_own() -> None:
    """A dispatcher cannot take `$/cancel_request` inline: the connection still cancels."""

    async def scenario() -> None:
        connection, peer = await connected(Recorder)
        recorder = connection.dispatcher
        assert isinstance(recorder, Recorder)
        await peer.send(request(7, "block", {}))
        await peer.send(notification(CANCEL_REQUEST_METHOD, {"requestId": 7}))
        answer = await peer.recv()
        assert answer["id"] == 7 and answer["error"]["code"] == -32800
        assert recorder.seen == []
        await connection.close()

    run(scenario())


def test_the_table_is_read_when_the_dispatcher_is_assigned() -> None:
    async def scenario() -> None:
        connection, peer = await connected(lambda c: Recorder(c, inline=False))
        await peer.send(notification("note", {"i": 1}))
        await expect_silence(peer)
        first = connection.dispatcher
        assert isinstance(first, Recorder)
        assert first.seen == [("awaited", {"i": 1})]
        second = Recorder(connection)
        connection.dispatcher = second
        await peer.send(notification("note", {"i": 2}))
        await expect_silence(peer)
        assert second.seen == [("inline", {"i": 2})]
        connection.dispatcher = None
        await peer.send(notification("note", {"i": 3}), request(9, "echo", {"text": "s"}))
        answer = await peer.recv()  # no dispatcher: the note ignored, the request refused
        assert answer["id"] == 9 and answer["error"]["code"] == -32601
        assert second.seen == [("inline", {"i": 2})]
        await connection.close()

    run(scenario())


class Inner:
    """What a validating dispatcher wraps: records what reaches it, either way."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, Any]] = []

    async def handle_request(self, method: str, params: Any) -> Any:
        return None

    async def handle_notification(self, method: str, params: Any) -> None:
        self.seen.append((method, params))

    def inline_notifications(self) -> dict[str, InlineHandler]:
        return {"note": lambda params: self.seen.append(("note", params))}


def _repair(params: Any, error: ValidationError) -> Any | None:
    """Repairs a string `i` (and nothing else)."""
    if isinstance(params, dict) and isinstance(params.get("i"), str) and params["i"].isdigit():
        return {**params, "i": int(params["i"])}
    return None


@pytest.mark.parametrize("path", ["awaited", "inline"])
def test_validating_dispatcher_checks_and_repairs_the_same_either_way(
    path: str, caplog: pytest.LogCaptureFixture
) -> None:
    inner = Inner()
    dispatcher = ValidatingDispatcher(METHODS, inner, {"note": _repair})
    handlers = inline_notifications(dispatcher)
    assert set(handlers) == {"note"}

    async def send(params: Any) -> None:
        if path == "inline":
            handlers["note"](params)
        else:
            await dispatcher.handle_notification("note", params)

    async def scenario() -> None:
        await send({"i": 1})
        await send({"i": "2"})  # repaired
        await send({"i": "x"})  # dropped, logged
        await send({"i": 3, "extra": True})  # the model ignores extras: passes as it came

    with caplog.at_level(logging.WARNING):
        run(scenario())
    assert inner.seen == [("note", {"i": 1}), ("note", {"i": 2}), ("note", {"i": 3, "extra": True})]
    assert "dropping notification 'note' with invalid params" in caplog.text


def test_a_client_forwarding_updates_offers_nothing_inline() -> None:
    """An author's `session_update` handler must be awaited: then nothing is handled inline."""
    from acp_codegen.runtime.client.client_side import ClientSide
    from acp_codegen.runtime.wire.protocol import SESSION_UPDATE

    async def scenario() -> None:
        connection, _peer = await connected()
        plain = ClientSide(connection, info={}, rules={})
        forwarding = ClientSide(
            connection, info={}, rules={}, fallback=Inner(), forward_updates=True
        )
        assert set(inline_notifications(plain)) == {SESSION_UPDATE}
        assert inline_notifications(forwarding) == {}
        await connection.close()

    run(scenario())
