"""The generated `Agent` with a durable store (`Agent(session_store=...)`): a new agent on
the same file lists, resumes and replays the sessions of the one before, hands the author's
own data back, and a store that fails is a JSON-RPC error while sessions in memory go on."""

from __future__ import annotations

import asyncio
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "generated"))

import acp_bindings as acp  # noqa: E402
from acp_bindings._runtime.rpc.connection import Connection  # noqa: E402
from acp_bindings._runtime.store.durable import DurableStore  # noqa: E402
from acp_bindings._runtime.store.sqlite_store import SqliteStore  # noqa: E402
from acp_bindings._runtime.wire.errors import RpcError  # noqa: E402

from .streams import run, stream_pair  # noqa: E402

TEXT = "hello"


class CountingAgent(acp.Agent):
    """Each turn counts in the session's own data and says the count."""

    async def on_prompt(self, session: acp.Session, prompt: acp.Prompt) -> str | None:
        count = session.data.get("turns", 0) if isinstance(session.data, dict) else 0
        assert isinstance(count, int)
        await session.save_data({"turns": count + 1})
        if session.title is None:
            await session.set_title(f"about {prompt.text}")
        await session.say(f"turn {count + 1}")
        return None


async def connect(agent: acp.Agent) -> tuple[acp.Client, Connection]:
    """The agent and a client on a pair of streams (the bindings' own Connection on both
    ends: an error the agent raises is the one the client sees)."""
    client = acp.Client()
    (ra, wa), (rb, wb) = await stream_pair()
    agent_end, client_end = Connection(ra, wa), Connection(rb, wb)
    agent_end.dispatcher = agent.dispatcher(agent_end)
    client_end.dispatcher = client.dispatcher(client_end)
    agent_end.start()
    client_end.start()
    await client.lifecycle.initialize()
    return client, agent_end


def said(snapshot: Any) -> list[str]:
    return [
        "".join(block["text"] for block in message["content"])
        for message in snapshot["messages"]
        if message["role"] == "agent"
    ]


def test_a_new_agent_on_the_same_store_resumes_the_session_and_its_data(
    tmp_path: Path,
) -> None:
    path = tmp_path / "sessions.db"

    async def main() -> None:
        first_store = SqliteStore(path)
        client, agent_end = await connect(CountingAgent(session_store=first_store))
        session = await client.lifecycle.new_session(cwd="/work")
        assert await session.run_turn([{"type": "text", "text": TEXT}]) == "end_turn"
        before = session.snapshot()
        await agent_end.close()
        await first_store.close()

        store = SqliteStore(path)  # a new process, as far as the store can tell
        client, _ = await connect(CountingAgent(session_store=store))
        (info,) = (await client.lifecycle.list_sessions(cwd="/work"))["sessions"]
        assert info["sessionId"] == session.session_id and info["title"] == "about hello"
        resumed = await client.lifecycle.resume_session(
            session.session_id, "/work", replayFrom={"type": "start"}
        )
        assert resumed.snapshot()["messages"] == before["messages"]
        assert await resumed.run_turn([{"type": "text", "text": "again"}]) == "end_turn"
        assert said(resumed.snapshot()) == ["turn 1", "turn 2"]  # the data came back
        await store.close()

    run(main())


def test_without_a_store_nothing_is_kept_beyond_the_agent() -> None:
    async def main() -> None:
        agent = CountingAgent()
        assert agent.session_store is None and agent.durable_sessions is None
        client, agent_end = await connect(agent)
        session = await client.lifecycle.new_session(cwd="/work")
        await agent_end.close()
        client, _ = await connect(CountingAgent())
        assert (await client.lifecycle.list_sessions())["sessions"] == []
        with pytest.raises(RpcError) as refused:
            await client.lifecycle.resume_session(session.session_id, "/work")
        assert refused.value.code == -32002

    run(main())


