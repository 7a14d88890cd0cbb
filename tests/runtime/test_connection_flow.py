"""JSON-RPC connection at wire level: batches, ordering, 64 MiB lines."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from acp_codegen.runtime.wire.errors import RpcError

from .rpc_fixtures import (
    expect_silence,
    handler_of,
    notification,
    request,
    table,
)
from .streams import connected, connection_pair, guard, run

# The reading half's tests: each runs with lines pushed by the transport and pulled.
pytestmark = pytest.mark.usefixtures("reading_modes")

# -- batches ----------------------------------------------------------------------------------


def test_mixed_batch_gets_one_array_with_a_response_per_request_and_invalid_entry() -> None:
    async def scenario() -> None:
        connection, peer = await connected(table)
        await peer.send(
            [
                request(1, "echo", {"text": "a"}),
                notification("note", {"i": 7}),
                {"jsonrpc": "2.0", "id": 2, "method": 3},
                request(3, "echo", {"text": "b", "count": 2}),
                request(4, "nope"),
            ]
        )
        reply = await peer.recv()
        assert isinstance(reply, list)
        assert reply == [
            {"jsonrpc": "2.0", "id": 1, "result": {"text": "a"}},
            {"jsonrpc": "2.0", "id": 2, "error": reply[1]["error"]},
            {"jsonrpc": "2.0", "id": 3, "result": {"text": "bb"}},
            {"jsonrpc": "2.0", "id": 4, "error": reply[3]["error"]},
        ]
        assert reply[1]["error"]["code"] == -32600
        assert reply[3]["error"]["code"] == -32601
        assert handler_of(connection).notes == [7]
        await connection.close()

    run(scenario())


def test_batch_of_only_notifications_gets_no_reply() -> None:
    async def scenario() -> None:
        connection, peer = await connected(table)
        await peer.send([notification("note", {"i": 1}), notification("note", {"i": 2})])
        await expect_silence(peer)
        assert handler_of(connection).notes == [1, 2]
        await connection.close()

    run(scenario())


def test_empty_batch_gets_a_single_invalid_request_error() -> None:
    async def scenario() -> None:
        connection, peer = await connected(table)
        await peer.send([])
        reply = await peer.recv()
        assert isinstance(reply, dict)
        assert reply["id"] is None
        assert reply["error"]["code"] == -32600
        await connection.close()

    run(scenario())


def test_batch_of_invalid_entries_gets_an_error_each() -> None:
    async def scenario() -> None:
        connection, peer = await connected(table)
        await peer.send([1, {"jsonrpc": "2.0"}, {"jsonrpc": "2.0", "id": "q", "method": None}])
        reply = await peer.recv()
        assert [(r["id"], r["error"]["code"]) for r in reply] == [
            (None, -32600),
            (None, -32600),
            ("q", -32600),
        ]
        await connection.close()

    run(scenario())


def test_batched_responses_resolve_pending_requests() -> None:
    async def scenario() -> None:
        connection, peer = await connected()
        first = asyncio.create_task(connection.request("a"))
        second = asyncio.create_task(connection.request("b"))
        sent = [await peer.recv(), await peer.recv()]
        ids = {m["method"]: m["id"] for m in sent}
        await peer.send(
            [
                {"jsonrpc": "2.0", "id": ids["b"], "result": "B"},
                {"jsonrpc": "2.0", "id": ids["a"], "error": {"code": -1, "message": "no"}},
            ]
        )
        assert await guard(second) == "B"
        with pytest.raises(RpcError, match="no"):
            await guard(first)
        await connection.close()

    run(scenario())


# -- ordering ---------------------------------------------------------------------------------


def test_notifications_a_handler_emits_precede_its_response_on_the_wire() -> None:
    async def scenario() -> None:
        connection, peer = await connected(table)
        await peer.send(request(1, "chatty", {}))
        received = [await peer.recv() for _ in range(4)]
        assert received == [
            notification("note", {"i": 0}),
            notification("note", {"i": 1}),
            notification("note", {"i": 2}),
            {"jsonrpc": "2.0", "id": 1, "result": {"done": True}},
        ]
        await connection.close()

    run(scenario())


def test_notifications_are_handled_before_the_response_that_follows_them() -> None:
    async def scenario() -> None:
        client, agent = await connection_pair(left=table, right=table)
        result = await guard(client.request("chatty", {}))
        assert result == {"done": True}
        assert handler_of(client).notes == [0, 1, 2]
        await client.close()
        await agent.wait_closed()

    run(scenario())


def test_notifications_are_handled_one_at_a_time_in_wire_order() -> None:
    async def scenario() -> None:
        connection, peer = await connected(table)
        handler = handler_of(connection)
        handler.note_gate = asyncio.Event()
        await peer.send(notification("note", {"i": 0}), notification("note", {"i": 1}))
        await guard(handler.note_entered.wait())
        assert handler.notes == []  # the second waits for the first, though both arrived
        handler.note_gate.set()
        await expect_silence(peer)
        assert handler.notes == [0, 1]
        await connection.close()

    run(scenario())


def test_a_request_handler_starts_before_the_next_message_is_handled() -> None:
    seen: list[str] = []
    three_seen = asyncio.Event()

    def record(entry: str) -> None:
        seen.append(entry)
        if len(seen) == 3:
            three_seen.set()

    class Recorder:
        async def handle_request(self, method: str, params: Any) -> Any:
            record(f"request {method}")  # before its first suspension point
            await asyncio.Event().wait()

        async def handle_notification(self, method: str, params: Any) -> None:
            record(f"notification {method}")

    async def scenario() -> None:
        connection, peer = await connected(Recorder())
        await peer.send(request(1, "prompt"), notification("cancel"))
        await peer.send(request(2, "other"))
        await guard(three_seen.wait())
        assert seen == ["request prompt", "notification cancel", "request other"]
        await connection.close()

    run(scenario())


# -- large lines ------------------------------------------------------------------------------

BIG = 64 * 1024 * 1024 + 17


def test_a_64_mib_line_is_read_and_written() -> None:
    async def scenario() -> None:
        connection, peer = await connected(table)
        text = "x" * BIG
        await peer.send(request(1, "echo", {"text": text}))
        reply = await peer.recv()
        assert reply["id"] == 1
        assert len(reply["result"]["text"]) == BIG
        assert reply["result"]["text"] == text
        await connection.close()

    run(scenario())


def test_a_64_mib_request_and_result_between_two_connections() -> None:
    async def scenario() -> None:
        client, agent = await connection_pair(right=table)
        text = "é" * (BIG // 2)  # two UTF-8 bytes each: the line is over 64 MiB
        result = await guard(client.request("echo", {"text": text}))
        assert result == {"text": text}
        await client.close()
        await agent.wait_closed()

    run(scenario())
