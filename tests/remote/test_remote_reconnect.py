"""A client whose connection ends mid-turn (HTTP or WebSocket) reconnects and resumes its
session on a new connection: the session is still there (sessions belong to the served agent,
not to one connection), `session/resume` with `replayFrom` replays its history, the turn that
was running is reported idle and `cancelled`, and the next turn runs as usual."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.remote.agents import AllowingClient, Client, ClientSession, message_text, run, served


class Unanswering(Client):
    """Never answers a permission request: the turn waits there when the connection drops."""

    def __init__(self) -> None:
        self.asked = asyncio.Event()

    async def on_permission(self, session: ClientSession[Any], request: Any) -> Any:
        self.asked.set()
        await asyncio.Event().wait()


@pytest.mark.parametrize("scheme", ["http", "ws"])
def test_a_session_survives_its_connection(scheme: str) -> None:
    async def scenario() -> None:
        async with served() as agent:
            url = agent.url if scheme == "http" else agent.ws_url
            first = Unanswering()
            remote = await first.connect(url)
            await first.lifecycle.initialize()
            session = await first.lifecycle.new_session(cwd="/tmp")
            turn = asyncio.ensure_future(session.run_turn([{"type": "text", "text": "cut off"}]))
            await first.asked.wait()
            await remote.close()  # the connection ends with the turn waiting on permission
            await asyncio.gather(turn, return_exceptions=True)

            second = AllowingClient()
            again = await second.connect(url)
            try:
                await second.lifecycle.initialize()
                listed = await second.lifecycle.list_sessions(cwd="/tmp")
                assert [s["sessionId"] for s in listed["sessions"]] == [session.session_id]
                resumed = await second.lifecycle.resume_session(
                    session.session_id, "/tmp", replayFrom={"type": "start"}
                )
                snapshot = resumed.snapshot()
                assert (snapshot["state"], snapshot["stopReason"]) == ("idle", "cancelled")
                user, *_ = snapshot["messages"]
                assert user["role"] == "user" and message_text(user) == "cut off"
                stop = await resumed.run_turn([{"type": "text", "text": "and now"}])
                assert stop == "end_turn"
                assert second.asked == [session.session_id]
            finally:
                await again.close()

    run(scenario())
