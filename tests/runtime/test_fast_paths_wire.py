"""The wire layer's fast paths against their references, on the same random input: the encoder
built once on CPython's `c_make_encoder` against `json.dumps`, and lines (or a remote
connection's messages) handled while the reader is parked (`PushedLines.park`,
`FrameQueue.park`) against a reader that only pulls (`parks=False`)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from acp_codegen.runtime.wire.jsonvalue import JsonValue
from acp_codegen.runtime.wire.line_framing import (
    LineBuffer,
    LineTooLong,
    encode_json,
    encode_json_reference,
)
from acp_codegen.runtime.wire.message_frames import FrameQueue, parking
from acp_codegen.runtime.wire.pushed_lines import YIELD_ONCE, PushedLines
from hypothesis import example, given
from hypothesis import strategies as st

from .json_text import json_text
from .streams import run

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    json_text(max_size=8),
)
json_values: st.SearchStrategy[JsonValue] = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(json_text(max_size=6), inner, max_size=4)
    ),
    max_leaves=16,
)


@given(json_values)
@example({"text": "lone \ud800 surrogate", "nul": "\x00", "é": ["漢", "\U0001f600"]})
@example({"a\udc00": [1e300, -0.0, 10**40, True, None]})
def test_the_encoder_writes_the_bytes_json_dumps_writes(value: JsonValue) -> None:
    assert encode_json(value) == encode_json_reference(value)


# -- lines handled while the reader is parked ------------------------------------------------------

# A line's first byte says what the step does with it: "a" must be awaited (a coroutine), "y"
# started a task (`YIELD_ONCE`), anything else is handled in the step.
line_bodies = st.lists(st.sampled_from(list(b"ayz\xff")), max_size=6).map(bytes)


def _step(taken: list[object]) -> Callable[[bytes], Awaitable[None] | None]:
    """The reader loop's step: records each line it took in `taken`."""

    async def awaited(line: bytes) -> None:
        await asyncio.sleep(0)  # a real suspension: the park must have ended for this line
        taken.append(("awaited", line))

    async def handler(line: bytes) -> None:
        taken.append(("handler", line))  # its first step: before the next line is taken

    def take(line: bytes) -> Awaitable[None] | None:
        if line.startswith(b"a"):
            return awaited(line)
        taken.append(line)
        if line.startswith(b"y"):  # a request's handler started as a task
            handlers.add(asyncio.create_task(handler(line)))
            return YIELD_ONCE
        return None

    handlers: set[asyncio.Task[None]] = set()
    return take


async def _lines_taken(chunks: list[bytes], parks: bool, limit: int) -> list[object]:
    """Every line the reader loop's step took, in order, as `Connection.run` drives it."""
    taken: list[object] = []
    take = _step(taken)

    lines = PushedLines(parks=parks)
    lines.max_line_bytes = limit

    async def reader_loop() -> None:
        while True:
            try:
                line = lines.buffered_line()
                if line is None and lines.parks:
                    handover = await lines.park(take)
                    if handover is not None:
                        await handover
                        continue
                if line is None:
                    line = await lines.read_line()
            except LineTooLong:
                taken.append("too long")
                continue
            if line is None:
                return
            rest = take(line)
            if rest is not None:
                await rest

    loop_task = asyncio.create_task(reader_loop())
    for chunk in chunks:
        lines.received(chunk)
        for _ in range(3):  # let the loop take what it can (yields, not time)
            await asyncio.sleep(0)
    lines.ended()
    await loop_task
    return taken


@given(st.lists(line_bodies, max_size=12), st.booleans(), st.data())
def test_a_parked_reader_takes_the_lines_a_pulling_reader_takes(
    bodies: list[bytes], newline_at_end: bool, data: st.DataObject
) -> None:
    stream = b"\n".join(bodies) + (b"\n" if newline_at_end else b"")
    cuts = sorted(set(data.draw(st.lists(st.integers(0, len(stream)), max_size=8))))
    chunks = [stream[a:b] for a, b in zip([0, *cuts], [*cuts, len(stream)], strict=True)]
    limit = data.draw(st.sampled_from([4, 1 << 20]))  # some lines too long, or none

    async def both() -> tuple[list[object], list[object]]:
        return await _lines_taken(chunks, True, limit), await _lines_taken(chunks, False, limit)

    parked, pulled = run(both())
    assert parked == pulled


async def _frames_taken(groups: list[list[bytes]], parks: bool, limit: int) -> list[object]:
    """Every message the reader loop's step took, in order, as `Connection.run` drives a
    `FrameQueue` (which hands over nothing buffered: it parks or pulls)."""
    taken: list[object] = []
    take = _step(taken)
    frames = FrameQueue(max_frame_bytes=limit, parks=parks)

    async def reader_loop() -> None:
        parked = parking(frames)
        while True:
            try:
                if parked is not None:
                    handover = await parked.park(take)
                    if handover is not None:
                        await handover
                        continue
                frame = await frames.read_line()
            except LineTooLong:
                taken.append("too long")
                continue
            if frame is None:
                return
            rest = take(frame)
            if rest is not None:
                await rest

    loop_task = asyncio.create_task(reader_loop())
    for group in groups:
        for frame in group:  # fed one after another, no pass between (one POST after another)
            frames.feed(frame)
        for _ in range(3):  # let the loop take what it can (yields, not time)
            await asyncio.sleep(0)
    frames.end()
    await loop_task
    return taken


@given(st.lists(st.lists(line_bodies, max_size=4), max_size=8), st.data())
def test_a_parked_frame_queue_hands_the_step_the_messages_a_pulling_one_does(
    groups: list[list[bytes]], data: st.DataObject
) -> None:
    limit = data.draw(st.sampled_from([4, 1 << 20]))  # some messages too long, or none

    async def both() -> tuple[list[object], list[object]]:
        return await _frames_taken(groups, True, limit), await _frames_taken(groups, False, limit)

    parked, pulled = run(both())
    assert parked == pulled


def _lines_out(buffer: LineBuffer, whole: bool) -> list[object]:
    """What the reader loop gets from `buffer` before it must wait: every line `whole_lines`
    hands over at once, or `next_line`'s one call at a time ("too long" for each refusal)."""
    out: list[object] = []
    while True:
        try:
            got = buffer.whole_lines() if whole else [buffer.next_line()]
        except LineTooLong:
            out.append("too long")
            continue
        if not got or got == [None]:
            return out
        out.extend(got)


@given(st.lists(line_bodies, max_size=12), st.booleans(), st.data())
def test_whole_lines_hands_over_what_next_line_hands_over_one_by_one(
    bodies: list[bytes], newline_at_end: bool, data: st.DataObject
) -> None:
    stream = b"\n".join(bodies) + (b"\n" if newline_at_end else b"")
    cuts = sorted(set(data.draw(st.lists(st.integers(0, len(stream)), max_size=8))))
    chunks = [stream[a:b] for a, b in zip([0, *cuts], [*cuts, len(stream)], strict=True)]
    limit = data.draw(st.sampled_from([3, 4, 1 << 20]))  # some lines too long, or none
    fast, reference = LineBuffer(limit), LineBuffer(limit)
    for chunk in chunks:  # taken after each read, as the reader loop does
        fast.add(chunk)
        reference.add(chunk)
        assert _lines_out(fast, True) == _lines_out(reference, False)
    finals: list[object] = []
    for buffer in (fast, reference):
        try:
            finals.append(buffer.final_line())
        except LineTooLong:
            finals.append("too long")
    assert finals[0] == finals[1]
