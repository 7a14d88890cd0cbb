"""What both client transports share: the queue that sends our messages one at a time, in
order, and the local failure of one of our requests when its transport could not carry it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

from ..rpc.messages import RequestId, error_message
from ..rpc.task_owner import TaskOwner
from ..wire.errors import RpcError
from ..wire.jsonvalue import JsonValue
from ..wire.line_framing import encode_json
from ..wire.message_frames import FrameQueue

Send = Callable[[bytes], Awaitable[None]]


class Outgoing:
    """The client's messages, sent one at a time in the order written (a POST waits for the
    previous one: the agent must see them in order). `room` waits until all are sent. The
    task that sends them is `tasks`' (the transport's); `stop` ends it; a failed send ends it
    too, after `on_failure` was told."""

    def __init__(
        self, send: Send, on_failure: Callable[[BaseException], None], tasks: TaskOwner
    ) -> None:
        self._send = send
        self._frames: asyncio.Queue[bytes] = asyncio.Queue()
        self._idle = asyncio.Event()
        self._idle.set()
        self._on_failure = on_failure
        self._task = tasks.spawn(self._run(), name="acp client sender")

    def deliver(self, frame: bytes) -> None:
        self._idle.clear()
        self._frames.put_nowait(frame)

    async def room(self) -> None:
        if not self._task.done():
            await self._idle.wait()

    async def _run(self) -> None:
        try:
            while True:
                frame = await self._frames.get()
                await self._send(frame)
                if self._frames.empty():
                    self._idle.set()
        except asyncio.CancelledError:
            raise
        except BaseException as problem:
            self._idle.set()
            self._on_failure(problem)

    async def stop(self) -> None:
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        self._idle.set()


def fail_request(
    queue: FrameQueue, request_id: RequestId, message: str, data: JsonValue = None
) -> None:
    """Answer one of our requests locally with -32603 (its transport failed it)."""
    queue.feed(encode_json(error_message(request_id, RpcError(-32603, message, data))))
