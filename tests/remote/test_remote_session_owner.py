"""A second client holding the same token tries a live client's session (HTTP and WebSocket,
a raw connection of its own, v2 and v1): it is not listed to it; its prompt, close, config
change (the author's handler) and the like are refused with -32002 and its `session/cancel` is
ignored, so the first client's turn goes on as if nothing happened and it sees nothing it did
not start. Taking the session over is an explicit resume (or v1 load): the first client's
running turn ends `cancelled`, it is told with a notice, its client marks the session taken
over, and the agent refuses what its connection sends for the session from then on."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest

from tests.remote.agents import (
    HANG_GUARD,
    REPO,
    AllowingClient,
    Client,
    ClientSession,
    ProtocolUsageError,
    RpcError,
    demo_agent_class,
    message_text,
    models,
    run,
    served,
)
from tests.remote.intruder import intruding

SCHEMES = ["http", "ws"]
RESOURCE_NOT_FOUND = -32002


class Victim(Client):
    """The first client: it holds its turn at the agent's permission request until `release`
    is set, and records the notices the agent tells it."""

    def __init__(self) -> None:
        self.asked: list[str] = []
        self.asking = asyncio.Event()
        self.release = asyncio.Event()
        self.notices: list[Any] = []
        self.told = asyncio.Event()

    async def on_permission(self, session: ClientSession[Any], request: Any) -> Any:
        self.asked.append(session.session_id)
        self.asking.set()
        await self.release.wait()
        return {"outcome": "selected", "optionId": "allow"}

    async def session_update(self, *, params: models.UpdateSessionNotification) -> None:
        if getattr(params.update, "session_update", None) == "notice":
            self.notices.append(params.update)
            self.told.set()


class Configurable(demo_agent_class()):  # type: ignore[misc]
    """The example agent with a config option handler of the author's, which records calls."""

    def __init__(self) -> None:
        super().__init__()
        self.configured: list[Any] = []

    async def session_set_config_option(
        self, *, params: Any
    ) -> models.SetSessionConfigOptionResponse:
        self.configured.append(params)
        return models.SetSessionConfigOptionResponse(config_options=[])


@contextlib.asynccontextmanager
async def victim_in_turn(url: str) -> AsyncIterator[tuple[Victim, ClientSession[Any], Any]]:
    """A first client whose session's turn is running (held at its permission request)."""
    victim = Victim()
    remote = await victim.connect(url)
    try:
        await victim.lifecycle.initialize()
        session = await victim.lifecycle.new_session(cwd=str(REPO))
        turn = asyncio.ensure_future(session.run_turn([{"type": "text", "text": "mine"}]))
        await victim.asking.wait()
        yield victim, session, turn
        victim.release.set()
        await asyncio.gather(turn, return_exceptions=True)
    finally:
        await remote.close()


def users(session: ClientSession[Any]) -> list[str]:
    return [message_text(m) for m in session.snapshot()["messages"] if m["role"] == "user"]


def refused(answer: dict[str, Any], session_id: str) -> None:
    error = answer.get("error")
    assert error is not None, answer
    assert error["code"] == RESOURCE_NOT_FOUND, error
    assert "attached to another connection" in error["message"], error
    assert error["data"] == {"sessionId": session_id}


def nothing_of(seen: list[dict[str, Any]], session_id: str) -> None:
    """The intruder was sent nothing about the session."""
    assert not [m for m in seen if (m.get("params") or {}).get("sessionId") == session_id]


@pytest.mark.parametrize("scheme", SCHEMES)
def test_a_live_clients_sessions_are_not_listed_to_another(scheme: str) -> None:
    async def scenario() -> None:
        async with served() as agent, victim_in_turn(agent.url) as (victim, session, _):
            async with intruding(agent.url, scheme) as intruder:
                listed = await intruder.request("session/list", {})
                assert listed["result"]["sessions"] == []
                made = await intruder.request("session/new", {"cwd": "/tmp"})
                own = made["result"]["sessionId"]
                listed = await intruder.request("session/list", {})
                assert [s["sessionId"] for s in listed["result"]["sessions"]] == [own]
            mine = await victim.lifecycle.list_sessions()
            assert session.session_id in [s["sessionId"] for s in mine["sessions"]]

    run(scenario())


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("version", [2, 1])
def test_a_foreign_prompt_is_refused(scheme: str, version: int) -> None:
    async def scenario() -> None:
        async with served() as agent, victim_in_turn(agent.url) as (victim, session, turn):
            sid = session.session_id
            async with intruding(agent.url, scheme, version=version) as intruder:
                prompt = [{"type": "text", "text": "foreign"}]
                answer = await intruder.request(
                    "session/prompt", {"sessionId": sid, "prompt": prompt}
                )
                refused(answer, sid)
                victim.release.set()
                assert await turn == "end_turn"
                nothing_of(intruder.seen, sid)
            assert users(session) == ["mine"]
            assert victim.asked == [sid]

    run(scenario())


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("version", [2, 1])
def test_a_foreign_cancel_is_ignored(scheme: str, version: int) -> None:
    async def scenario() -> None:
        async with served() as agent, victim_in_turn(agent.url) as (victim, session, turn):
            sid = session.session_id
            async with intruding(agent.url, scheme, version=version) as intruder:
                await intruder.notify("session/cancel", {"sessionId": sid})
                # The agent handles a connection's messages in order: once this is
                # answered, the cancel was handled.
                assert "result" in await intruder.request("session/list", {})
                victim.release.set()
                assert await turn == "end_turn"
                nothing_of(intruder.seen, sid)
            assert users(session) == ["mine"]

    run(scenario())


