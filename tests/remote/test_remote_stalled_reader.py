"""A client that opens its event stream (or WebSocket) and then stops reading while the agent
streams a long turn: its socket's buffers fill and the server's write cannot complete. After
`write_seconds` the server drops that stream (the TCP connection is aborted); an HTTP
connection behaves as after any dropped stream (what is queued waits, bounded by
`max_buffered_bytes`, for a reader that reattaches), a WebSocket connection ends. Other
clients stay served and the server shuts down."""

from __future__ import annotations

import asyncio
import json
import re
import socket
from typing import Any

import aiohttp

from tests.remote.agents import RemoteLimits, run, served
from tests.remote.raw import CONNECTION, SESSION, RawClient, initialize

CHUNK = "x" * 16_000  # large chunks fill any socket buffer in a few hundred writes
CHUNKS = 1_500


class Turn:
    """What became of the long turn: `started` once its first chunk went out, `ended` when it
    stopped, with `outcome` "done" or the exception that stopped it."""

    def __init__(self) -> None:
        self.started, self.ended = asyncio.Event(), asyncio.Event()
        self.outcome = ""


def long_agent(turn: Turn) -> Any:
    """Streams CHUNKS numbered chunks of 16 kB."""
    from acp_bindings import Agent, Prompt, Session

    class LongAgent(Agent):
        async def on_prompt(self, session: Session, prompt: Prompt) -> str | None:
            message = session.agent_message()
            turn.outcome = "done"
            try:
                for number in range(CHUNKS):
                    await message.append(f"{number:06d} {CHUNK}")
                    turn.started.set()
            except BaseException as stopped:
                turn.outcome = type(stopped).__name__
                raise
            finally:
                turn.ended.set()
            return None

    return LongAgent()


def prompt(request_id: int, session: str) -> dict[str, Any]:
    params = {"sessionId": session, "prompt": [{"type": "text", "text": "long"}]}
    return {"jsonrpc": "2.0", "id": request_id, "method": "session/prompt", "params": params}


def new_session(request_id: int) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "session/new", "params": {"cwd": "/"}}


async def stalled_reader(port: int, connection: str, session: str) -> socket.socket:
    """A raw socket with a small receive buffer that asks for `session`'s event stream, reads
    the answer's head and then never reads again."""
    loop = asyncio.get_running_loop()
    raw = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    raw.setblocking(False)
    await loop.sock_connect(raw, ("127.0.0.1", port))
    head = (
        f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: text/event-stream\r\n"
        f"{CONNECTION}: {connection}\r\n{SESSION}: {session}\r\n\r\n"
    )
    await loop.sock_sendall(raw, head.encode())
    received = b""
    while not received.endswith(b"\r\n\r\n"):  # one byte at a time: leave the events unread
        byte = await loop.sock_recv(raw, 1)
        assert byte, "the server closed the event stream at once"
        received += byte
    assert received.startswith(b"HTTP/1.1 200"), received
    return raw


async def stall_a_turn(
    http: aiohttp.ClientSession, url: str, port: int, turn: Turn
) -> tuple[RawClient, str, socket.socket]:
    """A connection with a session whose event stream a stalled reader holds, its long turn
    started: the client, the session, the stalled socket."""
    client = RawClient(http, url)
    await client.open()
    main = await client.listen()
    assert (await client.post(new_session(1)))[0] == 202
    session: str = (await anext(main))["result"]["sessionId"]
    stalled = await stalled_reader(port, client.connection_id or "", session)
    assert (await client.post(prompt(2, session), session=session))[0] == 202
    await turn.started.wait()
    return client, session, stalled


def update_of(event: dict[str, Any]) -> dict[str, Any]:
    update: dict[str, Any] = event.get("params", {}).get("update", {})
    return update


