"""A second client of a served agent that holds the same token as the first and sends, by
hand, whatever it likes about sessions it did not open: the raw JSON-RPC of HTTP (POSTs, the
connection's event stream) or of a WebSocket, speaking v2 or v1. It records every message
the agent sends it, so a test can say it was handed nothing of another client's session."""

from __future__ import annotations

import contextlib
import itertools
import json
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

import aiohttp

from tests.remote.raw import RawClient


def initialize(version: int) -> dict[str, Any]:
    params: dict[str, Any] = {"protocolVersion": version}
    if version == 1:
        params |= {"clientCapabilities": {}, "clientInfo": {"name": "intruder", "version": "0"}}
    else:
        params |= {"info": {"name": "intruder", "version": "0"}, "capabilities": {}}
    return {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}


class Intruder:
    """One connection; `request` returns the whole answer message (result or error)."""

    def __init__(self) -> None:
        self.ids = itertools.count(1)
        self.seen: list[dict[str, Any]] = []  # every message the agent sent, but answers

    async def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        request_id = next(self.ids)
        message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
        await self._send(message, params.get("sessionId"))
        while True:
            received = await self._receive()
            if received.get("id") == request_id and "method" not in received:
                return received
            self.seen.append(received)

    async def notify(self, method: str, params: dict[str, Any]) -> None:
        message = {"jsonrpc": "2.0", "method": method, "params": params}
        await self._send(message, params.get("sessionId"))

    async def _send(self, message: dict[str, Any], session: Any) -> None:
        raise NotImplementedError

    async def _receive(self) -> dict[str, Any]:
        raise NotImplementedError


class HttpIntruder(Intruder):
    """Over HTTP: every POST answered 202, the answers read from the connection's stream (it
    never opens a session's stream, so the agent sends it everything there)."""

    def __init__(self, client: RawClient, events: AsyncGenerator[dict[str, Any]]) -> None:
        super().__init__()
        self.client, self.events = client, events

    async def _send(self, message: dict[str, Any], session: Any) -> None:
        named = session if isinstance(session, str) else None
        status, body = await self.client.post(message, named)
        assert status == 202, body

    async def _receive(self) -> dict[str, Any]:
        return await anext(self.events)


class WsIntruder(Intruder):
    def __init__(self, socket: aiohttp.ClientWebSocketResponse) -> None:
        super().__init__()
        self.socket = socket

    async def _send(self, message: dict[str, Any], session: Any) -> None:
        await self.socket.send_str(json.dumps(message))

    async def _receive(self) -> dict[str, Any]:
        frame = await self.socket.receive()
        assert frame.type == aiohttp.WSMsgType.TEXT, frame
        received: dict[str, Any] = json.loads(frame.data)
        return received


@contextlib.asynccontextmanager
async def intruding(
    url: str, scheme: str, *, version: int = 2, token: str | None = None
) -> AsyncIterator[Intruder]:
    """A raw connection to the agent at `url` (`http` or `ws`), initialized with `version`."""
    auth = {} if token is None else {"Authorization": f"Bearer {token}"}
    async with aiohttp.ClientSession() as http:
        if scheme == "ws":
            socket = await http.ws_connect(url.replace("http://", "ws://"), headers=auth)
            try:
                await socket.send_str(json.dumps(initialize(version)))
                answer = json.loads((await socket.receive()).data)
                assert answer["result"]["protocolVersion"] == version, answer
                yield WsIntruder(socket)
            finally:
                await socket.close()
            return
        client = RawClient(http, url, token)
        status, body = await client.post(initialize(version))
        assert status == 200 and json.loads(body)["result"]["protocolVersion"] == version, body
        events = await client.listen()
        try:
            yield HttpIntruder(client, events)
        finally:
            await events.aclose()
            headers = client.headers()
            async with http.delete(url, headers=headers):
                pass
