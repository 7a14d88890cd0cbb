"""Child sessions (subagents) in a durable store, through the generated `Agent` and `Client`: a
new agent on the same file lists a parent's children with the parent's id and brings them
back with the parent, their transcripts replayed within the parent's."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "generated"))

import acp_bindings as acp  # noqa: E402
from acp_bindings._runtime.store.sqlite_store import SqliteStore  # noqa: E402

from .streams import run  # noqa: E402
from .test_generated_session_store import connect  # noqa: E402

GO = [{"type": "text", "text": "go"}]


class Delegating(acp.Agent):
    """Each turn hands the question to a child session and reports the child's answer."""

    async def on_prompt(self, session: acp.Session, prompt: acp.Prompt) -> str | None:
        helper = await session.announce_subagent(
            title="Helper",
            capabilities=acp.models.SubagentSessionCapabilities(
                cancel=acp.models.SessionCancelCapabilities()
            ),
        )
        await helper.send_message("count the files")
        await helper.session.say("two files")
        await session.say("done")
        return None

    async def on_delete_session(self, session_id: str) -> None:
        return None  # the store's record goes; nothing of the author's own to drop


def _transcript(snapshot: Any) -> list[tuple[str, str]]:
    return [
        (message["role"], "".join(block["text"] for block in message["content"]))
        for message in snapshot["messages"]
    ]


def test_a_new_agent_on_the_store_lists_and_replays_a_parents_children(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"

    async def main() -> None:
        first_store = SqliteStore(path)
        client, agent_end = await connect(Delegating(session_store=first_store))
        parent = await client.lifecycle.new_session(cwd="/work")
        assert await parent.run_turn(GO) == "end_turn"
        ((child_id, announced),) = parent.snapshot()["subagents"].items()
        child_before = _transcript(client.lifecycle.sessions[child_id].snapshot())
        assert child_before == [("session", "count the files"), ("agent", "two files")]
        await agent_end.close()
        await first_store.close()

        store = SqliteStore(path)  # a new process, as far as the store can tell
        client, _ = await connect(Delegating(session_store=store))
        listed = (await client.lifecycle.list_sessions(cwd="/work"))["sessions"]
        assert sorted((i["sessionId"], i.get("_meta")) for i in listed) == sorted(
            [
                (parent.session_id, None),
                (child_id, {"parentSessionId": parent.session_id}),
            ]
        )
        resumed = await client.lifecycle.resume_session(
            parent.session_id, "/work", replayFrom={"type": "start"}
        )
        assert resumed.snapshot()["subagents"] == {child_id: announced}
        child = client.lifecycle.sessions[child_id]  # announced again by the replay
        assert child.parent_id == parent.session_id
        assert _transcript(child.snapshot()) == child_before
        # Restored as the parent's child: a request naming it is still refused.
        listed = (await client.lifecycle.list_sessions(cwd="/work"))["sessions"]
        assert [i.get("_meta") for i in listed if i["sessionId"] == child_id] == [
            {"parentSessionId": parent.session_id}
        ]
        await store.close()

    run(main())


def test_deleting_a_stored_parent_deletes_its_children(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"

    async def main() -> None:
        first_store = SqliteStore(path)
        client, agent_end = await connect(Delegating(session_store=first_store))
        parent = await client.lifecycle.new_session(cwd="/work")
        assert await parent.run_turn(GO) == "end_turn"
        await agent_end.close()
        await first_store.close()

        store = SqliteStore(path)  # the parent is not in this agent's memory
        client, _ = await connect(Delegating(session_store=store))
        assert len((await client.lifecycle.list_sessions())["sessions"]) == 2
        await client.lifecycle.request("session/delete", {"sessionId": parent.session_id})
        assert (await client.lifecycle.list_sessions())["sessions"] == []
        await store.close()

    run(main())
