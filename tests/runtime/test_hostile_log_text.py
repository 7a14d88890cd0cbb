"""What a hostile peer sends never reaches a log line raw: method names, session ids and error
messages from the wire are logged escaped (`%r`), so a log holds no terminal escapes, carriage
returns or lone surrogates (which a UTF-8 log handler cannot even write)."""

from __future__ import annotations

import logging

import pytest
from acp_codegen.runtime.rpc.connection import Connection
from acp_codegen.runtime.rpc.dispatch import TableDispatcher

from .rpc_fixtures import METHODS, Handler, expect_silence, notification
from .streams import connected, run

HOSTILE = "\x1b]52;c;cm0gLXJmIH4=\x07\r\x1b[2K\u2028\ud800"
RAW = ("\x1b", "\x07", "\r", "\u2028", "\ud800")


def _dispatcher(connection: Connection) -> TableDispatcher:
    return TableDispatcher(METHODS, Handler(connection))


def test_hostile_text_from_the_peer_is_logged_escaped(caplog: pytest.LogCaptureFixture) -> None:
    async def scenario() -> None:
        connection, peer = await connected(_dispatcher)
        await peer.send(
            {"jsonrpc": "2.0", "id": None, "error": {"code": -32000, "message": HOSTILE}},
            notification(HOSTILE, {"x": 1}),
        )
        await expect_silence(peer)
        await connection.close()

    with caplog.at_level(logging.DEBUG, logger="acp_codegen.runtime"):
        run(scenario())
    logged = [record.getMessage() for record in caplog.records]
    about_hostile = [line for line in logged if "x1b]52" in line]
    assert len(about_hostile) == 2, logged  # the error without an id and the unhandled method
    for line in logged:
        line.encode("utf-8")  # a lone surrogate would raise here, as in a UTF-8 log handler
        assert not any(char in line for char in RAW), line
