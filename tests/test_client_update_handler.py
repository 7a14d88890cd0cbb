"""A generated Client's `session_update` handler: called for every update the session keeps,
typed, after the update is folded into the session's state; not called unless overridden."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "generated"))

import acp_bindings as acp  # noqa: E402
from acp_bindings import models  # noqa: E402

AGENT = [sys.executable, str(REPO / "examples" / "demo_agent.py")]
HANG_GUARD = 120.0  # only turns a hang into a failure; never a statement about speed


class Watching(acp.Client):
    """Records each update's tag and how much answer text the session held at that moment."""

    def __init__(self) -> None:
        self.heard: list[tuple[str, str]] = []
        self.typed = True

    async def on_permission(self, session: Any, request: Any) -> models.SelectedPermissionOutcome:
        return models.SelectedPermissionOutcome(option_id="allow")

    async def session_update(self, *, params: models.UpdateSessionNotification) -> None:
        self.typed &= isinstance(params, models.UpdateSessionNotification)
        session = self.lifecycle.sessions[params.session_id]
        tag = params.update.session_update
        self.heard.append((str(tag), answer_text(session.snapshot())))


def answer_text(snapshot: Any) -> str:
    return "".join(
        block.get("text", "")
        for message in snapshot["messages"]
        if message["role"] not in ("user", "thought")
        for block in message.get("content", [])
    )


async def turn(client: acp.Client) -> str:
    process = await client.spawn(AGENT, stderr=asyncio.subprocess.DEVNULL)
    try:
        await client.lifecycle.initialize()
        session = await client.lifecycle.new_session(cwd=str(REPO))
        await session.run_turn([{"type": "text", "text": "echo this"}])
        return answer_text(session.snapshot())
    finally:
        await process.close()


def test_an_overridden_handler_hears_each_update_after_its_session_folded_it_in() -> None:
    client = Watching()
    answer = asyncio.run(asyncio.wait_for(turn(client), HANG_GUARD))
    tags = [tag for tag, _ in client.heard]
    assert client.typed
    assert "agent_message_chunk" in tags and "plan_update" in tags and "state_update" in tags
    chunks = [text for tag, text in client.heard if tag == "agent_message_chunk"]
    # Each chunk was already in the session's answer when the handler heard it.
    assert chunks == sorted(chunks, key=len) and chunks[-1] == answer and answer


def test_a_client_that_does_not_override_it_is_not_called() -> None:
    class Plain(acp.Client):
        async def on_permission(
            self, session: Any, request: Any
        ) -> models.SelectedPermissionOutcome:
            return models.SelectedPermissionOutcome(option_id="allow")

    client = Plain()
    calls: list[Any] = []
    client.session_update = calls.append  # type: ignore[method-assign,assignment]
    asyncio.run(asyncio.wait_for(turn(client), HANG_GUARD))
    assert calls == []  # the class decides, at connection time: nothing forwarded, nothing paid
