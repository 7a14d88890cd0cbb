"""Hostile input against a served agent: wrong Host, foreign Origin, missing or wrong token,
oversized bodies and frames, a body that trickles in, clients that vanish without a word
(half-open), floods of connections and of session streams. Each is refused or cleaned up, and
the server keeps serving the next, well-behaved client."""

from __future__ import annotations

import asyncio
import json

import aiohttp
import pytest

from bench.remote_load import counting_agent
from tests.remote.agents import RemoteLimits, run, served
from tests.remote.raw import CONNECTION, RawClient, initialize

TOKEN = "limits-token-0000"


async def still_serves(http: aiohttp.ClientSession, url: str, token: str | None = None) -> None:
    client = RawClient(http, url, token)
    answer = await client.open()
    assert answer["result"]["protocolVersion"] == 2


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({}, 401),
        ({"Authorization": "Bearer wrong"}, 403),
        ({"Authorization": f"Bearer {TOKEN}", "Host": "evil.example:80"}, 403),
        ({"Authorization": f"Bearer {TOKEN}", "Origin": "http://evil.example"}, 403),
    ],
)
def test_who_may_talk_to_the_agent(headers: dict[str, str], status: int) -> None:
    async def scenario() -> None:
        async with served(token=TOKEN) as agent, aiohttp.ClientSession() as http:
            for method in ("POST", "GET"):
                async with http.request(method, agent.url, json=initialize(), headers=headers) as a:
                    assert a.status == status
            ws = agent.ws_url
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await http.ws_connect(ws, headers=headers)
            assert refused.value.status == status
            assert agent.server.links == {}
            await still_serves(http, agent.url, TOKEN)

    run(scenario())


def test_an_oversized_body_is_refused_and_a_frame_closes_its_socket() -> None:
    limits = RemoteLimits(max_message_bytes=64 * 1024)

    async def scenario() -> None:
        async with served(limits=limits) as agent, aiohttp.ClientSession() as http:
            client = RawClient(http, agent.url)
            await client.open()
            huge = b'{"jsonrpc":"2.0","method":"x","params":"' + b"a" * 70_000 + b'"}'
            status, _ = await client.post(None, raw=huge)
            assert status == 413
            socket = await http.ws_connect(agent.ws_url, max_msg_size=0)
            await socket.send_str(json.dumps(initialize()))
            assert json.loads((await socket.receive()).data)["id"] == 0
            await socket.send_bytes(huge, compress=None)  # binary is ignored, however big
            await socket.send_str(huge.decode())
            closing = await socket.receive()
            assert closing.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
            assert socket.close_code == aiohttp.WSCloseCode.MESSAGE_TOO_BIG
            await still_serves(http, agent.url)

    run(scenario())


def test_a_body_that_trickles_in_is_cut_off() -> None:
    limits = RemoteLimits(stall_seconds=0.5)

    async def scenario() -> None:
        async with served(limits=limits) as agent, aiohttp.ClientSession() as http:
            reader, writer = await asyncio.open_connection("127.0.0.1", agent.port)
            head = (
                f"POST / HTTP/1.1\r\nHost: 127.0.0.1:{agent.port}\r\n"
                "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"
            )
            writer.write(head.encode())  # then nothing more: the client stalls
            status_line = await reader.readline()
            assert status_line.startswith(b"HTTP/1.1 408"), status_line
            writer.close()
            await still_serves(http, agent.url)

    run(scenario())


def test_a_client_that_vanishes_leaves_no_connection_behind() -> None:
    limits = RemoteLimits(idle_seconds=0.3)

    async def scenario() -> None:
        async with served(limits=limits) as agent:
            async with aiohttp.ClientSession() as http:
                client = RawClient(http, agent.url)
                await client.open()  # then it goes away without DELETE or a stream
            link = agent.server.links[client.connection_id or ""]
            await link.closed.wait()
            assert agent.server.links == {}
            async with aiohttp.ClientSession() as http:
                await still_serves(http, agent.url)

    run(scenario())


def test_a_websocket_that_vanishes_ends_its_connection() -> None:
    async def scenario() -> None:
        async with served() as agent:
            async with aiohttp.ClientSession() as http:
                socket = await http.ws_connect(agent.ws_url)
                await socket.send_str(json.dumps(initialize()))
                await socket.receive()
                (link,) = agent.server.links.values()
            # The session closed the TCP connection under the socket, without a close frame.
            await link.closed.wait()
            assert agent.server.links == {}

    run(scenario())


def test_a_flood_of_connections_is_refused_past_the_limit() -> None:
    limits = RemoteLimits(max_connections=3)

    async def scenario() -> None:
        async with served(limits=limits) as agent, aiohttp.ClientSession() as http:
            clients = [RawClient(http, agent.url) for _ in range(3)]
            for client in clients:
                await client.open()
            async with http.post(agent.url, json=initialize()) as refused:
                assert refused.status == 503
            with pytest.raises(aiohttp.WSServerHandshakeError) as socket_refused:
                await http.ws_connect(agent.ws_url)
            assert socket_refused.value.status == 503
            headers = {CONNECTION: clients[0].connection_id or ""}
            async with http.delete(agent.url, headers=headers) as gone:
                assert gone.status == 202
            await still_serves(http, agent.url)

    run(scenario())