def chunk_numbers(events: list[dict[str, Any]]) -> list[int]:
    numbers = []
    for event in events:
        update = update_of(event)
        if update.get("sessionUpdate") == "agent_message_chunk":
            match = re.match(r"(\d{6}) ", update["content"]["text"])
            assert match is not None
            numbers.append(int(match.group(1)))
    return numbers


def test_a_stalled_event_stream_is_dropped_and_a_new_reader_gets_the_rest() -> None:
    limits = RemoteLimits(write_seconds=0.3, max_buffered_bytes=1 << 20)
    turn = Turn()

    async def scenario() -> None:
        async with (
            served(limits=limits, agent=long_agent(turn)) as agent,
            aiohttp.ClientSession() as http,
        ):
            client, session, stalled = await stall_a_turn(http, agent.url, agent.port, turn)
            link = agent.server.links[client.connection_id or ""]
            stream = link.sessions[session]
            await stream.free.wait()  # the write deadline passed: the stream was dropped
            stalled.close()
            assert not link.closed.is_set()  # the connection lives on, as after any drop
            assert link.backlog.size <= limits.max_buffered_bytes + 64 * 1024
            other = RawClient(http, agent.url)
            assert (await other.open())["result"]["protocolVersion"] == 2
            # A new reader takes the stream: what was not delivered comes in order, once
            # each, up to the turn's final state (the prompt's answer came at its start; the
            # chunks in the dropped socket's buffers are lost with it).
            events: list[dict[str, Any]] = []
            async for event in client.events(session):
                events.append(event)
                if update_of(event).get("state") == "idle":
                    break
            assert update_of(events[-1])["stopReason"] == "end_turn"
            numbers = chunk_numbers(events)
            assert numbers == list(range(numbers[0], CHUNKS))
            assert turn.outcome == "done"
        # Leaving the block shut the server down; the run's guard turns a hang into a failure.

    run(scenario())


def test_the_server_shuts_down_while_a_reader_is_stalled() -> None:
    limits = RemoteLimits(write_seconds=0.3, max_buffered_bytes=1 << 20)
    turn = Turn()

    async def scenario() -> None:
        async with aiohttp.ClientSession() as http:
            async with served(limits=limits, agent=long_agent(turn)) as agent:
                _, _, stalled = await stall_a_turn(http, agent.url, agent.port, turn)
                server = agent.server
            # The shutdown completed (else the run's guard fails the test): the turn was
            # stopped and no connection is left.
            assert turn.ended.is_set() and turn.outcome != "done"
            assert server.links == {}
            stalled.close()

    run(scenario())


def test_a_websocket_peer_that_stops_reading_loses_its_connection() -> None:
    """The peer answers no pings only after `heartbeat_seconds` (an hour here): the write
    deadline is what drops it."""
    limits = RemoteLimits(write_seconds=0.3, max_buffered_bytes=1 << 20, heartbeat_seconds=3600)
    turn = Turn()

    async def scenario() -> None:
        async with (
            served(limits=limits, agent=long_agent(turn)) as agent,
            aiohttp.ClientSession() as http,
        ):
            socket_ = await http.ws_connect(agent.ws_url, autoping=False)
            await socket_.send_str(json.dumps(initialize()))
            assert json.loads((await socket_.receive()).data)["id"] == 0
            await socket_.send_str(json.dumps(new_session(1)))
            session = json.loads((await socket_.receive()).data)["result"]["sessionId"]
            (link,) = agent.server.links.values()
            await socket_.send_str(json.dumps(prompt(2, session)))
            # From here the peer reads nothing: aiohttp stops reading its socket once 64 kB
            # wait unread, and the kernel's buffers fill.
            await turn.started.wait()
            await link.closed.wait()
            await turn.ended.wait()
            assert turn.outcome != "done"
            assert agent.server.links == {}
            assert link.backlog.size <= limits.max_buffered_bytes + 64 * 1024
            other = RawClient(http, agent.url)
            assert (await other.open())["result"]["protocolVersion"] == 2
            await socket_.close()

    run(scenario())
