"""The generated `Agent`'s session hooks get the typed `Session` and run at their points."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "generated"))

import acp_bindings as acp  # noqa: E402

from .streams import connection_pair, run  # noqa: E402


class HookedAgent(acp.Agent):
    def __init__(self) -> None:
        self.calls: list[tuple[str, str, type]] = []

    async def on_prompt(self, session: acp.Session, prompt: acp.Prompt) -> str | None:
        return None

    async def on_new_session(self, session: acp.Session) -> Mapping[str, Any] | None:
        self.calls.append(("new", session.session_id, type(session)))
        await session.set_title("named by the hook")
        return None

    async def on_close_session(self, session: acp.Session) -> None:
        self.calls.append(("close", session.session_id, type(session)))

    async def on_resume_session(self, session: acp.Session) -> Mapping[str, Any] | None:
        self.calls.append(("resume", session.session_id, type(session)))
        return None

    async def load_session(self, session: acp.Session) -> bool:
        self.calls.append(("load", session.session_id, type(session)))
        return session.session_id == "stored-1"


def test_session_hooks_receive_the_typed_session_in_order() -> None:
    agent = HookedAgent()

    async def main() -> list[str]:
        client = acp.Client()
        _, _ = await connection_pair(agent.dispatcher, client.dispatcher)
        await client.lifecycle.initialize()
        session = await client.lifecycle.new_session(cwd="/tmp")
        await session.close()
        await client.lifecycle.resume_session(session.session_id, "/tmp")
        await client.lifecycle.resume_session("stored-1", "/tmp")
        listed = await client.lifecycle.list_sessions()
        return [info["title"] for info in listed["sessions"] if "title" in info]

    titles = run(main())
    kinds = [kind for kind, _, _ in agent.calls]
    assert kinds == ["new", "close", "resume", "load", "resume"]
    assert {cls for _, _, cls in agent.calls} == {acp.Session}
    assert agent.calls[3][1] == "stored-1"
    assert "named by the hook" in titles
