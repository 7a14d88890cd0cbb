"""What the agent sends is valid (issue 7, part 3): checked against the generated models before
it is written; invalid data raises at the helper call and never reaches the wire."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from acp_codegen.runtime.agent.agent_session import AgentSession, Prompt
from acp_codegen.runtime.rpc.outgoing_checks import OutgoingChecks
from pydantic import ValidationError

from .agent_harness import Client, agent, agent_with_session
from .streams import run

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "generated"))

from acp_bindings import merge_rules, methods

CHECKS = OutgoingChecks(
    sent=methods.CLIENT_SPECS, answered=methods.AGENT_SPECS, stop_reasons=merge_rules.STOP_REASONS
)


async def usage(session: AgentSession) -> None:
    await session.report_usage(used=-5, size=10)


async def cost(session: AgentSession) -> None:
    await session.report_usage(used=5, size=10, cost={"amount": 1.0, "currency": 840})


async def plan(session: AgentSession) -> None:
    await session.update_plan([{"content": "x", "status": "pending"}])


async def image(session: AgentSession) -> None:
    await session.say({"type": "image", "mimeType": "image/png"})


async def permission(session: AgentSession) -> None:
    await session.request_permission("Go?", [])  # the schema wants at least one option


@pytest.mark.parametrize(
    ("helper", "where"),
    [
        (usage, "used"),
        (cost, "currency"),
        (plan, "priority"),
        (image, "data"),
        (permission, "options"),
    ],
)
def test_invalid_data_raises_at_the_helper_and_never_reaches_the_wire(
    helper: Any, where: str
) -> None:
    errors: list[ValidationError] = []

    async def handler(session: AgentSession, prompt: Prompt) -> None:
        try:
            await helper(session)
        except ValidationError as error:
            errors.append(error)

    async def scenario() -> None:
        connection, client, session_id = await agent_with_session(handler, checks=CHECKS)
        await client.prompt(session_id)
        updates = await client.updates(3)
        assert [u["sessionUpdate"] for u in updates] == ["user_message"] + ["state_update"] * 2
        assert updates[2]["stopReason"] == "end_turn"
        await connection.close()

    run(scenario())
    (error,) = errors
    assert where in str(error)


@pytest.mark.parametrize(
    ("returned", "ends_with"),
    [("refusal", "refusal"), ("_mine", "_mine"), ("done", "_internal_error")],
)
def test_stop_reasons_are_the_schemas_or_custom_with_an_underscore(
    returned: str, ends_with: str, caplog: pytest.LogCaptureFixture
) -> None:
    async def handler(session: AgentSession, prompt: Prompt) -> str:
        return returned

    async def scenario() -> None:
        connection, client, session_id = await agent_with_session(handler, checks=CHECKS)
        await client.prompt(session_id)
        assert (await client.updates(3))[2]["stopReason"] == ends_with
        await connection.close()

    run(scenario())
    if returned == "done":
        assert "stop reason 'done'" in caplog.text and "must start with '_'" in caplog.text


def test_an_invalid_session_new_result_from_a_hook_is_an_internal_error() -> None:
    async def bad_extra(session: AgentSession) -> dict[str, Any]:
        return {"configOptions": "not a list"}

    async def scenario() -> None:
        connection, peer, side = await agent(
            lambda s, p: None, checks=CHECKS, on_new_session=bad_extra
        )
        client = Client(peer)
        await client.call(
            "initialize", {"protocolVersion": 2, "info": {"name": "c", "version": "1"}}
        )
        reply = await client.call("session/new", {"cwd": "/tmp"})
        assert reply["error"]["code"] == -32603
        assert "configOptions" in str(reply["error"])
        assert side.sessions == {}  # the failed session is not kept
        await connection.close()

    run(scenario())


def test_known_stop_reasons_come_from_the_schema() -> None:
    """The idle state's `stopReason` variants (upstream 2.4.0 adds `error`)."""
    assert {
        "end_turn",
        "max_tokens",
        "max_turn_requests",
        "refusal",
        "cancelled",
        "error",
    } == merge_rules.STOP_REASONS
    assert CHECKS.known_stop_reasons == merge_rules.STOP_REASONS
