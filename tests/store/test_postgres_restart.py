"""Sessions that survive the agent on PostgreSQL: the example agent as a subprocess with
`--session-store postgresql://...` (the throwaway server, tests/pg_server.py), killed with
SIGKILL after a turn (and in the middle of one) and started again on the same database:
`session/list` names the session and `session/resume` with `replayFrom` replays its history
once; the turn cut off ends idle `cancelled`. A database that goes down mid-life is a -32603
for what needs it while the sessions in memory are served, and nothing is lost once it is back."""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.pg_server import PgServer, running_server

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "generated"))

import acp_bindings as acp  # noqa: E402

pytestmark = pytest.mark.slow

AGENT = [sys.executable, str(REPO / "examples" / "demo_agent.py")]
HANG_GUARD = 120.0  # only turns a hang into a failure


class Allowing(acp.Client):
    """Allows every tool call, or (`hold`) never answers, so a turn stays in the middle."""

    def __init__(self, hold: bool = False) -> None:
        self.hold = hold
        self.asked = asyncio.Event()

    async def on_permission(
        self, session: acp.ClientSession, request: acp.PermissionRequest
    ) -> Mapping[str, Any]:
        self.asked.set()
        if self.hold:
            await asyncio.Future()
        return {"outcome": "selected", "optionId": "allow"}


async def stored_state(url: str) -> Any:
    """The state the store last holds for the one session (read beside the agent)."""
    async with await psycopg.AsyncConnection.connect(url) as db:
        cursor = await db.execute("SELECT last_state FROM acp_sessions")
        row = await cursor.fetchone()
    return None if row is None or row[0] is None else json.loads(row[0])


async def start(client: Allowing, url: str) -> Any:
    process = await client.spawn(
        [*AGENT, "--session-store", url], stderr=asyncio.subprocess.DEVNULL
    )
    await client.lifecycle.initialize()
    return process


async def kill(process: Any) -> None:
    process.process.send_signal(signal.SIGKILL)
    assert await process.process.wait() == -signal.SIGKILL
    await process.close()


def test_a_session_on_postgresql_survives_sigkill_and_replays_once(
    pg_server: PgServer, tmp_path: Path
) -> None:
    url = pg_server.fresh_database()

    async def main() -> None:
        first = Allowing()
        process = await start(first, url)
        session = await first.lifecycle.new_session(cwd=str(tmp_path))
        assert await session.run_turn([{"type": "text", "text": "keep this"}]) == "end_turn"
        before = session.snapshot()
        await kill(process)  # the turn's end was written before the client saw it

        again = Allowing()
        process = await start(again, url.replace("postgresql://", "postgres://", 1))
        listed = await again.lifecycle.list_sessions()
        assert [s["sessionId"] for s in listed["sessions"]] == [session.session_id]
        assert listed["sessions"][0]["cwd"] == str(tmp_path)
        resumed = await again.lifecycle.resume_session(
            session.session_id, str(tmp_path), replayFrom={"type": "start"}
        )
        after = resumed.snapshot()
        assert after["messages"] == before["messages"]
        ids = [message["messageId"] for message in after["messages"]]
        assert len(ids) == len(set(ids)) == 3  # each message once
        assert after["toolCalls"] == before["toolCalls"]
        assert after["state"] == "idle" and after["stopReason"] == "end_turn"
        assert await resumed.run_turn([{"type": "text", "text": "and this"}]) == "end_turn"
        await kill(process)

        third = Allowing()
        process = await start(third, url)
        resumed = await third.lifecycle.resume_session(
            session.session_id, str(tmp_path), replayFrom={"type": "start"}
        )
        users = [
            "".join(str(block.get("text", "")) for block in message["content"])
            for message in resumed.snapshot()["messages"]
            if message["role"] == "user"
        ]
        assert users == ["keep this", "and this"]
        await process.close()

    asyncio.run(asyncio.wait_for(main(), HANG_GUARD))


