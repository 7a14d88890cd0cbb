"""The connection's fast paths against their references, on the same random streams.

`Connection` (the inline notification shortcut, requests answered within the read, notification
bursts) and `ReferenceConnection` (a coroutine per line, a task per request, every notification
through the dispatcher, one write per frame), each reading from a StreamReader, from
`PushedLines` that parks and from `PushedLines` that only pulls: every pairing must write the
same bytes and handle the same messages in the same order as the all-reference one."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from acp_codegen.runtime.rpc.connection import Connection
from acp_codegen.runtime.rpc.dispatch import InlineHandler
from acp_codegen.runtime.rpc.reference_paths import ReferenceConnection
from acp_codegen.runtime.wire.errors import ConnectionClosed, RpcError
from acp_codegen.runtime.wire.jsonvalue import JsonValue
from acp_codegen.runtime.wire.line_framing import encode_json
from acp_codegen.runtime.wire.pushed_lines import PushedLines
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .json_text import json_text, wire_line
from .streams import RecordingSink, run
from .test_fast_paths_wire import json_values

Seen = tuple[str, str, JsonValue]
ASKS = 3  # requests this side sends first: the stream may answer them (ids 1 to 3)


class Recorder:
    """A dispatcher that records what it handles. Its handlers never suspend (unless told to
    send notifications between yields), so the wire order is the same whichever path runs
    them; its inline handlers do exactly what its coroutines do."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.seen: list[Seen] = []

    def inline_notifications(self) -> dict[str, InlineHandler]:
        return {"note/inline": self._inline, "note/failing": self._failing}

    def synchronous_requests(self) -> frozenset[str]:
        return frozenset({"ask/now"})

    def _inline(self, params: JsonValue) -> None:
        self.seen.append(("notification", "note/inline", params))

    @staticmethod
    def _failing(params: JsonValue) -> None:
        raise ValueError("a failing handler")

    async def handle_notification(self, method: str, params: JsonValue) -> None:
        if method == "note/failing":
            self._failing(params)
        self.seen.append(("notification", method, params))

    async def handle_request(self, method: str, params: JsonValue) -> JsonValue:
        self.seen.append(("request", method, params))
        if method == "ask/fail":
            raise RpcError(-32001, "refused", params)
        if method == "ask/crash":
            raise ValueError("a crashing handler")
        if method == "ask/stream":  # a streamed answer: notifications, then the response
            for index in range(3):
                await self.connection.notify("note/out", {"index": index, "params": params})
            return None
        if method not in ("ask/now", "ask/later"):
            raise RpcError.method_not_found(method)
        return {"echo": params}


METHODS = ["note/inline", "note/failing", "note/awaited", "$/cancel_request"]
METHODS += ["ask/now", "ask/later", "ask/fail", "ask/crash", "ask/stream", "ask/unknown"]
ids = st.one_of(st.integers(-2, 6), json_text(max_size=2), st.none(), st.booleans())
params = st.one_of(
    st.dictionaries(json_text(max_size=4), json_values, max_size=3),
    st.builds(lambda i: {"requestId": i}, ids),
    json_values,
)
objects = st.dictionaries(json_text(max_size=4), json_values, max_size=3)
notifications = st.fixed_dictionaries(
    {"jsonrpc": st.just("2.0"), "method": st.sampled_from(METHODS[:3]), "params": objects}
)
requests = st.fixed_dictionaries(
    {"jsonrpc": st.just("2.0"), "id": st.integers(0, 9), "method": st.sampled_from(METHODS[4:])},
    optional={"params": objects},
)
odd_calls = st.fixed_dictionaries(
    {"jsonrpc": st.sampled_from(["2.0", "2.0", "2.0", "1.0"]), "method": st.sampled_from(METHODS)},
    optional={"id": ids, "params": params},
)
calls = st.one_of(notifications, requests, notifications, requests, odd_calls)  # mostly well-formed
errors = st.fixed_dictionaries({"code": st.integers(-32099, -32000), "message": json_text()})
responses = st.one_of(
    st.fixed_dictionaries({"jsonrpc": st.just("2.0"), "id": ids, "result": json_values}),
    st.fixed_dictionaries({"jsonrpc": st.just("2.0"), "id": ids, "error": errors}),
)
messages = st.one_of(calls, responses, st.lists(st.one_of(calls, responses, ids), max_size=4))
# How a peer writes each: compact, as `json.dumps` writes it, or not JSON at all.
lines = st.one_of(
    messages.map(encode_json),
    messages.map(wire_line),
    st.sampled_from([b"", b"  ", b"{oops", b"[]", b"3", b"\xff", b'{"a": NaN}']),
)

