"""ClientSide against a raw agent on the wire, and end to end against AgentSide."""

from __future__ import annotations

import asyncio
import base64
from typing import Any

import pytest
from acp_codegen.runtime.agent.agent_session import AgentSession, Prompt
from acp_codegen.runtime.agent.agent_side import AgentSide
from acp_codegen.runtime.client.client_side import ClientSession, ClientSide
from acp_codegen.runtime.client.permission_request import PermissionRequest
from acp_codegen.runtime.rpc.connection import Connection
from acp_codegen.runtime.wire.errors import (
    ConnectionClosed,
    ProtocolUsageError,
    UnsupportedProtocolVersion,
)

from .rules import RULES
from .streams import RawPeer, connected, connection_pair, guard, run

INFO = {"name": "test-client", "version": "1"}
TEXT = [{"type": "text", "text": "hi"}]


async def client(**options: Any) -> tuple[ClientSide, RawPeer]:
    sides: list[ClientSide] = []

    def factory(connection: Connection) -> ClientSide:
        sides.append(ClientSide(connection, info=INFO, rules=RULES, **options))
        return sides[0]

    _, peer = await connected(factory)
    return sides[0], peer


async def answer(peer: RawPeer, method: str, result: Any) -> dict[str, Any]:
    """Read the client's next request (must be `method`) and answer it."""
    message: dict[str, Any] = await peer.recv()
    assert message["method"] == method, message
    await peer.send({"jsonrpc": "2.0", "id": message["id"], "result": result})
    return message


def update(session_id: str, body: dict[str, Any]) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": session_id, "update": body},
    }


async def initialized(peer_capabilities: Any = None, **options: Any) -> tuple[ClientSide, RawPeer]:
    side, peer = await client(**options)
    task = asyncio.create_task(side.initialize())
    sent = await answer(
        peer,
        "initialize",
        {
            "protocolVersion": 2,
            "info": {"name": "a", "version": "1"},
            "capabilities": peer_capabilities or {},
        },
    )
    assert sent["params"] == {"protocolVersion": 2, "info": INFO, "capabilities": {}}
    await guard(task)
    return side, peer


async def with_session(
    peer_capabilities: Any = None, **options: Any
) -> tuple[ClientSide, RawPeer, ClientSession]:
    side, peer = await initialized(peer_capabilities, **options)
    task = asyncio.create_task(side.new_session("/work"))
    await answer(peer, "session/new", {"sessionId": "s1"})
    return side, peer, await guard(task)


async def nothing_was_sent(side: ClientSide, peer: RawPeer) -> None:
    """The next thing on the wire is a marker notification sent now."""
    await side.connection.notify("_marker")
    assert (await peer.recv())["method"] == "_marker"


# -- refusals ---------------------------------------------------------------------------------


def test_prompt_before_initialize_is_refused_and_nothing_is_sent() -> None:
    async def scenario() -> None:
        side, peer = await client()
        session = ClientSession(side, "s1")
        with pytest.raises(ProtocolUsageError, match="before initialize"):
            await session.prompt(TEXT)
        with pytest.raises(ProtocolUsageError, match="before initialize"):
            await side.new_session("/")
        await nothing_was_sent(side, peer)
        await side.connection.close()

    run(scenario())


def test_prompt_for_a_session_not_set_up_is_refused() -> None:
    async def scenario() -> None:
        side, peer = await initialized()
        with pytest.raises(ProtocolUsageError, match="not set up"):
            await ClientSession(side, "ghost").prompt(TEXT)
        await nothing_was_sent(side, peer)
        await side.connection.close()

    run(scenario())


def test_prompt_content_the_agent_cannot_take_is_refused() -> None:
    image = {"type": "image", "data": "AA==", "mimeType": "image/png"}
    audio = {"type": "audio", "data": "AA==", "mimeType": "audio/wav"}

    async def scenario() -> None:
        side, peer, session = await with_session({"session": {"prompt": {"image": {}}}})
        with pytest.raises(ProtocolUsageError, match=r"prompt/1/type: .*'audio'"):
            await session.prompt([*TEXT, audio])
        await nothing_was_sent(side, peer)
        task = asyncio.create_task(session.prompt([*TEXT, image]))  # image is granted
        sent = await answer(peer, "session/prompt", {})
        assert sent["params"] == {"sessionId": "s1", "prompt": [*TEXT, image]}
        await guard(task)
        await side.connection.close()

    run(scenario())


