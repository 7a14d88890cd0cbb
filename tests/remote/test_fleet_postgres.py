"""A fleet: two example agent processes behind HAProxy (proxy.py; round robin, the cookie pins
a connection only, never a session) sharing one PostgreSQL database (tests/pg_server.py).

A session made on one process is resumed, with its whole history, by a connection that the
proxy sent to the other; that takes the session over (the lease in the store), so the process
that served it before writes nothing more of it: its next turn is not kept, the session is
closed there and its client told. The process now holding the session is killed
mid-session; the client connects again, lands on the survivor, and resumes the session with
the history both processes kept for it, each message once, and goes on."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.pg_server import PgServer
from tests.remote.agents import AllowingClient, run
from tests.remote.proxy import AFFINITY_COOKIE, DEMO, Backend, Cluster, behind_haproxy

TOKEN = "fleet-token-3"
HEADERS = {"Authorization": f"Bearer {TOKEN}"}
START: Any = {"type": "start"}


def text(words: str) -> list[Any]:
    return [{"type": "text", "text": words}]


def said(session: Any) -> list[str]:
    """What the user said in the session, in order, from its snapshot."""
    return [
        "".join(str(block.get("text", "")) for block in message["content"])
        for message in session.snapshot()["messages"]
        if message["role"] == "user"
    ]


def each_once(session: Any) -> bool:
    ids = [message["messageId"] for message in session.snapshot()["messages"]]
    return len(ids) == len(set(ids))


async def connected(cluster: Cluster) -> tuple[AllowingClient, Any]:
    client = AllowingClient()
    remote = await client.connect(cluster.url, headers=HEADERS)
    await client.lifecycle.initialize()
    return client, remote


async def scenario(cluster: Cluster) -> None:
    from acp_bindings import ProtocolUsageError

    first, first_remote = await connected(cluster)
    session = await first.lifecycle.new_session(cwd="/tmp")
    assert await session.run_turn(text("one")) == "end_turn"
    home = first_remote.cookies[AFFINITY_COOKIE]

    # Another connection: round robin puts it on the other process, which takes the session
    # over from the store with everything the first process kept.
    second, second_remote = await connected(cluster)
    away = second_remote.cookies[AFFINITY_COOKIE]
    assert {home, away} == {"a", "b"}
    moved = await second.lifecycle.resume_session(session.session_id, "/tmp", replayFrom=START)
    assert said(moved) == ["one"] and each_once(moved)
    assert moved.snapshot()["messages"] == session.snapshot()["messages"]
    assert await moved.run_turn(text("two")) == "end_turn"

    # The first process no longer holds the session: at its next write it finds that out, so
    # what that turn said is not kept; it stops the session there and tells its client, as a
    # connection's takeover does, and that client refuses the session's prompts from then on.
    taken = asyncio.Event()
    told = session.was_taken_over

    def noted() -> None:
        told()
        taken.set()

    session.was_taken_over = noted
    await session.run_turn(text("not kept"))
    await taken.wait()
    with pytest.raises(ProtocolUsageError, match="took over"):
        await session.run_turn(text("refused"))
    await first_remote.close()  # its client gives up (a session attached elsewhere is not listed)

    # The process holding it now dies mid-session; its client comes back through the proxy,
    # lands on the survivor and resumes with the history both processes kept.
    victim = cluster.backends[away]
    victim.kill()
    victim.wait()
    await second_remote.connection.wait_closed()
    await second_remote.close()

    third, third_remote = await connected(cluster)
    try:
        assert third_remote.cookies[AFFINITY_COOKIE] == home  # the survivor
        listed = await third.lifecycle.list_sessions()
        assert session.session_id in [info["sessionId"] for info in listed["sessions"]]
        back = await third.lifecycle.resume_session(session.session_id, "/tmp", replayFrom=START)
        assert said(back) == ["one", "two"] and each_once(back)
        assert back.snapshot()["state"] == "idle"
        assert await back.run_turn(text("three")) == "end_turn"
        assert said(back) == ["one", "two", "three"]
    finally:
        await third_remote.close()


def test_a_fleet_on_postgresql_moves_a_session_between_processes(pg_server: PgServer) -> None:
    url = pg_server.fresh_database()

    def backend(public: str) -> Backend:
        return Backend([*DEMO, "--http", "127.0.0.1:0", "--public", public, "--session-store", url])

    with behind_haproxy(TOKEN, backend) as cluster:
        run(scenario(cluster))
