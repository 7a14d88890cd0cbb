"""A WebSocket pump's batch (`ws_batch.text_frames`, several messages framed and written in one
go) against its reference, aiohttp's own writer sending each message as a text frame: on the
same random messages, the same bytes on the wire."""

from __future__ import annotations

import asyncio
from typing import Any

from acp_codegen.runtime.serving.ws_batch import text_frames
from aiohttp import WSMsgType
from aiohttp._websocket.writer import WebSocketWriter
from hypothesis import given
from hypothesis import strategies as st

from .streams import run


class _Transport:
    """What aiohttp's writer needs of a transport: it keeps every write."""

    def __init__(self) -> None:
        self.written = bytearray()

    def write(self, data: bytes) -> None:
        self.written += data

    def is_closing(self) -> bool:
        return False

    def get_write_buffer_size(self) -> int:
        return 0


class _Protocol:
    _paused = False  # read by the writer past its output limit (a long message)

    async def _drain_helper(self) -> None:
        return None


async def _sent_by_aiohttp(messages: list[bytes]) -> bytes:
    transport = _Transport()
    protocol: Any = _Protocol()
    writer = WebSocketWriter(protocol, transport, use_mask=False)  # type: ignore[arg-type]
    for message in messages:
        await writer.send_frame(message, WSMsgType.TEXT)
    await asyncio.sleep(0)
    return bytes(transport.written)


sizes = st.sampled_from([0, 1, 125, 126, 127, 65535, 65536, 70000])
messages = st.lists(
    st.one_of(st.binary(max_size=300), sizes.map(lambda size: b"x" * size)), max_size=6
)


@given(messages)
def test_framed_in_one_go_the_bytes_aiohttp_writes_one_message_at_a_time(
    batch: list[bytes],
) -> None:
    assert text_frames(batch) == run(_sent_by_aiohttp(batch))
