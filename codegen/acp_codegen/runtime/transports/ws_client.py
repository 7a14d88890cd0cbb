"""The client's end of a WebSocket connection, as the TS SDK 2.4.0's `experimental/ws-client`:
one text frame per message both ways, in order; the `101` names the connection
(`Acp-Connection-Id`). The socket closing, from either side, ends the connection.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Mapping
from typing import Literal

import aiohttp

from ..rpc.task_owner import TaskOwner
from ..wire.message_frames import FrameQueue
from .remote_wire import CONNECTION_HEADER, DEFAULT_HEARTBEAT_SECONDS, http_status, shown_url
from .send_queue import Outgoing

logger = logging.getLogger(__name__)


class WebSocketTransport:
    """The socket of one connection. Its reader and its sender are tasks of `tasks`, which
    `close` closes after the socket."""

    def __init__(
        self, socket: aiohttp.ClientWebSocketResponse[Literal[False]], queue: FrameQueue
    ) -> None:
        self._socket = socket
        self._queue = queue
        self.connection_id = socket._response.headers.get(CONNECTION_HEADER)
        self.tasks = TaskOwner("a WebSocket transport")
        self.outgoing = Outgoing(self._send, self._fail, self.tasks)
        self.tasks.spawn(self._read(), name="acp websocket reader")

    @classmethod
    async def open(
        cls,
        http: aiohttp.ClientSession,
        url: str,
        headers: Mapping[str, str] | None,
        queue: FrameQueue,
        max_message_bytes: int,
        heartbeat_seconds: float = DEFAULT_HEARTBEAT_SECONDS,
    ) -> WebSocketTransport:
        """Open the socket; a ping goes out every `heartbeat_seconds`, and a server whose pong
        has not come within half of that (it vanished without closing) ends the connection."""
        try:
            socket = await http.ws_connect(
                url,
                headers=dict(headers or {}),
                max_msg_size=max_message_bytes,
                heartbeat=heartbeat_seconds,
                decode_text=False,
            )
        except aiohttp.WSServerHandshakeError as refused:
            raise ConnectionRefusedError(
                f"{shown_url(url)} refused the WebSocket: {http_status(refused.status)}"
            ) from None
        except aiohttp.ClientError as problem:
            said = str(problem).replace(url, shown_url(url))  # the query may hold a token
            raise ConnectionRefusedError(f"cannot reach {shown_url(url)}: {said}") from None
        return cls(socket, queue)

    async def _send(self, frame: bytes) -> None:
        await self._socket.send_frame(frame, aiohttp.WSMsgType.TEXT)

    async def _read(self) -> None:
        try:
            async for message in self._socket:
                if message.type is aiohttp.WSMsgType.TEXT:
                    self._queue.feed(message.data)
                elif message.type is aiohttp.WSMsgType.ERROR:
                    logger.debug("websocket error: %s", self._socket.exception())
        finally:
            self._queue.end()

    def _fail(self, problem: BaseException) -> None:
        logger.debug("the websocket failed: %s", problem)
        self._queue.end()

    async def close(self) -> None:
        await self.outgoing.stop()
        with contextlib.suppress(aiohttp.ClientError, OSError):
            await self._socket.close()
        await self.tasks.close()
