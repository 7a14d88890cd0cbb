"""A v1 client reattaching to a session over a new connection: v1's `session/resume` replays
nothing, so `resume_session(..., replayFrom=...)` on a v1 connection sends `session/load`, and
the history the agent replays (the example agent, restricted to v1) is folded into the
session's state; `load_session` is v1's alone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.remote.agents import (
    AllowingClient,
    ProtocolUsageError,
    demo_agent_class,
    message_text,
    run,
    served,
)


def v1_only_demo() -> Any:
    """The example agent serving v1 alone (as an agent built before v2 would)."""
    return type("V1DemoAgent", (demo_agent_class(),), {"protocol_versions": (1,)})()


def sent_methods(trace: Path) -> list[str]:
    lines = [json.loads(line) for line in trace.read_text().splitlines()]
    return [
        line["message"]["method"]
        for line in lines
        if line["dir"] == "send" and "method" in line.get("message", {})
    ]


@pytest.mark.parametrize("scheme", ["http", "ws"])
def test_a_v1_reattach_loads_the_history(scheme: str, tmp_path: Path) -> None:
    async def scenario() -> None:
        async with served(agent=v1_only_demo()) as agent:
            url = agent.url if scheme == "http" else agent.ws_url
            first = AllowingClient()
            remote = await first.connect(url)
            await first.lifecycle.initialize()
            assert first.lifecycle.protocol_version == 1
            assert first.lifecycle.agent_capabilities["loadSession"] is True
            session = await first.lifecycle.new_session(cwd="/tmp")
            assert await session.run_turn([{"type": "text", "text": "first words"}]) == "end_turn"
            before = session.snapshot()
            await remote.close()

            second = AllowingClient()
            again = await second.connect(url, trace=tmp_path / "trace.jsonl")
            try:
                await second.lifecycle.initialize()
                resumed = await second.lifecycle.resume_session(
                    session.session_id, "/tmp", replayFrom={"type": "start"}
                )
                replayed = resumed.snapshot()
                assert [(m["role"], message_text(m)) for m in replayed["messages"]] == [
                    (m["role"], message_text(m)) for m in before["messages"]
                ]
                assert replayed["toolCalls"].keys() == before["toolCalls"].keys()
                stop = await resumed.run_turn([{"type": "text", "text": "and now"}])
                assert stop == "end_turn"
                texts = [message_text(m) for m in resumed.snapshot()["messages"]]
                assert texts[0] == "first words" and "and now" in texts
                assert second.asked == [session.session_id]
            finally:
                await again.close()
            methods = sent_methods(tmp_path / "trace.jsonl")
            assert "session/load" in methods and "session/resume" not in methods

    run(scenario())


def test_a_v1_resume_without_replay_is_a_resume() -> None:
    async def scenario() -> None:
        async with served(agent=v1_only_demo()) as agent:
            first = AllowingClient()
            remote = await first.connect(agent.ws_url)
            await first.lifecycle.initialize()
            session = await first.lifecycle.new_session(cwd="/tmp")
            await session.run_turn([{"type": "text", "text": "kept by the agent"}])
            await remote.close()
            second = AllowingClient()
            again = await second.connect(agent.ws_url)
            try:
                await second.lifecycle.initialize()
                resumed = await second.lifecycle.resume_session(session.session_id, "/tmp")
                assert resumed.snapshot()["messages"] == []  # v1's resume replays nothing
                stop = await resumed.run_turn([{"type": "text", "text": "still there"}])
                assert stop == "end_turn"
            finally:
                await again.close()

    run(scenario())


def test_session_load_is_refused_on_v2() -> None:
    async def scenario() -> None:
        async with served() as agent:
            client = AllowingClient()
            remote = await client.connect(agent.url)
            try:
                await client.lifecycle.initialize()
                assert client.lifecycle.protocol_version == 2
                with pytest.raises(ProtocolUsageError, match="session/load is v1's"):
                    await client.lifecycle.load_session("any", "/tmp")
            finally:
                await remote.close()

    run(scenario())
