"""`inspect --url` getting its sessions back when the connection drops: the inspector's live
model (what the page shows, its `view()`) over the example agent served with `--http` (a real
process), the connection closed from the test after a turn. The inspector reconnects by
itself, says so in one line, and shows the session rebuilt from the replay, each message once;
the next turn works on the resumed session."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from acp_codegen.commands.chat.remote import RemoteTarget
from acp_codegen.commands.inspect.live import LiveInspector

from tests.chat.test_chat_reattach import HEADERS, demo_url, run, url_for

__all__ = ["demo_url"]  # the module's fixture: the example agent served with --http


class Changes:
    """The page's "something changed" callback; `until` waits for a condition on the model."""

    def __init__(self) -> None:
        self.event = asyncio.Event()

    def __call__(self) -> None:
        self.event.set()

    async def until(self, holds: Callable[[], bool]) -> None:
        while not holds():
            self.event.clear()
            await self.event.wait()


async def a_turn(inspector: LiveInspector, changes: Changes, text: str) -> None:
    """Prompt and allow the permission the example agent asks for; wait for the turn's end."""
    inspector.prompt(text)
    await changes.until(lambda: inspector.view()["permission"] is not None)
    inspector.answer(inspector.view()["permission"]["id"], "allow")
    await changes.until(lambda: not inspector.running)


def messages(view: dict[str, Any]) -> list[tuple[str, str]]:
    return [(m["role"], str(m)) for m in view["session"]["messages"]]


@contextlib.asynccontextmanager
async def inspecting(url: str, cwd: Path) -> AsyncIterator[tuple[LiveInspector, Changes]]:
    """The inspector's model on the agent at `url`, started; stopped after."""
    changes = Changes()
    inspector = LiveInspector(RemoteTarget(url, HEADERS), cwd=cwd, trace=None, changed=changes)
    await inspector.start()
    try:
        yield inspector, changes
    finally:
        await inspector.stop()


async def drop(inspector: LiveInspector, changes: Changes) -> dict[str, Any]:
    """Close the inspector's connection as a network failure would; the view once it says it
    reconnected."""
    process = inspector.link.process
    assert process is not None
    await process.close()
    await changes.until(lambda: inspector.view()["reconnected"] is not None)
    return inspector.view()


@pytest.mark.parametrize("scheme", ["http", "ws"])
def test_a_dropped_connection_is_reattached_and_shown_once(
    demo_url: str, scheme: str, tmp_path: Path
) -> None:
    async def scenario() -> None:
        async with inspecting(url_for(demo_url, scheme), tmp_path) as (inspector, changes):
            await a_turn(inspector, changes, "before the drop")
            before = inspector.view()
            assert before["reconnected"] is None and before["error"] is None
            after = await drop(inspector, changes)
            session_id = before["sessionId"]
            assert after["sessionId"] == session_id
            assert after["reconnected"] == (
                f"[reconnected: {inspector.link.agent_name}, session {session_id} resumed]"
            )
            assert messages(after) == messages(before)  # rebuilt from the replay, not doubled
            await a_turn(inspector, changes, "after the drop")
            final = inspector.view()
            assert final["error"] is None
            assert messages(final)[: len(messages(before))] == messages(before)
            assert len(messages(final)) > len(messages(before))

    run(scenario())


@pytest.mark.parametrize("scheme", ["http", "ws"])
def test_every_session_the_page_had_open_is_reattached(
    demo_url: str, scheme: str, tmp_path: Path
) -> None:
    async def scenario() -> None:
        async with inspecting(url_for(demo_url, scheme), tmp_path) as (inspector, changes):
            await a_turn(inspector, changes, "to the first")
            first = inspector.view()
            await inspector.new_session()
            await a_turn(inspector, changes, "to the second")
            second = inspector.view()
            after = await drop(inspector, changes)
            ids = f"{first['sessionId']}, {second['sessionId']}"
            assert after["reconnected"] == (
                f"[reconnected: {inspector.link.agent_name}, sessions {ids} resumed]"
            )
            assert [(s["id"], s["open"]) for s in after["sessions"]] == [
                (first["sessionId"], True),
                (second["sessionId"], True),
            ]
            assert messages(after) == messages(second)  # the page still shows the second
            inspector.use(first["sessionId"])
            assert messages(inspector.view()) == messages(first)
            await a_turn(inspector, changes, "to the first again")
            assert inspector.view()["error"] is None
            assert len(messages(inspector.view())) > len(messages(first))

    run(scenario())
