"""Sessions that survive the agent: the example agent as a subprocess with
`--session-store sqlite:///...`, killed with SIGKILL after a turn and in the middle of one,
then started again on the same file. `session/list` names the session, `session/resume`
(v2, `replayFrom`, ending with `replay_complete`) and `session/load` (v1) replay its history
once, a prompt retried with its idempotency key gets the first messageId and inserts nothing,
and the turn cut off ends idle `cancelled`."""

from __future__ import annotations

import asyncio
import json
import signal
import sqlite3
import sys
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "generated"))

import acp_bindings as acp  # noqa: E402

pytestmark = pytest.mark.slow

AGENT = [sys.executable, str(REPO / "examples" / "demo_agent.py")]
HANG_GUARD = 120.0  # only turns a hang into a failure; never a statement about speed
T = TypeVar("T")


def run(main: Callable[[], Awaitable[T]]) -> T:
    async def guarded() -> T:
        return await asyncio.wait_for(main(), HANG_GUARD)

    return asyncio.run(guarded())


class ScriptedClient(acp.Client):
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


class V1Client(ScriptedClient):
    protocol_versions = (1,)


def store_args(path: Path) -> list[str]:
    return ["--session-store", f"sqlite:///{path}"]


async def start(client: ScriptedClient, store: Path) -> Any:
    process = await client.spawn([*AGENT, *store_args(store)], stderr=asyncio.subprocess.DEVNULL)
    await client.lifecycle.initialize()
    return process


async def kill(process: Any) -> None:
    process.process.send_signal(signal.SIGKILL)
    assert await process.process.wait() == -signal.SIGKILL
    await process.close()


def stored_state(store: Path) -> Any:
    """The last state report the store holds for the one session (read beside the agent)."""
    with sqlite3.connect(store, timeout=30) as db:
        row = db.execute("SELECT last_state FROM sessions").fetchone()
    return None if row is None or row[0] is None else json.loads(row[0])


def message_ids(snapshot: Mapping[str, Any]) -> list[str]:
    return [message["messageId"] for message in snapshot["messages"]]


def test_a_session_survives_sigkill_after_a_turn_and_replays_once(tmp_path: Path) -> None:
    store = tmp_path / "sessions.db"

    async def main() -> None:
        first = ScriptedClient()
        process = await start(first, store)
        session = await first.lifecycle.new_session(cwd=str(tmp_path))
        keep = [{"type": "text", "text": "keep this"}]
        assert await session.run_turn(keep, idempotency_key="k-1") == "end_turn"
        before = session.snapshot()
        (first_id,) = [m["messageId"] for m in before["messages"] if m["role"] == "user"]
        await kill(process)  # the idle report was written before it was sent

        again = ScriptedClient()
        process = await start(again, store)
        listed = await again.lifecycle.list_sessions()
        assert [s["sessionId"] for s in listed["sessions"]] == [session.session_id]
        assert listed["sessions"][0]["cwd"] == str(tmp_path)
        resumed = await again.lifecycle.resume_session(
            session.session_id, str(tmp_path), replayFrom={"type": "start"}
        )
        assert resumed.replay == "complete"  # the replay ended with replay_complete
        after = resumed.snapshot()
        assert after["messages"] == before["messages"]
        assert len(set(message_ids(after))) == len(message_ids(after)) == 3
        assert after["toolCalls"] == before["toolCalls"]
        assert after["state"] == "idle" and after["stopReason"] == "end_turn"
        # a retry of the first prompt (its key was stored with it) runs and inserts nothing
        assert await resumed.prompt(keep, idempotency_key="k-1") == first_id
        assert resumed.snapshot()["messages"] == before["messages"]
        # the restored session goes on: a second turn, appended after the first
        stop = await resumed.run_turn([{"type": "text", "text": "and this"}])
        assert stop == "end_turn"
        await kill(process)

        third = V1Client()  # v1's session/load replays the same history, once
        process = await start(third, store)
        loaded = await third.lifecycle.load_session(session.session_id, str(tmp_path))
        texts = [
            "".join(str(block.get("text", "")) for block in message["content"])
            for message in loaded.snapshot()["messages"]
            if message["role"] == "user"
        ]
        assert texts == ["keep this", "and this"]
        assert await process.close() == 0  # the store lets the process end cleanly

    run(main)


