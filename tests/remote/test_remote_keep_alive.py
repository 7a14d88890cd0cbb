"""The intervals that find dead peers are settings: `RemoteLimits.keep_alive_seconds` (the
comment an idle event stream gets, so proxies keep it open) and `connect_remote`'s
`heartbeat_seconds` (how often our WebSocket client pings a server that may have vanished)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import aiohttp
import pytest
from aiohttp import web

from tests.remote.agents import Client, RemoteLimits, listening, run, served
from tests.remote.raw import RawClient


def test_an_idle_event_stream_gets_a_comment_every_keep_alive_seconds() -> None:
    limits = RemoteLimits(keep_alive_seconds=0.05)

    async def scenario() -> None:
        async with served(limits=limits) as agent, aiohttp.ClientSession() as http:
            client = RawClient(http, agent.url)
            await client.open()
            headers = client.headers(Accept="text/event-stream")
            async with http.get(agent.url, headers=headers) as stream:
                assert stream.status == 200
                # Nothing is sent on the connection's stream after initialize: what comes
                # is the keep-alive comment, again and again.
                for _ in range(3):
                    assert await stream.content.readuntil(b"\n\n") == b":\n\n"

    run(scenario())


def test_keep_alive_seconds_must_be_positive() -> None:
    with pytest.raises(ValueError, match="keep_alive_seconds"):
        RemoteLimits(keep_alive_seconds=0)


@contextlib.asynccontextmanager
async def deaf_websocket_server(pinged: asyncio.Event) -> AsyncIterator[str]:
    """A WebSocket server that reads everything and answers nothing, pings included (a
    server gone half-open, as far as the client can tell); its URL."""

    async def handle(request: web.Request) -> web.WebSocketResponse:
        socket = web.WebSocketResponse(autoping=False)
        await socket.prepare(request)
        async for message in socket:
            if message.type is aiohttp.WSMsgType.PING:
                pinged.set()
        return socket

    app = web.Application()
    app.router.add_get("/", handle)
    async with listening(app) as port:
        yield f"ws://127.0.0.1:{port}/"


def test_the_client_heartbeat_ends_a_connection_to_a_server_that_never_answers() -> None:
    """With the default heartbeat (30 s) the request would wait past the run's guard."""
    from acp_bindings import ConnectionClosed

    async def scenario() -> None:
        pinged = asyncio.Event()
        async with deaf_websocket_server(pinged) as url:
            remote = await Client().connect(url, heartbeat_seconds=0.2)
            try:
                params = {"protocolVersion": 2, "info": {"name": "t", "version": "0"}}
                with pytest.raises(ConnectionClosed):
                    await remote.connection.request("initialize", params)
                assert pinged.is_set()
            finally:
                await remote.close()

    run(scenario())


def test_the_client_heartbeat_must_be_positive() -> None:
    async def scenario() -> None:
        with pytest.raises(ValueError, match="heartbeat_seconds"):
            await Client().connect("ws://127.0.0.1:9/", heartbeat_seconds=0)

    run(scenario())
