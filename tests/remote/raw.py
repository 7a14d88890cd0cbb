"""A client of the remote wire at the HTTP level (aiohttp), to send what our own client never
would and to watch each event stream by itself."""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from typing import Any

import aiohttp
from acp_codegen._bindings._runtime.transports.sse import sse_messages

CONNECTION, SESSION = "Acp-Connection-Id", "Acp-Session-Id"
PROTOCOL = 2


def initialize(request_id: int = 0) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "initialize",
        "params": {"protocolVersion": PROTOCOL, "info": {"name": "raw", "version": "0"}},
    }


class RawClient:
    def __init__(self, http: aiohttp.ClientSession, url: str, token: str | None = None) -> None:
        self.http, self.url = http, url
        self.auth = {} if token is None else {"Authorization": f"Bearer {token}"}
        self.connection_id: str | None = None

    def headers(self, session: str | None = None, **more: str) -> dict[str, str]:
        headers = {**self.auth, **more}
        if self.connection_id is not None:
            headers[CONNECTION] = self.connection_id
        if session is not None:
            headers[SESSION] = session
        return headers

    async def post(
        self, message: Any, session: str | None = None, *, raw: bytes | None = None
    ) -> tuple[int, bytes]:
        body = raw if raw is not None else json.dumps(message).encode()
        headers = self.headers(session, **{"Content-Type": "application/json"})
        async with self.http.post(self.url, data=body, headers=headers) as answer:
            if answer.headers.get(CONNECTION) and self.connection_id is None:
                self.connection_id = answer.headers[CONNECTION]
            return answer.status, await answer.read()

    async def open(self) -> dict[str, Any]:
        status, body = await self.post(initialize())
        assert status == 200, body
        answer: dict[str, Any] = json.loads(body)
        return answer

    async def events(
        self, session: str | None = None, *, announce: bool = False
    ) -> AsyncGenerator[dict[str, Any]]:
        """The messages of one event stream, until it ends (or the caller stops reading);
        with `announce`, first an empty dict once the server has accepted the stream."""
        headers = self.headers(session, Accept="text/event-stream")
        timeout = aiohttp.ClientTimeout(total=None, sock_read=None)
        async with self.http.get(self.url, headers=headers, timeout=timeout) as answer:
            assert answer.status == 200, await answer.text()
            if announce:
                yield {}
            async for frame in sse_messages(answer.content.iter_any(), 1 << 26):
                yield json.loads(frame)

    async def listen(self, session: str | None = None) -> AsyncGenerator[dict[str, Any]]:
        """`events`, open once this returns: what the agent sends next comes on it."""
        stream = self.events(session, announce=True)
        assert await anext(stream) == {}
        return stream

    async def status_of_stream(self, session: str | None = None) -> int:
        headers = self.headers(session, Accept="text/event-stream")
        async with self.http.get(self.url, headers=headers) as answer:
            return answer.status
