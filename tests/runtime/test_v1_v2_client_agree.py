"""For random author scripts, the session state a client folds from the v2 wire and from the v1
wire agree on everything both versions can express: messages (role and text, in order), tool
calls (title, kind, status, text content), the last plan's entries, usage and the title.

Each script runs on a real `AgentSession` twice, once writing v2 and once through the agent's v1
dialect; the v2 updates are folded as a v2 client folds them (`SessionState`), the v1 updates
through `V1UpdateReader` first, as a v1 connection does. What one version has and the other
lacks is left out: the tool call v1 makes up for a permission request that is about no tool
call. The title of a tool call a permission asked about agrees too: v1's request has no title of
its own, and its tool call's fields are the call's own (the question does not rename it)."""

from __future__ import annotations

import asyncio
from typing import Any

from acp_codegen._bindings import MERGE_RULES
from acp_codegen._bindings import methods as v2_methods
from acp_codegen._bindings._runtime.agent.agent_session import AgentSession
from acp_codegen._bindings._runtime.rpc.outgoing_checks import OutgoingChecks
from acp_codegen._bindings._runtime.state.session_state import SessionState
from acp_codegen._bindings._runtime.v1.agent_wire import V1SessionDialect
from acp_codegen._bindings._runtime.v1.client_updates import V1UpdateReader
from acp_codegen._bindings.v1 import methods as v1_methods
from hypothesis import example, given, settings
from hypothesis import strategies as st

from .test_v1_wire_table import Recorder  # the client end: keeps what is sent, answers `ok`

V2_CHECKS = OutgoingChecks(sent=v2_methods.CLIENT_SPECS, answered=v2_methods.AGENT_SPECS)
V1_CHECKS = OutgoingChecks(sent=v1_methods.CLIENT_SPECS, answered=v1_methods.AGENT_SPECS)
OPTIONS = [{"optionId": "ok", "name": "OK", "kind": "allow_once"}]
CALL_IDS = ["c1", "c2"]
STATUSES = ["pending", "in_progress", "completed", "failed"]  # the statuses both versions have
WORDS = st.text(alphabet="abc xyz", min_size=1, max_size=4)

Step = tuple[Any, ...]
STEPS = st.one_of(
    st.tuples(st.just("say"), st.lists(WORDS, min_size=1, max_size=3)),
    st.tuples(
        st.just("stream"),
        st.sampled_from(["agent", "thought"]),
        st.sampled_from(["m1", "m2"]),
        st.lists(WORDS, min_size=1, max_size=3),
    ),
    st.tuples(st.just("plan"), st.lists(st.sampled_from(STATUSES[:3]), max_size=3)),
    st.tuples(st.just("call"), st.sampled_from(CALL_IDS), WORDS, st.sampled_from(["read", "edit"])),
    st.tuples(st.just("call_text"), st.sampled_from(CALL_IDS), WORDS),
    st.tuples(st.just("call_status"), st.sampled_from(CALL_IDS), st.sampled_from(STATUSES)),
    st.tuples(st.just("usage"), st.integers(0, 1000), st.integers(1000, 2000)),
    st.tuples(st.just("title"), WORDS),
    st.tuples(st.just("permission"), st.sampled_from([*CALL_IDS, None])),
)


async def perform(session: AgentSession, script: list[Step]) -> None:
    calls: dict[str, Any] = {}
    for step in script:
        kind = step[0]
        if kind == "say":
            await session.say(list(step[1]))
        elif kind == "stream":
            _, role, message_id, pieces = step
            stream = (
                session.agent_message(message_id)
                if role == "agent"
                else session.thought(message_id)
            )
            for piece in pieces:
                await stream.append(piece)
        elif kind == "plan":
            entries = [
                {"content": f"step {i}", "priority": "high", "status": s}
                for i, s in enumerate(step[1])
            ]
            await session.update_plan(entries, plan_id="p1")
        elif kind == "call":
            _, call_id, title, tool_kind = step
            calls[call_id] = await session.start_tool_call(
                title, tool_call_id=call_id, kind=tool_kind
            )
        elif kind == "call_text" and step[1] in calls:
            await calls[step[1]].append_text(step[2])
        elif kind == "call_status" and step[1] in calls:
            await calls[step[1]].update(status=step[2])
        elif kind == "usage":
            await session.report_usage(step[1], step[2])
        elif kind == "title":
            await session.set_title(step[1])
        elif kind == "permission":
            about = step[1] if step[1] in calls else None
            subject = {"type": "tool_call", "toolCall": {"toolCallId": about}} if about else None
            fields = {"subject": subject} if subject else {}
            await session.request_permission("Go on?", OPTIONS, **fields)


def wire(script: list[Step], *, v1: bool) -> list[tuple[str, Any]]:
    async def run() -> list[tuple[str, Any]]:
        peer = Recorder()
        session = AgentSession("s1", peer, {}, {}, V2_CHECKS)
        if v1:
            session.dialect = V1SessionDialect("s1", peer, V1_CHECKS)
        await perform(session, script)
        return peer.sent

    return asyncio.run(run())


def folded(sent: list[tuple[str, Any]], *, v1: bool) -> dict[str, Any]:
    """The client's state after the wire `sent` (a v1 permission's tool call folded too)."""
    state: SessionState[dict[str, Any]] = SessionState(MERGE_RULES)
    reader = V1UpdateReader()
    for method, params in sent:
        if method == "session/update":
            updates = reader.read(params["update"]) if v1 else [params["update"]]
        elif v1:  # session/request_permission: its tool call, as the v1 client folds it
            updates = reader.read({**params["toolCall"], "sessionUpdate": "tool_call_update"})
        else:
            updates = []
        for update in updates:
            state.apply(update)
    return state.snapshot()


def text_of(content: list[Any]) -> str:
    parts = []
    for item in content:
        block = item.get("content", item) if item.get("type") == "content" else item
        parts.append(block.get("text", ""))
    return "".join(parts)


def common(snapshot: dict[str, Any]) -> dict[str, Any]:
    """What both versions can say about a session."""
    plans = list(snapshot["plans"].values())
    return {
        "messages": [(m["role"], text_of(m["content"])) for m in snapshot["messages"]],
        "toolCalls": {
            key: (
                call.get("title"),
                call.get("kind"),
                call.get("status"),
                text_of(call["content"]),
            )
            for key, call in snapshot["toolCalls"].items()
            if key in CALL_IDS  # not v1's stand-in for a permission about no tool call
        },
        "plan": plans[-1]["entries"] if plans else None,
        "usage": snapshot["usage"],
        "title": (snapshot["sessionInfo"] or {}).get("title"),
    }


@settings(max_examples=60)
@given(st.lists(STEPS, max_size=12))
@example([("call", "c1", "abc", "edit"), ("permission", "c1")])  # the question renamed it
def test_the_v1_and_v2_wires_fold_into_the_same_state(script: list[Step]) -> None:
    from_v2 = common(folded(wire(script, v1=False), v1=False))
    from_v1 = common(folded(wire(script, v1=True), v1=True))
    assert from_v1 == from_v2
