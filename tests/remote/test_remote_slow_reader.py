"""A client that reads slowly but steadily gets a large message whole, over an event stream and
over a WebSocket: the write deadline (`write_seconds`) bounds how long no byte goes out, not
how long a message takes. Before, a 12 MB message to a reader at a few MB/s was cut off after
`write_seconds` on every try, and re-sent whole to the next reader, which fared no better.

The reader is paced on purpose (a small receive buffer, one small read at a time, a short
pause between reads), so the message takes several times `write_seconds` to arrive; every
assertion is about what arrived, never about how long it took. A reader that stops reading is
still dropped after `write_seconds` (test_remote_stalled_reader.py)."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import socket
import struct
from typing import Any

import aiohttp

from tests.remote.agents import RemoteLimits, run, served
from tests.remote.raw import CONNECTION, SESSION, RawClient, initialize
from tests.remote.test_remote_stalled_reader import new_session, prompt

BIG = "0123456789abcdef" * (12 * 1024 * 1024 // 16)  # one 12 MB agent message
PIECE = 16 * 1024  # what the reader takes at a time
PAUSE = 0.006  # between reads: under 3 MB/s, far slower than the loopback
MAX_READS = 4 * len(BIG) // PIECE  # a bound on the loop, not a statement about speed
LIMITS = RemoteLimits(write_seconds=1.5)


def big_agent() -> Any:
    from acp_bindings import Agent, Prompt, Session

    class BigAgent(Agent):
        async def on_prompt(self, session: Session, prompt: Prompt) -> str | None:
            await session.agent_message().append(BIG)
            return None

    return BigAgent()


async def slow_socket(port: int) -> socket.socket:
    loop = asyncio.get_running_loop()
    raw = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, PIECE)  # fixed: no autotuning
    raw.setblocking(False)
    await loop.sock_connect(raw, ("127.0.0.1", port))
    return raw


async def read_slowly(raw: socket.socket, buffer: bytearray, until: bytes) -> None:
    """Read into `buffer`, PIECE at a time with a pause between, until `until` is in it."""
    loop = asyncio.get_running_loop()
    for _ in range(MAX_READS):
        if until in buffer:
            return
        piece = await loop.sock_recv(raw, PIECE)
        assert piece, f"the server closed the socket after {len(buffer)} bytes"
        buffer += piece
        await asyncio.sleep(PAUSE)
    raise AssertionError(f"{until!r} did not come in {MAX_READS} reads")


def dechunk(body: bytes) -> bytes:
    """An HTTP/1.1 chunked body (as far as it came) without its framing."""
    out, at = bytearray(), 0
    while True:
        end = body.find(b"\r\n", at)
        if end < 0:
            return bytes(out)
        size = int(body[at:end], 16)
        if size == 0 or end + 2 + size > len(body):
            return bytes(out)
        out += body[end + 2 : end + 2 + size]
        at = end + 2 + size + 2


def texts_in(messages: list[dict[str, Any]]) -> list[str]:
    chunks = []
    for message in messages:
        update = message.get("params", {}).get("update", {})
        if update.get("sessionUpdate") == "agent_message_chunk":
            chunks.append(update["content"]["text"])
    return chunks


def test_a_slow_event_stream_reader_gets_a_large_message_whole() -> None:
    async def scenario() -> None:
        async with (
            served(limits=LIMITS, agent=big_agent()) as agent,
            aiohttp.ClientSession() as http,
        ):
            client = RawClient(http, agent.url)
            await client.open()
            main = await client.listen()
            assert (await client.post(new_session(1)))[0] == 202
            session: str = (await anext(main))["result"]["sessionId"]
            raw = await slow_socket(agent.port)
            head = (
                f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{agent.port}\r\n"
                f"Accept: text/event-stream\r\n{CONNECTION}: {client.connection_id}\r\n"
                f"{SESSION}: {session}\r\n\r\n"
            )
            await asyncio.get_running_loop().sock_sendall(raw, head.encode())
            received = bytearray()
            await read_slowly(raw, received, b"\r\n\r\n")
            assert received.startswith(b"HTTP/1.1 200"), bytes(received[:200])
            assert (await client.post(prompt(2, session), session=session))[0] == 202
            await read_slowly(raw, received, BIG[-64:].encode() + b'"')
            await read_slowly(raw, received, b"\n\n")  # the event's end
            raw.close()
            body = dechunk(bytes(received).split(b"\r\n\r\n", 1)[1])
            events = [e for e in body.split(b"\n\n") if e.startswith(b"data: ")]
            messages = [json.loads(event.removeprefix(b"data: ")) for event in events]
            assert BIG in texts_in(messages)

    run(scenario())


def ws_frame(message: dict[str, Any]) -> bytes:
    """A masked text frame, as a client sends it."""
    payload, mask = json.dumps(message).encode(), os.urandom(4)
    size = len(payload)
    head = bytes([0x81]) + (
        bytes([0x80 | size]) if size < 126 else bytes([0x80 | 126]) + struct.pack("!H", size)
    )
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def ws_messages(data: bytes) -> list[dict[str, Any]]:
    """The text frames of a server's (unmasked) byte stream, as far as they came whole."""
    messages, at = [], 0
    while at + 2 <= len(data):
        size, start = data[at + 1] & 0x7F, at + 2
        if size == 126:
            size, start = struct.unpack("!H", data[at + 2 : at + 4])[0], at + 4
        elif size == 127:
            size, start = struct.unpack("!Q", data[at + 2 : at + 10])[0], at + 10
        if start + size > len(data):
            break
        if data[at] & 0x0F == 1:
            messages.append(json.loads(data[start : start + size]))
        at = start + size
    return messages


