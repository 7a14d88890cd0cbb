"""The connection and dispatcher under random streams of valid and near-valid JSON-RPC frames
(hypothesis): no exception escapes, the connection stays open, every request gets exactly one
response, every broken frame exactly one error, and nothing else is written."""

from __future__ import annotations

import asyncio
import itertools
from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from .json_text import as_json_reads_it, json_text, wire_line
from .rpc_fixtures import notification, request, table
from .streams import connected, run

json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), json_text()),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(json_text(), inner, max_size=3)
    ),
    max_leaves=6,
)
params = st.one_of(
    st.fixed_dictionaries({"text": json_text(max_size=3)}, optional={"count": st.integers(0, 3)}),
    st.dictionaries(st.sampled_from(["text", "count", "i", "x"]), json_values, max_size=3),
    st.lists(json_values, max_size=2),
    st.just(None),
)
methods = st.sampled_from(["echo", "boom", "chatty", "model_result", "note", "no/such", "_x/y"])
# (kind, frame): kind says what the connection owes for it. A request's id is its number,
# with any text after a colon (ids are strings of the whole string space too).
requests = st.builds(
    lambda m, p, tail: ("request", (m, p, tail)),
    methods | json_text(),
    params,
    st.none() | json_text(),
)
notifications = st.builds(
    lambda m, p: ("silent", notification(m, p)),
    st.sampled_from(["note", "no/such", "_x/y", "$/cancel_request"]) | json_text(),
    params,
)
responses = st.builds(
    lambda i, r: ("silent", {"jsonrpc": "2.0", "id": i, "result": r}),
    st.one_of(st.integers(10_000, 20_000), json_text(min_size=1, max_size=3).map("r".__add__)),
    json_values,
)
invalid = st.one_of(
    json_values.filter(lambda v: not isinstance(v, dict | list)),
    st.builds(lambda p: {"id": "inv", "method": "echo", "params": p}, params),  # no jsonrpc
    st.builds(lambda i: {"jsonrpc": "1.0", "id": i}, json_text().map("inv".__add__)),
    st.builds(lambda v: {"jsonrpc": v, "method": "echo"}, st.sampled_from(["1.0", 2, None])),
    st.builds(
        lambda i: {"jsonrpc": "2.0", "id": i, "method": "echo"},
        st.one_of(
            st.floats(allow_nan=False, allow_infinity=False),
            st.booleans(),
            st.just({}),
            st.just([1]),
        ),
    ),
    st.builds(
        lambda m: {"jsonrpc": "2.0", "id": "inv", "method": m}, st.one_of(st.integers(), st.none())
    ),
    st.just({"jsonrpc": "2.0"}),
).map(lambda frame: ("invalid", frame))
garbage = st.sampled_from(
    [b"{", b"\xff\xfe", b"[1,", b'{"a":NaN}', b"nul", b"[" * 10_000 + b"]" * 10_000]
).map(lambda raw: ("garbage", raw))
batches = st.lists(requests, min_size=1, max_size=3).map(lambda items: ("batch", items))
frames = st.one_of(requests, notifications, responses, invalid, garbage, batches)


def request_id(number: int, tail: str | None) -> int | str:
    """Unique: the number ends at the first colon. As JSON reads it back: a high surrogate
    followed by a low one is one character beyond the BMP on the wire."""
    return number if tail is None else as_json_reads_it(f"{number}:{tail}")


@settings(max_examples=60, deadline=None)
@given(st.lists(frames, max_size=12))
def test_every_request_gets_exactly_one_response(stream: list[tuple[str, Any]]) -> None:
    async def scenario() -> None:
        escaped: list[dict[str, Any]] = []
        asyncio.get_running_loop().set_exception_handler(lambda _loop, ctx: escaped.append(ctx))
        connection, peer = await connected(table)
        ids = itertools.count(1)
        owed_ids: list[int] = []
        owed_errors = Counter[int]()
        batches_owed = 0
        lines: list[bytes] = []
        for kind, frame in stream:
            if kind == "request":
                method, args, tail = frame
                owed_ids.append(request_id(next(ids), tail))
                lines.append(wire_line(request(owed_ids[-1], method, args)))
            elif kind == "batch":
                entries = []
                for _, (method, args, tail) in frame:
                    owed_ids.append(request_id(next(ids), tail))
                    entries.append(request(owed_ids[-1], method, args))
                batches_owed += 1
                lines.append(wire_line(entries))
            elif kind == "garbage":
                owed_errors[-32700] += 1
                lines.append(frame)
            else:
                owed_errors[-32600] += kind == "invalid"
                lines.append(wire_line(frame))
        await peer.send_bytes(b"".join(line + b"\n" for line in lines))
        answered: list[Any] = []
        errors = Counter[int]()
        arrays = 0
        while len(answered) < len(owed_ids) or sum(errors.values()) < sum(owed_errors.values()):
            reply = await peer.recv()
            if isinstance(reply, list):
                arrays += 1
                answered += [item["id"] for item in reply]
            elif "method" in reply:
                assert reply["method"] == "note"  # what `chatty` sends on its way
            elif reply["id"] is None or reply["id"] not in owed_ids:
                errors[reply["error"]["code"]] += 1
            else:
                answered.append(reply["id"])
        assert sorted(answered, key=repr) == sorted(owed_ids, key=repr)
        assert errors == owed_errors and arrays == batches_owed
        await peer.send(request("sentinel", "echo", {"text": "s"}))
        reply = await peer.recv()
        while "method" in reply:
            reply = await peer.recv()
        assert reply == {"jsonrpc": "2.0", "id": "sentinel", "result": {"text": "s"}}
        assert not connection.closed
        await connection.close()
        assert not escaped, escaped

    run(scenario())
