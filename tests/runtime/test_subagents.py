"""Subagents, messages between sessions and plan removal, folded by the schema's own rules:
a parent's state holds its child sessions with patch semantics, the client registers a child
when it is announced (before the child's own updates), chunks of a message between sessions
append by messageId, and `plan_removed` forgets the plan it names."""

from __future__ import annotations

from typing import Any

from acp_codegen._bindings.merge_rules import MERGE_RULES
from acp_codegen.runtime.agent.agent_session import AgentSession, Prompt
from acp_codegen.runtime.agent.agent_side import AgentSide
from acp_codegen.runtime.agent.subagents import announce, remove_plan
from acp_codegen.runtime.client.client_side import ClientSide
from acp_codegen.runtime.rpc.connection import Connection
from acp_codegen.runtime.state.session_state import SessionState

from .streams import connection_pair, guard, run
from .test_client_side import TEXT, nothing_was_sent, update, with_session


def _text(value: str) -> dict[str, str]:
    return {"type": "text", "text": value}


def test_a_subagent_update_creates_then_patches_the_child_in_the_parents_state() -> None:
    state: SessionState[Any] = SessionState(MERGE_RULES)
    state.apply(
        {
            "sessionUpdate": "subagent_update",
            "sessionId": "child",
            "title": "Researcher",
            "description": "reads the code",
            "capabilities": {"cancel": {}},
            "state": {"state": "running"},
            "cwd": "/work/child",
            "additionalDirectories": ["/work/shared"],
        }
    )
    # Omitted keeps, null clears, a value replaces.
    state.apply(
        {
            "sessionUpdate": "subagent_update",
            "sessionId": "child",
            "description": None,
            "capabilities": None,
            "state": {"state": "idle", "stopReason": "end_turn"},
            "cwd": "/work/elsewhere",
        }
    )
    assert state.snapshot()["subagents"] == {
        "child": {
            "sessionId": "child",
            "title": "Researcher",
            "state": {"state": "idle", "stopReason": "end_turn"},
            "cwd": "/work/elsewhere",
            "additionalDirectories": ["/work/shared"],
        }
    }
    # The child's work state is the child's: the parent's own state is untouched.
    assert state.state is None


def test_each_child_is_announced_to_the_callback_once_in_order() -> None:
    told: list[str] = []
    state: SessionState[Any] = SessionState(MERGE_RULES, on_child=told.append)
    for child, title in (("b", "one"), ("a", "two"), ("b", "three")):
        state.apply({"sessionUpdate": "subagent_update", "sessionId": child, "title": title})
    assert told == ["b", "a"]


def test_chunks_of_a_message_between_sessions_append_by_message_id() -> None:
    state: SessionState[Any] = SessionState(MERGE_RULES)
    chunk = {"sessionUpdate": "session_message_chunk", "messageId": "m1"}
    state.apply({**chunk, "content": _text("look ")})  # a chunk may come before the upsert
    state.apply(
        {
            "sessionUpdate": "session_message",
            "messageId": "m1",
            "senderSessionId": "parent",
            "recipientSessionId": "child",
            "recipientMessageId": "m9",
        }
    )
    state.apply({**chunk, "content": _text("at src/")})
    state.apply({"sessionUpdate": "session_message", "messageId": "m1", "recipientMessageId": None})
    (message,) = state.snapshot()["messages"]
    assert message == {
        "messageId": "m1",
        "role": "session",
        "content": [_text("look "), _text("at src/")],
        "senderSessionId": "parent",
        "recipientSessionId": "child",
    }


def test_plan_removed_forgets_the_plan_it_names_and_ignores_an_unknown_id() -> None:
    state: SessionState[Any] = SessionState(MERGE_RULES)
    for plan_id in ("p1", "p2"):
        state.apply(
            {
                "sessionUpdate": "plan_update",
                "plan": {"type": "items", "planId": plan_id, "entries": []},
            }
        )
    state.apply({"sessionUpdate": "plan_removed", "planId": "p1"})
    state.apply({"sessionUpdate": "plan_removed", "planId": "ghost"})
    assert list(state.snapshot()["plans"]) == ["p2"]