def test_a_locked_store_is_an_error_answer_and_sessions_in_memory_go_on(
    tmp_path: Path,
) -> None:
    path = tmp_path / "sessions.db"

    async def main() -> None:
        store: DurableStore = SqliteStore(path, busy_timeout=0.1)
        client, _ = await connect(CountingAgent(session_store=store))
        session = await client.lifecycle.new_session(cwd="/work")
        blocker = sqlite3.connect(path, isolation_level=None)
        blocker.execute("BEGIN EXCLUSIVE")
        with pytest.raises(RpcError) as refused:
            await client.lifecycle.new_session(cwd="/work")
        assert refused.value.code == -32603
        assert refused.value.message.startswith("Session store unavailable: ")
        assert "database is locked" in refused.value.message
        with pytest.raises(RpcError) as listing:
            await client.lifecycle.list_sessions()
        assert listing.value.code == -32603
        blocker.execute("ROLLBACK")
        blocker.close()
        assert await session.run_turn([{"type": "text", "text": TEXT}]) == "end_turn"
        again = await client.lifecycle.new_session(cwd="/work")  # the store is back
        assert again.session_id != session.session_id
        await store.close()

    run(main())


def test_a_prompt_for_a_session_whose_updates_were_not_written_is_refused(
    tmp_path: Path,
) -> None:
    path = tmp_path / "sessions.db"

    class Quiet(acp.Agent):
        async def on_prompt(self, session: acp.Session, prompt: acp.Prompt) -> str | None:
            await session.say("ok")
            return None

    async def main() -> None:
        store = SqliteStore(path, busy_timeout=0.1)
        client, _ = await connect(Quiet(session_store=store))
        session = await client.lifecycle.new_session(cwd="/work")
        blocker = sqlite3.connect(path, isolation_level=None)
        blocker.execute("BEGIN EXCLUSIVE")
        # served while the store is locked: its end could not be written
        assert await session.run_turn([{"type": "text", "text": TEXT}]) == "end_turn"
        with pytest.raises(RpcError) as refused:
            await session.prompt([{"type": "text", "text": "more"}])
        assert refused.value.code == -32603
        assert refused.value.data == {
            "sessionStore": refused.value.message.removeprefix("Session store unavailable: "),
            "sessionId": session.session_id,
        }
        blocker.execute("ROLLBACK")
        blocker.close()
        while True:  # each refusal tries the write again; served once it succeeds
            try:
                assert await session.run_turn([{"type": "text", "text": "more"}]) == "end_turn"
                break
            except RpcError as error:
                assert error.code == -32603
        record = await store.load(session.session_id)
        assert record is not None
        assert [u["sessionUpdate"] for u in record.history].count("user_message") == 2
        await store.close()

    run(main())


def test_a_session_taken_over_by_another_process_is_read_back_when_resumed(
    tmp_path: Path,
) -> None:
    """Two agents on one file (as two processes sharing it): B resumes A's session and runs a
    turn; resumed on A again, the session is read back from the store, both turns once."""
    path = tmp_path / "sessions.db"

    async def main() -> None:
        store_a, store_b = SqliteStore(path), SqliteStore(path)
        client_a, _ = await connect(CountingAgent(session_store=store_a))
        session = await client_a.lifecycle.new_session(cwd="/work")
        await session.run_turn([{"type": "text", "text": TEXT}])

        client_b, _ = await connect(CountingAgent(session_store=store_b))
        on_b = await client_b.lifecycle.resume_session(
            session.session_id, "/work", replayFrom={"type": "start"}
        )
        await on_b.run_turn([{"type": "text", "text": "on b"}])
        assert said(on_b.snapshot()) == ["turn 1", "turn 2"]

        back = await client_a.lifecycle.resume_session(
            session.session_id, "/work", replayFrom={"type": "start"}
        )
        assert back.snapshot()["messages"] == on_b.snapshot()["messages"]
        await back.run_turn([{"type": "text", "text": "on a again"}])
        assert said(back.snapshot()) == ["turn 1", "turn 2", "turn 3"]
        record = await store_a.load(session.session_id)
        assert record is not None
        kinds = [update["sessionUpdate"] for update in record.history]
        assert kinds.count("user_message") == 3
        await store_a.close()
        await store_b.close()

    run(main())


