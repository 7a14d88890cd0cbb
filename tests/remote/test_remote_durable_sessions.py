"""The example agent served over HTTP and WebSocket with a durable store: a session opened
through one server is listed and replayed by a new server (a new agent object, a new store
object) on the same file, and every connection of one server shares the store."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .agents import AllowingClient, demo_agent_class, run, served


def storing_agent(path: Path) -> Any:
    # the bindings agents.py puts on the path (the server's own copy)
    from acp_bindings._runtime.store.sqlite_store import SqliteStore

    return demo_agent_class()(session_store=SqliteStore(path))


@pytest.mark.parametrize("scheme", ["http", "ws"])
def test_a_new_server_on_the_same_store_resumes_the_session(tmp_path: Path, scheme: str) -> None:
    path = tmp_path / "sessions.db"

    async def main() -> None:
        async with served(agent=storing_agent(path)) as agent:
            client = AllowingClient()
            remote = await client.connect(agent.url if scheme == "http" else agent.ws_url)
            await client.lifecycle.initialize()
            session = await client.lifecycle.new_session(cwd=str(tmp_path))
            assert await session.run_turn([{"type": "text", "text": "remember"}]) == "end_turn"
            before = session.snapshot()["messages"]
            await remote.close()

        async with served(agent=storing_agent(path)) as agent:  # the agent "restarted"
            client = AllowingClient()
            remote = await client.connect(agent.url if scheme == "http" else agent.ws_url)
            await client.lifecycle.initialize()
            listed = await client.lifecycle.list_sessions()
            assert [s["sessionId"] for s in listed["sessions"]] == [session.session_id]
            resumed = await client.lifecycle.resume_session(
                session.session_id, str(tmp_path), replayFrom={"type": "start"}
            )
            assert resumed.snapshot()["messages"] == before
            await remote.close()

    run(main())


def test_the_connections_of_one_server_share_one_store(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"

    async def main() -> None:
        agent_object = storing_agent(path)
        async with served(agent=agent_object) as agent:
            first, second = AllowingClient(), AllowingClient()
            one = await first.connect(agent.url)
            two = await second.connect(agent.ws_url)
            await first.lifecycle.initialize()
            await second.lifecycle.initialize()
            a = await first.lifecycle.new_session(cwd=str(tmp_path))
            b = await second.lifecycle.new_session(cwd=str(tmp_path))
            stores = {agent_object.durable_sessions}
            assert len(stores) == 1 and None not in stores
            records = await agent_object.session_store.list()
            assert sorted(r.session_id for r in records) == sorted([a.session_id, b.session_id])
            await one.close()
            await two.close()

    run(main())
