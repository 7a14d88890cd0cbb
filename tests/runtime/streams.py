"""In-memory transports for runtime tests: socket pairs wrapped in asyncio streams, a raw
line-level peer, and a hang guard."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

from acp_codegen.runtime.rpc.connection import Connection
from acp_codegen.runtime.rpc.dispatch import Dispatcher
from acp_codegen.runtime.wire.pushed_lines import PushedLines

T = TypeVar("T")

# Only a guard against hangs (a failing test should fail, not stall the suite); never a
# statement about speed.
HANG_GUARD_SECONDS = 60.0
_RAW_LIMIT = 512 << 20  # the raw peer reads lines with readuntil, independent of our framing


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    async def guarded() -> T:
        return await asyncio.wait_for(coroutine, HANG_GUARD_SECONDS)

    return asyncio.run(guarded())


async def guard(awaitable: Awaitable[T]) -> T:
    return await asyncio.wait_for(awaitable, HANG_GUARD_SECONDS)


# How the first end of `stream_pair` reads: pushed by its transport (`PushedLines`, as
# `serve_stdio` and `spawn_agent` read), or pulled from a StreamReader (any other stream a user
# hands a Connection). Modules testing the reading half run both ways (`reading_modes`).
PUSHED = True


class Silent:
    """A dispatcher with nothing to say: for tests of what a connection itself sends."""

    async def handle_request(self, method: str, params: Any) -> Any:
        return None

    async def handle_notification(self, method: str, params: Any) -> None:
        return None


class _PushedSocket(asyncio.StreamReaderProtocol):
    """A socket whose incoming bytes are pushed into `lines`; its writer drains as usual."""

    def __init__(self, lines: PushedLines) -> None:
        super().__init__(asyncio.StreamReader())
        self.lines = lines

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        assert isinstance(transport, asyncio.ReadTransport)
        self.lines.attach(transport)

    def data_received(self, data: bytes) -> None:
        self.lines.received(data)

    def eof_received(self) -> bool | None:
        self.lines.ended()
        return super().eof_received()

    def connection_lost(self, exc: Exception | None) -> None:
        self.lines.ended(exc)
        super().connection_lost(exc)


async def stream_pair(
    limit: int = 1 << 16,
) -> tuple[
    tuple[PushedLines | asyncio.StreamReader, asyncio.StreamWriter],
    tuple[asyncio.StreamReader, asyncio.StreamWriter],
]:
    """Two connected ends; the first reads as `PUSHED` says. The default `limit` is asyncio's
    64 KiB: the runtime must not need a bigger one."""
    left, right = socket.socketpair()
    a: tuple[PushedLines | asyncio.StreamReader, asyncio.StreamWriter]
    if PUSHED:
        loop = asyncio.get_running_loop()
        lines = PushedLines()
        transport, protocol = await loop.create_connection(lambda: _PushedSocket(lines), sock=left)
        a = lines, asyncio.StreamWriter(transport, protocol, None, loop)
    else:
        a = await asyncio.open_connection(sock=left, limit=limit)
    b = await asyncio.open_connection(sock=right, limit=_RAW_LIMIT)
    return a, b


class RawPeer:
    """The far end of a connection, speaking JSON lines directly."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer

    async def send_bytes(self, data: bytes) -> None:
        self.writer.write(data)
        await self.writer.drain()

    async def send(self, *messages: Any) -> None:
        """Each message on its own line, written in one go."""
        await self.send_bytes(b"".join(json.dumps(m).encode() + b"\n" for m in messages))

    async def recv(self) -> Any:
        line = await guard(self.reader.readuntil(b"\n"))
        return json.loads(line)

    async def at_eof(self) -> bool:
        return await guard(self.reader.read(1)) == b""

    def close(self) -> None:
        self.writer.close()


async def connected(
    dispatcher: Dispatcher | Callable[[Connection], Dispatcher] | None = None,
) -> tuple[Connection, RawPeer]:
    """A started Connection whose peer is a RawPeer."""
    (reader, writer), (peer_reader, peer_writer) = await stream_pair()
    connection = Connection(reader, writer)
    if dispatcher is not None:
        connection.dispatcher = dispatcher(connection) if callable(dispatcher) else dispatcher
    connection.start()
    return connection, RawPeer(peer_reader, peer_writer)


async def connection_pair(
    left: Callable[[Connection], Dispatcher] | None = None,
    right: Callable[[Connection], Dispatcher] | None = None,
) -> tuple[Connection, Connection]:
    """Two started Connections talking to each other."""
    (ra, wa), (rb, wb) = await stream_pair()
    a, b = Connection(ra, wa), Connection(rb, wb)
    if left is not None:
        a.dispatcher = left(a)
    if right is not None:
        b.dispatcher = right(b)
    a.start()
    b.start()
    return a, b


class RecordingSink:
    """A transport that keeps each write (and refuses writes after close)."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.closed = False

    def write(self, data: bytes) -> None:
        assert not self.closed, "written after close"
        self.writes.append(bytes(data))

    async def drain(self) -> None:
        return None

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def messages(self) -> list[dict[str, object]]:
        return [json.loads(line) for line in b"".join(self.writes).splitlines()]
