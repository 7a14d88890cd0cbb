"""The generated snapshot TypedDicts describe what `SessionState.snapshot()` really returns, and
the text helpers join a message's text as a UI shows it."""

from __future__ import annotations

import types
from typing import Any, Required, Union, get_args, get_origin, get_type_hints, is_typeddict

from conftest import GeneratedPackage

UPDATES: list[dict[str, Any]] = [
    {
        "sessionUpdate": "user_message",
        "messageId": "u",
        "content": [{"type": "text", "text": "hi"}],
    },
    {
        "sessionUpdate": "agent_message_chunk",
        "messageId": "m",
        "content": {"type": "text", "text": "Hel"},
    },
    {
        "sessionUpdate": "agent_message_chunk",
        "messageId": "m",
        "content": {"type": "text", "text": "lo"},
    },
    {
        "sessionUpdate": "agent_message_chunk",
        "messageId": "m",
        "content": {"type": "resource_link", "uri": "file:///a", "name": "a"},
    },
    {
        "sessionUpdate": "agent_message_chunk",
        "messageId": "m",
        "content": {"type": "text", "text": "!"},
    },
    {"sessionUpdate": "agent_message", "messageId": "m", "_meta": {"k": 1}},
    {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "c",
        "title": "t",
        "kind": "read",
        "status": "pending",
        "locations": [{"path": "/a", "line": 3}],
        "rawInput": {"x": 1},
    },
    {
        "sessionUpdate": "tool_call_content_chunk",
        "toolCallId": "c",
        "content": {"type": "content", "content": {"type": "text", "text": "x"}},
    },
    {
        "sessionUpdate": "terminal_update",
        "terminalId": "t",
        "command": "ls",
        "output": {"data": "aGk="},
        "exitStatus": {"exitCode": 0},
    },
    {"sessionUpdate": "terminal_output_chunk", "terminalId": "t", "data": "aGk="},
    {
        "sessionUpdate": "plan_update",
        "plan": {
            "type": "items",
            "planId": "p",
            "entries": [{"content": "x", "priority": "high", "status": "pending"}],
        },
    },
    {
        "sessionUpdate": "usage_update",
        "used": 1,
        "size": 2,
        "cost": {"amount": 0.5, "currency": "USD"},
    },
    {"sessionUpdate": "session_info_update", "title": "T"},
    {
        "sessionUpdate": "available_commands_update",
        "availableCommands": [{"name": "a", "description": "d"}],
    },
    {"sessionUpdate": "config_option_update", "configOptions": []},
    {"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"},
    {"sessionUpdate": "_custom", "x": 1},
]


def problems(value: Any, tp: Any, where: str = "") -> list[str]:
    """Where `value` does not fit `tp`: TypedDict keys (missing required, undeclared), checked
    through lists, dicts and unions; other types are only checked for None-ness."""
    origin = get_origin(tp)
    if tp is Any:
        return []
    if origin in (Union, types.UnionType):
        options = get_args(tp)
        if value is None and type(None) in options:
            return []
        found = [problems(value, option, where) for option in options if option is not type(None)]
        return [] if any(not f for f in found) else min(found, key=len)
    if is_typeddict(tp):
        if not isinstance(value, dict):
            return [f"{where}: expected an object"]
        hints = get_type_hints(tp)
        # Required[...] sits inside string annotations, which __required_keys__ cannot see.
        extras = get_type_hints(tp, include_extras=True)
        required = {k for k, h in extras.items() if get_origin(h) is Required}
        if getattr(tp, "__total__", True):
            required = set(hints)
        out = [f"{where}/{k}: undeclared key" for k in value if k not in hints]
        out += [f"{where}/{k}: missing" for k in sorted(required) if k not in value]
        for key, item in value.items():
            if key in hints:
                out += problems(item, hints[key], f"{where}/{key}")
        return out
    if origin is list:
        if not isinstance(value, list):
            return [f"{where}: expected a list"]
        (item_type,) = get_args(tp)
        return [
            p for i, item in enumerate(value) for p in problems(item, item_type, f"{where}/{i}")
        ]
    if origin is dict:
        if not isinstance(value, dict):
            return [f"{where}: expected an object"]
        _, item_type = get_args(tp)
        return [p for k, item in value.items() for p in problems(item, item_type, f"{where}/{k}")]
    if tp is type(None):
        return [] if value is None else [f"{where}: expected null"]
    return [f"{where}: unexpected null"] if value is None else []


def filled_snapshot(canonical: GeneratedPackage) -> Any:
    state = canonical.module.SessionState()
    for update in UPDATES:
        state.apply(update)
    return state.snapshot()


def test_a_full_snapshot_matches_its_typed_dict(canonical: GeneratedPackage) -> None:
    snapshot = filled_snapshot(canonical)
    assert problems(snapshot, canonical.module.SessionSnapshot) == []
    assert snapshot["toolCalls"]["c"]["locations"] == [{"path": "/a", "line": 3}]


def test_the_check_catches_a_shape_the_types_do_not_declare(canonical: GeneratedPackage) -> None:
    snapshot = filled_snapshot(canonical)
    snapshot["toolCalls"]["c"]["bogus"] = 1
    del snapshot["messages"][0]["role"]
    found = problems(snapshot, canonical.module.SessionSnapshot)
    assert "/toolCalls/c/bogus: undeclared key" in found
    assert "/messages/0/role: missing" in found


def test_an_empty_snapshot_matches_too(canonical: GeneratedPackage) -> None:
    snapshot = canonical.module.SessionState().snapshot()
    assert problems(snapshot, canonical.module.SessionSnapshot) == []


def test_text_helpers_join_consecutive_text_chunks(canonical: GeneratedPackage) -> None:
    message = filled_snapshot(canonical)["messages"][1]
    assert canonical.module.message_text(message) == "Hello!"
    assert canonical.module.joined_content(message) == [
        {"type": "text", "text": "Hello"},
        {"type": "resource_link", "uri": "file:///a", "name": "a"},
        {"type": "text", "text": "!"},
    ]
    assert message["content"][0] == {"type": "text", "text": "Hel"}  # the snapshot is unchanged