@pytest.mark.parametrize("answered", [1, 3, "2", None, True])
def test_an_unusable_protocol_version_raises_and_closes_the_connection(answered: Any) -> None:
    async def scenario() -> None:
        side, peer = await client()
        task = asyncio.create_task(side.initialize())
        await answer(
            peer, "initialize", {"protocolVersion": answered, "info": {"name": "a", "version": "1"}}
        )
        with pytest.raises(UnsupportedProtocolVersion) as caught:
            await guard(task)
        assert caught.value.answered == answered
        assert side.connection.closed
        assert not side.initialized

    run(scenario())


def test_an_agent_that_refuses_our_version_is_named_with_both_sides_versions() -> None:
    """-32022 (upstream 2.4.0): the agent serves none at or below ours; say what each speaks."""

    async def scenario() -> None:
        side, peer = await client()
        task = asyncio.create_task(side.initialize())
        request = await peer.recv()
        assert request["params"]["protocolVersion"] == 2  # our newest
        error = {"code": -32022, "message": "no", "data": {"requested": 2, "supported": [3]}}
        await peer.send({"jsonrpc": "2.0", "id": request["id"], "error": error})
        with pytest.raises(UnsupportedProtocolVersion) as caught:
            await guard(task)
        assert (caught.value.answered, caught.value.served) == (None, [3])
        assert "[3]" in str(caught.value) and "[2]" in str(caught.value)
        assert side.connection.closed and not side.initialized

    run(scenario())


# -- updates ----------------------------------------------------------------------------------


def test_updates_before_the_session_new_result_are_buffered_in_order() -> None:
    async def scenario() -> None:
        side, peer = await initialized()
        task = asyncio.create_task(side.new_session("/work"))
        sent = await peer.recv()
        chunk = {
            "sessionUpdate": "agent_message_chunk",
            "messageId": "m",
            "content": {"type": "text", "text": "A"},
        }
        await peer.send(
            update("s9", {"sessionUpdate": "agent_message", "messageId": "m", "content": []}),
            update("s9", chunk),
            {"jsonrpc": "2.0", "id": sent["id"], "result": {"sessionId": "s9"}},
            update("s9", {**chunk, "content": {"type": "text", "text": "B"}}),
        )
        session = await guard(task)
        await nothing_was_sent(side, peer)  # by now the last update has been handled too
        assert session.snapshot()["messages"] == [
            {
                "messageId": "m",
                "role": "agent",
                "content": [{"type": "text", "text": "A"}, {"type": "text", "text": "B"}],
            }
        ]
        await side.connection.close()

    run(scenario())


