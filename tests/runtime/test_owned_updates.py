"""Updates handed over (`owned=True`, as the client's connection does with what it decoded) are
kept without copying; the folded state is the same as with copies, and what callers get out
(snapshots) still never shares objects with the state. Without `owned`, nothing is shared."""

from __future__ import annotations

import copy
import json
from typing import Any

from acp_codegen.runtime.state.session_state import SessionState

from .rules import RULES


def updates() -> list[dict[str, Any]]:
    text = {"type": "text", "text": "a"}
    return [
        {"sessionUpdate": "agent_message", "messageId": "m", "content": [text], "_meta": {"k": 1}},
        {"sessionUpdate": "agent_message_chunk", "messageId": "m", "content": {**text}},
        {"sessionUpdate": "tool_call_update", "toolCallId": "c", "title": "t", "content": []},
        {"sessionUpdate": "tool_call_content_chunk", "toolCallId": "c", "content": {"x": [1]}},
        {"sessionUpdate": "tool_call_update", "toolCallId": "c", "rawInput": {"deep": [1, {}]}},
        {"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"},
        {"sessionUpdate": "some_future_update", "payload": {"n": [1]}},
    ]


def fold(owned: bool) -> SessionState[Any]:
    state: SessionState[Any] = SessionState(RULES)
    for update in updates():
        state.apply(update, owned=owned)
    return state


def test_owned_updates_fold_to_the_same_state_as_copied_ones() -> None:
    assert json.dumps(fold(owned=True).snapshot(), sort_keys=True, default=repr) == json.dumps(
        fold(owned=False).snapshot(), sort_keys=True, default=repr
    )


def test_snapshots_of_owned_state_do_not_share_objects_with_it() -> None:
    state = fold(owned=True)
    first = state.snapshot()
    before = copy.deepcopy(first)
    first["messages"][0]["content"].append("changed")  # whatever the caller does with it
    first["toolCalls"]["c"]["rawInput"]["deep"].append("changed")
    first["toolCalls"]["c"]["content"][0]["x"].append("changed")
    first["unknown"][0]["payload"]["n"].append("changed")
    assert state.snapshot() == before


def test_without_owned_the_callers_objects_are_not_kept() -> None:
    state: SessionState[Any] = SessionState(RULES)
    raw = {"deep": [1]}
    chunk = {"type": "text", "text": "a"}
    state.apply({"sessionUpdate": "tool_call_update", "toolCallId": "c", "rawInput": raw})
    state.apply({"sessionUpdate": "agent_message_chunk", "messageId": "m", "content": chunk})
    raw["deep"].append(2)
    chunk["text"] = "changed"
    snapshot = state.snapshot()
    assert snapshot["toolCalls"]["c"]["rawInput"] == {"deep": [1]}
    assert snapshot["messages"][0]["content"] == [{"type": "text", "text": "a"}]


def test_owned_updates_are_kept_as_they_are_but_chunk_items_are_frozen() -> None:
    state: SessionState[Any] = SessionState(RULES)
    raw = {"deep": [1]}
    chunk = {"type": "text", "text": "a"}
    state.apply(
        {"sessionUpdate": "tool_call_update", "toolCallId": "c", "rawInput": raw}, owned=True
    )
    state.apply(
        {"sessionUpdate": "agent_message_chunk", "messageId": "m", "content": chunk}, owned=True
    )
    raw["deep"].append(2)  # the owner promised not to do this; it shows no copy was made
    chunk["text"] = "handed over"
    snapshot = state.snapshot()
    assert snapshot["toolCalls"]["c"]["rawInput"] == {"deep": [1, 2]}
    # An appended item is kept in its compact frozen form (frozen.py), owned or not: the
    # caller's dict is not kept, so the state's memory is the text, not a dict per chunk.
    assert snapshot["messages"][0]["content"] == [{"type": "text", "text": "a"}]
