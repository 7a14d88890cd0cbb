"""JSON-RPC connection at wire level: error codes, cancellation, closing."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from acp_codegen.runtime.rpc.connection import Connection
from acp_codegen.runtime.rpc.dispatch import TableDispatcher
from acp_codegen.runtime.wire.errors import ConnectionClosed, RpcError

from .rpc_fixtures import (
    METHODS,
    Handler,
    expect_silence,
    handler_of,
    notification,
    request,
    table,
)
from .streams import RawPeer, connected, connection_pair, guard, run, stream_pair

# The reading half's tests: each runs with lines pushed by the transport and pulled.
pytestmark = pytest.mark.usefixtures("reading_modes")

# -- error codes ------------------------------------------------------------------------------


def test_success_result_and_pydantic_results_dumped_by_alias() -> None:
    async def scenario() -> None:
        connection, peer = await connected(table)
        await peer.send(request(1, "echo", {"text": "ab", "count": 2}))
        assert await peer.recv() == {"jsonrpc": "2.0", "id": 1, "result": {"text": "abab"}}
        await peer.send(request("x", "model_result", {"text": "m"}))
        assert await peer.recv() == {
            "jsonrpc": "2.0",
            "id": "x",
            "result": {"text": "m", "count": 1},
        }
        await connection.close()

    run(scenario())


@pytest.mark.parametrize("line", [b"{not json\n", b"\xff\xfe{}\n", b'{"a": NaN}\n'])
def test_parse_error_answers_minus_32700_with_null_id(line: bytes) -> None:
    async def scenario() -> None:
        connection, peer = await connected(table)
        await peer.send_bytes(line)
        reply = await peer.recv()
        assert reply["id"] is None
        assert reply["error"]["code"] == -32700
        await expect_silence(peer)  # the connection keeps going
        await connection.close()

    run(scenario())


@pytest.mark.parametrize(
    ("message", "expected_id"),
    [
        ({"jsonrpc": "2.0", "id": 5, "method": 7}, 5),
        ({"jsonrpc": "2.0", "id": 6, "method": "echo", "params": "text"}, 6),
        ({"id": 7, "method": "echo", "params": {"text": "a"}}, 7),
        ({"jsonrpc": "2.0", "id": [1], "method": "echo"}, None),
        ({"jsonrpc": "2.0", "foo": 1}, None),
        ("just a string", None),
    ],
)
def test_invalid_request_answers_minus_32600(message: Any, expected_id: Any) -> None:
    async def scenario() -> None:
        connection, peer = await connected(table)
        await peer.send(message)
        reply = await peer.recv()
        assert reply["id"] == expected_id
        assert reply["error"]["code"] == -32600
        await connection.close()

    run(scenario())


@pytest.mark.parametrize("method", ["no/such_method", "_vendor/thing", "note"])
def test_unknown_method_answers_minus_32601(method: str) -> None:
    async def scenario() -> None:
        connection, peer = await connected(table)
        await peer.send(request(3, method, {}))
        reply = await peer.recv()
        assert reply["id"] == 3
        assert reply["error"]["code"] == -32601
        assert reply["error"]["data"] == {"method": method}
        await connection.close()

    run(scenario())


def test_unknown_extension_notification_is_silently_ignored() -> None:
    async def scenario() -> None:
        connection, peer = await connected(table)
        await peer.send(notification("_vendor/ping", {"x": 1}), notification("not/known"))
        await expect_silence(peer)
        await connection.close()

    run(scenario())


def test_extension_methods_reach_ext_hooks() -> None:
    class WithExtensions(Handler):
        def __init__(self, connection: Connection) -> None:
            super().__init__(connection)
            self.ext_notes: list[tuple[str, Any]] = []

        async def ext_method(self, method: str, params: Any) -> Any:
            return {"method": method, "params": params}

        async def ext_notification(self, method: str, params: Any) -> None:
            self.ext_notes.append((method, params))

    async def scenario() -> None:
        handler: WithExtensions | None = None

        def factory(connection: Connection) -> TableDispatcher:
            nonlocal handler
            handler = WithExtensions(connection)
            return TableDispatcher(METHODS, handler)

        connection, peer = await connected(factory)
        await peer.send(notification("_x/n", [1]), request(1, "_x/m", {"a": 1}))
        assert (await peer.recv())["result"] == {"method": "_x/m", "params": {"a": 1}}
        assert handler is not None and handler.ext_notes == [("_x/n", [1])]
        await peer.send(request(2, "not_extension", {}))  # no `_`: not for ext_method
        assert (await peer.recv())["error"]["code"] == -32601
        await connection.close()

    run(scenario())


def test_invalid_params_answer_minus_32602_with_the_field_location() -> None:
    async def scenario() -> None:
        connection, peer = await connected(table)
        # "5" is a string on the wire: strict JSON types, no coercion.
        await peer.send(request(4, "echo", {"text": "a", "count": "5"}))
        reply = await peer.recv()
        assert reply["id"] == 4
        assert reply["error"]["code"] == -32602
        assert reply["error"]["data"] == [
            {
                "loc": ["count"],
                "msg": "Input should be a valid integer",
                "type": "int_type",
            }
        ]
        await peer.send(request(5, "echo"))  # params absent: validated as {}
        reply = await peer.recv()
        assert reply["error"]["code"] == -32602
        assert reply["error"]["data"][0]["loc"] == ["text"]
        assert reply["error"]["data"][0]["type"] == "missing"
        await connection.close()

    run(scenario())


def test_handler_exception_answers_minus_32603_and_logs_the_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def scenario() -> None:
        connection, peer = await connected(table)
        await peer.send(request(9, "boom", {}))
        reply = await peer.recv()
        assert reply["id"] == 9
        assert reply["error"]["code"] == -32603
        assert "kaboom" in reply["error"]["data"]["details"]
        await connection.close()

    with caplog.at_level(logging.ERROR):
        run(scenario())
    failures = [r for r in caplog.records if "boom" in r.getMessage()]
    assert failures and failures[0].exc_info is not None
    assert failures[0].exc_info[0] is RuntimeError


def test_rpc_error_raised_by_a_handler_reaches_the_caller_intact() -> None:
    class Refuser:
        async def handle_request(self, method: str, params: Any) -> Any:
            raise RpcError(-32002, "no such session", {"sessionId": params["sessionId"]})

        async def handle_notification(self, method: str, params: Any) -> None:
            return None

    async def scenario() -> None:
        client, agent = await connection_pair(right=lambda _: Refuser())
        with pytest.raises(RpcError) as caught:
            await guard(client.request("session/prompt", {"sessionId": "s1"}))
        assert (caught.value.code, caught.value.message) == (-32002, "no such session")
        assert caught.value.data == {"sessionId": "s1"}
        await client.close()
        await agent.wait_closed()

    run(scenario())


def test_cancel_request_cancels_the_handler_and_answers_minus_32800() -> None:
    async def scenario() -> None:
        connection, peer = await connected(table)
        handler = handler_of(connection)
        await peer.send(request("slow", "block", {}))
        await guard(handler.block_started.wait())
        await peer.send(notification("$/cancel_request", {"requestId": "slow"}))
        reply = await peer.recv()
        assert reply == {
            "jsonrpc": "2.0",
            "id": "slow",
            "error": {"code": -32800, "message": "Request cancelled"},
        }
        assert handler.block_cancelled
        # Cancelling something that is not running is ignored.
        await peer.send(notification("$/cancel_request", {"requestId": "slow"}))
        await expect_silence(peer)
        await connection.close()

    run(scenario())


def test_answered_requests_leave_nothing_behind_in_the_connection() -> None:
    """Each request's task is tracked while it runs (for `$/cancel_request` and closing) and
    forgotten once it ends: answered, failed, cancelled by the peer or in a batch."""

    async def scenario() -> None:
        connection, peer = await connected(table)
        handler = handler_of(connection)
        await peer.send(request(1, "echo", {"text": "a"}), request(2, "boom", {}))
        await peer.send(request("slow", "block", {}))
        await guard(handler.block_started.wait())
        await peer.send(notification("$/cancel_request", {"requestId": "slow"}))
        await peer.send([request(3, "echo", {"text": "b"}), request(4, "boom", {})])
        replies = [await peer.recv() for _ in range(4)]
        assert {str(r["id"]) for r in replies if isinstance(r, dict)} == {"1", "2", "slow"}
        await peer.send(request(5, "echo", {"text": "last"}))  # answered after all the above
        assert (await peer.recv())["id"] == 5
        assert (connection._inbound, connection._tasks, connection._peer_cancelled) == (
            {},
            set(),
            set(),
        )
        await connection.close()

    run(scenario())


def test_cancelling_a_local_request_sends_cancel_request() -> None:
    async def scenario() -> None:
        connection, peer = await connected()
        task = asyncio.create_task(connection.request("slow/thing", {"a": 1}))
        sent = await peer.recv()
        assert sent["method"] == "slow/thing"
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert await peer.recv() == notification("$/cancel_request", {"requestId": sent["id"]})
        await connection.close()

    run(scenario())


# -- closing ----------------------------------------------------------------------------------


def test_peer_closing_mid_request_fails_the_pending_request() -> None:
    async def scenario() -> None:
        connection, peer = await connected()
        pending = asyncio.create_task(connection.request("session/prompt", {"x": 1}))
        assert (await peer.recv())["method"] == "session/prompt"
        peer.close()
        with pytest.raises(ConnectionClosed, match="end of stream"):
            await guard(pending)
        await guard(connection.wait_closed())
        assert connection.closed
        with pytest.raises(ConnectionClosed):
            await connection.request("again")
        with pytest.raises(ConnectionClosed):
            await connection.notify("again")

    run(scenario())


def test_local_close_fails_pending_requests_and_the_peer_sees_end_of_stream() -> None:
    async def scenario() -> None:
        connection, peer = await connected()
        pending = asyncio.create_task(connection.request("slow"))
        await peer.recv()
        await connection.close()
        with pytest.raises(ConnectionClosed):
            await guard(pending)
        assert await peer.at_eof()

    run(scenario())


def test_end_of_stream_cancels_running_request_handlers() -> None:
    async def scenario() -> None:
        connection, peer = await connected(table)
        handler = handler_of(connection)
        await peer.send(request(1, "block", {}))
        await guard(handler.block_started.wait())
        peer.close()
        await guard(connection.wait_closed())
        assert handler.block_cancelled

    run(scenario())


def test_a_final_line_without_newline_is_still_handled() -> None:
    async def scenario() -> None:
        connection, peer = await connected(table)
        await peer.send_bytes(b'{"jsonrpc":"2.0","method":"note","params":{"i":5}}')
        peer.writer.write_eof()
        await guard(connection.wait_closed())
        assert handler_of(connection).notes == [5]

    run(scenario())


def test_a_line_over_the_limit_is_skipped_with_a_parse_error() -> None:
    async def scenario() -> None:
        (reader, writer), (peer_reader, peer_writer) = await stream_pair()
        connection = Connection(reader, writer, max_line_bytes=1000)
        connection.dispatcher = table(connection)
        connection.start()
        peer = RawPeer(peer_reader, peer_writer)
        await peer.send(
            request(1, "echo", {"text": "y" * 5000}), request(2, "echo", {"text": "ok"})
        )
        reply = await peer.recv()
        assert (reply["id"], reply["error"]["code"]) == (None, -32700)
        assert await peer.recv() == {"jsonrpc": "2.0", "id": 2, "result": {"text": "ok"}}
        await connection.close()

    run(scenario())


def test_close_from_a_notification_handler_does_not_deadlock() -> None:
    class Closer:
        def __init__(self, connection: Connection) -> None:
            self.connection = connection

        async def handle_request(self, method: str, params: Any) -> Any:
            return None

        async def handle_notification(self, method: str, params: Any) -> None:
            await self.connection.close()

    async def scenario() -> None:
        connection, peer = await connected(Closer)
        await peer.send(notification("bye"))
        await guard(connection.wait_closed())
        assert await peer.at_eof()

    run(scenario())
