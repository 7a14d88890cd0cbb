"""Upstream v2 2.4.0 on the wire of the example agent: version negotiation, and the answer to
cancelling a tool call or terminal it never offered to cancel."""

from __future__ import annotations

import pytest

from .negotiation import answers, check
from .wire import DEMO_AGENT, RawAgent, run


def test_the_example_agent_answers_each_requested_version_by_the_rule() -> None:
    check(answers(DEMO_AGENT))


@pytest.mark.parametrize("version", ["2", 2.0, -1, 65536, None, True])
def test_a_version_that_is_not_one_is_invalid_params(version: object) -> None:
    async def main() -> dict[str, object]:
        agent = await RawAgent.start()
        try:
            return await agent.call("initialize", {"protocolVersion": version})
        finally:
            await agent.close()

    reply = run(main())
    assert reply["error"]["code"] == -32602, reply  # type: ignore[index]


def test_a_refused_version_leaves_the_connection_usable() -> None:
    """-32022 is an answer, not a hang-up: the client may try again with a version we serve."""

    async def main() -> tuple[dict[str, object], dict[str, object]]:
        agent = await RawAgent.start()
        try:
            refused = await agent.call("initialize", {"protocolVersion": 0})
            accepted = await agent.call(
                "initialize", {"protocolVersion": 2, "info": {"name": "x", "version": "1"}}
            )
            return refused, accepted
        finally:
            await agent.close()

    refused, accepted = run(main())
    assert refused["error"]["code"] == -32022  # type: ignore[index]
    assert accepted["result"]["protocolVersion"] == 2  # type: ignore[index]


@pytest.mark.parametrize(
    ("method", "field"), [("tool_call/cancel", "toolCallId"), ("terminal/cancel", "terminalId")]
)
def test_cancelling_what_is_not_cancellable_is_invalid_params(method: str, field: str) -> None:
    """Upstream 2.4.0: -32602 for an unknown, finished or non-cancellable tool call or terminal
    (the example agent advertises `capabilities.cancel` on nothing)."""

    async def main() -> dict[str, object]:
        agent = await RawAgent.start()
        try:
            await agent.initialize()
            session_id = await agent.new_session()
            return await agent.call(method, {"sessionId": session_id, field: "nope"})
        finally:
            await agent.close()

    reply = run(main())
    error = reply["error"]
    assert error["code"] == -32602, reply  # type: ignore[index]
    assert field in str(error["data"])  # type: ignore[index]
