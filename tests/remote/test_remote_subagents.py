"""`Client.reconnect` with a child session (a subagent) held: the parent is resumed, the child
is not (a request naming a child is refused), and the parent's replay brings the child back
with its transcript (over Streamable HTTP, where the child's updates follow the parent's
announcement on the parent's session stream, and over WebSocket)."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from tests.remote.agents import REPO, AllowingClient, message_text, run, served

sys.path.insert(0, str(REPO / "generated"))  # as tests.remote.agents does: the same copy

import acp_bindings as acp


class Delegating(acp.Agent):
    """Each turn hands the question to a child session and says it is done."""

    async def on_prompt(self, session: acp.Session, prompt: acp.Prompt) -> str | None:
        helper = await session.announce_subagent(title="Helper")
        await helper.send_message("count the files")
        await helper.session.say("two files")
        await session.say("done")
        return None


def _transcript(snapshot: Any) -> list[tuple[str, str]]:
    return [(m["role"], message_text(m)) for m in snapshot["messages"]]


@pytest.mark.parametrize("scheme", ["http", "ws"])
def test_a_reconnect_resumes_the_parent_and_its_replay_brings_the_child_back(scheme: str) -> None:
    async def scenario() -> None:
        async with served(agent=Delegating()) as agent:
            url = agent.url if scheme == "http" else agent.ws_url
            client = AllowingClient()
            remote = await client.connect(url)
            await client.lifecycle.initialize()
            parent = await client.lifecycle.new_session(cwd=str(REPO))
            assert await parent.run_turn([{"type": "text", "text": "go"}]) == "end_turn"
            (child_id,) = parent.snapshot()["subagents"]
            before = _transcript(client.lifecycle.sessions[child_id].snapshot())
            assert before == [("session", "count the files"), ("agent", "two files")]
            for link in list(agent.server.links.values()):
                link.close_soon("dropped by the test")
            await remote.connection.wait_closed()

            remote = await client.reconnect(remote)
            try:
                sessions = client.lifecycle.sessions
                assert sorted(sessions) == sorted([parent.session_id, child_id])
                child = sessions[child_id]
                assert child.parent_id == parent.session_id
                assert _transcript(child.snapshot()) == before
            finally:
                await remote.close()

    run(scenario())