def test_a_turn_cut_off_by_sigkill_resumes_cancelled_with_each_update_once(
    pg_server: PgServer, tmp_path: Path
) -> None:
    url = pg_server.fresh_database()

    async def main() -> None:
        first = Allowing(hold=True)
        process = await start(first, url)
        session = await first.lifecycle.new_session(cwd=str(tmp_path))
        turn = asyncio.ensure_future(session.run_turn([{"type": "text", "text": "cut off"}]))
        await first.asked.wait()  # mid-turn: asking for permission, never answered
        while ((await stored_state(url)) or {}).get("state") in (None, "idle"):
            await asyncio.sleep(0.05)  # until the store holds the turn's start (bounded above)
        await kill(process)
        turn.cancel()

        again = Allowing()
        process = await start(again, url)
        resumed = await again.lifecycle.resume_session(
            session.session_id, str(tmp_path), replayFrom={"type": "start"}
        )
        after = resumed.snapshot()
        assert after["state"] == "idle" and after["stopReason"] == "cancelled"
        ids = [message["messageId"] for message in after["messages"]]
        assert ids and len(ids) == len(set(ids))  # nothing replayed twice
        assert after["messages"][0]["role"] == "user"
        assert await resumed.run_turn([{"type": "text", "text": "again"}]) == "end_turn"
        await process.close()

    asyncio.run(asyncio.wait_for(main(), HANG_GUARD))


def test_a_prompt_holding_a_lone_surrogate_is_served_and_kept(
    pg_server: PgServer, tmp_path: Path
) -> None:
    url = pg_server.fresh_database()
    text = "half \ud800 a pair"

    async def main() -> None:
        first = Allowing()
        process = await start(first, url)
        session = await first.lifecycle.new_session(cwd=str(tmp_path))
        assert await session.run_turn([{"type": "text", "text": text}]) == "end_turn"
        await kill(process)
        again = Allowing()
        process = await start(again, url)
        resumed = await again.lifecycle.resume_session(
            session.session_id, str(tmp_path), replayFrom={"type": "start"}
        )
        users = [
            "".join(str(block.get("text", "")) for block in message["content"])
            for message in resumed.snapshot()["messages"]
            if message["role"] == "user"
        ]
        assert users == [text]  # the history is JSON: exact
        await process.close()

    asyncio.run(asyncio.wait_for(main(), HANG_GUARD))


def test_a_postgresql_store_that_is_not_there_is_a_usage_error(tmp_path: Path) -> None:
    async def main() -> tuple[int, bytes]:
        process = await asyncio.create_subprocess_exec(
            *AGENT,
            "--session-store",
            f"postgresql://acp@/sessions?host={tmp_path}",
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        _, err = await process.communicate()
        return process.returncode or 0, err

    code, err = asyncio.run(asyncio.wait_for(main(), HANG_GUARD))
    assert code == 2
    assert b"--session-store: session store postgresql database sessions on" in err
    assert b"Traceback" not in err


def test_a_database_that_goes_down_is_a_clear_error_and_the_agent_recovers(
    tmp_path: Path,
) -> None:
    from acp_bindings import RpcError

    with running_server() as server:
        url = server.fresh_database()

        async def main() -> None:
            client = Allowing()
            process = await start(client, url)
            session = await client.lifecycle.new_session(cwd=str(tmp_path))
            assert await session.run_turn([{"type": "text", "text": "one"}]) == "end_turn"
            server.stop()
            with pytest.raises(RpcError) as refused:  # within the store's bounded wait
                await client.lifecycle.new_session(cwd=str(tmp_path))
            assert refused.value.code == -32603
            assert "Session store unavailable" in str(refused.value)
            # The session in memory is served; its turn could not be written, so the next
            # prompt is refused (and a write tried again) until the database is back.
            assert await session.run_turn([{"type": "text", "text": "two"}]) == "end_turn"
            with pytest.raises(RpcError) as unwritten:
                await session.run_turn([{"type": "text", "text": "refused"}])
            assert unwritten.value.code == -32603
            server.start()
            while True:  # the retried write lands on the server started again (bounded above)
                try:
                    stop = await session.run_turn([{"type": "text", "text": "three"}])
                    break
                except RpcError as error:
                    assert error.code == -32603
                    await asyncio.sleep(0.05)
            assert stop == "end_turn"
            await kill(process)

            again = Allowing()
            process = await start(again, url)
            resumed = await again.lifecycle.resume_session(
                session.session_id, str(tmp_path), replayFrom={"type": "start"}
            )
            said = [
                "".join(str(block.get("text", "")) for block in message["content"])
                for message in resumed.snapshot()["messages"]
                if message["role"] == "user"
            ]
            assert said == ["one", "two", "three"]  # the turn served in the outage, kept
            await process.close()

        asyncio.run(asyncio.wait_for(main(), HANG_GUARD))
