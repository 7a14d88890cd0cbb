"""`Client.protocol_versions`: which versions the generated client accepts and asks for, against
the generated agent over a real connection pair (both packages' own runtime)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "generated"))

import acp_bindings as acp  # noqa: E402
from acp_bindings._runtime.client_side import ClientSide  # noqa: E402
from acp_bindings._runtime.connection import Connection  # noqa: E402
from acp_bindings._runtime.dispatch import ValidatingDispatcher  # noqa: E402
from acp_bindings._runtime.errors import UnsupportedProtocolVersion  # noqa: E402

from .streams import run, stream_pair  # noqa: E402


class Echo(acp.Agent):
    async def on_prompt(self, session: Any, prompt: Any) -> str | None:
        await session.say(f"echo: {prompt.text}")
        return None


class OnlyV1Agent(Echo):
    protocol_versions = (1,)


class OnlyV1Client(acp.Client):
    protocol_versions = (1,)


class OnlyV2Client(acp.Client):
    protocol_versions = (2,)


async def pair(client: acp.Client, agent: acp.Agent) -> tuple[Connection, Connection]:
    (ra, wa), (rb, wb) = await stream_pair()
    ours, theirs = Connection(ra, wa), Connection(rb, wb)
    ours.dispatcher = client.dispatcher(ours)
    theirs.dispatcher = agent.dispatcher(theirs)
    ours.start()
    theirs.start()
    return ours, theirs


async def turn(client: acp.Client, agent: acp.Agent) -> tuple[int | None, Any, list[Any]]:
    """Initialize, open a session, run one turn; the version, the connection's dispatcher
    after `initialize`, and the session's messages."""
    ours, theirs = await pair(client, agent)
    try:
        await client.lifecycle.initialize()
        settled = ours.dispatcher
        session = await client.lifecycle.new_session(cwd="/")
        await session.run_turn([{"type": "text", "text": "hi"}])
        return client.lifecycle.protocol_version, settled, session.snapshot()["messages"]
    finally:
        await ours.close()
        await theirs.close()


def agent_text(messages: list[Any]) -> list[str]:
    return [
        "".join(block["text"] for block in m["content"]) for m in messages if m["role"] == "agent"
    ]


def test_a_client_offering_only_v1_drives_a_both_versions_agent_on_v1() -> None:
    agent = Echo()
    version, settled, messages = run(turn(OnlyV1Client(), agent))
    assert version == 1 and agent.lifecycle.protocol_version == 1
    # v1's checks in front of the v1 dialect, without the router in between.
    assert isinstance(settled, ValidatingDispatcher) and settled.inner is not None
    assert agent_text(messages) == ["echo: hi"]


def test_the_default_client_asks_for_v2_and_accepts_v1() -> None:
    version, _, messages = run(turn(acp.Client(), Echo()))
    assert version == 2 and agent_text(messages) == ["echo: hi"]
    version, _, messages = run(turn(acp.Client(), OnlyV1Agent()))
    assert version == 1 and agent_text(messages) == ["echo: hi"]


def test_a_client_offering_only_v2_refuses_a_v1_agent() -> None:
    async def main() -> None:
        client = OnlyV2Client()
        ours, theirs = await pair(client, OnlyV1Agent())
        try:
            with pytest.raises(UnsupportedProtocolVersion):
                await client.lifecycle.initialize()
            assert client.lifecycle.v1 is None  # no v1 dialect was set up at all
        finally:
            await ours.close()
            await theirs.close()

    run(main())


def test_accepting_v1_needs_its_tables() -> None:
    async def main() -> None:
        (reader, writer), _ = await stream_pair()
        with pytest.raises(ValueError, match="version 1 needs v1's tables"):
            ClientSide(
                Connection(reader, writer), info={}, rules=acp.MERGE_RULES, protocol_versions=(1,)
            )

    run(main())
