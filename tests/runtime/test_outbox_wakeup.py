"""A remote connection's outgoing stream (`Outbox`) hands a pushed message to the receiver
waiting for it one event-loop pass later (not three: no task of its own around the wait), says
when its keep-alive wait passed with nothing, and wakes a receiver that was taken over."""

from __future__ import annotations

import asyncio

import pytest
from acp_codegen.runtime.serving.outbox import Backlog, Outbox, StreamClosed

from .streams import run


def test_a_pushed_message_reaches_its_waiting_receiver_one_loop_pass_later() -> None:
    async def scenario() -> None:
        stream = Outbox(Backlog(1 << 20))
        lease = stream.acquire()
        receiver = asyncio.create_task(stream.next(15.0, lease))
        await asyncio.sleep(0)  # the receiver waits now
        assert not receiver.done()
        stream.push(b"one")
        await asyncio.sleep(0)  # one pass: the receiver's wake-up runs before this task
        assert receiver.done() and receiver.result() == b"one"

    run(scenario())


def test_a_wait_with_nothing_pushed_ends_in_none_then_messages_still_come() -> None:
    async def scenario() -> None:
        stream = Outbox(Backlog(1 << 20))
        lease = stream.acquire()
        assert await stream.next(0.01, lease) is None  # time for a keep-alive
        stream.push(b"two")
        assert await stream.next(0.01, lease) == b"two"
        stream.finish()
        with pytest.raises(StreamClosed):
            await stream.next(None, lease)

    run(scenario())


def test_a_receiver_taken_over_stops_waiting_and_the_new_one_gets_the_messages() -> None:
    async def scenario() -> None:
        stream = Outbox(Backlog(1 << 20))
        old = stream.acquire(alive=lambda: False)  # its client left unnoticed
        waiting = asyncio.create_task(stream.next(None, old))
        await asyncio.sleep(0)
        new = stream.acquire()
        assert new is not None
        taking = asyncio.create_task(stream.next(None, new))
        with pytest.raises(StreamClosed):
            await waiting
        stream.push(b"three")
        assert await asyncio.wait_for(taking, 10) == b"three"

    run(scenario())
