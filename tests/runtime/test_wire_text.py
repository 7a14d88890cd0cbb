"""Text on the wire is the whole JSON string space: lone surrogates (valid JSON, not encodable
as UTF-8), NUL and characters outside the BMP, in ids, method names and params. Each frame gets
its answer, written as valid UTF-8 that decodes to the same text, and the connection serves the
next one. The policy is in docs/design.md (runtime contracts)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from acp_codegen.runtime.wire.line_framing import decode_line, encode_json

from .rpc_fixtures import request, table
from .streams import connected, connection_pair, guard, run

TEXTS = {
    "lone high surrogate": "\ud800",
    "lone low surrogate": "a\udfffb",
    "surrogates in the wrong order": "\udc00\ud800",
    "NUL": "a\x00b",
    "outside the BMP": "\U0001f600 \U0010ffff",
    "everything at once": "\x00\ud800\U0001f600é\n\u2028",
}
NEXT = request("next", "echo", {"text": "ok"})
NEXT_ANSWER = {"jsonrpc": "2.0", "id": "next", "result": {"text": "ok"}}


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_any_json_string_round_trips_through_encode_and_decode(name: str) -> None:
    message = {"jsonrpc": "2.0", "id": TEXTS[name], "method": TEXTS[name], "params": [TEXTS[name]]}
    frame = encode_json(message)
    frame.decode("utf-8")  # always valid UTF-8
    assert b"\n" not in frame
    assert decode_line(frame) == message


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_any_json_string_in_params_and_id_is_echoed_exactly(name: str) -> None:
    text = TEXTS[name]

    async def scenario() -> None:
        connection, peer = await connected(table)
        await peer.send(request(text, "echo", {"text": text}), NEXT)
        assert await peer.recv() == {"jsonrpc": "2.0", "id": text, "result": {"text": text}}
        assert await peer.recv() == NEXT_ANSWER
        await connection.close()

    run(scenario())


CASES: dict[str, tuple[bytes, int, Any]] = {
    "invalid request with a lone-surrogate id": (
        b'{"jsonrpc":"1.0","id":"\\ud800"}',
        -32600,
        "\ud800",
    ),
    "lone-surrogate method name": (b'{"jsonrpc":"2.0","id":3,"method":"\\ud800"}', -32601, 3),
    "params of the wrong type holding a lone surrogate": (
        b'{"jsonrpc":"2.0","id":"\\udfff","method":"echo","params":{"text":5,"\\udfff":1}}',
        -32602,
        "\udfff",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_an_error_answer_carrying_a_lone_surrogate_is_written_and_the_next_served(
    case: str,
) -> None:
    frame, code, reply_id = CASES[case]

    async def scenario() -> None:
        connection, peer = await connected(table)
        await peer.send_bytes(frame + b"\n")
        await peer.send(NEXT)
        reply = await peer.recv()
        assert (reply["id"], reply["error"]["code"]) == (reply_id, code), reply
        assert await peer.recv() == NEXT_ANSWER
        assert not connection.closed
        await connection.close()

    run(scenario())


def test_one_lone_surrogate_in_a_large_batch_loses_no_answer() -> None:
    size = 2_000

    async def scenario() -> None:
        connection, peer = await connected(table)
        batch = [request(index, "echo", {"text": str(index)}) for index in range(size)]
        batch[size // 2] = request("\ud800", "echo", {"text": "\ud800"})
        await peer.send(batch)
        answers = await peer.recv()
        assert len(answers) == size
        assert answers[size // 2] == {
            "jsonrpc": "2.0",
            "id": "\ud800",
            "result": {"text": "\ud800"},
        }
        await peer.send(NEXT)
        assert await peer.recv() == NEXT_ANSWER
        await connection.close()

    run(scenario())


def test_both_ends_of_a_connection_carry_lone_surrogates_and_stay_open() -> None:
    """The same runtime reads and writes on the client's side: a frame an agent sends with a
    lone surrogate is answered, and the client's connection goes on."""

    async def scenario() -> None:
        client, agent = await connection_pair(table, table)
        text = "\ud800\x00\U0001f600"
        assert await guard(agent.request("echo", {"text": text})) == {"text": text}
        assert await guard(client.request("echo", {"text": text})) == {"text": text}
        assert not client.closed and not agent.closed
        await client.close()
        await agent.close()

    run(scenario())


def test_a_lone_surrogate_frame_is_escaped_ascii_and_others_stay_utf8() -> None:
    """The written form: plain UTF-8 normally; escaped ASCII only for a message UTF-8 cannot
    carry (so the cost falls on those alone)."""
    assert encode_json({"t": "é\U0001f600"}) == '{"t":"é\U0001f600"}'.encode()
    assert encode_json({"t": "é\ud800"}) == b'{"t":"\\u00e9\\ud800"}'
    assert json.loads(encode_json({"t": "é\ud800"})) == {"t": "é\ud800"}
