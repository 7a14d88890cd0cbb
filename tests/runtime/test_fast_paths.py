"""The fast paths keep the slow paths' behaviour: parsing, plan sharing, copying, writes."""

from __future__ import annotations

import asyncio
import json
import math
from typing import Any

import pytest
from acp_codegen.runtime.rpc.connection import Connection
from acp_codegen.runtime.state import merge_plan
from acp_codegen.runtime.state.session_state import SessionState
from acp_codegen.runtime.wire.jsonvalue import copy_json, non_finite_location
from acp_codegen.runtime.wire.line_framing import decode_line, encode_json
from acp_codegen.runtime.wire.tables import MergeRule
from hypothesis import given
from hypothesis import strategies as st

from .json_text import json_text, wire_line
from .rules import RULES
from .streams import RecordingSink, run


def reference_decode(line: bytes) -> Any:
    def reject(name: str) -> Any:
        raise ValueError(name)

    return json.loads(line.decode("utf-8"), parse_constant=reject)


@pytest.mark.parametrize(
    "line",
    [
        b'"\\ud800"',  # escaped lone surrogate: json accepts it, pydantic-core does not
        b'{"text": "a\\udc00b"}',
        b'"\\ud83d\\ude00"',
        b"123456789012345678901234567890123",  # beyond 64 bits
        b"-123456789012345678901234567890123.5",
        b"1e400",  # overflows to inf, as json.loads does
        b"-0.0",
        b"5e-324",
        b'{"a": 1, "a": 2}',
        b"[" * 300 + b"]" * 300,  # deeper than pydantic-core's limit
        b'"a\\u0000b"',
    ],
)
def test_decode_accepts_exactly_what_json_accepts(line: bytes) -> None:
    decoded = decode_line(line)
    expected = reference_decode(line)
    assert repr(decoded) == repr(expected)


@pytest.mark.parametrize(
    "line", [b"NaN", b"-Infinity", b'{"a": Infinity}', b"\xff", b'"\xed\xa0\x80"', b"0123", b""]
)
def test_decode_rejects_exactly_what_json_rejects(line: bytes) -> None:
    with pytest.raises(ValueError):
        reference_decode(line)
    with pytest.raises(ValueError):
        decode_line(line)


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | json_text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(json_text(), inner, max_size=4),
    max_leaves=20,
)


@given(JSON_VALUES)
def test_decode_matches_json_on_any_value(value: Any) -> None:
    line = wire_line(value)  # raw UTF-8, or escaped where a lone surrogate forbids it
    assert repr(decode_line(line)) == repr(reference_decode(line))
    assert decode_line(encode_json(value)) == json.loads(json.dumps(value))  # the trip back


def non_finite_paths(value: Any, loc: tuple[str | int, ...] = ()) -> list[list[str | int]]:
    """Every place in `value` that holds an infinity or NaN, found the plain recursive way."""
    if isinstance(value, float):
        return [] if math.isfinite(value) else [list(loc)]
    if isinstance(value, dict):
        return [path for k, v in value.items() for path in non_finite_paths(v, (*loc, k))]
    if isinstance(value, list):
        return [path for i, v in enumerate(value) for path in non_finite_paths(v, (*loc, i))]
    return []


JSON_WITH_INFINITIES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | json_text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(json_text(), inner, max_size=4),
    max_leaves=20,
)


@given(JSON_WITH_INFINITIES)
def test_a_non_finite_number_is_found_wherever_it_sits(value: Any) -> None:
    found = non_finite_location(value)  # the quick walk first, the located one only on a find
    places = non_finite_paths(value)
    if not places:
        assert found is None
    else:
        assert found in places


@given(JSON_VALUES)
def test_copy_json_shares_no_container(value: Any) -> None:
    copied = copy_json(value)
    assert copied == value

    def containers(item: Any) -> list[int]:
        if isinstance(item, dict):
            return [id(item), *(i for v in item.values() for i in containers(v))]
        if isinstance(item, list):
            return [id(item), *(i for v in item for i in containers(v))]
        return []

    assert not set(containers(copied)) & set(containers(value))


def test_sessions_share_one_compiled_plan_per_table() -> None:
    first, second = SessionState(RULES), SessionState(dict(RULES))
    assert first._plan is second._plan


def test_a_table_with_unhashable_rows_still_compiles() -> None:
    rule = MergeRule(tag="t", entity="terminal", op="upsert", key="/id")
    unhashable = MergeRule(
        tag="u",
        entity="terminal",
        op="upsert",
        key="/id",
        bytes_fields=[("output", "/d")],  # type: ignore[arg-type]
    )
    state = SessionState({"t": rule, "u": unhashable})
    state.apply({"sessionUpdate": "u", "id": "x", "output": {"d": "eA=="}})
    assert state.snapshot()["terminals"]["x"]["output"] == "eA=="


def test_a_broken_table_is_rejected_every_time() -> None:
    broken = {"t": MergeRule(tag="other", entity="usage", op="replace")}
    for _ in range(2):
        with pytest.raises(ValueError, match="says its tag"):
            merge_plan.plan_for(broken)


def test_a_frame_goes_out_in_one_write_and_a_huge_one_without_a_copy() -> None:
    async def scenario() -> list[bytes]:
        sink = RecordingSink()
        connection = Connection(asyncio.StreamReader(), sink)
        await connection.notify("n", {"x": 1})
        await connection.notify("n", {"x": "y" * (1 << 17)})
        return sink.writes

    writes = run(scenario())
    assert writes[0] == b'{"jsonrpc":"2.0","method":"n","params":{"x":1}}\n'
    assert len(writes) == 3 and writes[2] == b"\n" and len(writes[1]) > 1 << 17


def test_wire_validators_work_on_deferred_models_from_any_call_depth() -> None:
    from acp_codegen.runtime.wire.convert import adapter, from_wire
    from pydantic import BaseModel, ConfigDict

    class Deferred(BaseModel):
        model_config = ConfigDict(defer_build=True, extra="allow")
        n: int

    assert type(adapter(Deferred).validator).__name__ == "SchemaValidator"
    assert from_wire(Deferred, {"n": 1}).n == 1
    with pytest.raises(ValueError):
        from_wire(Deferred, {"n": "1"})  # strict wire rules still apply
