"""Each row of docs/protocol-versions.md ("author call -> v2 wire -> v1 wire") for the update
helpers and the permission request: the author call is made on a real `AgentSession`, once on
a v2 connection (no dialect) and once through `V1SessionDialect`, and both wires are checked
against their version's types and against the row."""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "generated"))

from acp_bindings import methods as v2_methods  # noqa: E402
from acp_bindings._runtime.agent.agent_session import AgentSession  # noqa: E402
from acp_bindings._runtime.core.client_gates import ClientGates  # noqa: E402
from acp_bindings._runtime.rpc.outgoing_checks import OutgoingChecks  # noqa: E402
from acp_bindings._runtime.v1.agent_wire import V1SessionDialect, v1_stop_reason  # noqa: E402
from acp_bindings.v1 import methods as v1_methods  # noqa: E402

V2_CHECKS = OutgoingChecks(sent=v2_methods.CLIENT_SPECS, answered=v2_methods.AGENT_SPECS)
V1_CHECKS = OutgoingChecks(sent=v1_methods.CLIENT_SPECS, answered=v1_methods.AGENT_SPECS)
OPTIONS = [{"optionId": "ok", "name": "OK", "kind": "allow_once"}]
Call = Callable[[AgentSession], Awaitable[Any]]
# A v1 client that advertised every update kind and option kind it can be sent (the table's
# rows; what one that did not gets instead: test_client_gates.py).
ADVERTISED: dict[str, Any] = {
    "session": {"configOptions": {"boolean": {}}, "notices": {}, "compaction": {}}
}