def test_session_streams_per_connection_are_limited() -> None:
    limits = RemoteLimits(max_session_streams=2)

    async def scenario() -> None:
        async with served(limits=limits) as agent, aiohttp.ClientSession() as http:
            client = RawClient(http, agent.url)
            await client.open()
            assert await client.status_of_stream("one") == 200
            assert await client.status_of_stream("two") == 200
            assert await client.status_of_stream("three") == 400
            assert await client.status_of_stream("x" * 2000) == 400  # an id over the limit

    run(scenario())


def test_a_client_that_reads_nothing_is_dropped_and_the_agent_does_not_pile_up_output() -> None:
    """The client starts a turn of 20,000 chunks and never opens an event stream: the
    agent's writes wait once `max_buffered_bytes` is queued, and after `stall_seconds` with
    nothing taken the connection is closed, its turn with it."""
    limits = RemoteLimits(max_buffered_bytes=64 * 1024, stall_seconds=0.5)

    async def scenario() -> None:
        async with (
            served(limits=limits, agent=counting_agent()) as agent,
            aiohttp.ClientSession() as http,
        ):
            client = RawClient(http, agent.url)
            await client.open()
            link = agent.server.links[client.connection_id or ""]
            new = {"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": "/"}}
            assert (await client.post(new))[0] == 202
            # The answer waits on the connection's stream, unread: take its session id there.
            answer = json.loads(await link.main.next(None) or b"null")
            session = answer["result"]["sessionId"]
            params = {"sessionId": session, "prompt": [{"type": "text", "text": "20000"}]}
            prompt = {"jsonrpc": "2.0", "id": 2, "method": "session/prompt", "params": params}
            assert (await client.post(prompt, session=session))[0] == 202
            await link.closed.wait()
            assert link.backlog.size <= limits.max_buffered_bytes + 1024
            assert agent.server.links == {}
            await still_serves(http, agent.url)

    run(scenario())


def test_an_open_websocket_is_never_idle() -> None:
    """Idle means no stream attached and no message for `idle_seconds`: a WebSocket holds its
    connection's stream, so a client that only listens through a long turn keeps it; an HTTP
    connection without a stream does not. (The clock is moved back instead of waited for.)"""

    async def scenario() -> None:
        async with served() as agent, aiohttp.ClientSession() as http:
            socket = await http.ws_connect(agent.ws_url)
            await socket.send_str(json.dumps(initialize()))
            await socket.receive()
            plain = RawClient(http, agent.url)
            await plain.open()
            links = agent.server.links
            listening = next(link for link in links.values() if link.websocket)
            silent = links[plain.connection_id or ""]
            for link in (listening, silent):
                link.last_active -= agent.server.limits.idle_seconds + 1
            assert not listening.idle
            assert silent.idle
            await socket.close()

    run(scenario())


def test_a_half_open_websocket_is_closed_by_the_heartbeat_and_its_turn_cancelled() -> None:
    """The client starts a turn that waits forever, then goes silent without closing: it never
    answers a ping nor reads. The server's heartbeat closes the socket, the connection goes,
    the agent's turn is cancelled, and the next client is served."""
    from acp_bindings import Agent, Prompt, Session

    started, cancelled = asyncio.Event(), asyncio.Event()

    class EndlessAgent(Agent):
        async def on_prompt(self, session: Session, prompt: Prompt) -> str | None:
            started.set()
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                cancelled.set()
                raise
            return None

    limits = RemoteLimits(heartbeat_seconds=0.2)

    async def scenario() -> None:
        async with (
            served(limits=limits, agent=EndlessAgent()) as agent,
            aiohttp.ClientSession() as http,
        ):
            socket = await http.ws_connect(agent.ws_url, autoping=False)
            await socket.send_str(json.dumps(initialize()))
            assert json.loads((await socket.receive()).data)["id"] == 0
            new = {"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": "/"}}
            await socket.send_str(json.dumps(new))
            answer = await socket.receive()
            while answer.type is aiohttp.WSMsgType.PING:  # seen, never answered
                answer = await socket.receive()
            session = json.loads(answer.data)["result"]["sessionId"]
            text = [{"type": "text", "text": "forever"}]
            params = {"sessionId": session, "prompt": text}
            await socket.send_str(
                json.dumps(
                    {"jsonrpc": "2.0", "id": 2, "method": "session/prompt", "params": params}
                )
            )
            await started.wait()
            (link,) = agent.server.links.values()
            # From here the client is silent and reads nothing, its socket still open.
            await link.closed.wait()
            await cancelled.wait()
            assert agent.server.links == {}
            # Only now does the client look: the socket was cut, not closed politely.
            last = await socket.receive()
            while last.type in (aiohttp.WSMsgType.PING, aiohttp.WSMsgType.TEXT):  # queued before
                last = await socket.receive()
            assert last.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED), last
            assert socket.close_code != aiohttp.WSCloseCode.OK
            await still_serves(http, agent.url)

    run(scenario())
