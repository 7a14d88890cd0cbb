"""Bad wire input, one table: every frame gets the right JSON-RPC error (or a logged drop), and the
connection then serves the next request. docs/robustness.md lists the same rows."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from acp_codegen.runtime.rpc.connection import Connection

from .rpc_fixtures import handler_of, notification, request, table
from .streams import RawPeer, connected, guard, run, stream_pair

# The reading half's tests: each runs with lines pushed by the transport and pulled.
pytestmark = pytest.mark.usefixtures("reading_modes")

DEEP = 10_000
# frame -> the error code of the one reply (None: no reply) and the id it carries
ANSWERED: dict[str, tuple[bytes, int | None, Any]] = {
    "invalid JSON": (b'{"jsonrpc": "2.0", "id": 1,', -32700, None),
    "invalid UTF-8": (b'{"jsonrpc":"2.0","id":1,"method":"echo\xc3\x28"}', -32700, None),
    "NaN": (b'{"jsonrpc":"2.0","id":1,"method":"echo","params":{"count":NaN}}', -32700, None),
    "array nested 10,000 deep": (
        b'{"jsonrpc":"2.0","id":1,"method":"echo","params":' + b"[" * DEEP + b"]" * DEEP + b"}",
        -32700,
        None,
    ),
    "object nested 10,000 deep": (b'{"a":' * DEEP + b"1" + b"}" * DEEP, -32700, None),
    "a number": (b"5", -32600, None),
    "null": (b"null", -32600, None),
    "a string": (b'"echo"', -32600, None),
    "missing jsonrpc": (b'{"id":7,"method":"echo","params":{"text":"a"}}', -32600, 7),
    "jsonrpc 1.0": (b'{"jsonrpc":"1.0","id":7,"method":"echo"}', -32600, 7),
    "id is a float": (b'{"jsonrpc":"2.0","id":1.5,"method":"echo"}', -32600, None),
    "id is a boolean": (b'{"jsonrpc":"2.0","id":true,"method":"echo"}', -32600, None),
    "id is an object": (b'{"jsonrpc":"2.0","id":{"a":1},"method":"echo"}', -32600, None),
    "method is a number": (b'{"jsonrpc":"2.0","id":4,"method":4}', -32600, 4),
    "params is a string": (b'{"jsonrpc":"2.0","id":4,"method":"echo","params":"x"}', -32600, 4),
    "params is an array of the wrong shape": (
        b'{"jsonrpc":"2.0","id":4,"method":"echo","params":[1,2]}',
        -32602,
        4,
    ),
    "params of the wrong types": (
        b'{"jsonrpc":"2.0","id":4,"method":"echo","params":{"text":5,"count":"x"}}',
        -32602,
        4,
    ),
    "unknown method": (b'{"jsonrpc":"2.0","id":4,"method":"no/such","params":{}}', -32601, 4),
    "a response to an unknown id": (b'{"jsonrpc":"2.0","id":999,"result":{}}', None, None),
    "an error response to an unknown id": (
        b'{"jsonrpc":"2.0","id":"zz","error":{"code":1,"message":"x"}}',
        None,
        None,
    ),
    "a response with a bad error object": (
        b'{"jsonrpc":"2.0","id":998,"error":"not an object"}',
        None,
        None,
    ),
    "an unknown notification": (b'{"jsonrpc":"2.0","method":"no/such","params":{}}', None, None),
    "a notification with bad params": (
        b'{"jsonrpc":"2.0","method":"note","params":{"i":"x"}}',
        None,
        None,
    ),
    "a blank line": (b"   ", None, None),
}


@pytest.mark.parametrize("case", sorted(ANSWERED))
def test_bad_frame_gets_its_answer_and_the_next_request_is_served(case: str) -> None:
    frame, code, reply_id = ANSWERED[case]

    async def scenario() -> None:
        connection, peer = await connected(table)
        await peer.send_bytes(frame + b"\n")
        await peer.send(request("next", "echo", {"text": "ok"}))
        if code is not None:
            reply = await peer.recv()
            assert (reply["id"], reply["error"]["code"]) == (reply_id, code), reply
        assert await peer.recv() == {"jsonrpc": "2.0", "id": "next", "result": {"text": "ok"}}
        assert not connection.closed
        await connection.close()

    run(scenario())


def test_a_response_to_an_unknown_id_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    async def scenario() -> None:
        connection, peer = await connected(table)
        await peer.send({"jsonrpc": "2.0", "id": 999, "result": {}})
        await peer.send(request("next", "echo", {"text": "ok"}))
        await peer.recv()
        await connection.close()

    with caplog.at_level(logging.WARNING):
        run(scenario())
    assert "unknown request id 999" in caplog.text


def test_duplicate_request_ids_each_get_exactly_one_answer() -> None:
    """JSON-RPC asks for unique ids; a peer that reuses one still gets one answer per request."""

    async def scenario() -> None:
        connection, peer = await connected(table)
        await peer.send(
            request(1, "echo", {"text": "a"}),
            request(1, "echo", {"text": "b"}),
            request(1, "boom", {}),
        )
        replies = [await peer.recv() for _ in range(3)]
        assert sorted(str(r.get("result") or r["error"]["code"]) for r in replies) == [
            "-32603",
            "{'text': 'a'}",
            "{'text': 'b'}",
        ]
        assert all(r["id"] == 1 for r in replies)
        await connection.close()

    run(scenario())


def test_a_line_over_the_limit_across_many_reads_is_skipped_and_the_next_served() -> None:
    """8 MiB against a 1 MiB limit: dropped while it streams in (never buffered whole)."""

    async def scenario() -> None:
        (reader, writer), (peer_reader, peer_writer) = await stream_pair()
        connection = Connection(reader, writer, max_line_bytes=1 << 20)
        connection.dispatcher = table(connection)
        connection.start()
        peer = RawPeer(peer_reader, peer_writer)
        await peer.send(request(1, "echo", {"text": "y" * (8 << 20)}))
        await peer.send(request(2, "echo", {"text": "ok"}))
        reply = await peer.recv()
        assert (reply["id"], reply["error"]["code"]) == (None, -32700)
        assert await peer.recv() == {"jsonrpc": "2.0", "id": 2, "result": {"text": "ok"}}
        await connection.close()

    run(scenario())


def test_a_stream_cut_mid_line_answers_a_parse_error_then_closes_cleanly() -> None:
    async def scenario() -> None:
        connection, peer = await connected(table)
        await peer.send(notification("note", {"i": 1}))
        await peer.send_bytes(b'{"jsonrpc":"2.0","method":"note","params":{"i":')
        peer.writer.write_eof()
        reply = await peer.recv()
        assert (reply["id"], reply["error"]["code"]) == (None, -32700)
        await guard(connection.wait_closed())
        assert handler_of(connection).notes == [1]  # what arrived whole was handled
        assert await peer.at_eof()

    run(scenario())


def test_a_batch_right_before_end_of_stream_is_still_answered() -> None:
    """`printf '[...]' | agent`: the handlers finish at once, so the answer goes out before
    end of stream closes the connection (it used to be dropped with the pending write)."""

    async def scenario() -> None:
        connection, peer = await connected(table)
        await peer.send([request(1, "echo", {"text": "a"}), notification("note", {"i": 1})])
        peer.writer.write_eof()
        assert await peer.recv() == [{"jsonrpc": "2.0", "id": 1, "result": {"text": "a"}}]
        await guard(connection.wait_closed())

    run(scenario())
