"""`Client.protocol_versions`: which versions the generated client accepts and asks for, against
the generated agent over a real connection pair (both packages' own runtime)."""

from __future__ import annotations

import asyncio
import gc
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "generated"))

import acp_bindings as acp  # noqa: E402
from acp_bindings._runtime.client.client_side import ClientSide  # noqa: E402
from acp_bindings._runtime.rpc.connection import Connection  # noqa: E402
from acp_bindings._runtime.rpc.dispatch import ValidatingDispatcher  # noqa: E402
from acp_bindings._runtime.wire.errors import UnsupportedProtocolVersion  # noqa: E402

from .streams import RawPeer, run, stream_pair  # noqa: E402


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


async def answering(peer: RawPeer, version: int) -> None:
    """A raw agent: answers `initialize` with `version` and each `session/new`."""
    count = 0
    while True:
        message = await peer.recv()
        if message["method"] == "initialize":
            result: dict[str, Any] = {"protocolVersion": version, "agentCapabilities": {}}
            if version == 2:
                result = {"protocolVersion": 2, "info": {"name": "a", "version": "1"}}
        else:
            count += 1
            result = {"sessionId": f"sess_{count}"}
        await peer.send({"jsonrpc": "2.0", "id": message["id"], "result": result})


@pytest.mark.parametrize(("client", "version"), [(OnlyV1Client, 1), (OnlyV2Client, 2)])
def test_a_session_a_client_set_up_keeps_few_objects_for_the_collector(
    client: type[acp.Client], version: int
) -> None:
    """A client keeps every session it set up, and the cyclic collector walks what each
    holds: a session that has seen nothing yet holds no Event, log lists or sets of its own
    (it was 10 objects a session on either version)."""

    async def main() -> float:
        (reader, writer), (peer_reader, peer_writer) = await stream_pair()
        ours = Connection(reader, writer)
        lifecycle = client()
        ours.dispatcher = lifecycle.dispatcher(ours)
        ours.start()
        agent = asyncio.ensure_future(answering(RawPeer(peer_reader, peer_writer), version))
        await lifecycle.lifecycle.initialize()
        for _ in range(5):  # first calls fill caches
            await lifecycle.lifecycle.new_session(cwd="/")
        gc.collect()
        before = len(gc.get_objects())
        for _ in range(100):
            await lifecycle.lifecycle.new_session(cwd="/")
        gc.collect()
        per_session = (len(gc.get_objects()) - before) / 100
        agent.cancel()
        await ours.close()
        return per_session

    assert run(main()) <= 5
