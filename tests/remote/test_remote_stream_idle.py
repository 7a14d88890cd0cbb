"""Our HTTP client takes an event stream that stays silent past `stream_idle_seconds` (not even
a keep-alive comment) for lost: a server gone without closing (half-open) ends the connection
instead of leaving the client waiting for ever."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator

import pytest
from aiohttp import web

from tests.remote.agents import REPO, AllowingClient, Client, RemoteLimits, listening, run, served

# How long the client waits on a silent event stream, and the intervals around it.
IDLE, KEEP_ALIVE, PAUSE = 2.0, 0.1, 2.5
INITIALIZED = {"protocolVersion": 2, "info": {"name": "mute", "version": "0"}, "capabilities": {}}


@contextlib.asynccontextmanager
async def mute_server(stream_opened: asyncio.Event) -> AsyncIterator[str]:
    """Answers `initialize`, accepts every other POST, and opens event streams that never
    carry a byte (a server that vanished after the handshake, as far as the client can tell)."""

    async def handle(request: web.Request) -> web.StreamResponse:
        if request.method == "POST":
            message = json.loads(await request.read())
            if message.get("method") != "initialize":
                return web.Response(status=202)
            answer = {"jsonrpc": "2.0", "id": message["id"], "result": INITIALIZED}
            return web.json_response(answer, headers={"Acp-Connection-Id": "c1"})
        stream = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await stream.prepare(request)
        stream_opened.set()
        await asyncio.Event().wait()  # silent until the client leaves
        return stream

    app = web.Application()
    app.router.add_route("*", "/", handle)
    async with listening(app) as port:
        yield f"http://127.0.0.1:{port}/"


def test_a_silent_event_stream_ends_the_connection() -> None:
    """Without the limit the request would wait past the run's guard. The limit is seconds, not
    a fraction of one: `initialize`, answered on its POST while the silent stream is open, must
    not be cut off by a busy machine's pause."""
    from acp_bindings import ConnectionClosed

    async def scenario() -> None:
        opened = asyncio.Event()
        async with mute_server(opened) as url:
            remote = await Client().connect(url, stream_idle_seconds=IDLE)
            try:
                params = {"protocolVersion": 2, "info": {"name": "t", "version": "0"}}
                answer = await remote.connection.request("initialize", params)
                assert answer["protocolVersion"] == 2
                with pytest.raises(ConnectionClosed):  # its answer would come on the stream
                    await remote.connection.request("session/new", {"cwd": "/"})
                assert opened.is_set()
            finally:
                await remote.close()

    run(scenario())


def test_keep_alive_comments_keep_a_quiet_turn_connected() -> None:
    """The agent pauses between the steps of its turn (PAUSE) longer than the client waits on
    a silent stream (IDLE): only the server's keep-alive comments (every KEEP_ALIVE, twenty to
    an IDLE, so a busy machine's stall of a second does not starve the stream) carry the turn
    through."""

    async def scenario() -> None:
        limits = RemoteLimits(keep_alive_seconds=KEEP_ALIVE)
        async with served(limits=limits, pause=PAUSE) as agent:
            client = AllowingClient()
            remote = await client.connect(agent.url, stream_idle_seconds=IDLE)
            try:
                await client.lifecycle.initialize()
                session = await client.lifecycle.new_session(cwd=str(REPO))
                stop = await session.run_turn([{"type": "text", "text": "slowly"}])
                assert stop == "end_turn"
            finally:
                await remote.close()

    run(scenario())


@pytest.mark.parametrize("idle", [0, -1.0])
def test_stream_idle_seconds_must_be_positive_or_none(idle: float) -> None:
    async def scenario() -> None:
        with pytest.raises(ValueError, match="stream_idle_seconds"):
            await Client().connect("http://127.0.0.1:9/", stream_idle_seconds=idle)

    run(scenario())
