"""An agent keeps the leases of the sessions it serves alive while they are idle, gives them up
when no connection serves them, and tells its client when a renewal finds another process
took one (as a write that finds it does), on SQLite and PostgreSQL (tests/store/conftest.py),
each store with a short lease on a clock the test moves. The renewal is driven by calling its
step (`DurableSessions.renew`) or, for the keeper itself, by waiting for the store to be asked."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "generated"))

import acp_bindings as acp  # noqa: E402
from acp_bindings._runtime.agent.durable_sessions import DurableSessions  # noqa: E402
from acp_bindings._runtime.rpc.connection import Connection  # noqa: E402
from acp_bindings._runtime.store.durable import DurableStore  # noqa: E402
from acp_bindings._runtime.store.postgres_store import PostgresStore  # noqa: E402
from acp_bindings._runtime.store.sqlite_store import SqliteStore  # noqa: E402

from tests.runtime.streams import stream_pair  # noqa: E402

HANG_GUARD = 60.0  # only turns a hang into a failure
LEASE = 30.0
T = TypeVar("T")
Clock = list[float]


def run(main: Callable[[], Awaitable[T]]) -> T:
    async def guarded() -> T:
        return await asyncio.wait_for(main(), HANG_GUARD)

    return asyncio.run(guarded())


class SayingAgent(acp.Agent):
    async def on_prompt(self, session: acp.Session, prompt: acp.Prompt) -> str | None:
        await session.say(f"said {prompt.text}")
        return None


def opener(database_url: str, now: Clock) -> Callable[[], DurableStore]:
    """A new store on the test's database, as one more process sees it."""

    def open_store() -> DurableStore:
        if database_url.startswith("sqlite:///"):
            path = database_url.removeprefix("sqlite:///")
            return SqliteStore(path, lease_seconds=LEASE, clock=lambda: now[0])
        return PostgresStore(database_url, lease_seconds=LEASE, clock=lambda: now[0])

    return open_store


async def connect(agent: acp.Agent) -> tuple[acp.Client, Connection, Connection]:
    client = acp.Client()
    (ra, wa), (rb, wb) = await stream_pair()
    agent_end, client_end = Connection(ra, wa), Connection(rb, wb)
    agent_end.dispatcher = agent.dispatcher(agent_end)
    client_end.dispatcher = client.dispatcher(client_end)
    agent_end.start()
    client_end.start()
    await client.lifecycle.initialize()
    return client, agent_end, client_end


def durable(agent: acp.Agent) -> DurableSessions:
    sessions = agent.durable_sessions
    assert sessions is not None
    return sessions


def told_taken_over(session: Any) -> asyncio.Event:
    """Set once the client marks `session` taken over (the agent's notice came)."""
    taken = asyncio.Event()
    told = session.was_taken_over

    def noted() -> None:
        told()
        taken.set()

    session.was_taken_over = noted
    return taken


def test_an_idle_served_session_keeps_its_lease(database_url: str) -> None:
    now = [1000.0]
    open_store = opener(database_url, now)

    async def main() -> None:
        agent = SayingAgent(session_store=open_store())
        client, _, _ = await connect(agent)
        session = await client.lifecycle.new_session(cwd="/work")
        await session.run_turn([{"type": "text", "text": "one"}])  # held until now + 30
        other = open_store()
        now[0] += 20
        await durable(agent).renew()  # the keeper's step: held until now + 30 again
        now[0] += 20  # 40 s since the last write: idle, still served
        assert await other.claim(session.session_id, "process-b") is None
        await session.run_turn([{"type": "text", "text": "two"}])  # still A's to write
        assert agent.session_store is not None
        await agent.session_store.close()
        await other.close()

    run(main)


def test_the_keeper_renews_by_itself_until_nothing_is_held(database_url: str) -> None:
    """The task renews every `renew_every` seconds while a session is held (waited for by what
    it asks the store, not by time) and ends when the agent's sessions are released."""
    now = [1000.0]
    open_store = opener(database_url, now)

    async def main() -> None:
        store = open_store()
        agent = SayingAgent(session_store=store)
        keeper = durable(agent)
        keeper.renew_every = 0.001  # renewals as often as the loop lets them
        asked = asyncio.Event()
        renew = store.renew

        async def counted(owner: str, session_ids: Any) -> set[str]:
            moved = now[0] > 1000.0  # asked after the clock moved: the lease runs from there
            kept = await renew(owner, session_ids)
            if moved:
                asked.set()
            return kept

        store.renew = counted  # type: ignore[method-assign]
        client, _, _ = await connect(agent)
        session = await client.lifecycle.new_session(cwd="/work")
        now[0] += 20
        await asked.wait()
        now[0] += 20  # past the lease the creation gave: only the keeper's renewal holds it
        other = open_store()
        assert await other.claim(session.session_id, "process-b") is None
        await keeper.close()  # the agent is done: leases given up, the keeper ended
        assert all(task.done() for task in keeper.tasks.running)
        assert await other.claim(session.session_id, "process-b") == 0  # free, nothing written
        await store.close()
        await other.close()

    run(main)


def test_a_renewal_that_finds_the_session_taken_tells_the_client(database_url: str) -> None:
    """B resumes A's idle session: A's next renewal (not a write: no turn runs) finds it gone,
    closes it and tells its client, which refuses its prompts until it resumes it again."""
    now = [1000.0]
    open_store = opener(database_url, now)

    async def main() -> None:
        agent_a = SayingAgent(session_store=open_store())
        client_a, _, _ = await connect(agent_a)
        session = await client_a.lifecycle.new_session(cwd="/work")
        await session.run_turn([{"type": "text", "text": "on a"}])
        taken = told_taken_over(session)
        agent_b = SayingAgent(session_store=open_store())
        client_b, _, _ = await connect(agent_b)
        await client_b.lifecycle.resume_session(session.session_id, "/work")
        await durable(agent_a).renew()
        await taken.wait()  # the notice came: no turn on A was needed
        with pytest.raises(acp.ProtocolUsageError, match="took over"):
            await session.run_turn([{"type": "text", "text": "refused"}])
        for agent in (agent_a, agent_b):
            assert agent.session_store is not None
            await agent.session_store.close()

    run(main)


def test_a_closed_session_and_one_whose_connection_ended_give_their_lease_up(
    database_url: str,
) -> None:
    """Another process claims them without a takeover, long before the lease would run out."""
    now = [1000.0]
    open_store = opener(database_url, now)

    async def main() -> None:
        agent = SayingAgent(session_store=open_store())
        client, agent_end, client_end = await connect(agent)
        closed = await client.lifecycle.new_session(cwd="/work")
        ended = await client.lifecycle.new_session(cwd="/work")
        await ended.run_turn([{"type": "text", "text": "kept"}])
        other = open_store()
        assert await other.claim(closed.session_id, "process-b") is None  # served: held
        await client_end.request("session/close", {"sessionId": closed.session_id})
        assert await other.claim(closed.session_id, "process-b") == 0
        assert await other.claim(ended.session_id, "process-b") is None
        await client_end.close()
        await agent_end.close()  # the agent side's end: its sessions' leases given up
        assert await other.claim(ended.session_id, "process-b") is not None
        record = await other.load(ended.session_id)
        assert record is not None and len(record.history) > 0  # written before it was let go
        assert agent.session_store is not None
        await agent.session_store.close()
        await other.close()

    run(main)
