"""AgentSide: the v2 prompt lifecycle seen on the wire by a raw client."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from acp_codegen.runtime.agent.agent_session import AgentSession, Prompt
from acp_codegen.runtime.wire.protocol import selected_option

from .agent_harness import (
    INFO,
    TEXT,
    Client,
    agent,
    agent_with_session,
    end_turn,
    receipt,
    request,
)
from .streams import run

# -- initialize -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("versions", "requested", "answered"),
    [((2,), 2, 2), ((2,), 3, 2), ((2,), 65535, 2), ((1, 2), 1, 1), ((1, 2), 3, 2), ((1, 3), 2, 1)],
)
def test_initialize_negotiates_the_protocol_version(
    versions: tuple[int, ...], requested: int, answered: int
) -> None:
    async def scenario() -> None:
        connection, peer, side = await agent(
            end_turn,
            protocol_versions=versions,
            auth_methods=[{"type": "agent", "methodId": "m", "name": "M"}],
        )
        reply = await Client(peer).call(
            "initialize",
            {
                "protocolVersion": requested,
                "info": {"name": "c", "version": "1"},
                "capabilities": {"auth": {}},
            },
        )
        assert reply["result"] == {
            "protocolVersion": answered,
            "info": INFO,
            "capabilities": {"session": {}},  # the runtime serves the session baseline
            "authMethods": [{"type": "agent", "methodId": "m", "name": "M"}],
        }
        assert side.protocol_version == answered
        assert side.client_capabilities == {"auth": {}}
        await connection.close()

    run(scenario())


@pytest.mark.parametrize(("versions", "requested"), [((2,), 1), ((2,), 0), ((2, 3), 1)])
def test_a_version_below_every_served_one_is_refused_with_32022(
    versions: tuple[int, ...], requested: int
) -> None:
    async def scenario() -> None:
        connection, peer, side = await agent(end_turn, protocol_versions=versions)
        reply = await Client(peer).call("initialize", {"protocolVersion": requested})
        assert reply["error"]["code"] == -32022
        assert reply["error"]["data"] == {"requested": requested, "supported": list(versions)}
        assert not side.initialized and side.protocol_version is None
        await connection.close()

    run(scenario())


def test_initialize_with_a_malformed_version_is_invalid_params() -> None:
    async def scenario() -> None:
        connection, peer, _ = await agent(end_turn)
        reply = await Client(peer).call("initialize", {"protocolVersion": "2"})
        assert reply["error"]["code"] == -32602
        assert reply["error"]["data"][0]["loc"] == ["protocolVersion"]
        await connection.close()

    run(scenario())


# -- refusing prompts -------------------------------------------------------------------------


def test_prompt_and_session_new_before_initialize_are_refused() -> None:
    async def scenario() -> None:
        connection, peer, _ = await agent(end_turn)
        client = Client(peer)
        reply = await client.call("session/prompt", {"sessionId": "s", "prompt": TEXT})
        assert reply["error"]["code"] == -32600
        reply = await client.call("session/new", {"cwd": "/"})
        assert reply["error"]["code"] == -32600
        await connection.close()

    run(scenario())


def test_prompt_for_an_unknown_session_is_refused() -> None:
    async def scenario() -> None:
        connection, peer, _ = await agent(end_turn)
        client = Client(peer)
        await client.setup()
        reply = await client.call("session/prompt", {"sessionId": "nope", "prompt": TEXT})
        assert reply["error"]["code"] == -32002
        assert reply["error"]["data"] == {"sessionId": "nope"}
        await connection.close()

    run(scenario())


def test_prompt_content_outside_the_prompt_capabilities_is_invalid_params() -> None:
    image = {"type": "image", "data": "AA==", "mimeType": "image/png"}
    resource = {"type": "resource", "resource": {"uri": "file:///a", "text": "x"}}
    link = {"type": "resource_link", "uri": "file:///a", "name": "a"}

    async def scenario() -> None:
        calls: list[Prompt] = []

        async def record(session: AgentSession, prompt: Prompt) -> None:
            calls.append(prompt)

        capabilities: dict[str, Any] = {"session": {"prompt": {"image": {}, "audio": None}}}
        connection, client, session_id = await agent_with_session(record, capabilities=capabilities)
        prompt = [*TEXT, link, image, resource, {"type": "audio", "data": "", "mimeType": "a/b"}]
        reply = await client.prompt(session_id, prompt)
        assert reply["error"]["code"] == -32602
        assert [problem["loc"] for problem in reply["error"]["data"]] == [
            ["prompt", 3, "type"],
            ["prompt", 4, "type"],
        ]
        assert "embeddedContext" in reply["error"]["data"][0]["msg"]
        reply = await client.call(
            "session/prompt", {"sessionId": session_id, "prompt": [*TEXT, link, image]}
        )
        receipt(reply["result"])
        await client.updates(3)  # user_message, running, idle
        assert [p.content for p in calls] == [[*TEXT, link, image]]
        await connection.close()

    run(scenario())


# -- a turn -----------------------------------------------------------------------------------


def test_a_turn_answers_then_reports_user_message_running_output_and_idle() -> None:
    async def handler(session: AgentSession, prompt: Prompt) -> str:
        message = session.agent_message()
        await message.append("Hel")
        await message.append("lo")
        return "max_tokens"

    async def scenario() -> None:
        connection, client, session_id = await agent_with_session(handler)
        reply = await client.prompt(session_id)
        receipt(reply["result"])  # the answer comes before any update of the turn
        user, running, chunk1, chunk2, idle = await client.updates(5)
        assert user["sessionUpdate"] == "user_message"
        assert user["content"] == TEXT
        assert isinstance(user["messageId"], str) and user["messageId"]
        assert running == {"sessionUpdate": "state_update", "state": "running"}
        assert chunk1["sessionUpdate"] == chunk2["sessionUpdate"] == "agent_message_chunk"
        assert chunk1["messageId"] == chunk2["messageId"] != user["messageId"]
        assert [chunk1["content"]["text"], chunk2["content"]["text"]] == ["Hel", "lo"]
        assert idle == {
            "sessionUpdate": "state_update",
            "state": "idle",
            "stopReason": "max_tokens",
        }
        await connection.close()

    run(scenario())


def test_a_handler_returning_none_ends_the_turn_with_end_turn() -> None:
    async def scenario() -> None:
        connection, client, session_id = await agent_with_session(end_turn)
        await client.prompt(session_id)
        *_, idle = await client.updates(3)
        assert idle["stopReason"] == "end_turn"
        await connection.close()

    run(scenario())


def test_a_failing_handler_ends_idle_with_internal_error_and_logs(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def broken(session: AgentSession, prompt: Prompt) -> str:
        await session.say("partial")
        raise KeyError("model exploded")

    async def scenario() -> None:
        connection, client, session_id = await agent_with_session(broken)
        await client.prompt(session_id)
        _, _, said, idle = await client.updates(4)
        assert said["sessionUpdate"] == "agent_message"
        assert idle == {
            "sessionUpdate": "state_update",
            "state": "idle",
            "stopReason": "_internal_error",
        }
        # The session accepts the next prompt.
        reply = await client.prompt(session_id)
        receipt(reply["result"])
        await connection.close()

    with caplog.at_level(logging.ERROR):
        run(scenario())
    failures = [r for r in caplog.records if r.exc_info and r.exc_info[0] is KeyError]
    assert failures


# -- cancellation -----------------------------------------------------------------------------


def test_cancel_stops_the_turn_after_its_updates_and_reports_idle_cancelled() -> None:
    cancelled = asyncio.Event()

    async def slow(session: AgentSession, prompt: Prompt) -> str:
        call = await session.start_tool_call("Long job", kind="execute", status="in_progress")
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            await call.update(status="cancelled")  # updates after cancel still precede idle
            raise
        return "end_turn"

    async def scenario() -> None:
        connection, peer, side = await agent(slow)
        client = Client(peer)
        session_id = await client.setup()
        await client.prompt(session_id)
        _, _, started = await client.updates(3)
        assert started["status"] == "in_progress"
        await client.notify("session/cancel", {"sessionId": session_id})
        final_call, idle = await client.updates(2)
        assert final_call == {
            "sessionUpdate": "tool_call_update",
            "toolCallId": started["toolCallId"],
            "status": "cancelled",
        }
        assert idle == {"sessionUpdate": "state_update", "state": "idle", "stopReason": "cancelled"}
        assert cancelled.is_set()
        assert not side.sessions[session_id].running
        await connection.close()

    run(scenario())


def test_an_aborted_operations_own_exception_still_reports_cancelled(
    caplog: pytest.LogCaptureFixture,
) -> None:
    class AbortedError(Exception):
        pass

    async def wraps_cancellation(session: AgentSession, prompt: Prompt) -> str:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            raise AbortedError("request aborted") from None  # as HTTP clients do
        return "end_turn"

    async def scenario() -> None:
        connection, client, session_id = await agent_with_session(wraps_cancellation)
        await client.prompt(session_id)
        await client.updates(2)
        await client.notify("session/cancel", {"sessionId": session_id})
        (idle,) = await client.updates(1)
        assert idle["stopReason"] == "cancelled"
        await connection.close()

    with caplog.at_level(logging.ERROR):
        run(scenario())
    assert not [r for r in caplog.records if r.exc_info]


def test_cancel_arriving_with_the_prompt_ends_the_turn_before_the_handler_runs() -> None:
    calls: list[Prompt] = []

    async def record(session: AgentSession, prompt: Prompt) -> None:
        calls.append(prompt)

    async def scenario() -> None:
        connection, client, session_id = await agent_with_session(record)
        await client.peer.send(
            request(1, "session/prompt", {"sessionId": session_id, "prompt": TEXT}),
            {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": session_id}},
        )
        receipt((await client.peer.recv())["result"])
        user, idle = await client.updates(2)
        assert user["sessionUpdate"] == "user_message"
        assert idle == {"sessionUpdate": "state_update", "state": "idle", "stopReason": "cancelled"}
        assert calls == []
        await connection.close()

    run(scenario())


def test_cancel_without_running_work_is_ignored() -> None:
    async def scenario() -> None:
        connection, client, session_id = await agent_with_session(end_turn)
        await client.notify("session/cancel", {"sessionId": session_id})
        await client.notify("session/cancel", {"sessionId": "unknown"})
        reply = await client.prompt(session_id)
        receipt(reply["result"])
        *_, idle = await client.updates(3)
        assert idle["stopReason"] == "end_turn"
        await connection.close()

    run(scenario())


# -- prompts while running --------------------------------------------------------------------


def test_a_prompt_during_a_turn_is_accepted_reported_and_handled_in_the_same_work() -> None:
    release = asyncio.Event()
    seen: list[list[dict[str, Any]]] = []

    async def handler(session: AgentSession, prompt: Prompt) -> str:
        seen.append(prompt.content)
        if len(seen) == 1:
            await release.wait()
        return "end_turn"

    async def scenario() -> None:
        connection, client, session_id = await agent_with_session(handler)
        await client.prompt(session_id)
        await client.updates(2)  # user_message, running
        second = [{"type": "text", "text": "and also"}]
        reply = await client.prompt(session_id, second)
        receipt(reply["result"])
        (user2,) = await client.updates(1)
        assert user2["sessionUpdate"] == "user_message"
        assert user2["content"] == second
        release.set()
        (idle,) = await client.updates(1)  # one idle for the whole work, no running/idle between
        assert idle["state"] == "idle"
        assert seen == [TEXT, second]
        await connection.close()

    run(scenario())


def test_a_handler_can_take_queued_prompts_itself() -> None:
    arrived = asyncio.Event()
    calls: list[str] = []

    async def handler(session: AgentSession, prompt: Prompt) -> str:
        calls.append(prompt.content[0]["text"])
        await arrived.wait()
        taken = session.take_prompts()
        return f"_took_{len(taken)}"

    async def scenario() -> None:
        connection, client, session_id = await agent_with_session(handler)
        await client.prompt(session_id)
        await client.updates(2)
        await client.call(
            "session/prompt", {"sessionId": session_id, "prompt": [{"type": "text", "text": "b"}]}
        )
        await client.updates(1)
        arrived.set()
        (idle,) = await client.updates(1)
        assert idle["stopReason"] == "_took_1"
        assert calls == ["hi"]  # the taken prompt is not handed over again
        await connection.close()

    run(scenario())


# -- permission -------------------------------------------------------------------------------


def test_request_permission_reports_requires_action_then_running() -> None:
    outcomes: list[Any] = []

    async def handler(session: AgentSession, prompt: Prompt) -> str:
        outcome = await session.request_permission(
            "Run rm?", [{"optionId": "yes", "name": "Yes", "kind": "allow_once"}]
        )
        outcomes.append(outcome)
        return "end_turn" if selected_option(outcome) == "yes" else "refusal"

    async def scenario() -> None:
        connection, client, session_id = await agent_with_session(handler)
        await client.prompt(session_id)
        await client.updates(2)
        (blocked,) = await client.updates(1)
        assert blocked == {"sessionUpdate": "state_update", "state": "requires_action"}
        ask = await client.peer.recv()
        assert ask["method"] == "session/request_permission"
        assert ask["params"]["sessionId"] == session_id
        assert ask["params"]["title"] == "Run rm?"
        await client.peer.send(
            {
                "jsonrpc": "2.0",
                "id": ask["id"],
                "result": {"outcome": {"outcome": "selected", "optionId": "yes"}},
            }
        )
        resumed, idle = await client.updates(2)
        assert resumed == {"sessionUpdate": "state_update", "state": "running"}
        assert idle["stopReason"] == "end_turn"
        assert outcomes == [{"outcome": "selected", "optionId": "yes"}]
        await connection.close()

    run(scenario())


@pytest.mark.parametrize(
    "outcome",
    [{"outcome": "cancelled"}, {"outcome": "_future"}, {"outcome": "selected"}, None, "yes"],
)
def test_only_a_well_formed_selected_outcome_is_approval(outcome: Any) -> None:
    assert selected_option(outcome) is None
