"""End to end over stdio with the generated package on both sides: an agent announces a child
session (a subagent), messages it and speaks as it; the client's snapshots hold the child, the
messages between the two sessions and the removed plan's absence."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "generated"))

import acp_bindings as acp  # noqa: E402
import pytest  # noqa: E402

pytestmark = pytest.mark.slow  # an agent process per test

AGENT = [sys.executable, str(REPO / "tests" / "chat" / "subagent_agent.py")]
HANG_GUARD = 120.0  # only turns a hang into a failure; never a statement about speed


def _texts(message: Any) -> str:
    return "".join(block.get("text", "") for block in message["content"])


async def _turn() -> tuple[str, Any, dict[str, Any]]:
    client = acp.Client()
    process = await client.spawn(AGENT, stderr=asyncio.subprocess.DEVNULL)
    try:
        await client.lifecycle.initialize()
        session = await client.lifecycle.new_session(cwd=str(REPO))
        await session.run_turn([{"type": "text", "text": "go"}])
        others = {
            sid: held.snapshot()
            for sid, held in client.lifecycle.sessions.items()
            if sid != session.session_id
        }
        return session.session_id, session.snapshot(), others
    finally:
        await process.close()


def test_the_clients_snapshot_holds_the_child_its_messages_and_no_removed_plan() -> None:
    parent_id, parent, others = asyncio.run(asyncio.wait_for(_turn(), HANG_GUARD))
    ((child_id, child),) = parent["subagents"].items()
    assert child == {
        "sessionId": child_id,
        "title": "Helper",
        "description": "counts files",
        "capabilities": {"cancel": {}},
        "cwd": "/work/helper",
        "state": {"state": "idle", "stopReason": "end_turn"},
    }
    assert parent["plans"] == {}  # posted, then removed
    between = [m for m in parent["messages"] if m["role"] == "session"]
    assert [(m["senderSessionId"], m["recipientSessionId"], _texts(m)) for m in between] == [
        (parent_id, child_id, "count the files"),
        (child_id, parent_id, "there are two files"),
    ]
    # The child was registered when announced: its own updates are in its own state.
    assert list(others) == [child_id]
    assert [(m["role"], _texts(m)) for m in others[child_id]["messages"]] == [
        ("session", "count the files"),
        ("agent", "two files"),
        ("session", "there are two files"),
    ]