@pytest.mark.parametrize("scheme", SCHEMES)
def test_a_foreign_close_is_refused(scheme: str) -> None:
    async def scenario() -> None:
        async with served() as agent, victim_in_turn(agent.url) as (victim, session, turn):
            sid = session.session_id
            async with intruding(agent.url, scheme) as intruder:
                refused(await intruder.request("session/close", {"sessionId": sid}), sid)
                victim.release.set()
                assert await turn == "end_turn"
            again = [{"type": "text", "text": "still mine"}]
            assert await session.run_turn(again) == "end_turn"
            assert users(session) == ["mine", "still mine"]

    run(scenario())


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize(
    ("version", "method", "params"),
    [
        (2, "session/set_config_option", {"configId": "mode", "type": "id", "value": "fast"}),
        (2, "session/delete", {}),
        (2, "tool_call/cancel", {"toolCallId": "call_1"}),
        (2, "_intruder/poke", {}),
        (1, "session/set_mode", {"modeId": "fast"}),
        (1, "session/set_config_option", {"configId": "mode", "value": "fast"}),
    ],
)
def test_every_other_session_method_is_refused(
    scheme: str, version: int, method: str, params: dict[str, Any]
) -> None:
    async def scenario() -> None:
        author = Configurable()
        async with served(agent=author) as agent, victim_in_turn(agent.url) as held:
            victim, session, turn = held
            sid = session.session_id
            async with intruding(agent.url, scheme, version=version) as intruder:
                answer = await intruder.request(method, {"sessionId": sid, **params})
                refused(answer, sid)
                victim.release.set()
                assert await turn == "end_turn"
            assert author.configured == []  # the author's handler never ran

    run(scenario())


@pytest.mark.parametrize("scheme", SCHEMES)
def test_a_resume_takes_the_session_over_and_the_first_client_is_told(scheme: str) -> None:
    async def scenario() -> None:
        async with served() as agent:
            url = agent.url if scheme == "http" else agent.ws_url
            async with victim_in_turn(url) as (victim, session, turn):
                sid = session.session_id
                second = AllowingClient()
                remote = await second.connect(url)
                try:
                    await second.lifecycle.initialize()
                    resumed = await second.lifecycle.resume_session(
                        sid, str(REPO), replayFrom={"type": "start"}
                    )
                    assert await turn == "cancelled"  # the work it ran there is cancelled
                    await asyncio.wait_for(victim.told.wait(), HANG_GUARD / 2)
                    assert session.taken_over and session.closed
                    with pytest.raises(ProtocolUsageError, match="another connection took"):
                        await session.prompt([{"type": "text", "text": "mine again"}])
                    with pytest.raises(RpcError) as sent_anyway:
                        prompt = [{"type": "text", "text": "mine again"}]
                        await victim.lifecycle.connection.request(
                            "session/prompt", {"sessionId": sid, "prompt": prompt}
                        )
                    assert sent_anyway.value.code == RESOURCE_NOT_FOUND
                    assert "attached to another connection" in sent_anyway.value.message
                    ours = [{"type": "text", "text": "now ours"}]
                    assert await resumed.run_turn(ours) == "end_turn"
                    assert users(resumed) == ["mine", "now ours"]
                    assert second.asked == [sid] and victim.asked == [sid]
                finally:
                    await remote.close()

    run(scenario())


@pytest.mark.parametrize("scheme", SCHEMES)
def test_a_v1_load_takes_a_v2_clients_session_over(scheme: str) -> None:
    async def scenario() -> None:
        async with served() as agent, victim_in_turn(agent.url) as (victim, session, turn):
            sid = session.session_id
            async with intruding(agent.url, scheme, version=1) as intruder:
                loaded = await intruder.request(
                    "session/load", {"sessionId": sid, "cwd": str(REPO), "mcpServers": []}
                )
                assert "result" in loaded, loaded
                assert await turn == "cancelled"
                await asyncio.wait_for(victim.told.wait(), HANG_GUARD / 2)
                assert session.taken_over
                [notice] = victim.notices
                assert notice.title == "Session taken over by another connection"

    run(scenario())
