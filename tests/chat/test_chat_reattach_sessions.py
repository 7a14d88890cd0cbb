"""`chat --url` (and `inspect --url`, which drives the same `AgentLink`) resumes every session
it had open when its connection drops, not only the one it prompts: two sessions with a turn
each, the connection cut while idle (HTTP and WebSocket); both come back with their history
and both take the next turn. A session closed before the drop stays closed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from acp_codegen._bindings import ClientSession, message_text

from tests.chat.test_chat_reattach import Asker, Told, cut, demo_url, linked, run, url_for

__all__ = ["demo_url"]  # the fixture


def users(session: ClientSession[Any]) -> list[str]:
    return [message_text(m) for m in session.snapshot()["messages"] if m["role"] == "user"]


@pytest.mark.parametrize("scheme", ["http", "ws"])
def test_every_open_session_is_resumed(demo_url: str, scheme: str, tmp_path: Path) -> None:
    async def scenario() -> None:
        told = Told()
        link = linked(url_for(demo_url, scheme), Asker(), told, tmp_path)
        await link.start()
        try:
            first = link.session.session_id
            assert await link.turn("to the first") == "end_turn"
            gone = (await link.new_session()).session_id
            await link.manage(link.session.close(), "close")
            second = (await link.new_session()).session_id
            assert await link.turn("to the second") == "end_turn"
            await cut(link)
            await told.said.wait()
            assert told == [f"[reconnected: {link.agent_name}, sessions {first}, {second} resumed]"]
            assert sorted(link.lifecycle.sessions) == sorted([first, second])
            assert gone not in link.lifecycle.sessions
            assert link.session.session_id == second  # still the one prompted
            for session_id, text in ((first, "to the first"), (second, "to the second")):
                link.use(session_id)
                assert users(link.session) == [text]  # rebuilt from the replay
                assert await link.turn("again") == "end_turn"
                assert users(link.session) == [text, "again"]
        finally:
            await link.stop()

    run(scenario())
