"""The Host check of a served agent, sent as an attacker would: a raw socket writing each Host
header byte for byte (no client library to tidy it up). Only the exact address the agent
listens on opens a connection; `evil.example@127.0.0.1:PORT` and every other disguise is
refused before the agent sees anything."""

from __future__ import annotations

import asyncio
import json

import pytest

from tests.remote.agents import run, served
from tests.remote.raw import initialize
from tests.test_web_guard import FOREIGN_HOSTS

TOKEN = "host-header-token"


async def post_with_host(port: int, host: str) -> int:
    """POST initialize to 127.0.0.1:`port` with `Host: <host>` as given; the answer's status."""
    body = json.dumps(initialize()).encode()
    head = (
        f"POST / HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {TOKEN}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        "Connection: close\r\n\r\n"
    )
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(head.encode("latin-1") + body)
        await writer.drain()
        status_line = await reader.readline()
    finally:
        writer.close()
    assert status_line.startswith(b"HTTP/1.1 "), status_line
    return int(status_line.split()[1])


@pytest.mark.parametrize("disguise", FOREIGN_HOSTS)
def test_a_disguised_host_is_refused(disguise: str) -> None:
    async def scenario() -> None:
        async with served(token=TOKEN) as agent:
            host = disguise.replace("8123", str(agent.port))
            assert await post_with_host(agent.port, host) in (400, 403)
            assert agent.server.links == {}  # the agent saw nothing
            assert await post_with_host(agent.port, f"127.0.0.1:{agent.port}") == 200

    run(scenario())


@pytest.mark.parametrize("spelling", ["127.0.0.1:{}", "LOCALHOST:{}", "localhost:{}"])
def test_our_address_in_any_case_is_served(spelling: str) -> None:
    async def scenario() -> None:
        async with served(token=TOKEN) as agent:
            assert await post_with_host(agent.port, spelling.format(agent.port)) == 200

    run(scenario())