Variant = tuple[type[Connection], str]
REFERENCE: Variant = (ReferenceConnection, "pulled")
VARIANTS: list[Variant] = [
    (Connection, "parked"),  # production: stdio, a spawned agent
    (Connection, "stream"),  # production: any other stream
    (Connection, "pulled"),
    (ReferenceConnection, "parked"),
    (ReferenceConnection, "stream"),
]


async def _outcome(asking: asyncio.Task[object]) -> object:
    try:
        return ("result", await asking)
    except RpcError as error:
        return ("error", error.code, error.message, error.data)
    except ConnectionClosed:
        return ("closed",)


async def _serve(chunks: list[bytes], variant: Variant) -> tuple[bytes, list[Seen], list[object]]:
    """The bytes written, the messages handled and the outcome of this side's requests."""
    kind, reading = variant
    sink = RecordingSink()
    reader: asyncio.StreamReader | PushedLines
    if reading == "stream":
        reader = asyncio.StreamReader()
        feed: Callable[[bytes], None] = reader.feed_data
        end: Callable[[], None] = reader.feed_eof
    else:
        reader = PushedLines(parks=reading == "parked")
        feed, end = reader.received, reader.ended
    connection = kind(reader, sink)
    recorder = Recorder(connection)
    connection.dispatcher = recorder
    asks = [asyncio.create_task(connection.request("peer/ask", [n])) for n in range(ASKS)]
    reader_task = connection.start()
    for chunk in [b"", *chunks]:
        feed(chunk)
        for _ in range(4):  # let the connection take what it can (yields, not time)
            await asyncio.sleep(0)
    end()
    await reader_task
    outcomes = [await _outcome(asking) for asking in asks]
    assert not connection._inbound and not connection._pending
    return b"".join(sink.writes), recorder.seen, outcomes


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(lines, max_size=10), st.booleans(), st.data())
def test_every_path_writes_and_handles_what_the_reference_does(
    stream_lines: list[bytes], newline_at_end: bool, data: st.DataObject
) -> None:
    stream = b"\n".join(stream_lines) + (b"\n" if newline_at_end else b"")
    cuts = sorted(set(data.draw(st.lists(st.integers(0, len(stream)), max_size=6))))
    chunks = [stream[a:b] for a, b in zip([0, *cuts], [*cuts, len(stream)], strict=True)]

    async def every_variant() -> list[tuple[bytes, list[Seen], list[object]]]:
        return [await _serve(chunks, variant) for variant in [REFERENCE, *VARIANTS]]

    expected, *results = run(every_variant())
    for variant, result in zip(VARIANTS, results, strict=True):
        assert result == expected, variant


# -- notification bursts -----------------------------------------------------------------------

# What a sender does: a notification (small, or larger than a burst), a yield to the event loop,
# a request to the peer (its frame written when its task runs), or an error answer.
steps = st.one_of(
    st.tuples(st.just("notify"), json_values),
    st.tuples(st.just("notify"), st.text(min_size=4096, max_size=4200)),
    st.tuples(st.just("yield"), st.none()),
    st.tuples(st.just("ask"), json_values),
    st.tuples(st.just("error"), st.integers(0, 9)),
)


async def _send(kind: type[Connection], script: list[tuple[str, JsonValue]]) -> list[bytes]:
    sink = RecordingSink()
    connection = kind(asyncio.StreamReader(), sink)
    asks = []
    for step, value in script:
        if step == "notify":
            await connection.notify("note/out", {"value": value})
        elif step == "yield":
            await asyncio.sleep(0)
        elif step == "ask":
            asks.append(asyncio.create_task(connection.request("peer/ask", value)))
        else:
            await connection._write_error(value, RpcError.internal_error("no"))  # type: ignore[arg-type]
    await connection.close()  # writes what the burst holds; the requests fail as closed
    await asyncio.gather(*asks, return_exceptions=True)
    return sink.writes


@given(st.lists(steps, max_size=40))
def test_bursts_write_the_bytes_one_write_per_frame_writes(
    script: list[tuple[str, JsonValue]],
) -> None:
    async def both() -> tuple[list[bytes], list[bytes]]:
        return await _send(Connection, script), await _send(ReferenceConnection, script)

    bursts, each = run(both())
    assert b"".join(bursts) == b"".join(each)
    assert len(bursts) <= len(each)
