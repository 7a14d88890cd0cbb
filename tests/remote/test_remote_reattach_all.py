"""`Client.reconnect` after a lost connection resumes every session the client had open, not
only one: two sessions with a turn each, the connection dropped by the server (HTTP and
WebSocket); after the reconnect both are there with their history, and both go on."""

from __future__ import annotations

import pytest

from tests.remote.agents import REPO, AllowingClient, message_text, run, served


@pytest.mark.parametrize("scheme", ["http", "ws"])
def test_every_open_session_is_resumed_after_a_reconnect(scheme: str) -> None:
    async def scenario() -> None:
        async with served() as agent:
            url = agent.url if scheme == "http" else agent.ws_url
            client = AllowingClient()
            remote = await client.connect(url)
            await client.lifecycle.initialize()
            sessions = [await client.lifecycle.new_session(cwd=str(REPO)) for _ in range(3)]
            for number, session in enumerate(sessions):
                text = [{"type": "text", "text": f"first {number}"}]
                assert await session.run_turn(text) == "end_turn"
            closed = sessions.pop()
            await closed.close()  # not open any more: not resumed
            for link in list(agent.server.links.values()):
                link.close_soon("dropped by the test")
            await remote.connection.wait_closed()

            remote = await client.reconnect(remote)
            try:
                resumed = client.lifecycle.sessions
                assert sorted(resumed) == sorted(s.session_id for s in sessions)
                for number, session in enumerate(sessions):
                    again = resumed[session.session_id]
                    assert again is not session  # rebuilt from the replay
                    user = again.snapshot()["messages"][0]
                    assert message_text(user) == f"first {number}"
                    text = [{"type": "text", "text": f"second {number}"}]
                    assert await again.run_turn(text) == "end_turn"
                    users = [m for m in again.snapshot()["messages"] if m["role"] == "user"]
                    assert [message_text(m) for m in users] == [
                        f"first {number}",
                        f"second {number}",
                    ]
            finally:
                await remote.close()

    run(scenario())