class Recorder:
    """A peer that keeps what is sent and answers permission requests `ok`."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, Any]] = []

    async def notify(self, method: str, params: Any) -> None:
        self.sent.append((method, params))

    async def request(self, method: str, params: Any) -> Any:
        self.sent.append((method, params))
        return {"outcome": {"outcome": "selected", "optionId": "ok"}}


def wires(call: Call, advertised: Any = ADVERTISED) -> tuple[list[Any], list[Any]]:
    """What `call` sends on v2 and on v1 (to a client that `advertised` those capabilities):
    updates (their objects) and requests (their params)."""

    async def one(v1: bool) -> list[Any]:
        peer = Recorder()
        session = AgentSession("s1", peer, {}, {}, V2_CHECKS)
        if v1:
            gates = ClientGates(1, advertised)
            session.dialect = V1SessionDialect("s1", peer, V1_CHECKS, gates=gates)
        await call(session)
        for method, params in peer.sent:  # each fits its version's types
            if method == "session/update":
                (V1_CHECKS if v1 else V2_CHECKS).notification(method, params)
        return [p["update"] if m == "session/update" else (m, p) for m, p in peer.sent]

    return asyncio.run(one(False)), asyncio.run(one(True))


def tags(updates: list[Any]) -> list[str]:
    return [u["sessionUpdate"] for u in updates]


async def stream_message(session: AgentSession) -> None:
    message = session.agent_message("m1")
    await message.append("a")
    await message.append("b")


async def stream_thought(session: AgentSession) -> None:
    await session.thought("t1").append("hmm")


async def say(session: AgentSession) -> None:
    await session.say(["one", "two"])


async def replace_after_streaming(session: AgentSession) -> None:
    message = session.agent_message("m1")
    await message.append("a")
    await message.replace("whole")
    await message.patch(_meta={"k": 1})


def test_streamed_chunks_keep_their_tag_and_message_id() -> None:
    v2, v1 = wires(stream_message)
    assert v1 == v2 and tags(v1) == ["agent_message_chunk"] * 2
    assert {u["messageId"] for u in v1} == {"m1"}
    v2, v1 = wires(stream_thought)
    assert v1 == v2 and tags(v1) == ["agent_thought_chunk"]


def test_a_whole_message_becomes_chunks_when_nothing_was_streamed() -> None:
    v2, v1 = wires(say)
    assert tags(v2) == ["agent_message"]
    assert tags(v1) == ["agent_message_chunk", "agent_message_chunk"]
    assert [u["content"]["text"] for u in v1] == ["one", "two"]
    assert v1[0]["messageId"] == v1[1]["messageId"]  # the whole message's id, on each chunk


def test_replace_and_patch_after_streaming_are_logged_not_sent(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    v2, v1 = wires(replace_after_streaming)
    assert tags(v2) == ["agent_message_chunk", "agent_message", "agent_message"]
    assert tags(v1) == ["agent_message_chunk"]
    logged = [r.getMessage() for r in caplog.records if "not sent" in r.getMessage()]
    assert any("cannot replace" in line for line in logged)


async def plan(session: AgentSession) -> None:
    entry = {"content": "read", "priority": "high", "status": "pending"}
    await session.update_plan([entry], plan_id="p1")


def test_the_plan_is_v1_plan_entries() -> None:
    v2, v1 = wires(plan)
    assert tags(v2) == ["plan_update"] and v2[0]["plan"]["planId"] == "p1"
    assert v1 == [
        {
            "sessionUpdate": "plan",
            "entries": [{"content": "read", "priority": "high", "status": "pending"}],
        }
    ]


async def tool_call(session: AgentSession) -> None:
    call = await session.start_tool_call("Edit", tool_call_id="c1", kind="edit")
    await call.append_text("first")
    changes = [{"operation": "modify", "path": "/a"}]
    patch = {"format": "git_patch", "text": "@@ -1 +1 @@"}
    await call.append_content({"type": "diff", "changes": changes, "patch": patch})
    await call.update(status="cancelled")
    await call.update(status="paused", locations=[{"path": "/a"}])


def test_tool_calls_report_once_then_update_with_the_whole_content() -> None:
    v2, v1 = wires(tool_call)
    assert (
        tags(v2)
        == ["tool_call_update"] + ["tool_call_content_chunk"] * 2 + ["tool_call_update"] * 2
    )
    assert tags(v1) == ["tool_call"] + ["tool_call_update"] * 4
    assert v1[0] == {
        "sessionUpdate": "tool_call",
        "toolCallId": "c1",
        "title": "Edit",
        "kind": "edit",
    }
    assert [item["type"] for item in v1[1]["content"]] == ["content"]
    # v1's diff wants whole texts: v2's changed paths and patch reach it as text content
    assert [item["type"] for item in v1[2]["content"]] == ["content", "content"]
    assert v1[2]["content"][1]["content"]["text"] == "modify /a\n\n@@ -1 +1 @@"
    assert v1[3]["status"] == "failed"  # v1 has no `cancelled` tool call
    assert v1[4]["status"] == "pending" and v1[4]["locations"] == [{"path": "/a"}]


async def terminal(session: AgentSession) -> None:
    term = await session.open_terminal(terminal_id="t1", command="ls")
    await term.write(b"out")
    await term.exit(0)
    call = await session.start_tool_call("Run", tool_call_id="c1")
    await call.update(
        content=[term.as_content(), {"type": "content", "content": {"type": "text", "text": "ok"}}]
    )


def test_display_only_terminals_have_no_v1_form(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    v2, v1 = wires(terminal)
    assert tags(v2) == [
        "terminal_update",
        "terminal_output_chunk",
        "terminal_update",
        "tool_call_update",
        "tool_call_update",
    ]
    assert tags(v1) == ["tool_call", "tool_call_update"]
    assert [item["type"] for item in v1[1]["content"]] == ["content"]  # the terminal item left out
    assert (
        sum("terminal" in r.getMessage() and "not sent" in r.getMessage() for r in caplog.records)
        >= 4
    )


async def the_rest(session: AgentSession) -> None:
    await session.report_usage(10, 100)
    await session.set_title("named")
    await session.send_update({"sessionUpdate": "notice", "severity": "info", "title": "hi"})


def test_usage_title_and_notices_are_the_same_on_v1() -> None:
    v2, v1 = wires(the_rest)
    assert v1 == v2 and tags(v1) == ["usage_update", "session_info_update", "notice"]
    _, unadvertised = wires(the_rest, advertised={})
    assert tags(unadvertised) == ["usage_update", "session_info_update"]


async def lifecycle_reports(session: AgentSession) -> None:
    await session.report_state("running")
    await session.report_state("idle", "end_turn")


def test_state_reports_are_not_sent_on_v1() -> None:
    v2, v1 = wires(lifecycle_reports)
    assert tags(v2) == ["state_update", "state_update"] and v1 == []


async def permission_about_a_call(session: AgentSession) -> Any:
    subject = {"type": "tool_call", "toolCall": {"toolCallId": "c1", "status": "paused"}}
    return await session.request_permission("Run it?", OPTIONS, subject=subject)


async def permission_alone(session: AgentSession) -> Any:
    return await session.request_permission("Go on?", OPTIONS, description="It costs money.")


def test_permission_asks_about_the_subject_tool_call() -> None:
    v2, v1 = wires(permission_about_a_call)
    ((method2, asked2),) = v2
    ((method1, asked1),) = v1
    assert method1 == method2 == "session/request_permission"
    assert asked2["title"] == "Run it?" and "toolCall" not in asked2
    V1_CHECKS.request(method1, asked1)
    # The call's own fields: the question does not become its title (a v1 client merges the
    # request's tool call into the call it holds, and would rename it).
    assert asked1["toolCall"] == {"toolCallId": "c1", "status": "pending"}
    assert asked1["options"] == OPTIONS


def test_permission_without_a_subject_gets_a_tool_call_of_its_own() -> None:
    _, v1 = wires(permission_alone)
    ((_, asked),) = v1
    V1_CHECKS.request("session/request_permission", asked)
    call = asked["toolCall"]
    assert call["toolCallId"].startswith("perm_") and call["title"] == "Go on?"
    assert call["content"] == [
        {"type": "content", "content": {"type": "text", "text": "It costs money."}}
    ]


@pytest.mark.parametrize(
    ("v2", "v1"),
    [
        ("end_turn", "end_turn"),
        ("cancelled", "cancelled"),
        ("max_tokens", "max_tokens"),
        ("refusal", "refusal"),
        ("_my_reason", "end_turn"),
        ("error", None),
        ("_internal_error", None),
    ],
)
def test_stop_reasons(v2: str, v1: str | None) -> None:
    assert v1_stop_reason(v2) == v1
