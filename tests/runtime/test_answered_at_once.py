"""Requests the dispatcher answers without suspending (`synchronous_requests`) are answered
within the read that brought them, with no task; one that suspends after all is finished by
a task that `$/cancel_request` finds; the handler's context stays its own. Both reading modes."""

from __future__ import annotations

import asyncio
import contextvars
import json
from typing import Any

import pytest
from acp_codegen.runtime.rpc.connection import Connection, answer_written
from acp_codegen.runtime.rpc.resumed import Resumed
from acp_codegen.runtime.wire.message_frames import FrameQueue
from acp_codegen.runtime.wire.pushed_lines import PushedLines

from .streams import RecordingSink, connected, guard, run

pytestmark = pytest.mark.usefixtures("reading_modes")

SEEN: contextvars.ContextVar[str] = contextvars.ContextVar("seen", default="outside")


class AtOnce:
    """Answers `quick` without suspending, `wait` (also declared synchronous) only after
    `release` is set; records what each handler saw of its context."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.seen: list[str] = []
        self.written: list[asyncio.Future[None] | None] = []

    def synchronous_requests(self) -> frozenset[str]:
        return frozenset({"quick", "wait"})

    async def handle_request(self, method: str, params: Any) -> Any:
        self.seen.append(SEEN.get())
        SEEN.set(f"set by {params['n']}")  # the handler's own context: no one else sees it
        self.written.append(answer_written())
        if method == "wait":
            await self.release.wait()
        return {"n": params["n"]}

    async def handle_notification(self, method: str, params: Any) -> None:
        self.seen.append(SEEN.get())

    def inline_notifications(self) -> dict[str, Any]:
        return {"note": lambda params: self.seen.append(SEEN.get())}


def encoded(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


def request(n: int, method: str = "quick") -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": n, "method": method, "params": {"n": n}}


def test_a_pushed_request_is_answered_within_the_callback_with_no_task() -> None:
    async def scenario() -> None:
        lines, sink = PushedLines(), RecordingSink()
        handler = AtOnce()
        connection = Connection(lines, sink, handler)
        connection.start()
        while not lines.parked:
            await asyncio.sleep(0)
        note = {"jsonrpc": "2.0", "method": "note", "params": {}}
        lines.received(b"".join(encoded(m) for m in (request(1), note, request(2), note)))
        assert sink.messages() == [  # this task has not yielded: no event-loop pass between
            {"jsonrpc": "2.0", "id": 1, "result": {"n": 1}},
            {"jsonrpc": "2.0", "id": 2, "result": {"n": 2}},
        ]
        assert not connection._inbound and not connection._tasks  # nothing to find or cancel
        assert handler.seen == ["outside"] * 4  # each handler's context was a copy
        assert all(f is not None and f.done() for f in handler.written)
        await connection.close()

    run(scenario())


def test_a_request_fed_to_a_remote_connection_is_answered_within_the_feed() -> None:
    """A remote connection's queue (`FrameQueue`) parks the reader loop as stdio's lines do:
    a message fed while it waits is handled in the `feed` call, no event-loop pass between."""

    async def scenario() -> None:
        frames, sink = FrameQueue(), RecordingSink()
        connection = Connection(frames, sink, AtOnce())
        connection.start()
        while not frames.parked:
            await asyncio.sleep(0)
        frames.feed(encoded(request(1)).strip())
        frames.feed(encoded(request(2)).strip())
        assert sink.messages() == [
            {"jsonrpc": "2.0", "id": 1, "result": {"n": 1}},
            {"jsonrpc": "2.0", "id": 2, "result": {"n": 2}},
        ]
        await connection.close()

    run(scenario())


def test_answered_at_once_in_wire_order_and_in_a_context_of_its_own() -> None:
    async def scenario() -> None:
        handler = AtOnce()
        connection, peer = await connected(handler)
        await peer.send(request(1), {"jsonrpc": "2.0", "method": "note", "params": {}}, request(2))
        assert [await peer.recv() for _ in range(2)] == [
            {"jsonrpc": "2.0", "id": 1, "result": {"n": 1}},
            {"jsonrpc": "2.0", "id": 2, "result": {"n": 2}},
        ]
        assert handler.seen == ["outside"] * 3
        assert SEEN.get() == "outside"
        await connection.close()

    run(scenario())


def test_one_that_suspends_after_all_is_finished_by_a_task() -> None:
    async def scenario() -> None:
        handler = AtOnce()
        connection, peer = await connected(handler)
        await peer.send(request(1, "wait"), request(2))
        assert await peer.recv() == {"jsonrpc": "2.0", "id": 2, "result": {"n": 2}}
        [task] = connection._inbound.values()  # the rest of request 1, findable
        assert not task.done()
        handler.release.set()
        assert await peer.recv() == {"jsonrpc": "2.0", "id": 1, "result": {"n": 1}}
        await guard(task)
        assert not connection._inbound and not connection._tasks
        await connection.close()

    run(scenario())


def test_one_that_suspended_is_cancelled_by_cancel_request() -> None:
    async def scenario() -> None:
        handler = AtOnce()
        connection, peer = await connected(handler)
        await peer.send(request(1, "wait"))
        while not connection._inbound:
            await asyncio.sleep(0)
        await peer.send(
            {"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 1}}
        )
        answer = await peer.recv()
        assert answer["id"] == 1 and answer["error"]["code"] == -32800
        await connection.close()

    run(scenario())


def test_resumed_hands_the_task_what_the_coroutine_waits_on_and_passes_a_cancel_on() -> None:
    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        waited = loop.create_future()

        async def body() -> str:
            try:
                return str(await waited)
            except asyncio.CancelledError:
                return "cancelled where it waited"

        first, second = body(), body()
        task = loop.create_task(Resumed(first, first.send(None)))
        await asyncio.sleep(0)
        waited.set_result("done")
        assert await guard(task) == "done"
        waited = loop.create_future()
        task = loop.create_task(Resumed(second, second.send(None)))
        task.cancel()  # before its first step
        assert await guard(task) == "cancelled where it waited"

    run(scenario())
