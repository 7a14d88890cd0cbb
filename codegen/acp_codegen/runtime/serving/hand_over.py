"""The order in which a remote server's connections go on writing after handing the loop over.

An agent that produces output faster than its client takes it hands the event loop over once
a little is queued (`RemoteLink._room`), so the stream writers send what is queued and new
requests are read. With a plain `asyncio.sleep(0)` every such connection then goes on in turn:
on a loaded server all turns advance together and all end together, late. Here the
connections waiting to go on resume one at a time, the one whose stream began earliest first:
requests and writers still run at every hand-over, but turns end one after another, so most of
them end sooner and none later (bench/RESULTS.md, Round 16).

A stream keeps its place while it is busy: it starts anew (at the back) when it hands over
after being quiet for `idle` seconds, or once it has run `quantum` seconds since it began, so
one stream that never stops cannot hold the others back for long. The hand-over only orders
connections that are all behind their clients; one that waits on anything else (a model, a
tool, its client) takes no part until it hands over again.

When to hand over (`due`): past `HAND_OVER_BYTES` of output not yet sent, and sooner, past
`FIRST_HAND_OVER_BYTES`, for a stream that is not in a busy stretch. A new turn's first writes
are its prompt's answer and echo: they go out before it runs on, and turns that start together
do not each run a whole slice before any writer sends a byte (bench/RESULTS.md, Round 17).
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from typing import Final

QUANTUM_SECONDS: Final = 0.25  # running time after which a stream gives up its place
IDLE_SECONDS: Final = 1.0  # a quiet stream that hands over again starts anew
HAND_OVER_BYTES: Final = 16 * 1024  # output not yet sent past which a busy stream hands over
FIRST_HAND_OVER_BYTES: Final = 4 * 1024  # the same for a stream starting a busy stretch


class Stream:
    """One connection's place in the order, shared by the turns of all its sessions (their
    running time is counted together, so a connection busy on several goes back sooner)."""

    __slots__ = ("began", "ran", "resumed")

    def __init__(self) -> None:
        self.began: float | None = None  # when its current busy stretch began
        self.ran = 0.0  # seconds it has run in that stretch (waits not counted)
        self.resumed = 0.0  # when it last went on


class HandOver:
    """The waiting connections of one server (one event loop), resumed oldest stream first."""

    def __init__(self, quantum: float = QUANTUM_SECONDS, idle: float = IDLE_SECONDS) -> None:
        self._quantum = quantum
        self._idle = idle
        self._waiting: list[tuple[float, int, asyncio.Future[None]]] = []
        self._order = itertools.count()  # equal starts go on in the order they came
        self._taken = False  # a connection goes on (or is about to): the others wait

    def due(self, stream: Stream, queued: int) -> bool:
        """Whether a connection with `queued` bytes of output not yet sent hands over now."""
        if queued >= HAND_OVER_BYTES:
            return True
        if queued < FIRST_HAND_OVER_BYTES:
            return False
        return stream.began is None or time.monotonic() - stream.resumed > self._idle

    async def wait_turn(self, stream: Stream) -> None:
        """Hand the loop over; return when it is `stream`'s turn to go on."""
        now = time.monotonic()
        if stream.began is not None:
            stream.ran += now - stream.resumed
        if stream.began is None or now - stream.resumed > self._idle or stream.ran > self._quantum:
            stream.began, stream.ran = now, 0.0
        loop = asyncio.get_running_loop()
        turn: asyncio.Future[None] = loop.create_future()
        heapq.heappush(self._waiting, (stream.began, next(self._order), turn))
        if not self._taken:
            self._taken = True
            loop.call_soon(self._next)  # after what is ready now: readers, writers
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():  # given the turn, then cancelled
                loop.call_soon(self._next)
            raise
        stream.resumed = time.monotonic()
        # Runs when this task next waits on anything: the next oldest goes on then.
        loop.call_soon(self._next)

    def _next(self) -> None:
        while self._waiting:
            _, _, turn = heapq.heappop(self._waiting)
            if not turn.done():  # a waiter cancelled meanwhile is skipped
                turn.set_result(None)
                return
        self._taken = False