def test_a_slow_websocket_reader_gets_a_large_message_whole() -> None:
    async def scenario() -> None:
        async with served(limits=LIMITS, agent=big_agent()) as agent:
            loop = asyncio.get_running_loop()
            raw = await slow_socket(agent.port)
            key = base64.b64encode(os.urandom(16)).decode()
            head = (
                f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{agent.port}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                "Sec-WebSocket-Version: 13\r\n\r\n"
            )
            await loop.sock_sendall(raw, head.encode())
            received = bytearray()
            await read_slowly(raw, received, b"\r\n\r\n")
            assert received.startswith(b"HTTP/1.1 101"), bytes(received[:200])
            del received[: received.index(b"\r\n\r\n") + 4]
            await loop.sock_sendall(raw, ws_frame(initialize()) + ws_frame(new_session(1)))
            await read_slowly(raw, received, b'"sessionId"')
            await read_slowly(raw, received, b"}}")
            (session,) = [m["result"]["sessionId"] for m in ws_messages(received) if m.get("id")]
            await loop.sock_sendall(raw, ws_frame(prompt(2, session)))
            await read_slowly(raw, received, BIG[-64:].encode() + b'"')
            await read_slowly(raw, received, b"}}}")  # the message's end
            raw.close()
            assert BIG in texts_in(ws_messages(bytes(received)))

    run(scenario())


def test_a_slow_but_steady_upload_is_read_whole() -> None:
    """The other way: a POST body that keeps coming, however slowly, is read to its end
    (`stall_seconds` bounds a body from which nothing comes, test_remote_limits.py)."""
    limits = RemoteLimits(stall_seconds=1.0)
    pad = "p" * (6 * 1024 * 1024)
    notification = {"jsonrpc": "2.0", "method": "_bench/pad", "params": {"pad": pad}}
    body = json.dumps(notification).encode()

    async def scenario() -> None:
        async with served(limits=limits) as agent, aiohttp.ClientSession() as http:
            client = RawClient(http, agent.url)
            await client.open()
            reader, writer = await asyncio.open_connection("127.0.0.1", agent.port)
            writer.write(
                f"POST / HTTP/1.1\r\nHost: 127.0.0.1:{agent.port}\r\n"
                f"Content-Type: application/json\r\n{CONNECTION}: {client.connection_id}\r\n"
                f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
            )
            for at in range(0, len(body), PIECE):  # paced: well under 3 MB/s
                writer.write(body[at : at + PIECE])
                await writer.drain()
                await asyncio.sleep(PAUSE)
            status_line = await reader.readline()
            writer.close()
            assert status_line.startswith(b"HTTP/1.1 202"), status_line

    run(scenario())
