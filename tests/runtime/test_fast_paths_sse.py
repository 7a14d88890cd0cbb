"""The client's reading of event streams: `sse_batches` (a chunk's events split at once) against
its reference `sse_messages` (one line at a time), both against the events they were written
from, and `may_route` (which messages skip `peek`) against `peek`."""

from __future__ import annotations

import asyncio
import itertools
import json
import tracemalloc
from collections.abc import AsyncIterator, Sequence
from typing import Any

import pytest
from acp_codegen.runtime.transports.remote_wire import may_route, peek
from acp_codegen.runtime.transports.sse import EventTooLarge, sse_batches, sse_messages
from hypothesis import example, given
from hypothesis import strategies as st

from .json_text import json_text

BOM = b"\xef\xbb\xbf"
Read = tuple[list[bytes], bool]  # the messages, and whether the stream was refused after them


async def _chunks(parts: Sequence[bytes]) -> AsyncIterator[bytes]:
    for part in parts:
        yield part


async def _fast(parts: Sequence[bytes], max_bytes: int) -> Read:
    messages: list[bytes] = []
    try:
        async for batch in sse_batches(_chunks(parts), max_bytes):
            assert batch, "a batch is never empty"
            messages += batch
    except EventTooLarge:
        return messages, True
    return messages, False


async def _reference(parts: Sequence[bytes], max_bytes: int) -> Read:
    messages: list[bytes] = []
    try:
        async for message in sse_messages(_chunks(parts), max_bytes):
            messages.append(message)
    except EventTooLarge:
        return messages, True
    return messages, False


def read_both(parts: Sequence[bytes], max_bytes: int = 1 << 20) -> Read:
    """What both readers make of `parts`; they must agree."""
    fast, reference = (
        asyncio.run(_fast(parts, max_bytes)),
        asyncio.run(_reference(parts, max_bytes)),
    )
    assert fast == reference
    return fast


def cut(stream: bytes, at: Sequence[int]) -> list[bytes]:
    """`stream` in chunks, cut at the offsets `at` (in any order, repeats allowed)."""
    edges = [0, *sorted(offset % (len(stream) + 1) for offset in at), len(stream)]
    return [stream[start:end] for start, end in itertools.pairwise(edges)]


# -- examples -------------------------------------------------------------------------------------


def test_each_line_end_ends_a_line() -> None:
    stream = b"data: a\n\ndata: b\r\n\r\ndata: c\r\rdata: d\n\r"
    assert read_both([stream]) == ([b"a", b"b", b"c", b"d"], False)


def test_a_cr_that_ends_a_chunk_and_the_lf_that_starts_the_next_are_one_line_end() -> None:
    # Were the LF a line of its own, it would end an event: "a" and "b" would be two.
    assert read_both([b"data: a\r", b"\ndata: b\n\n"]) == ([b"a\nb"], False)
    # A CR then an empty chunk then an LF: still one line end.
    assert read_both([b"data: a\r", b"", b"\ndata: b\n\n"]) == ([b"a\nb"], False)
    # After a CRLF split so, the next LF is a line end again.
    assert read_both([b"data: a\r", b"\n", b"\n"]) == ([b"a"], False)


def test_data_lines_join_and_other_lines_are_skipped() -> None:
    stream = b": a comment\nevent: message\nid: 7\ndata:x\ndata:  two spaces\ndata\nretry: 5\n\n"
    assert read_both([stream]) == ([b"x\n two spaces\n"], False)


def test_an_event_without_data_makes_no_message() -> None:
    assert read_both([b"\n\n: ping\n\nevent: x\n\n"]) == ([], False)


def test_a_bom_is_skipped_only_where_the_stream_starts() -> None:
    assert read_both([BOM + b"data: a\n\n"]) == ([b"a"], False)
    assert read_both([BOM[:2], BOM[2:] + b"data: a\n\n"]) == ([b"a"], False)
    # Anywhere else the line starts with the BOM: a field of another name, skipped.
    assert read_both([b"data: a\n\n" + BOM + b"data: b\n\n"]) == ([b"a"], False)


def test_an_event_the_stream_ends_inside_is_dropped() -> None:
    # The server sends a message again when its write did not end: taking it would repeat it.
    assert read_both([b"data: a\n\ndata: b\n"]) == ([b"a"], False)
    assert read_both([b"data: a\n\ndata: b"]) == ([b"a"], False)
    assert read_both([b"data: a\n\r"]) == ([b"a"], False)  # a final CR ends its line


def test_a_line_over_the_limit_is_refused_after_what_came_before() -> None:
    parts = [b"data: ok\n\ndata: ", b"x" * 40, b"x" * 40]
    assert read_both(parts, max_bytes=50) == ([b"ok"], True)


def test_an_event_over_the_limit_is_refused_after_what_came_before() -> None:
    stream = b"data: ok\n\n" + b"data: xxxxxxxxxx\n" * 6 + b"\n"
    assert read_both([stream], max_bytes=50) == ([b"ok"], True)


def test_a_message_at_the_limit_is_read() -> None:
    message = b"y" * 50
    assert read_both([b"data: ", message[:20], message[20:] + b"\n\n"], 50) == ([message], False)


