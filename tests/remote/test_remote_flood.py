"""A flood of sockets against a served agent: many opened at once, some never sending a byte,
some sending half a request head and stopping. Below `max_sockets` a talking client is served
as usual; past it a request is answered 503 with `Retry-After` (and its socket closed); every
socket whose request head has not all come within `header_seconds` is closed by the server;
then a client is served again, and once it leaves nothing is left open."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import aiohttp

from tests.remote.agents import HANG_GUARD, RemoteLimits, run, served
from tests.remote.raw import CONNECTION, RawClient

SILENT, HALF_HEAD = 30, 10


async def until(condition: Callable[[], bool]) -> None:
    """Wait for `condition`, looking again every 10 ms; the run's guard bounds it. (Only for
    the server's count of open sockets, which aiohttp updates after a socket has closed,
    with no event to wait on.)"""
    async with asyncio.timeout(HANG_GUARD):
        while not condition():
            await asyncio.sleep(0.01)


async def still_served(url: str) -> None:
    """A client opens a connection, is answered, and closes it (DELETE)."""
    async with aiohttp.ClientSession() as http:
        client = RawClient(http, url)
        assert (await client.open())["result"]["protocolVersion"] == 2
        async with http.delete(url, headers={CONNECTION: client.connection_id or ""}) as gone:
            assert gone.status == 202


def test_a_flood_of_sockets_is_refused_dropped_and_forgotten() -> None:
    limits = RemoteLimits(max_sockets=16, header_seconds=3.0)

    async def scenario() -> None:
        async with served(limits=limits) as agent:
            counted = agent.server.open_sockets
            assert counted is not None
            port = agent.port
            head = f"POST / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            flood = [await asyncio.open_connection("127.0.0.1", port) for _ in range(10)]
            await still_served(agent.url)  # below the limit the flood takes nothing from it
            for _ in range(SILENT - 10):
                flood.append(await asyncio.open_connection("127.0.0.1", port))
            for _ in range(HALF_HEAD):
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
                writer.write(head.encode())  # and never the rest
                flood.append((reader, writer))
            # Accepted after the flood (the server accepts in order): it counts them all.
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write((head + "Content-Length: 0\r\n\r\n").encode())
            answer = await reader.read()  # to the end: the server closes this socket
            assert answer.startswith(b"HTTP/1.1 503"), answer
            assert b"\r\nRetry-After: 1\r\n" in answer
            writer.close()
            # Every flooding socket is closed by the server, none answered.
            for reader, writer in flood:
                assert await reader.read() == b""
                writer.close()
            await until(lambda: counted() == 0)
            await still_served(agent.url)
            assert agent.server.links == {}
            await until(lambda: counted() == 0)

    run(scenario())