def test_a_turn_cut_off_by_sigkill_resumes_cancelled_with_what_was_written(
    tmp_path: Path,
) -> None:
    store = tmp_path / "sessions.db"

    async def main() -> None:
        first = ScriptedClient(hold=True)
        process = await start(first, store)
        session = await first.lifecycle.new_session(cwd=str(tmp_path))
        turn = asyncio.ensure_future(session.run_turn([{"type": "text", "text": "cut off"}]))
        await first.asked.wait()  # mid-turn: asking for permission, never answered
        while (stored_state(store) or {}).get("state") in (None, "idle"):
            await asyncio.sleep(0.05)  # until the store holds the turn's start (bounded above)
        await kill(process)
        turn.cancel()

        again = ScriptedClient()
        process = await start(again, store)
        listed = await again.lifecycle.list_sessions(cwd=str(tmp_path))
        assert [s["sessionId"] for s in listed["sessions"]] == [session.session_id]
        resumed = await again.lifecycle.resume_session(
            session.session_id, str(tmp_path), replayFrom={"type": "start"}
        )
        after = resumed.snapshot()
        assert after["state"] == "idle" and after["stopReason"] == "cancelled"
        ids = message_ids(after)
        assert len(ids) == len(set(ids))  # nothing replayed twice
        assert [m["role"] for m in after["messages"]][:1] == ["user"]
        # a resume again replays the same once more, not twice as much
        await again.lifecycle.resume_session(
            session.session_id, str(tmp_path), replayFrom={"type": "start"}
        )
        assert message_ids(resumed.snapshot()) == ids
        assert await process.close() == 0

    run(main)


@pytest.mark.parametrize(
    "command",
    [AGENT, [sys.executable, "-m", "acp_codegen", "demo-agent"]],
    ids=["examples/demo_agent.py", "acp-codegen demo-agent"],
)
def test_a_bad_store_url_is_a_usage_error(command: list[str], tmp_path: Path) -> None:
    async def main() -> tuple[int, bytes]:
        process = await asyncio.create_subprocess_exec(
            *command,
            "--session-store",
            f"mysql://{tmp_path}/x",
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        _, err = await process.communicate()
        return process.returncode or 0, err

    code, err = run(main)
    assert code == 2
    assert b"--session-store: session store scheme 'mysql' is not supported" in err
    assert b"sqlite:///PATH" in err and b"Traceback" not in err


def test_a_prompt_holding_a_lone_surrogate_is_served_and_kept(tmp_path: Path) -> None:
    """Any JSON string, one UTF-8 cannot carry included: the turn ends (the store's write does
    not die on it) and the replay after a restart gives the prompt back exact."""
    store = tmp_path / "sessions.db"
    text = "half \ud800 a pair"

    async def main() -> None:
        first = ScriptedClient()
        process = await start(first, store)
        session = await first.lifecycle.new_session(cwd=str(tmp_path))
        prompt = [{"type": "text", "text": text}]
        assert await session.run_turn(prompt, idempotency_key="k-odd") == "end_turn"
        await kill(process)
        again = ScriptedClient()
        process = await start(again, store)
        resumed = await again.lifecycle.resume_session(
            session.session_id, str(tmp_path), replayFrom={"type": "start"}
        )
        users = [
            "".join(str(block.get("text", "")) for block in message["content"])
            for message in resumed.snapshot()["messages"]
            if message["role"] == "user"
        ]
        assert users == [text]  # the history is JSON: exact
        assert await process.close() == 0

    run(main)
