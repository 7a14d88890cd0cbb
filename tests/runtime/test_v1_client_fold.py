"""v1 session updates read into the v2 session state (`V1UpdateReader` + `SessionState`)."""

from __future__ import annotations

from typing import Any

from acp_codegen.runtime.state.session_state import SessionState
from acp_codegen.runtime.v1.client_updates import (
    MODE_CONFIG_ID,
    V1_PLAN_ID,
    V1UpdateReader,
    state_update,
)
from hypothesis import given
from hypothesis import strategies as st

from .rules import RULES

ROLE_OF = {
    "user_message_chunk": "user",
    "agent_message_chunk": "agent",
    "agent_thought_chunk": "thought",
}


def fold(*updates: dict[str, Any], reader: V1UpdateReader | None = None) -> dict[str, Any]:
    reader = reader or V1UpdateReader()
    state: SessionState[dict[str, Any]] = SessionState(RULES)
    for update in updates:
        for v2 in reader.read(update):
            state.apply(v2)
    return state.snapshot()


def text(tag: str, words: str, message_id: str | None = None) -> dict[str, Any]:
    update: dict[str, Any] = {"sessionUpdate": tag, "content": {"type": "text", "text": words}}
    if message_id is not None:
        update["messageId"] = message_id
    return update


def texts(message: dict[str, Any]) -> str:
    return "".join(block["text"] for block in message["content"])


def test_chunks_of_one_role_form_one_message_with_a_made_up_id() -> None:
    snapshot = fold(
        text("agent_thought_chunk", "hm"),
        text("agent_message_chunk", "Hel"),
        text("agent_message_chunk", "lo"),
    )
    messages = snapshot["messages"]
    assert [(m["role"], texts(m)) for m in messages] == [("thought", "hm"), ("agent", "Hello")]
    ids = [m["messageId"] for m in messages]
    assert len(set(ids)) == 2 and all(ids)


def test_given_message_ids_are_kept_and_split_messages() -> None:
    snapshot = fold(
        text("agent_message_chunk", "a", "m1"),
        text("agent_message_chunk", "b"),  # no id: continues m1
        text("agent_message_chunk", "c", "m2"),
    )
    assert [(m["messageId"], texts(m)) for m in snapshot["messages"]] == [("m1", "ab"), ("m2", "c")]


def test_a_tool_call_ends_the_message_it_interrupts() -> None:
    snapshot = fold(
        text("agent_message_chunk", "before"),
        {"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Read"},
        text("agent_message_chunk", "after"),
    )
    assert [texts(m) for m in snapshot["messages"]] == ["before", "after"]


def test_tool_calls_are_created_then_patched_and_v1_nulls_keep_fields() -> None:
    snapshot = fold(
        {
            "sessionUpdate": "tool_call",
            "toolCallId": "t1",
            "title": "Read a file",
            "locations": [{"path": "/w/a.txt"}],
            "rawInput": {"path": "/w/a.txt"},
        },
        {"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "in_progress"},
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "t1",
            "status": "completed",
            "title": None,  # v1: unchanged, not cleared
            "content": [{"type": "content", "content": {"type": "text", "text": "ok"}}],
        },
    )
    call = snapshot["toolCalls"]["t1"]
    assert call["title"] == "Read a file" and call["status"] == "completed"
    assert "kind" not in call  # left out: the protocol's default (other), as on v2
    assert call["locations"] == [{"path": "/w/a.txt"}] and call["rawInput"] == {"path": "/w/a.txt"}
    assert call["content"] == [{"type": "content", "content": {"type": "text", "text": "ok"}}]


def test_the_plan_is_replaced_whole() -> None:
    entry = {"content": "step", "priority": "high", "status": "pending"}
    done = {**entry, "status": "completed"}
    snapshot = fold(
        {"sessionUpdate": "plan", "entries": [entry, entry]},
        {"sessionUpdate": "plan", "entries": [done]},
    )
    assert list(snapshot["plans"]) == [V1_PLAN_ID]
    assert snapshot["plans"][V1_PLAN_ID]["entries"] == [done]


def test_modes_show_as_a_mode_option_and_commands_are_kept() -> None:
    reader = V1UpdateReader()
    state: SessionState[dict[str, Any]] = SessionState(RULES)
    modes = {
        "currentModeId": "ask",
        "availableModes": [{"id": "ask", "name": "Ask"}, {"id": "code", "name": "Code"}],
    }
    for v2 in reader.session_setup({"sessionId": "s", "modes": modes}):
        state.apply(v2)
    command = {"name": "review", "description": "Review the diff", "input": {"hint": "what"}}
    for update in (
        {"sessionUpdate": "current_mode_update", "currentModeId": "code"},
        {"sessionUpdate": "available_commands_update", "availableCommands": [command]},
    ):
        for v2 in reader.read(update):
            state.apply(v2)
    snapshot = state.snapshot()
    (option,) = snapshot["configOptions"]
    assert option["configId"] == MODE_CONFIG_ID and option["category"] == "mode"
    assert option["currentValue"] == "code"
    assert [choice["value"] for choice in option["options"]] == ["ask", "code"]
    assert snapshot["availableCommands"] == [
        {"type": "command", **command, "input": {"type": "text", "hint": "what"}}
    ]


