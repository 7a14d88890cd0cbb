"""Faults around a connection: a handler that raises, hangs or is cancelled, a peer that dies,
stops reading or answers late, a local side that exits with requests in flight. No hang, no lost
notification, a clear error for the caller, and every request answered exactly once."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from acp_codegen.runtime.rpc.connection import _BURST_BYTES, Connection
from acp_codegen.runtime.rpc.dispatch import TableDispatcher
from acp_codegen.runtime.wire.errors import ConnectionClosed, RpcError

from .rpc_fixtures import METHODS, Handler, handler_of, notification, request, table
from .streams import connected, guard, run

# The reading half's tests: each runs with lines pushed by the transport and pulled.
pytestmark = pytest.mark.usefixtures("reading_modes")


class StalledSink:
    """A transport whose peer stopped reading: writes pile up in a buffer until the high-water
    mark, then `drain()` blocks until `release()`, as asyncio's own writer does."""

    HIGH_WATER = 64 << 10

    def __init__(self) -> None:
        self.buffered = 0
        self.peak = 0
        self.frames = 0
        self.blocked = asyncio.Event()
        self._released = asyncio.Event()
        self._closed = False

    def write(self, data: bytes) -> None:
        self.buffered += len(data)
        self.peak = max(self.peak, self.buffered)
        self.frames += data.count(b"\n")  # one per message: a burst's write holds several

    async def drain(self) -> None:
        if self.buffered > self.HIGH_WATER:
            self.blocked.set()
            await self._released.wait()
            self.buffered = 0

    def release(self) -> None:
        self._released.set()

    def close(self) -> None:
        self._closed = True

    def is_closing(self) -> bool:
        return self._closed


def test_a_peer_that_stops_reading_holds_the_sender_at_the_high_water_mark() -> None:
    """Back-pressure: the streaming side waits in drain(); memory stays at one buffer's worth."""

    async def scenario() -> None:
        sink = StalledSink()
        connection = Connection(asyncio.StreamReader(), sink)
        chunk = "x" * 1024

        async def stream() -> None:
            for i in range(10_000):  # 10 MiB if nothing held it back
                await connection.notify("session/update", {"i": i, "text": chunk})

        streaming = asyncio.create_task(stream())
        await guard(sink.blocked.wait())
        assert not streaming.done()
        # One write past the mark, no more: a frame, or a burst of them (`_BURST_BYTES` and the
        # frame that took it over).
        assert sink.peak <= StalledSink.HIGH_WATER + _BURST_BYTES + 2048
        sink.release()
        await guard(streaming)
        assert sink.frames == 10_000
        await connection.close()

    run(scenario())


def test_a_handler_raising_cancelled_error_itself_still_gets_answered() -> None:
    class Spontaneous(Handler):
        async def boom(self, *, params: Any) -> None:
            raise asyncio.CancelledError

    async def scenario() -> None:
        connection, peer = await connected(lambda c: table_with(c, Spontaneous))
        await peer.send(request(1, "boom", {}), request(2, "echo", {"text": "ok"}))
        replies = {r["id"]: r for r in [await peer.recv(), await peer.recv()]}
        assert replies[1]["error"]["code"] == -32603
        assert replies[2]["result"] == {"text": "ok"}
        await connection.close()

    run(scenario())


def table_with(connection: Connection, handler: type[Handler]) -> TableDispatcher:
    return TableDispatcher(METHODS, handler(connection))


def test_peer_dying_mid_turn_keeps_what_arrived_and_fails_the_caller() -> None:
    async def scenario() -> None:
        connection, peer = await connected(table)
        pending = asyncio.create_task(connection.request("session/request_permission", {}))
        asked = await peer.recv()
        assert asked["method"] == "session/request_permission"
        await peer.send(*(notification("note", {"i": i}) for i in range(3)))
        peer.close()  # the process died: its last notifications were on the wire
        try:
            await guard(pending)
        except ConnectionClosed as closed:
            assert "end of stream" in str(closed)
        else:
            raise AssertionError("the request to a dead peer did not fail")
        assert handler_of(connection).notes == [0, 1, 2]

    run(scenario())


def test_a_late_answer_after_the_caller_gave_up_is_dropped_and_the_connection_goes_on() -> None:
    async def scenario() -> None:
        connection, peer = await connected(table)
        pending = asyncio.create_task(connection.request("slow", {}))
        asked = await peer.recv()
        pending.cancel()
        cancel = await peer.recv()
        assert cancel == notification("$/cancel_request", {"requestId": asked["id"]})
        await peer.send({"jsonrpc": "2.0", "id": asked["id"], "result": {"late": True}})
        await peer.send(request("next", "echo", {"text": "ok"}))
        assert (await peer.recv())["result"] == {"text": "ok"}
        answered = asyncio.create_task(connection.request("slow", {}))
        asked = await peer.recv()
        await peer.send(notification("note", {"i": 9}))
        await peer.send({"jsonrpc": "2.0", "id": asked["id"], "result": {"late": "but fine"}})
        assert await guard(answered) == {"late": "but fine"}
        assert handler_of(connection).notes == [9]
        await connection.close()

    run(scenario())


def test_exiting_with_requests_in_flight_fails_them_and_cancels_running_handlers() -> None:
    async def scenario() -> None:
        connection, peer = await connected(table)
        await peer.send(request(1, "block", {}))
        handler = handler_of(connection)
        await guard(handler.block_started.wait())
        outgoing = [asyncio.create_task(connection.request("x", {"n": n})) for n in range(3)]
        for _ in outgoing:
            await peer.recv()
        await guard(connection.close())
        results = await asyncio.gather(*outgoing, return_exceptions=True)
        assert all(isinstance(r, ConnectionClosed) for r in results), results
        assert handler.block_cancelled
        assert await peer.at_eof()
        try:
            await connection.request("after", {})
        except ConnectionClosed:
            pass
        else:
            raise AssertionError("a closed connection accepted a request")

    run(scenario())


def test_an_error_answer_reaches_the_caller_as_rpc_error() -> None:
    async def scenario() -> None:
        connection, peer = await connected(table)
        pending = asyncio.create_task(connection.request("x", {}))
        asked = await peer.recv()
        error = {"code": -32000, "message": "nope", "data": {"why": "because"}}
        await peer.send({"jsonrpc": "2.0", "id": asked["id"], "error": error})
        try:
            await guard(pending)
        except RpcError as raised:
            assert (raised.code, raised.data) == (-32000, {"why": "because"})
        else:
            raise AssertionError("an error answer did not raise")
        await connection.close()

    run(scenario())
