"""Closing a connection whose reader task never got to run still finishes the close."""

from __future__ import annotations

import pytest
from acp_codegen.runtime.rpc.connection import Connection
from acp_codegen.runtime.wire.errors import ConnectionClosed

from .streams import run, stream_pair

# The reading half's tests: each runs with lines pushed by the transport and pulled.
pytestmark = pytest.mark.usefixtures("reading_modes")


def test_close_right_after_start_does_not_hang() -> None:
    async def main() -> None:
        (reader, writer), _peer = await stream_pair()
        connection = Connection(reader, writer)
        connection.start()  # no await in between: the reader task has not run yet
        await connection.close()  # awaited directly: no task switch before it runs
        assert connection.closed
        with pytest.raises(ConnectionClosed):
            await connection.request("anything")

    run(main())
