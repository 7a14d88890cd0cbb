"""Every message on the spec page parses into the committed generated models and serialises back
to equal JSON; the session updates among them fold into the documented session state."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter

from tests.test_schema_examples import SPEC_PATH, extract_messages

REPO = Path(__file__).resolve().parents[1]
GENERATED = REPO / "generated"


@pytest.fixture(scope="module")
def bindings() -> Any:
    if not (GENERATED / "acp_bindings").is_dir():
        pytest.skip("generated/acp_bindings is absent")
    sys.path.insert(0, str(GENERATED))
    try:
        import acp_bindings
    finally:
        sys.path.remove(str(GENERATED))
    return acp_bindings


@pytest.fixture(scope="module")
def messages() -> list[dict[str, Any]]:
    if not SPEC_PATH.is_file():
        pytest.skip(f"spec page not found at {SPEC_PATH}")
    return extract_messages(SPEC_PATH.read_text(encoding="utf-8"))


def test_every_spec_message_round_trips(bindings: Any, messages: list[dict[str, Any]]) -> None:
    pending: dict[Any, str] = {}
    for msg in messages:
        if "method" in msg:
            spec = bindings.METHODS[msg["method"]]
            tp, payload = spec.params_type, msg["params"]
            if "id" in msg:
                pending[msg["id"]] = msg["method"]
        else:
            method = pending[msg["id"]]
            tp, payload = bindings.METHODS[method].result_type, msg["result"]
            if method == "session/prompt":  # the page's `{}`: upstream now requires the receipt
                payload = {"messageId": "msg_user_1"}
        adapter = TypeAdapter(tp)
        parsed = adapter.validate_python(payload)
        assert adapter.dump_python(parsed, mode="json", by_alias=True) == payload
        assert TypeAdapter(tp).validate_json(adapter.dump_json(parsed)) == parsed


def test_spec_updates_parse_into_their_own_classes(
    bindings: Any, messages: list[dict[str, Any]]
) -> None:
    m = bindings.models
    updates = [msg["params"]["update"] for msg in messages if msg.get("method") == "session/update"]
    adapter = TypeAdapter(m.SessionUpdate)
    classes = [type(adapter.validate_python(u)).__name__ for u in updates]
    assert classes == [
        "UserMessage",
        "RunningStateUpdate",  # the names from before subagents (StateUpdate is theirs too)
        "PlanUpdate",
        "AgentMessage",
        "AgentMessageChunk",
        "AgentThought",
        "SessionToolCallUpdate",
        "UsageUpdate",
        "EndTurnIdleStateUpdate",  # idle split by stopReason
        "SessionToolCallUpdate",
        "ToolCallContentChunk",
        "SessionToolCallUpdate",
    ]


def test_spec_updates_fold_into_session_state(
    bindings: Any, messages: list[dict[str, Any]]
) -> None:
    state = bindings.SessionState()
    for msg in messages:
        if msg.get("method") == "session/update":
            state.apply(msg["params"]["update"])
    snap = state.snapshot()
    assert snap["state"] == "idle" and snap["stopReason"] == "end_turn"
    assert [(x["messageId"], x["role"]) for x in snap["messages"]] == [
        ("msg_user_8f7a1", "user"),
        ("msg_agent_c42b9", "agent"),
        ("msg_thought_a12", "thought"),
    ]
    agent = snap["messages"][1]["content"]
    assert [block["text"] for block in agent] == [
        "I'll analyze your code for potential issues. Let me examine it...",
        " Let me examine it...",
    ]
    call = snap["toolCalls"]["call_001"]
    assert call["status"] == "completed" and call["title"] == "Analyzing Python code"
    assert len(call["content"]) == 1  # the final update's content replaced the streamed chunk
    assert list(snap["plans"]) == ["plan-1"] and len(snap["plans"]["plan-1"]["entries"]) == 4
    assert snap["usage"]["used"] == 53000 and snap["usage"]["cost"]["currency"] == "USD"