def test_config_options_take_v2_names_and_an_agent_mode_option_wins() -> None:
    reader = V1UpdateReader()
    reader.session_setup({"modes": {"currentModeId": "a", "availableModes": []}})
    own = {
        "id": "mode",
        "name": "Mode",
        "category": "mode",
        "type": "select",
        "currentValue": "x",
        "options": [],
    }
    (update,) = reader.read({"sessionUpdate": "config_option_update", "configOptions": [own]})
    (option,) = update["configOptions"]
    assert option["configId"] == "mode" and "id" not in option and option["currentValue"] == "x"


def test_a_mode_change_without_modes_shows_nothing_and_unknown_tags_pass() -> None:
    reader = V1UpdateReader()
    assert reader.read({"sessionUpdate": "current_mode_update", "currentModeId": "x"}) == []
    odd = {"sessionUpdate": "_vendor_thing", "x": 1}
    assert fold(odd)["unknown"] == [odd]


def test_the_clients_own_prompt_record_and_synthesized_states() -> None:
    reader = V1UpdateReader()
    state: SessionState[dict[str, Any]] = SessionState(RULES)
    for v2 in reader.read(text("agent_message_chunk", "earlier")):  # an open message
        state.apply(v2)
    message_id, user = reader.user_prompt([{"type": "text", "text": "hi"}])
    state.apply(user)
    state.apply(state_update("running"))
    assert state.state == "running"
    state.apply(state_update("idle", "end_turn"))
    snapshot = state.snapshot()
    assert snapshot["state"] == "idle" and snapshot["stopReason"] == "end_turn"
    assert len(snapshot["messages"]) == 2  # the prompt did not join the agent's message
    assert snapshot["messages"][-1] == {
        "messageId": message_id,
        "role": "user",
        "content": [{"type": "text", "text": "hi"}],
    }


CHUNK = st.tuples(
    st.sampled_from(sorted(ROLE_OF)),
    st.one_of(st.none(), st.sampled_from(["m1", "m2", "m3"])),
    st.text(max_size=3),
)


@given(st.lists(CHUNK, max_size=30))
def test_random_chunk_runs_fold_as_the_grouping_rule_says(
    chunks: list[tuple[str, str | None, str]],
) -> None:
    """Model: a chunk with an id joins that id's message (of its role); one without joins the
    message of the chunk before it when that had the same role, else starts a new message."""
    expected: list[list[Any]] = []  # [role, given id or None, text]
    by_id: dict[tuple[str, str], list[Any]] = {}
    open_message: list[Any] | None = None
    for tag, message_id, words in chunks:
        role = ROLE_OF[tag]
        if message_id is not None:
            message = by_id.get((role, message_id))
            if message is None:
                message = by_id[(role, message_id)] = [role, message_id, ""]
                expected.append(message)
        elif open_message is not None and open_message[0] == role:
            message = open_message
        else:
            message = [role, None, ""]
            expected.append(message)
        message[2] += words
        open_message = message
    snapshot = fold(*(text(tag, words, message_id) for tag, message_id, words in chunks))
    got = [(m["role"], texts(m)) for m in snapshot["messages"]]
    assert got == [(role, words) for role, _, words in expected]
    for message, (_, given_id, _) in zip(snapshot["messages"], expected, strict=True):
        if given_id is not None:
            assert message["messageId"] == given_id


def test_a_v1_diff_becomes_v2s_changed_path_and_git_patch() -> None:
    edit = {"type": "diff", "path": "/w/a.txt", "oldText": "one\ntwo\n", "newText": "one\n2"}
    new_file = {"type": "diff", "path": "/w/b.txt", "newText": "fresh\n"}
    snapshot = fold(
        {"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Edit", "content": [edit]},
        {"sessionUpdate": "tool_call_update", "toolCallId": "t2", "content": [new_file]},
    )
    (changed,) = snapshot["toolCalls"]["t1"]["content"]
    assert changed["changes"] == [{"operation": "modify", "path": "/w/a.txt"}]
    assert changed["patch"]["format"] == "git_patch"
    assert changed["patch"]["text"] == (
        "diff --git a/w/a.txt b/w/a.txt\n--- a/w/a.txt\n+++ b/w/a.txt\n@@ -1,2 +1,2 @@\n"
        " one\n-two\n+2\n\\ No newline at end of file\n"
    )
    (added,) = snapshot["toolCalls"]["t2"]["content"]
    assert added["changes"] == [{"operation": "add", "path": "/w/b.txt"}]
    assert added["patch"]["text"].splitlines()[1:3] == ["--- /dev/null", "+++ b/w/b.txt"]


def test_a_v1_diffs_lines_break_at_newlines_alone() -> None:
    """A CR, form feed or line separator inside a line is the file's text: the patch keeps it
    in its line instead of showing lines the file does not have."""
    edit = {"type": "diff", "path": "/w/a.txt", "oldText": "a\rb\x0cc\n", "newText": "a\u2028b\n"}
    snapshot = fold({"sessionUpdate": "tool_call", "toolCallId": "t1", "content": [edit]})
    (changed,) = snapshot["toolCalls"]["t1"]["content"]
    assert changed["patch"]["text"].split("\n")[3:6] == ["@@ -1 +1 @@", "-a\rb\x0cc", "+a\u2028b"]
