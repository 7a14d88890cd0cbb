"""The remote wire at the HTTP level, against the example agent served in this process: how a
connection opens, where each message goes (connection stream, session stream), the statuses
the TS SDK 2.4.0's clients expect, and what a client sees of messages sent while its session
stream was down (kept, then delivered in order: nothing lost, nothing repeated)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from tests.remote.agents import run, served
from tests.remote.raw import CONNECTION, RawClient, initialize

TEXT = "count these four words"


async def opened(http: aiohttp.ClientSession, url: str) -> tuple[RawClient, AsyncIterator[Any]]:
    """A client past initialize, reading its connection stream."""
    client = RawClient(http, url)
    await client.open()
    return client, await client.listen()


async def new_session(client: RawClient, main: AsyncIterator[Any], cwd: str) -> str:
    request = {"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": cwd}}
    assert (await client.post(request))[0] == 202
    answer = await anext(main)
    assert answer["id"] == 1
    session: str = answer["result"]["sessionId"]
    return session


def allow(asked: dict[str, Any]) -> dict[str, Any]:
    """The answer that selects "allow" for the permission request `asked`."""
    outcome = {"outcome": "selected", "optionId": "allow"}
    return {"jsonrpc": "2.0", "id": asked["id"], "result": {"outcome": outcome}}


def reply_chunk(message: dict[str, Any]) -> tuple[str, bool]:
    """The agent-message text `message` carries, and whether it ends the turn (idle)."""
    update = message.get("params", {}).get("update", {})
    text = update["content"]["text"] if update.get("sessionUpdate") == "agent_message_chunk" else ""
    return text, update.get("state") == "idle"


def prompt(session: str, request_id: int = 2, text: str = TEXT) -> dict[str, Any]:
    params = {"sessionId": session, "prompt": [{"type": "text", "text": text}]}
    return {"jsonrpc": "2.0", "id": request_id, "method": "session/prompt", "params": params}


def test_initialize_names_the_connection_and_its_answer_is_the_body() -> None:
    async def scenario() -> None:
        async with served() as agent, aiohttp.ClientSession() as http:
            async with http.post(agent.url, json=initialize(7)) as answer:
                assert answer.status == 200
                assert answer.content_type == "application/json"
                body = await answer.json()
                connection = answer.headers[CONNECTION]
            assert body["id"] == 7 and body["result"]["protocolVersion"] == 2
            assert connection in agent.server.links
            # A second initialize on that connection is refused; one without it is a new one.
            headers = {CONNECTION: connection}
            async with http.post(agent.url, json=initialize(8), headers=headers) as again:
                assert again.status == 400
            async with http.delete(agent.url, headers=headers) as gone:
                assert gone.status == 202
            async with http.delete(agent.url, headers=headers) as unknown:
                assert unknown.status == 404

    run(scenario())


def test_statuses_for_what_the_ts_client_never_sends() -> None:
    async def scenario() -> None:
        async with served() as agent, aiohttp.ClientSession() as http:
            client, _ = await opened(http, agent.url)
            note = {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "s"}}
            assert (await client.post(note))[0] == 400  # a session's message without its header
            assert (await client.post(note, session="other"))[0] == 400  # mismatched header
            assert (await client.post(note, session="s"))[0] == 202
            status, body = await client.post(None, raw=b"{not json")
            assert status == 400 and json.loads(body)["error"]["code"] == -32700
            status, body = await client.post(None, raw=b"[]")
            assert status == 400 and json.loads(body)["error"]["code"] == -32600
            assert (await client.post(None, raw=b'"text"'))[0] == 400
            headers = client.headers(**{"Content-Type": "text/plain"})
            async with http.post(agent.url, data=b"{}", headers=headers) as wrong_type:
                assert wrong_type.status == 415
            async with http.get(agent.url, headers=client.headers()) as not_sse:
                assert not_sse.status == 406
            async with http.put(agent.url, headers=client.headers()) as put:
                assert put.status == 405
            stranger = RawClient(http, agent.url)
            stranger.connection_id = "no-such-connection"
            assert (await stranger.post(note, session="s"))[0] == 404
            assert await stranger.status_of_stream() == 404

    run(scenario())


def test_one_reader_per_stream() -> None:
    async def scenario() -> None:
        async with served() as agent, aiohttp.ClientSession() as http:
            client, main = await opened(http, agent.url)
            session = await new_session(client, main, "/tmp")  # the connection stream is read
            assert await client.status_of_stream() == 409
            assert await client.status_of_stream(session) == 200  # free, then released

    run(scenario())


def test_a_turn_goes_to_the_session_stream_and_answers_go_back_without_a_wrong_header() -> None:
    async def scenario() -> None:
        async with served() as agent, aiohttp.ClientSession() as http:
            client, main = await opened(http, agent.url)
            session = await new_session(client, main, "/tmp")
            events = await client.listen(session)
            assert (await client.post(prompt(session), session=session))[0] == 202
            seen = [await anext(events)]
            while seen[-1].get("method") != "session/request_permission":
                seen.append(await anext(events))
            asked = seen[-1]
            assert all(m.get("params", {}).get("sessionId") == session for m in seen[1:])
            assert seen[0]["id"] == 2  # the prompt's receipt came on the session's stream
            answer = allow(asked)
            # The request came on the session's stream: another session's header is refused;
            # no header is taken (the request's id names the session), as is the right one.
            assert (await client.post(answer, session="other"))[0] == 400
            assert (await client.post(answer))[0] == 202
            while seen[-1].get("params", {}).get("update", {}).get("state") != "idle":
                seen.append(await anext(events))
            assert seen[-1]["params"]["update"]["stopReason"] == "end_turn"

    run(scenario())


def test_what_was_sent_while_the_session_stream_was_down_comes_when_it_reopens() -> None:
    """The stream drops while the agent is waiting on a permission answer; the answer goes in
    and the turn runs to its end with nobody reading; the reopened stream then delivers every
    update of the rest of the turn, in order, once each."""

    async def scenario() -> None:
        async with served() as agent, aiohttp.ClientSession() as http:
            client, main = await opened(http, agent.url)
            session = await new_session(client, main, "/tmp")
            first = await client.listen(session)
            assert (await client.post(prompt(session), session=session))[0] == 202
            async for message in first:
                if message.get("method") == "session/request_permission":
                    asked = message
                    break
            await first.aclose()  # the stream drops
            link = agent.server.links[client.connection_id or ""]
            stream = link.sessions[session]
            answer = allow(asked)
            assert (await client.post(answer, session=session))[0] == 202
            await stream.free.wait()  # the server saw the drop: the turn ran on unread
            assert (await client.post({"jsonrpc": "2.0", "method": "$/ping"}))[0] == 202
            rest: list[dict[str, Any]] = []
            async for message in client.events(session):
                rest.append(message)
                update = message.get("params", {}).get("update", {})
                if update.get("state") == "idle":
                    break
            assert len(stream) == 0
            kinds = [m["params"]["update"]["sessionUpdate"] for m in rest]
            assert rest[0]["params"]["update"] == {
                "sessionUpdate": "state_update",
                "state": "running",
            }
            assert kinds[-1] == "state_update" and "tool_call_update" in kinds
            assert "agent_message_chunk" in kinds and "usage_update" in kinds
            assert len({json.dumps(m, sort_keys=True) for m in rest}) == len(rest)

    run(scenario())


@pytest.mark.parametrize(
    "text", ["lone \ud800 surrogate", "a NUL \u0000 inside", "\U0001f600 emoji"]
)
def test_text_the_stdio_path_carries_survives_http(text: str) -> None:
    async def scenario() -> None:
        async with served() as agent, aiohttp.ClientSession() as http:
            client, main = await opened(http, agent.url)
            session = await new_session(client, main, "/tmp")
            events = await client.listen(session)
            body = json.dumps(prompt(session, text=text)).encode()  # ASCII with \u escapes
            assert (await client.post(None, session, raw=body))[0] == 202
            reply = ""
            async for message in events:
                if message.get("method") == "session/request_permission":
                    answer = allow(message)
                    await client.post(answer, session=session)
                chunk, ended = reply_chunk(message)
                reply += chunk
                if ended:
                    break
            assert reply.split() == text.split()

    run(scenario())


def test_a_number_json_cannot_hold_is_answered_as_on_stdio() -> None:
    async def scenario() -> None:
        async with served() as agent, aiohttp.ClientSession() as http:
            client, main = await opened(http, agent.url)
            raw = b'{"jsonrpc":"2.0","id":5,"method":"session/new","params":{"cwd":1e400}}'
            assert (await client.post(None, raw=raw))[0] == 202
            answer = await anext(main)
            assert answer["id"] == 5 and answer["error"]["code"] == -32602

    run(scenario())


def test_a_client_that_reads_only_the_connection_stream_gets_the_whole_turn() -> None:
    """Upstream's draft has one stream per connection: a client that never opens a session's
    stream gets that session's messages on the connection's, and answers without the header."""

    async def scenario() -> None:
        async with served() as agent, aiohttp.ClientSession() as http:
            client, main = await opened(http, agent.url)
            session = await new_session(client, main, "/tmp")
            assert (await client.post(prompt(session), session=session))[0] == 202
            async for message in main:
                if message.get("method") == "session/request_permission":
                    answer = allow(message)
                    assert (await client.post(answer))[0] == 202
                update = message.get("params", {}).get("update", {})
                if update.get("state") == "idle":
                    assert update["stopReason"] == "end_turn"
                    break

    run(scenario())


@pytest.mark.parametrize(
    "text", ["lone \ud800 surrogate", "a NUL \u0000 inside", "\U0001f600 emoji"]
)
def test_text_the_stdio_path_carries_survives_a_websocket(text: str) -> None:
    """Each frame goes to the connection as it came; what the agent echoes comes back equal
    (a lone surrogate as a `\\u` escape: UTF-8 cannot carry it)."""

    async def scenario() -> None:
        async with served() as agent, aiohttp.ClientSession() as http:
            socket = await http.ws_connect(agent.ws_url)
            await socket.send_str(json.dumps(initialize()))
            await socket.receive()
            new = {"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": "/"}}
            await socket.send_str(json.dumps(new))
            session = ""
            reply = ""
            while True:
                message = json.loads((await socket.receive()).data)
                if message.get("id") == 1 and "method" not in message:  # session/new's answer
                    session = message["result"]["sessionId"]
                    await socket.send_str(json.dumps(prompt(session, text=text)))
                if message.get("method") == "session/request_permission":
                    await socket.send_str(json.dumps(allow(message)))
                chunk, ended = reply_chunk(message)
                reply += chunk
                if ended:
                    break
            assert reply.split() == text.split()
            await socket.close()

    run(scenario())


class HangingUp:
    """An agent that ends the connection instead of answering initialize."""

    def connection_dispatcher(self, connection: Any) -> Any:
        return _HangUp(connection)


class _HangUp:
    def __init__(self, connection: Any) -> None:
        self.connection = connection

    async def handle_request(self, method: str, params: Any) -> Any:
        # Closed from another task (a handler awaiting its own connection's close would wait
        # on itself), while this request is never answered.
        self.closing = asyncio.ensure_future(self.connection.close())
        await asyncio.Event().wait()

    async def handle_notification(self, method: str, params: Any) -> None:
        return None


def test_an_agent_that_ends_the_connection_during_initialize() -> None:
    """HTTP: 500 with a -32603 answer and no connection left; WebSocket: the same answer as a
    frame, then the socket closes with 1011."""

    async def scenario() -> None:
        async with served(agent=HangingUp()) as agent, aiohttp.ClientSession() as http:
            async with http.post(agent.url, json=initialize(3)) as answer:
                assert answer.status == 500
                body = await answer.json()
            assert (body["id"], body["error"]["code"]) == (3, -32603)
            socket = await http.ws_connect(agent.ws_url)
            await socket.send_str(json.dumps(initialize(4)))
            failed = json.loads((await socket.receive()).data)
            assert (failed["id"], failed["error"]["code"]) == (4, -32603)
            assert (await socket.receive()).type is aiohttp.WSMsgType.CLOSE
            assert socket.close_code == aiohttp.WSCloseCode.INTERNAL_ERROR
            assert agent.server.links == {}

    run(scenario())