def test_the_client_registers_an_announced_child_and_folds_its_own_updates() -> None:
    async def scenario() -> None:
        side, peer, parent = await with_session()
        # Before the announcement the child is unknown: its update is dropped.
        early = {"sessionUpdate": "agent_message", "messageId": "early", "content": []}
        announced = {"sessionUpdate": "subagent_update", "sessionId": "child", "title": "Helper"}
        body = {"sessionUpdate": "agent_message_chunk", "messageId": "m1", "content": _text("hi")}
        await peer.send(update("child", early), update("s1", announced), update("child", body))
        await nothing_was_sent(side, peer)  # by now the last update has been handled too
        assert parent.snapshot()["subagents"] == {
            "child": {"sessionId": "child", "title": "Helper"}
        }
        assert parent.snapshot()["messages"] == []
        child = side.sessions["child"]
        assert (child.parent_id, parent.parent_id) == ("s1", None)
        assert [(m["messageId"], m["content"]) for m in child.snapshot()["messages"]] == [
            ("m1", [_text("hi")])
        ]
        await side.connection.close()

    run(scenario())


async def _delegating_turn(session: AgentSession, prompt: Prompt) -> str:
    plan_id = await session.update_plan(
        [{"content": "ask", "priority": "high", "status": "pending"}]
    )
    helper = await announce(session, title="Helper", cwd="/work/helper")
    await helper.send_message("count the files")
    reply = helper.session.agent_message()
    await reply.append("two ")
    await reply.append("files")
    await helper.session.report_state("idle", "end_turn")
    await helper.update(state={"state": "idle", "stopReason": "end_turn"}, description=None)
    await helper.send_message("two files", from_child=True)
    await remove_plan(session, plan_id)
    return "end_turn"


def test_an_agent_side_announces_a_child_and_the_client_side_holds_it() -> None:
    async def scenario() -> None:
        clients: list[ClientSide] = []

        def make_agent(connection: Connection) -> AgentSide:
            info = {"name": "a", "version": "1"}
            return AgentSide(connection, info=info, on_prompt=_delegating_turn, rules=MERGE_RULES)

        def make_client(connection: Connection) -> ClientSide:
            clients.append(
                ClientSide(connection, info={"name": "c", "version": "1"}, rules=MERGE_RULES)
            )
            return clients[0]

        client_connection, agent_connection = await connection_pair(make_client, make_agent)
        side = clients[0]
        await side.initialize()
        parent = await side.new_session("/work")
        assert await guard(parent.run_turn(TEXT)) == "end_turn"
        held = parent.snapshot()
        ((child_id, child),) = held["subagents"].items()
        assert child == {
            "sessionId": child_id,
            "title": "Helper",
            "cwd": "/work/helper",
            "state": {"state": "idle", "stopReason": "end_turn"},
        }
        assert held["plans"] == {}
        between = [m for m in held["messages"] if m["role"] == "session"]
        assert [(m["senderSessionId"], m["recipientSessionId"]) for m in between] == [
            (parent.session_id, child_id),
            (child_id, parent.session_id),
        ]
        assert [m["content"] for m in between] == [[_text("count the files")], [_text("two files")]]
        own = side.sessions[child_id].snapshot()
        assert (own["state"], own["stopReason"]) == ("idle", "end_turn")
        roles = [(m["role"], m["content"]) for m in own["messages"]]
        assert roles == [
            ("session", [_text("count the files")]),
            ("agent", [_text("two "), _text("files")]),
            ("session", [_text("two files")]),
        ]
        # Each view of a message names the other's id.
        incoming = own["messages"][0]
        assert incoming["senderMessageId"] == between[0]["messageId"]
        assert between[0]["recipientMessageId"] == incoming["messageId"]
        await client_connection.close()
        await agent_connection.wait_closed()

    run(scenario())
