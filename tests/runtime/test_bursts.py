"""Notifications sent in a burst (without yielding to the event loop) share writes: fewer
transport calls, the same bytes in the same order, nothing held back once the loop runs, and a
response or a close still comes after them."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest
from acp_codegen.runtime.rpc import connection as connection_module
from acp_codegen.runtime.rpc.connection import _BURST_BYTES, _BURST_SECONDS, Connection

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


def test_a_burst_shares_writes_keeps_order_and_is_written_when_the_loop_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A stopped clock: only size and the loop end bursts here (a loaded machine can take a
    # millisecond between two sends, which would end them by time, tested below).
    monkeypatch.setattr(connection_module, "time", SimpleNamespace(monotonic=lambda: 100.0))

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


def test_a_notification_long_after_the_last_write_goes_out_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An author blocking the loop between chunks (a synchronous model stream) still gets each
    chunk out as it comes: the clock, not the loop, ends the burst."""
    clock = [100.0]
    monkeypatch.setattr(connection_module, "time", SimpleNamespace(monotonic=lambda: clock[0]))

    async def scenario() -> None:
        sink = RecordingSink()
        connection = Connection(asyncio.StreamReader(), sink)
        await connection.notify("n", {"i": 0})  # the first: out at once
        await connection.notify("n", {"i": 1})  # at the same instant: held
        assert len(sink.messages()) == 1
        clock[0] += _BURST_SECONDS  # the author kept the loop busy this long
        await connection.notify("n", {"i": 2})  # out at once, after the held one
        assert [m["params"]["i"] for m in sink.messages()] == [0, 1, 2]  # type: ignore[index]

    run(scenario())