def test_a_line_sent_two_bytes_at_a_time_is_held_in_its_own_size() -> None:
    pairs = 200_000  # a hostile or very slow server: the line comes in tiny pieces

    async def chunks() -> AsyncIterator[bytes]:
        yield b"data: "
        for _ in range(pairs):
            yield bytes((120, 121))  # a new object each time, as reads from a socket are
        yield b"\n\n"

    async def read() -> list[bytes]:
        return [message async for batch in sse_batches(chunks(), 1 << 20) for message in batch]

    tracemalloc.start()
    try:
        messages = asyncio.run(read())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert messages == [b"xy" * pairs]
    # The line, its copy and the message: a few times 400 KB. Held as 200,000 objects it
    # would be over 8 MB.
    assert peak < 4 * 2 * pairs


# -- properties -----------------------------------------------------------------------------------

line_text = st.binary(max_size=12).map(lambda raw: raw.replace(b"\r", b"").replace(b"\n", b""))
field_line = st.one_of(
    line_text.map(lambda value: b"data: " + value),
    line_text.map(lambda value: b"data:" + value),
    st.just(b"data"),
    line_text.map(lambda value: b": " + value),  # a comment
    line_text.map(lambda value: b"event: " + value),
    line_text.map(lambda value: b"id:" + value),
)
events = st.lists(st.lists(field_line, max_size=4), max_size=6)
line_ends = st.lists(st.sampled_from([b"\n", b"\r", b"\r\n"]), min_size=1)


def _data_of(line: bytes) -> bytes | None:
    if line == b"data":
        return b""
    if line.startswith(b"data:"):
        return line[6:] if line.startswith(b"data: ") else line[5:]
    return None


@given(events, line_ends, st.booleans(), st.lists(st.integers(min_value=0), max_size=8))
def test_both_readers_give_the_messages_the_events_were_written_with(
    written: list[list[bytes]], ends: list[bytes], bom: bool, at: list[int]
) -> None:
    lines = [line for event in written for line in (*event, b"")]
    stream = BOM if bom else b""
    end = b""
    for index, line in enumerate(lines):
        # After a CR, an empty line ended by LF would be CRLF: one line end, not two.
        after_cr = end == b"\r" and not line
        end = ends[index % len(ends)]
        if after_cr and end.startswith(b"\n"):
            end = b"\r"
        stream += line + end
    expected = []
    for event in written:
        data = [value for line in event if (value := _data_of(line)) is not None]
        if data:
            expected.append(b"\n".join(data))
    assert read_both(cut(stream, at)) == (expected, False)


stream_bytes = st.lists(
    st.sampled_from([b"data: ", b"data:", b"data", b"\r", b"\n", b"\r\n", b"x", b": c", BOM]),
    max_size=24,
).map(b"".join) | st.binary(max_size=64)


@given(stream_bytes, st.lists(st.integers(min_value=0), max_size=8), st.integers(1, 24))
@example(b"data: a\r", [8], 1 << 20)
@example(b"\r\r\n\ndata:x\r", [1, 2], 4)
def test_both_readers_agree_on_any_bytes_in_any_chunks(
    stream: bytes, at: list[int], max_bytes: int
) -> None:
    read_both(cut(stream, at), max_bytes)


# -- which messages `peek` may skip ---------------------------------------------------------------

names = st.sampled_from(["id", "result", "method", "params", "jsonrpc", "sessionId", "i", "ids"])
json_values: st.SearchStrategy[Any] = st.recursive(
    st.none() | st.booleans() | st.integers() | json_text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(names | json_text(max_size=4), inner, max_size=4)
    ),
    max_leaves=12,
)


def _escaped(text: str) -> str:
    """`text` as a JSON string with every character escaped (`\\u0069d` for `id`)."""
    return '"' + "".join(f"\\u{ord(character):04x}" for character in text) + '"'


@given(
    st.dictionaries(names | json_text(max_size=4), json_values, max_size=5),
    st.booleans(),
    st.sets(names),
)
@example({"id": 1, "method": "x"}, True, {"id"})
@example({"result": {"sessionId": "s"}}, True, {"result"})
@example({"result": {"sessionId": "s"}}, True, set())  # an answer without id: still peeked
def test_a_message_that_may_not_route_has_nothing_peek_would_route_by(
    message: dict[str, Any], ascii_only: bool, escaped_names: set[str]
) -> None:
    try:
        text = json.dumps(message, ensure_ascii=ascii_only)
        frame = text.encode()
    except UnicodeEncodeError:  # a lone surrogate: only escaped
        frame = json.dumps(message).encode()
    for name in escaped_names:  # the same member names, spelled with escapes
        frame = frame.replace(json.dumps(name).encode() + b":", _escaped(name).encode() + b":")
    if not may_route(frame):
        envelope = peek(frame)
        assert not envelope.has_id
        assert envelope.result_session_id is None


@pytest.mark.parametrize(
    ("frame", "routes"),
    [
        (b'{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s"}}', False),
        (b'{"jsonrpc":"2.0","id":3,"result":{}}', True),
        (b'{"jsonrpc":"2.0","\\u0069d":3,"method":"fs/read_text_file"}', True),
        (b'{"jsonrpc":"2.0","resul\\u0074":{"sessionId":"s"}}', True),
    ],
)
def test_which_messages_may_route(frame: bytes, routes: bool) -> None:
    assert may_route(frame) is routes
    assert peek(frame).value is not None