def test_what_the_new_session_hook_sends_is_stored_and_a_failed_hook_leaves_nothing(
    tmp_path: Path,
) -> None:
    path = tmp_path / "sessions.db"

    class Naming(CountingAgent):
        async def on_new_session(self, session: acp.Session) -> dict[str, Any] | None:
            if session.setup.get("cwd") == "/refused":
                raise RuntimeError("the hook failed")
            await session.set_title("named at birth")
            return None

    async def main() -> None:
        store = SqliteStore(path)
        client, agent_end = await connect(Naming(session_store=store))
        session = await client.lifecycle.new_session(cwd="/work")
        with pytest.raises(RpcError):
            await client.lifecycle.new_session(cwd="/refused")
        await agent_end.close()  # the connection's end writes what is buffered
        record = await store.load(session.session_id)
        assert record is not None and record.title == "named at birth"
        assert [u["sessionUpdate"] for u in record.history] == ["session_info_update"]
        assert [r.cwd for r in await store.list()] == ["/work"]  # not the refused one
        await store.close()

    run(main())


def test_a_session_written_elsewhere_after_its_lease_ran_out_is_read_back(
    tmp_path: Path,
) -> None:
    """A's lease ran out, B took the session, wrote a turn and its lease ran out too: A may
    claim the session again, but its copy in memory is behind: it is read back."""
    path = tmp_path / "sessions.db"
    now = [time.time()]

    def store() -> SqliteStore:
        return SqliteStore(path, lease_seconds=60.0, clock=lambda: now[0])

    async def main() -> None:
        store_a, store_b = store(), store()
        client_a, _ = await connect(CountingAgent(session_store=store_a))
        session = await client_a.lifecycle.new_session(cwd="/work")
        await session.run_turn([{"type": "text", "text": TEXT}])
        now[0] += 61  # A's lease is out
        client_b, _ = await connect(CountingAgent(session_store=store_b))
        on_b = await client_b.lifecycle.resume_session(session.session_id, "/work")
        await on_b.run_turn([{"type": "text", "text": "on b"}])
        now[0] += 61  # and B's
        back = await client_a.lifecycle.resume_session(
            session.session_id, "/work", replayFrom={"type": "start"}
        )
        assert said(back.snapshot()) == ["turn 1", "turn 2"]
        await store_a.close()
        await store_b.close()

    run(main())


def test_the_process_a_session_was_taken_from_stops_it_and_tells_its_client(
    tmp_path: Path,
) -> None:
    """Two agents on one file: B resumes A's session. A finds out at its next write (the turn
    its client runs there is not kept), closes the session and tells its client, which marks it
    taken over and refuses its prompts until it resumes the session again."""
    path = tmp_path / "sessions.db"

    async def main() -> None:
        store_a, store_b = SqliteStore(path), SqliteStore(path)
        client_a, _ = await connect(CountingAgent(session_store=store_a))
        session = await client_a.lifecycle.new_session(cwd="/work")
        await session.run_turn([{"type": "text", "text": TEXT}])
        taken = asyncio.Event()
        told = session.was_taken_over

        def noted() -> None:
            told()
            taken.set()

        session.was_taken_over = noted  # type: ignore[method-assign]
        client_b, _ = await connect(CountingAgent(session_store=store_b))
        on_b = await client_b.lifecycle.resume_session(
            session.session_id, "/work", replayFrom={"type": "start"}
        )
        await on_b.run_turn([{"type": "text", "text": "on b"}])

        await session.run_turn([{"type": "text", "text": "on a, not kept"}])
        await taken.wait()  # the notice came: no sleep, the agent said it
        with pytest.raises(acp.ProtocolUsageError, match="took over"):
            await session.run_turn([{"type": "text", "text": "refused"}])
        record = await store_b.load(session.session_id)
        assert record is not None
        kinds = [update["sessionUpdate"] for update in record.history]
        assert kinds.count("user_message") == 2  # A's last turn was not kept
        await store_a.close()
        await store_b.close()

    run(main())