def test_updates_are_applied_in_wire_order_and_malformed_ones_skipped(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def scenario() -> None:
        side, peer, session = await with_session()
        await peer.send(
            update(
                "s1", {"sessionUpdate": "tool_call_update", "toolCallId": "t", "status": "pending"}
            ),
            update("s1", {"sessionUpdate": "tool_call_update", "toolCallId": 5}),
            update(
                "s1",
                {"sessionUpdate": "tool_call_update", "toolCallId": "t", "status": "completed"},
            ),
            update("other", {"sessionUpdate": "_x"}),
        )
        await nothing_was_sent(side, peer)
        assert session.snapshot()["toolCalls"]["t"]["status"] == "completed"
        await side.connection.close()

    run(scenario())
    assert any("tool_call_update" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize(("answered", "returned"), [({"messageId": "u1"}, "u1"), ({}, None)])
def test_prompt_returns_the_inserted_message_id_of_the_receipt(
    answered: dict[str, Any], returned: str | None
) -> None:
    """The v2 answer is a receipt naming the user message; a draft's `{}` names none."""

    async def scenario() -> None:
        side, peer, session = await with_session()
        sent = asyncio.create_task(session.prompt(TEXT))
        prompt = await peer.recv()
        await peer.send({"jsonrpc": "2.0", "id": prompt["id"], "result": answered})
        assert await guard(sent) == returned
        await side.connection.close()

    run(scenario())


def test_run_turn_waits_for_idle_and_returns_the_stop_reason() -> None:
    async def scenario() -> None:
        side, peer, session = await with_session()
        turn = asyncio.create_task(session.run_turn(TEXT))
        prompt = await peer.recv()
        await peer.send(
            {"jsonrpc": "2.0", "id": prompt["id"], "result": {}},
            update("s1", {"sessionUpdate": "user_message", "messageId": "u", "content": TEXT}),
            update("s1", {"sessionUpdate": "state_update", "state": "running"}),
            update(
                "s1", {"sessionUpdate": "state_update", "state": "idle", "stopReason": "refusal"}
            ),
        )
        assert await guard(turn) == "refusal"
        await side.connection.close()

    run(scenario())


def test_run_turn_fails_instead_of_hanging_when_the_agent_goes_away() -> None:
    async def scenario() -> None:
        _side, peer, session = await with_session()
        turn = asyncio.create_task(session.run_turn(TEXT))
        await answer(peer, "session/prompt", {})
        peer.close()
        with pytest.raises(ConnectionClosed):
            await guard(turn)

    run(scenario())


# -- cancellation and permissions -------------------------------------------------------------


def test_cancel_marks_tool_calls_answers_permissions_and_keeps_applying_updates() -> None:
    async def scenario() -> None:
        side, peer, session = await with_session()
        await peer.send(
            update(
                "s1",
                {"sessionUpdate": "tool_call_update", "toolCallId": "run", "status": "in_progress"},
            ),
            update(
                "s1",
                {"sessionUpdate": "tool_call_update", "toolCallId": "done", "status": "completed"},
            ),
            {
                "jsonrpc": "2.0",
                "id": "p1",
                "method": "session/request_permission",
                "params": {"sessionId": "s1", "title": "Run?", "options": []},
            },
        )
        await nothing_was_sent(side, peer)
        assert len(session.pending_permissions) == 1
        await session.cancel()
        assert await peer.recv() == {
            "jsonrpc": "2.0",
            "method": "session/cancel",
            "params": {"sessionId": "s1"},
        }
        assert await peer.recv() == {
            "jsonrpc": "2.0",
            "id": "p1",
            "result": {"outcome": {"outcome": "cancelled"}},
        }
        calls = session.snapshot()["toolCalls"]
        assert (calls["run"]["status"], calls["done"]["status"]) == ("cancelled", "completed")
        await peer.send(
            update(
                "s1",
                {
                    "sessionUpdate": "tool_call_update",
                    "toolCallId": "run",
                    "rawOutput": {"partial": True},
                },
            ),
            update(
                "s1", {"sessionUpdate": "state_update", "state": "idle", "stopReason": "cancelled"}
            ),
        )
        await nothing_was_sent(side, peer)
        snapshot = session.snapshot()
        assert snapshot["toolCalls"]["run"]["rawOutput"] == {"partial": True}
        assert (snapshot["state"], snapshot["stopReason"]) == ("idle", "cancelled")
        assert session.pending_permissions == []
        await side.connection.close()

    run(scenario())


def test_permission_hook_answers_and_the_application_can_answer_too() -> None:
    async def allow(session: ClientSession, request: PermissionRequest) -> dict[str, Any]:
        return {"outcome": "selected", "optionId": request.params["options"][0]["optionId"]}

    async def scenario() -> None:
        side, peer, _session = await with_session(on_permission=allow)
        ask = {
            "sessionId": "s1",
            "title": "Edit?",
            "options": [{"optionId": "ok", "name": "OK", "kind": "allow_once"}],
        }
        await peer.send(
            {"jsonrpc": "2.0", "id": 1, "method": "session/request_permission", "params": ask}
        )
        reply = await peer.recv()
        assert reply["result"] == {"outcome": {"outcome": "selected", "optionId": "ok"}}
        await peer.send(
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "session/request_permission",
                "params": {**ask, "sessionId": "zz"},
            }
        )
        assert (await peer.recv())["error"]["code"] == -32002
        await side.connection.close()

    async def manual() -> None:
        side, peer, session = await with_session()
        ask = {
            "sessionId": "s1",
            "title": "Edit?",
            "options": [{"optionId": "ok", "name": "OK", "kind": "allow_once"}],
        }
        await peer.send(
            {"jsonrpc": "2.0", "id": 1, "method": "session/request_permission", "params": ask}
        )
        await nothing_was_sent(side, peer)
        session.pending_permissions[0].select("ok")
        assert (await peer.recv())["result"] == {
            "outcome": {"outcome": "selected", "optionId": "ok"}
        }
        await side.connection.close()

    run(scenario())
    run(manual())


# -- end to end -------------------------------------------------------------------------------


async def busy_turn(session: AgentSession, prompt: Prompt) -> str:
    thought = session.thought()
    await thought.append("Let me")
    await thought.append(" think")
    plan_id = await session.update_plan(
        [{"content": "look", "priority": "high", "status": "pending"}]
    )
    call = await session.start_tool_call(
        "List files", kind="execute", status="pending", rawInput={"cmd": "ls"}
    )
    outcome = await session.request_permission(
        "Run ls?", [{"optionId": "y", "name": "Yes", "kind": "allow_once"}]
    )
    assert outcome == {"outcome": "selected", "optionId": "y"}
    terminal = await session.open_terminal(command="ls", cwd="/work")
    await call.update(status="in_progress", content=[terminal.as_content()])
    await terminal.write(b"a.txt\n")
    await terminal.write(b"\xffb.bin\n")
    await terminal.exit(exit_code=0)
    await call.append_text("2 files")
    await call.update(status="completed", rawInput=None)
    await session.update_plan(
        [{"content": "look", "priority": "high", "status": "completed"}], plan_id=plan_id
    )
    message = session.agent_message()
    await message.append("Found ")
    await message.append("two files.")
    await session.report_usage(used=10, size=100, cost={"amount": 0.01, "currency": "EUR"})
    return "end_turn"


def test_agent_side_and_client_side_end_to_end() -> None:
    async def allow(session: ClientSession, request: PermissionRequest) -> dict[str, Any]:
        return {"outcome": "selected", "optionId": "y"}

    async def scenario() -> None:
        agent_sides: list[AgentSide] = []
        client_sides: list[ClientSide] = []

        def make_agent(connection: Connection) -> AgentSide:
            agent_sides.append(
                AgentSide(connection, info={"name": "a", "version": "1"}, on_prompt=busy_turn)
            )
            return agent_sides[0]

        def make_client(connection: Connection) -> ClientSide:
            client_sides.append(ClientSide(connection, info=INFO, rules=RULES, on_permission=allow))
            return client_sides[0]

        client_connection, agent_connection = await connection_pair(make_client, make_agent)
        side = client_sides[0]
        await side.initialize()
        session = await side.new_session("/work")
        assert await guard(session.run_turn(TEXT)) == "end_turn"
        snapshot = session.snapshot()
        roles = [(m["role"], m["content"]) for m in snapshot["messages"]]
        assert roles == [
            ("user", TEXT),
            ("thought", [{"type": "text", "text": "Let me"}, {"type": "text", "text": " think"}]),
            ("agent", [{"type": "text", "text": "Found "}, {"type": "text", "text": "two files."}]),
        ]
        (call,) = snapshot["toolCalls"].values()
        assert call["status"] == "completed"
        assert "rawInput" not in call
        (terminal,) = snapshot["terminals"].values()
        assert call["content"] == [
            {"type": "terminal", "terminalId": terminal["terminalId"]},
            {"type": "content", "content": {"type": "text", "text": "2 files"}},
        ]
        assert base64.b64decode(terminal["output"]) == b"a.txt\n\xffb.bin\n"
        assert terminal["exitStatus"] == {"exitCode": 0}
        (plan,) = snapshot["plans"].values()
        assert plan["entries"][0]["status"] == "completed"
        assert snapshot["usage"] == {
            "used": 10,
            "size": 100,
            "cost": {"amount": 0.01, "currency": "EUR"},
        }
        assert (snapshot["state"], snapshot["stopReason"]) == ("idle", "end_turn")
        await client_connection.close()
        await agent_connection.wait_closed()

    run(scenario())


def test_the_client_lists_closes_and_resumes_sessions_of_an_agent_side() -> None:
    async def scenario() -> None:
        def make_agent(connection: Connection) -> AgentSide:
            return AgentSide(connection, info={"name": "a", "version": "1"}, on_prompt=busy_turn)

        sides: list[ClientSide] = []

        def make_client(connection: Connection) -> ClientSide:
            sides.append(ClientSide(connection, info=INFO, rules=RULES))
            return sides[0]

        client_connection, agent_connection = await connection_pair(make_client, make_agent)
        side = sides[0]
        await side.initialize()
        assert side.agent_capabilities == {"session": {}}
        here = await side.new_session("/here")
        await side.new_session("/there")
        listed = await side.list_sessions(cwd="/here")
        assert [info["sessionId"] for info in listed["sessions"]] == [here.session_id]
        await here.close()
        with pytest.raises(ProtocolUsageError, match="closed"):
            await here.prompt(TEXT)
        again = await side.resume_session(here.session_id, "/here")
        assert again is here and not here.closed
        await client_connection.close()
        await agent_connection.wait_closed()

    run(scenario())
