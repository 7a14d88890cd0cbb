"""SessionState: one test per merge rule, the spec's worked example, malformed input."""

from __future__ import annotations

import base64
import json
from typing import Any, Literal

import pytest
from acp_codegen.runtime.state.session_state import SessionState
from acp_codegen.runtime.wire.errors import MalformedUpdateError
from acp_codegen.runtime.wire.tables import MergeRule
from pydantic import MISSING, BaseModel, Field

from .rules import RULES


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def fold(*updates: dict[str, Any]) -> dict[str, Any]:
    state = SessionState(RULES)
    for update in updates:
        state.apply(update)
    return state.snapshot()


def agent_message(message_id: str, **fields: Any) -> dict[str, Any]:
    return {"sessionUpdate": "agent_message", "messageId": message_id, **fields}


def agent_chunk(message_id: str, block: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {
        "sessionUpdate": "agent_message_chunk",
        "messageId": message_id,
        "content": block,
        **fields,
    }


# -- messages ---------------------------------------------------------------------------------


def test_spec_worked_example() -> None:
    state = SessionState(RULES)
    a, b, c, d = text("A"), text("B"), text("C"), text("D")
    state.apply(agent_message("m", content=[a]))
    state.apply(agent_chunk("m", b))
    assert state.snapshot()["messages"][0]["content"] == [a, b]
    state.apply(agent_message("m", content=[c]))
    assert state.snapshot()["messages"][0]["content"] == [c]
    state.apply(agent_chunk("m", d))
    assert state.snapshot()["messages"] == [{"messageId": "m", "role": "agent", "content": [c, d]}]


def test_message_update_without_content_keeps_content() -> None:
    snap = fold(
        agent_message("m", content=[text("A")]), agent_chunk("m", text("B")), agent_message("m")
    )
    assert snap["messages"][0]["content"] == [text("A"), text("B")]


@pytest.mark.parametrize("cleared", [None, []])
def test_message_update_with_null_or_empty_content_clears(cleared: Any) -> None:
    snap = fold(agent_chunk("m", text("A")), agent_message("m", content=cleared))
    assert snap["messages"][0]["content"] == []


def test_chunks_append_and_create_message() -> None:
    snap = fold(agent_chunk("m", text("A")), agent_chunk("m", text("B")))
    assert snap["messages"] == [
        {"messageId": "m", "role": "agent", "content": [text("A"), text("B")]}
    ]


def test_new_message_id_starts_new_message_in_first_appearance_order() -> None:
    snap = fold(
        {"sessionUpdate": "user_message", "messageId": "u1", "content": [text("hi")]},
        agent_chunk("a1", text("x")),
        {"sessionUpdate": "agent_thought_chunk", "messageId": "t1", "content": text("hmm")},
        agent_chunk("a2", text("y")),
        agent_chunk("a1", text("z")),
    )
    assert [(m["messageId"], m["role"]) for m in snap["messages"]] == [
        ("u1", "user"),
        ("a1", "agent"),
        ("t1", "thought"),
        ("a2", "agent"),
    ]
    assert snap["messages"][1]["content"] == [text("x"), text("z")]


def test_a_message_id_holding_nul_cannot_forge_the_key_of_a_reused_id() -> None:
    """User `m1`, agent `m1` (kept apart from the user's), then agent `"agent\x00m1"`: three
    messages, each with its own content."""
    snap = fold(
        {"sessionUpdate": "user_message", "messageId": "m1", "content": [text("U")]},
        agent_chunk("m1", text("A")),
        agent_chunk("agent\x00m1", text("B")),
    )
    assert [(m["messageId"], m["role"], m["content"]) for m in snap["messages"]] == [
        ("m1", "user", [text("U")]),
        ("m1", "agent", [text("A")]),
        ("agent\x00m1", "agent", [text("B")]),
    ]


@pytest.mark.parametrize(
    ("whole", "chunk", "role"),
    [
        ("user_message", "user_message_chunk", "user"),
        ("agent_message", "agent_message_chunk", "agent"),
        ("agent_thought", "agent_thought_chunk", "thought"),
    ],
)
def test_each_message_kind_records_its_role(whole: str, chunk: str, role: str) -> None:
    snap = fold(
        {"sessionUpdate": chunk, "messageId": "c", "content": text("1")},
        {"sessionUpdate": whole, "messageId": "w", "content": [text("2")]},
    )
    assert [m["role"] for m in snap["messages"]] == [role, role]


def test_whole_message_meta_is_a_patch_and_chunk_meta_is_chunk_scoped() -> None:
    state = SessionState(RULES)
    state.apply(agent_message("m", content=[], _meta={"v": 1}))
    state.apply(agent_chunk("m", text("A"), _meta={"chunk": True}))
    assert state.snapshot()["messages"][0]["_meta"] == {"v": 1}
    state.apply(agent_message("m"))
    assert state.snapshot()["messages"][0]["_meta"] == {"v": 1}
    state.apply(agent_message("m", _meta={"v": 2}))
    assert state.snapshot()["messages"][0]["_meta"] == {"v": 2}
    state.apply(agent_message("m", _meta=None))
    assert "_meta" not in state.snapshot()["messages"][0]
    state.apply(agent_chunk("m2", text("B"), _meta={"chunk": True}))
    assert "_meta" not in state.snapshot()["messages"][1]


# -- tool calls -------------------------------------------------------------------------------


def tool_update(call_id: str, **fields: Any) -> dict[str, Any]:
    return {"sessionUpdate": "tool_call_update", "toolCallId": call_id, **fields}


def tool_chunk(call_id: str, item: dict[str, Any]) -> dict[str, Any]:
    return {"sessionUpdate": "tool_call_content_chunk", "toolCallId": call_id, "content": item}


def content_item(value: str) -> dict[str, Any]:
    return {"type": "content", "content": text(value)}


def test_first_tool_call_update_creates_and_fields_patch() -> None:
    state = SessionState(RULES)
    state.apply(tool_update("t", title="Read", kind="read", status="pending", rawInput={"p": 1}))
    state.apply(tool_update("t", status="in_progress", rawInput=None))
    assert state.snapshot()["toolCalls"] == {
        "t": {
            "toolCallId": "t",
            "content": [],
            "title": "Read",
            "kind": "read",
            "status": "in_progress",
        }
    }


def test_tool_call_chunks_append_and_content_replaces() -> None:
    state = SessionState(RULES)
    state.apply(tool_update("t", content=[content_item("a")]))
    state.apply(tool_chunk("t", content_item("b")))
    assert state.snapshot()["toolCalls"]["t"]["content"] == [content_item("a"), content_item("b")]
    state.apply(tool_update("t", status="completed", content=[content_item("c")]))
    assert state.snapshot()["toolCalls"]["t"]["content"] == [content_item("c")]
    state.apply(tool_update("t", content=None))
    assert state.snapshot()["toolCalls"]["t"]["content"] == []


def test_tool_call_content_chunk_creates_a_tool_call() -> None:
    snap = fold(tool_chunk("t", content_item("a")))
    assert snap["toolCalls"] == {"t": {"toolCallId": "t", "content": [content_item("a")]}}


def test_mark_cancelled_only_touches_unfinished_tool_calls() -> None:
    state = SessionState(RULES)
    for call_id, status in [("a", "pending"), ("b", "in_progress"), ("c", "completed")]:
        state.apply(tool_update(call_id, status=status))
    state.apply(tool_update("d", status="failed"))
    state.apply(tool_update("e"))  # no status: pending by default
    state.apply(tool_update("f", status="cancelled"))
    state.mark_cancelled()
    statuses = {key: call["status"] for key, call in state.snapshot()["toolCalls"].items()}
    assert statuses == {
        "a": "cancelled",
        "b": "cancelled",
        "c": "completed",
        "d": "failed",
        "e": "cancelled",
        "f": "cancelled",
    }
    state.apply(tool_update("a", status="completed"))  # later updates still apply
    assert state.snapshot()["toolCalls"]["a"]["status"] == "completed"


# -- terminals --------------------------------------------------------------------------------


def terminal_update(terminal_id: str, **fields: Any) -> dict[str, Any]:
    return {"sessionUpdate": "terminal_update", "terminalId": terminal_id, **fields}


def terminal_chunk(terminal_id: str, data: bytes) -> dict[str, Any]:
    return {"sessionUpdate": "terminal_output_chunk", "terminalId": terminal_id, "data": b64(data)}


def test_terminal_output_snapshot_replaces_and_chunks_append_bytes() -> None:
    state = SessionState(RULES)
    state.apply(terminal_update("x", command="ls", output={"data": b64(b"old")}))
    state.apply(terminal_chunk("x", b"\xff\x00"))
    assert base64.b64decode(state.snapshot()["terminals"]["x"]["output"]) == b"old\xff\x00"
    state.apply(terminal_update("x", output={"data": b64(b"new"), "_meta": {"snapshot": 1}}))
    state.apply(terminal_chunk("x", b"!"))
    term = state.snapshot()["terminals"]["x"]
    assert base64.b64decode(term["output"]) == b"new!"
    assert term == {"terminalId": "x", "output": b64(b"new!"), "command": "ls"}
    state.apply(terminal_update("x", output=None, exitStatus={"exitCode": 0}, command=None))
    assert state.snapshot()["terminals"]["x"] == {
        "terminalId": "x",
        "output": "",
        "exitStatus": {"exitCode": 0},
    }


def test_each_terminal_chunk_is_decoded_on_its_own() -> None:
    # "YQ==" + "Yg==" concatenated as text is not valid base64; decoded separately it is "ab".
    snap = fold(terminal_chunk("x", b"a"), terminal_chunk("x", b"b"))
    assert snap["terminals"]["x"]["output"] == b64(b"ab")


# -- plans, single slots, state ---------------------------------------------------------------


def test_plan_update_replaces_the_plan_with_that_id() -> None:
    p1 = {"type": "items", "planId": "p1", "entries": [{"content": "a"}], "_meta": None}
    p1b = {"type": "items", "planId": "p1", "entries": []}
    p2 = {"type": "_custom", "planId": "p2", "extra": True}
    snap = fold(
        {"sessionUpdate": "plan_update", "plan": p1},
        {"sessionUpdate": "plan_update", "plan": p2},
        {"sessionUpdate": "plan_update", "plan": p1b},
    )
    assert snap["plans"] == {"p1": p1b, "p2": p2}


def test_usage_commands_and_config_options_replace() -> None:
    usage1 = {"used": 1, "size": 10, "cost": {"amount": 0.5, "currency": "USD"}}
    usage2 = {"used": 2, "size": 10}
    snap = fold(
        {"sessionUpdate": "usage_update", **usage1},
        {"sessionUpdate": "usage_update", **usage2},
        {"sessionUpdate": "available_commands_update", "availableCommands": [{"name": "a"}]},
        {"sessionUpdate": "available_commands_update", "availableCommands": [{"name": "b"}]},
        {"sessionUpdate": "config_option_update", "configOptions": [{"configId": "c"}]},
    )
    assert snap["usage"] == usage2
    assert snap["availableCommands"] == [{"name": "b"}]
    assert snap["configOptions"] == [{"configId": "c"}]


def test_session_info_patches() -> None:
    state = SessionState(RULES)
    assert state.snapshot()["sessionInfo"] is None
    state.apply({"sessionUpdate": "session_info_update", "title": "T", "updatedAt": "2026-01-01"})
    state.apply({"sessionUpdate": "session_info_update", "updatedAt": None})
    assert state.snapshot()["sessionInfo"] == {"title": "T"}
    state.apply({"sessionUpdate": "session_info_update", "title": "U"})
    assert state.snapshot()["sessionInfo"] == {"title": "U"}


def state_update(state: str, **fields: Any) -> dict[str, Any]:
    return {"sessionUpdate": "state_update", "state": state, **fields}


def test_state_update_sets_state_and_stop_reason() -> None:
    state = SessionState(RULES)
    assert (state.state, state.stop_reason) == (None, None)
    state.apply(state_update("running"))
    assert (state.state, state.stop_reason) == ("running", None)
    state.apply(state_update("idle", stopReason="end_turn"))
    snap = state.snapshot()
    assert (snap["state"], snap["stopReason"]) == ("idle", "end_turn")
    state.apply(agent_chunk("m", text("background")))  # other updates never change state
    assert (state.state, state.stop_reason) == ("idle", "end_turn")
    state.apply(state_update("requires_action"))
    assert (state.state, state.stop_reason) == ("requires_action", None)
    state.apply(state_update("idle"))
    assert (state.state, state.stop_reason) == ("idle", None)
    state.apply(state_update("idle", stopReason="_custom"))
    state.apply(state_update("_busy", stopReason="ignored"))
    assert (state.state, state.stop_reason) == ("_busy", None)


# -- unknown and malformed updates ------------------------------------------------------------


def test_unknown_tags_are_kept_in_arrival_order() -> None:
    first = {"sessionUpdate": "_vendor_thing", "x": [1]}
    second = {"sessionUpdate": "future_update", "y": None}
    snap = fold(first, agent_chunk("m", text("A")), second)
    assert snap["unknown"] == [first, second]


@pytest.mark.parametrize(
    ("update", "tag", "fragment"),
    [
        (
            {"sessionUpdate": "agent_message_chunk", "content": text("A")},
            "agent_message_chunk",
            "/messageId",
        ),
        ({"sessionUpdate": "agent_message", "messageId": 7}, "agent_message", "/messageId"),
        (
            {"sessionUpdate": "agent_message_chunk", "messageId": "m"},
            "agent_message_chunk",
            "/content",
        ),
        (
            {"sessionUpdate": "agent_message", "messageId": "m", "content": "x"},
            "agent_message",
            "content",
        ),
        (
            {"sessionUpdate": "tool_call_update", "toolCallId": None},
            "tool_call_update",
            "/toolCallId",
        ),
        (
            {"sessionUpdate": "terminal_output_chunk", "terminalId": "t", "data": "!!"},
            "terminal_output_chunk",
            "base64",
        ),
        (
            {"sessionUpdate": "terminal_update", "terminalId": "t", "output": {}},
            "terminal_update",
            "output/data",
        ),
        ({"sessionUpdate": "plan_update", "plan": {"entries": []}}, "plan_update", "/plan/planId"),
        (
            {"sessionUpdate": "available_commands_update"},
            "available_commands_update",
            "/availableCommands",
        ),
        ({"sessionUpdate": "state_update"}, "state_update", "state"),
        (
            {"sessionUpdate": "state_update", "state": "idle", "stopReason": 3},
            "state_update",
            "stopReason",
        ),
        ({"messageId": "m"}, None, "sessionUpdate"),
    ],
)
def test_malformed_known_update_raises_and_changes_nothing(
    update: dict[str, Any], tag: str | None, fragment: str
) -> None:
    state = SessionState(RULES)
    state.apply(agent_message("m", content=[text("A")]))
    state.apply(terminal_update("t", output={"data": b64(b"keep")}))
    before = state.snapshot()
    with pytest.raises(MalformedUpdateError) as caught:
        state.apply(update)
    assert isinstance(caught.value, ValueError)
    assert caught.value.tag == tag
    assert fragment in str(caught.value)
    assert state.snapshot() == before


def test_validate_hook_rejects_before_mutating_and_skips_unknown_tags() -> None:
    seen: list[str] = []

    def validate(update: dict[str, Any]) -> object:
        seen.append(update["sessionUpdate"])
        if update.get("title") == "bad":
            raise ValueError("title may not be 'bad'")
        return update

    state = SessionState(RULES, validate=validate)
    state.apply(tool_update("t", title="ok"))
    with pytest.raises(MalformedUpdateError, match=r"tool_call_update.*title may not be 'bad'"):
        state.apply(tool_update("t", title="bad", status="failed"))
    state.apply({"sessionUpdate": "_ext", "title": "bad"})
    assert seen == ["tool_call_update", "tool_call_update"]
    assert state.snapshot()["toolCalls"]["t"] == {"toolCallId": "t", "content": [], "title": "ok"}


def test_validation_error_from_pydantic_names_the_location() -> None:
    class Usage(BaseModel):
        used: int
        size: int

    state = SessionState(RULES, validate=lambda update: Usage.model_validate(update))
    with pytest.raises(MalformedUpdateError, match=r"usage_update.*used"):
        state.apply({"sessionUpdate": "usage_update", "used": "lots", "size": 1})
    assert state.snapshot()["usage"] is None


# -- pydantic models as input, snapshot independence, custom tag field ------------------------


class AgentMessageModel(BaseModel):
    session_update: Literal["agent_message"] = Field(default="agent_message", alias="sessionUpdate")
    message_id: str = Field(alias="messageId")
    content: list[dict[str, Any]] | MISSING | None = MISSING
    meta: dict[str, Any] | MISSING | None = Field(default=MISSING, alias="_meta")


def test_pydantic_models_are_applied_by_alias_with_missing_as_absent() -> None:
    state = SessionState(RULES)
    model = AgentMessageModel.model_validate
    state.apply(model({"messageId": "m", "content": [text("A")], "_meta": {"k": 1}}))
    state.apply(agent_chunk("m", text("B")))
    state.apply(model({"messageId": "m"}))  # content MISSING: keep
    assert state.snapshot()["messages"] == [
        {"messageId": "m", "role": "agent", "content": [text("A"), text("B")], "_meta": {"k": 1}}
    ]
    state.apply(model({"messageId": "m", "content": None}))  # explicit null: clear
    assert state.snapshot()["messages"][0]["content"] == []


def test_snapshot_is_fresh_json_data_and_input_is_not_aliased() -> None:
    block = text("A")
    update = agent_message("m", content=[block], _meta={"n": [1]})
    state = SessionState(RULES)
    state.apply(update)
    state.apply(terminal_chunk("t", b"\x00"))
    block["text"] = "mutated by caller"
    snap = state.snapshot()
    snap["messages"][0]["content"].append("junk")
    snap["messages"][0]["_meta"]["n"].append(2)
    again = state.snapshot()
    assert again["messages"][0] == {
        "messageId": "m",
        "role": "agent",
        "content": [text("A")],
        "_meta": {"n": [1]},
    }
    assert json.loads(json.dumps(again)) == again


def test_custom_tag_field() -> None:
    rules = {
        "note": MergeRule(
            tag="note", entity="message", op="append", key="/id", field="content", role="agent"
        )
    }
    state = SessionState(rules, tag_field="kind")
    state.apply({"kind": "note", "id": "n1", "content": "x"})
    assert state.snapshot()["messages"] == [{"id": "n1", "role": "agent", "content": ["x"]}]


@pytest.mark.parametrize(
    ("key", "source", "update"),
    [
        ("/id", "/piece", {"kind": "note", "id": "n1", "piece": "x"}),
        ("/ref/id", "/body/piece", {"kind": "note", "ref": {"id": "n1"}, "body": {"piece": "x"}}),
        ("/id", None, {"kind": "note", "id": "n1", "content": "x"}),  # the field's own name
        ("/id", "/kind", {"kind": "note", "id": "n1"}),  # the tag itself is no member
    ],
)
def test_an_append_reads_its_key_and_item_through_any_pointer(
    key: str, source: str | None, update: dict[str, Any]
) -> None:
    rule = MergeRule(
        tag="note", entity="message", op="append", key=key, source=source, field="content"
    )
    state: SessionState[Any] = SessionState({"note": rule}, tag_field="kind")
    if source == "/kind":
        with pytest.raises(MalformedUpdateError, match="missing /kind"):
            state.apply(update)
        assert state.snapshot()["messages"] == []  # nothing made for a chunk that failed
        return
    state.apply(update)
    state.apply(update)
    (message,) = state.snapshot()["messages"]
    assert message["content"] == ["x", "x"] and message[key.rsplit("/", 1)[1]] == "n1"


@pytest.mark.parametrize(
    ("rule", "fragment"),
    [
        (MergeRule(tag="x", entity="usage", op="append", field="f"), "not supported"),
        (MergeRule(tag="x", entity="toolCall", op="upsert"), "needs a key"),
        (MergeRule(tag="x", entity="usage", op="replace", key="/id"), "must not have a key"),
        (MergeRule(tag="x", entity="message", op="append", key="/id"), "needs a field"),
        (MergeRule(tag="x", entity="message", op="upsert", key="id"), "pointer"),
        (
            MergeRule(
                tag="x",
                entity="message",
                op="append",
                key="/id",
                field="content",
                encoding="base64",
            ),
            "both",
        ),
        (MergeRule(tag="y", entity="usage", op="replace"), "says its tag"),
    ],
)
def test_invalid_rule_tables_are_rejected_up_front(rule: MergeRule, fragment: str) -> None:
    with pytest.raises(ValueError, match=fragment):
        SessionState({"x": rule})


# -- decisions on ambiguous input (issue 7, part 2) -------------------------------------------


def idle(stop_reason: str = "end_turn") -> dict[str, Any]:
    return {"sessionUpdate": "state_update", "state": "idle", "stopReason": stop_reason}


def running() -> dict[str, Any]:
    return {"sessionUpdate": "state_update", "state": "running"}


def test_mark_cancelled_leaves_tool_calls_of_earlier_finished_work_alone() -> None:
    state = SessionState(RULES)
    state.apply(running())
    state.apply(tool_update("old", status="in_progress"))  # left unfinished by its turn
    state.apply(idle())
    state.apply(running())
    state.apply(tool_update("new", status="in_progress"))
    state.mark_cancelled()
    statuses = {key: call["status"] for key, call in state.snapshot()["toolCalls"].items()}
    assert statuses == {"old": "in_progress", "new": "cancelled"}


def test_mark_cancelled_without_active_work_changes_nothing() -> None:
    state = SessionState(RULES)
    state.apply(running())
    state.apply(tool_update("t", status="pending"))
    state.apply(idle())
    before = state.snapshot()
    state.mark_cancelled()
    assert state.snapshot() == before


def test_a_message_id_reused_by_another_role_is_kept_apart_and_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    snap = fold(
        {"sessionUpdate": "user_message", "messageId": "m", "content": [text("question")]},
        {"sessionUpdate": "agent_thought_chunk", "messageId": "m", "content": text("hmm")},
        {"sessionUpdate": "user_message", "messageId": "m", "content": [text("edited")]},
    )
    assert snap["messages"] == [
        {"messageId": "m", "role": "user", "content": [text("edited")]},
        {"messageId": "m", "role": "thought", "content": [text("hmm")]},
    ]
    assert "messageId 'm' is used by user and thought messages" in caplog.text


def test_unknown_terminal_output_is_none_and_empty_output_is_an_empty_string() -> None:
    snap = fold(
        terminal_update("unknown", command="ls"),
        terminal_update("empty", output={"data": ""}),
        terminal_update("cleared", output={"data": b64(b"x")}),
        terminal_update("cleared", output=None),
    )
    outputs = {key: term["output"] for key, term in snap["terminals"].items()}
    assert outputs == {"unknown": None, "empty": "", "cleared": ""}
