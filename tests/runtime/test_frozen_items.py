"""Accumulated items kept frozen (runtime/state/frozen.py): compact, immutable, and thawed back to
exactly the JSON that came in, key order included, into fresh containers every time."""

from __future__ import annotations

import json
from collections import OrderedDict
from typing import Any

from acp_codegen.runtime.state import frozen
from acp_codegen.runtime.state.frozen import Boxed, FrozenArray, Shape, freeze_item, thaw_item
from acp_codegen.runtime.state.session_state import SessionState
from hypothesis import given
from hypothesis import strategies as st

from .rules import RULES

_TEXT_BLOCK = st.builds(lambda text: {"type": "text", "text": text}, st.text())
_SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
JSON = st.recursive(
    _SCALARS | _TEXT_BLOCK,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(["type", "text", "content", "a", ""]), inner, max_size=4)
        | _TEXT_BLOCK
    ),
    max_leaves=20,
)


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON text: types, values and key order."""
    return json.dumps(a) == json.dumps(b)


def _containers(value: Any) -> list[int]:
    found: list[int] = []
    if isinstance(value, dict | list):
        found.append(id(value))
        for item in value.values() if isinstance(value, dict) else value:
            found += _containers(item)
    return found


def _immutable(value: Any) -> bool:
    if isinstance(value, tuple):
        return all(_immutable(item) for item in value)
    return not isinstance(value, dict | list | set | bytearray)


@given(JSON)
def test_thawing_gives_back_the_same_json_in_fresh_containers(value: Any) -> None:
    kept = freeze_item(value)
    assert _immutable(kept)
    first, second = thaw_item(kept), thaw_item(kept)
    assert _same(first, value) and _same(second, value)
    # Nothing mutable is shared with the input, nor between two thawed copies.
    shared = set(_containers(value)) & set(_containers(first))
    assert not shared and not set(_containers(first)) & set(_containers(second))


def test_a_text_block_is_kept_as_its_text_and_everything_else_stays_distinct() -> None:
    assert freeze_item({"type": "text", "text": "hi"}) == "hi"
    assert freeze_item("hi") == Boxed(("hi",))  # a string item is not a text block
    for other in (
        {"text": "hi", "type": "text"},  # other key order: kept as an object, order intact
        {"type": "text", "text": 3},
        {"type": "text", "text": "hi", "_meta": {}},
        {"type": "image", "text": "hi"},
    ):
        kept = freeze_item(other)
        assert type(kept) is tuple and isinstance(kept[0], Shape)
        assert _same(thaw_item(kept), other)
    nested = {"type": "content", "content": {"type": "text", "text": "x"}, "note": "x"}
    kept = freeze_item(nested)
    assert kept[1:] == ("content", "x", "x")  # the member text block is its text alone
    assert _same(thaw_item(kept), nested)
    assert isinstance(freeze_item(["x", {"type": "text", "text": "y"}]), FrozenArray)


def test_subclasses_and_tuples_thaw_as_plain_json() -> None:
    value = OrderedDict(type="text", text="a")
    assert thaw_item(freeze_item(value)) == {"type": "text", "text": "a"}
    member = {"inner": OrderedDict(type="text", text="a"), "list": ("a", 1)}
    assert thaw_item(freeze_item(member)) == {
        "inner": {"type": "text", "text": "a"},
        "list": ["a", 1],
    }


def test_shapes_are_shared_and_their_number_is_bounded(monkeypatch: Any) -> None:
    first = freeze_item({"kind": "a", "n": 1})
    second = freeze_item({"kind": "b", "n": 2})
    assert first[0] is second[0]
    monkeypatch.setattr(frozen, "_shapes", {})
    monkeypatch.setattr(frozen, "_SHAPES_KEPT", 3)
    for index in range(10):  # a stream of ever new keys still works, unshared past the bound
        item = {f"key{index}": index}
        assert thaw_item(freeze_item(item)) == item
    assert len(frozen._shapes) == 3


def test_snapshots_are_independent_of_the_state_and_of_each_other() -> None:
    state: SessionState[Any] = SessionState(RULES)
    for text in ("a", "b"):
        chunk = {"type": "text", "text": text}
        state.apply(
            {"sessionUpdate": "agent_message_chunk", "messageId": "m", "content": chunk},
            owned=True,
        )
    state.apply(
        {
            "sessionUpdate": "tool_call_content_chunk",
            "toolCallId": "t",
            "content": {"type": "content", "content": {"type": "text", "text": "c"}},
        }
    )
    first = state.snapshot()
    first["messages"][0]["content"][0]["text"] = "changed"
    first["messages"][0]["content"].append({"type": "text", "text": "extra"})
    first["toolCalls"]["t"]["content"][0]["content"]["text"] = "changed"
    second = state.snapshot()
    assert second["messages"][0]["content"] == [
        {"type": "text", "text": "a"},
        {"type": "text", "text": "b"},
    ]
    assert second["toolCalls"]["t"]["content"] == [
        {"type": "content", "content": {"type": "text", "text": "c"}}
    ]
