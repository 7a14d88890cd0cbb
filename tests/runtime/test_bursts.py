"""Notifications sent in a burst (without yielding to the event loop) share writes: fewer
transport calls, the same bytes in the same order, nothing held back once the loop runs, and a
response or a close still comes after them."""

from __future__ import annotations

import asyncio

from acp_codegen.runtime.connection import _BURST_BYTES, Connection

from .streams import RecordingSink, run


def test_a_lone_notification_is_written_before_notify_returns() -> None:
    async def scenario() -> None:
        sink = RecordingSink()
        connection = Connection(asyncio.StreamReader(), sink)
        for i in range(3):
            await connection.notify("n", {"i": i})
            assert sink.messages()[-1]["params"] == {"i": i}  # out before notify returned
            await asyncio.sleep(0)  # the loop runs: the next one starts a burst of its own
        assert len(sink.writes) == 3

    run(scenario())


def test_a_burst_shares_writes_keeps_order_and_is_written_when_the_loop_runs() -> None:
    async def scenario() -> None:
        sink = RecordingSink()
        connection = Connection(asyncio.StreamReader(), sink)
        count = 1000
        for i in range(count):
            await connection.notify("n", {"i": i, "text": "token "})
        held = len(sink.messages())
        assert held < count  # the tail of the burst waits for the loop
        await asyncio.sleep(0)
        assert [m["params"]["i"] for m in sink.messages()] == list(range(count))  # type: ignore[index]
        assert len(sink.writes) < count / 10  # whole bursts of about _BURST_BYTES per write
        assert max(len(w) for w in sink.writes) < _BURST_BYTES + 1024

    run(scenario())


def test_a_response_and_a_large_frame_come_after_the_burst_before_them() -> None:
    async def scenario() -> None:
        sink = RecordingSink()
        connection = Connection(asyncio.StreamReader(), sink)
        for i in range(5):
            await connection.notify("n", {"i": i})
        await connection._write_message({"jsonrpc": "2.0", "id": 7, "result": {}})
        await connection.notify("n", {"i": 5})
        await connection.notify("n", {"i": 6, "big": "x" * (2 * _BURST_BYTES)})
        order = [m["id"] if "id" in m else m["params"]["i"] for m in sink.messages()]  # type: ignore[index]
        assert order == [0, 1, 2, 3, 4, 7, 5, 6]  # all out already: nothing waits on the loop

    run(scenario())


def test_close_writes_what_the_burst_holds_before_closing_the_writer() -> None:
    async def scenario() -> None:
        sink = RecordingSink()
        connection = Connection(asyncio.StreamReader(), sink)
        connection.start()
        for i in range(50):
            await connection.notify("n", {"i": i})
        await connection.close()
        assert sink.closed
        assert [m["params"]["i"] for m in sink.messages()] == list(range(50))  # type: ignore[index]

    run(scenario())
