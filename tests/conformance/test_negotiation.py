"""Version negotiation on the wire, against the example agent (examples/demo_agent.py)."""

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
            refused = await agent.call("initialize", {"protocolVersion": 1})
            accepted = await agent.call(
                "initialize", {"protocolVersion": 2, "info": {"name": "x", "version": "1"}}
            )
            return refused, accepted
        finally:
            await agent.close()

    refused, accepted = run(main())
    assert refused["error"]["code"] == -32022  # type: ignore[index]
    assert accepted["result"]["protocolVersion"] == 2  # type: ignore[index]
