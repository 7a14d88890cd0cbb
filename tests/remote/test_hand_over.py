"""A remote server's busy connections go on after handing the loop over in the order their
streams began (serving/hand_over.py): the oldest finishes first, everything else on the loop
still runs at every hand-over, a stream that has run its quantum goes to the back, and a
cancelled waiter never stalls the others. A connection hands over past 16 KiB of output not yet
sent, and past 4 KiB when it was not busy just before (a new turn)."""

from __future__ import annotations

import asyncio
import itertools
import time

from acp_codegen.runtime.serving.hand_over import (
    FIRST_HAND_OVER_BYTES,
    HAND_OVER_BYTES,
    HandOver,
    Stream,
)
from acp_codegen.runtime.serving.remote_link import RemoteLimits, RemoteLink

from tests.runtime.streams import Silent

_GUARD = 10.0  # seconds: a hang fails the test instead of stalling the suite


def _producers(
    order: HandOver, slices: int, log: list[str], names: str
) -> list[asyncio.Task[None]]:
    """One task per name: `slices` slices of work, each logged, handing over after each."""

    async def produce(name: str) -> None:
        stream = Stream()
        for index in range(slices):
            log.append(f"{name}{index}")
            if index < slices - 1:
                await order.wait_turn(stream)

    return [asyncio.ensure_future(produce(name)) for name in names]


def test_the_stream_that_began_first_goes_on_until_it_is_done() -> None:
    async def scenario() -> list[str]:
        log: list[str] = []
        await asyncio.wait_for(asyncio.gather(*_producers(HandOver(), 3, log, "ABC")), _GUARD)
        return log

    # Each starts (its first slice is not gated), then the oldest goes on to its end.
    assert asyncio.run(scenario()) == ["A0", "B0", "C0", "A1", "A2", "B1", "B2", "C1", "C2"]


def test_other_work_on_the_loop_runs_at_every_hand_over() -> None:
    async def scenario() -> list[str]:
        log: list[str] = []
        done = asyncio.Event()

        async def reader() -> None:  # a request being read, a writer sending: never gated
            while not done.is_set():
                log.append("r")
                await asyncio.sleep(0)

        running = asyncio.ensure_future(reader())
        await asyncio.wait_for(asyncio.gather(*_producers(HandOver(), 4, log, "A")), _GUARD)
        done.set()
        await running
        return log

    log = asyncio.run(scenario())
    slices = [i for i, entry in enumerate(log) if entry != "r"]
    assert len(slices) == 4
    assert all("r" in log[a + 1 : b] for a, b in itertools.pairwise(slices))


def test_a_stream_past_its_quantum_goes_to_the_back() -> None:
    async def scenario() -> list[str]:
        log: list[str] = []
        order = HandOver(quantum=-1.0)  # every stretch is over its quantum at once
        await asyncio.wait_for(asyncio.gather(*_producers(order, 3, log, "ABC")), _GUARD)
        return log

    assert asyncio.run(scenario()) == ["A0", "B0", "C0", "A1", "B1", "C1", "A2", "B2", "C2"]


def test_a_stream_quiet_for_longer_than_idle_starts_anew() -> None:
    async def scenario() -> tuple[float, float]:
        stream = Stream()
        stream.began, stream.resumed = 1.0, time.monotonic() - 5.0  # busy long ago, then quiet
        await asyncio.wait_for(HandOver(idle=1.0).wait_turn(stream), _GUARD)
        return stream.began, stream.ran

    began, ran = asyncio.run(scenario())
    assert began > 1.0 and ran == 0.0


def test_a_waiter_cancelled_before_its_turn_is_skipped() -> None:
    async def scenario() -> list[str]:
        log: list[str] = []
        order = HandOver()
        a, b, c = _producers(order, 2, log, "ABC")
        await asyncio.sleep(0)  # all three ran their first slice and wait for a turn
        b.cancel()
        await asyncio.wait_for(asyncio.gather(a, c), _GUARD)
        return log

    assert asyncio.run(scenario()) == ["A0", "B0", "C0", "A1", "C1"]


def test_a_waiter_cancelled_after_it_was_given_the_turn_passes_it_on() -> None:
    async def scenario() -> list[str]:
        log: list[str] = []
        order = HandOver()
        tasks: dict[str, asyncio.Task[None]] = {}

        async def produce(name: str) -> None:
            stream = Stream()
            log.append(f"{name}0")
            await order.wait_turn(stream)
            log.append(f"{name}1")
            if name == "A":  # A ends: the turn goes to B, cancelled before it can go on
                asyncio.get_running_loop().call_soon(tasks["B"].cancel)

        for name in "ABC":
            tasks[name] = asyncio.ensure_future(produce(name))
        await asyncio.wait_for(asyncio.gather(tasks["A"], tasks["C"]), _GUARD)
        assert tasks["B"].cancelled()
        return log

    assert asyncio.run(scenario()) == ["A0", "B0", "C0", "A1", "C1"]


# -- when a connection hands over ------------------------------------------------------------------


def test_a_stream_starting_a_busy_stretch_hands_over_sooner() -> None:
    order, stream = HandOver(idle=1.0), Stream()
    assert not order.due(stream, FIRST_HAND_OVER_BYTES - 1)
    assert order.due(stream, FIRST_HAND_OVER_BYTES)  # never busy: a new turn
    stream.began = stream.resumed = time.monotonic()  # it handed over and went on just now
    assert not order.due(stream, HAND_OVER_BYTES - 1)
    assert order.due(stream, HAND_OVER_BYTES)
    stream.resumed = time.monotonic() - 5.0  # busy long ago, then quiet: a new stretch
    assert order.due(stream, FIRST_HAND_OVER_BYTES)


class _Counted(HandOver):
    """The server's order, counting the hand-overs."""

    def __init__(self) -> None:
        super().__init__()
        self.hand_overs = 0

    async def wait_turn(self, stream: Stream) -> None:
        self.hand_overs += 1
        await super().wait_turn(stream)


def test_a_connection_hands_over_once_its_unsent_output_is_due() -> None:
    async def scenario() -> list[int]:
        order = _Counted()
        link = RemoteLink(lambda _: Silent(), RemoteLimits(), hand_over=order)
        counted: list[int] = []
        try:
            # Nobody reads the connection's stream: each write stays queued.
            for size in (100, FIRST_HAND_OVER_BYTES, HAND_OVER_BYTES // 2, HAND_OVER_BYTES):
                link.sink.write(b'"' + b"x" * size + b'"\n')
                await asyncio.wait_for(link.sink.drain(), _GUARD)
                counted.append(order.hand_overs)
        finally:
            await link.close()
        return counted

    # A prompt's answer alone: no hand-over. Past 4 KiB, a new stream hands over; then, busy,
    # not again until past 16 KiB.
    assert asyncio.run(scenario()) == [0, 1, 1, 2]
