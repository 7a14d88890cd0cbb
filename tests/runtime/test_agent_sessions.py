"""The session surface the runtime serves (issue 7, part 1) and what it advertises."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from acp_codegen.runtime.agent.agent_session import AgentSession, Prompt
from acp_codegen.runtime.agent.sessions import SessionHooks
from acp_codegen.runtime.wire.errors import ProtocolUsageError

from .agent_harness import (
    TEXT,
    Client,
    agent,
    agent_with_session,
    end_turn,
    idle,
    receipt,
    request,
)
from .streams import run


async def forget(session_id: str) -> None:
    return None


def test_initialize_advertises_the_session_baseline_and_delete_only_when_served() -> None:
    async def capabilities(**options: Any) -> Any:
        connection, peer, _ = await agent(end_turn, **options)
        reply = await Client(peer).call(
            "initialize", {"protocolVersion": 2, "info": {"name": "c", "version": "1"}}
        )
        await connection.close()
        return reply["result"]["capabilities"]

    async def scenario() -> None:
        prompt = {"image": {}}
        declared = {"session": {"prompt": prompt, "delete": {}}, "_meta": {"x": 1}}
        assert await capabilities(capabilities=declared) == {
            "session": {"prompt": prompt},  # delete declared but not served: not advertised
            "_meta": {"x": 1},
        }
        hooks = SessionHooks(on_delete_session=forget)
        assert await capabilities(session_hooks=hooks) == {"session": {"delete": {}}}

    run(scenario())


def test_session_list_filters_by_cwd_and_pages_with_a_cursor() -> None:
    async def scenario() -> None:
        connection, peer, side = await agent(end_turn)
        side.registry.page_size = 2
        client = Client(peer)
        await client.setup()  # one session in /tmp
        ids = [await client.new_session("/work") for _ in range(3)]
        side.sessions[ids[0]].title = "First"
        page = (await client.call("session/list", {"cwd": "/work"}))["result"]
        assert [info["sessionId"] for info in page["sessions"]] == ids[:2]
        assert page["sessions"][0]["title"] == "First"
        assert all(info["cwd"] == "/work" and info["updatedAt"] for info in page["sessions"])
        cursor = page["nextCursor"]
        page = (await client.call("session/list", {"cwd": "/work", "cursor": cursor}))["result"]
        assert [info["sessionId"] for info in page["sessions"]] == ids[2:]
        assert "nextCursor" not in page
        everything = (await client.call("session/list", {}))["result"]
        assert len(everything["sessions"]) == 2 and "nextCursor" in everything
        bad = await client.call("session/list", {"cursor": "bogus"})
        assert bad["error"]["code"] == -32602
        await connection.close()

    run(scenario())


def test_session_close_cancels_the_work_first_then_refuses_prompts() -> None:
    async def forever(session: AgentSession, prompt: Prompt) -> None:
        await asyncio.Event().wait()

    async def scenario() -> None:
        connection, peer, side = await agent(forever)
        client = Client(peer)
        session_id = await client.setup()
        await client.prompt(session_id)
        await client.updates(2)
        client.next_id += 1
        await peer.send(request(client.next_id, "session/close", {"sessionId": session_id}))
        assert await client.updates(1) == [idle("cancelled")]  # before the close answer
        assert await peer.recv() == {"jsonrpc": "2.0", "id": client.next_id, "result": {}}
        reply = await client.prompt(session_id)
        assert reply["error"]["code"] == -32002
        assert "closed" in reply["error"]["message"]
        listed = (await client.call("session/list", {}))["result"]["sessions"]
        assert [info["sessionId"] for info in listed] == [session_id]  # still known
        with pytest.raises(ProtocolUsageError, match="closed"):
            await side.sessions[session_id].say("too late")  # e.g. from a background task
        await connection.close()

    run(scenario())


def test_session_resume_replays_history_before_answering_and_reopens_a_closed_session() -> None:
    async def say(session: AgentSession, prompt: Prompt) -> None:
        await session.say("hello")

    async def scenario() -> None:
        connection, client, session_id = await agent_with_session(say)
        await client.prompt(session_id)
        history = [u for u in await client.updates(4) if u["sessionUpdate"] != "state_update"]
        assert [u["sessionUpdate"] for u in history] == ["user_message", "agent_message"]
        assert (await client.call("session/close", {"sessionId": session_id}))["result"] == {}
        client.next_id += 1
        params = {"sessionId": session_id, "cwd": "/tmp", "replayFrom": {"type": "start"}}
        await client.peer.send(request(client.next_id, "session/resume", params))
        # the history, then where the session stands (its last state report)
        assert await client.updates(3) == [*history, idle("end_turn")]
        assert await client.peer.recv() == {"jsonrpc": "2.0", "id": client.next_id, "result": {}}
        reply = await client.prompt(session_id)
        receipt(reply["result"])
        await client.updates(4)
        quiet = await client.call("session/resume", {"sessionId": session_id, "cwd": "/tmp"})
        assert quiet["result"] == {}  # no replayFrom: no replay, the answer comes next
        await connection.close()

    run(scenario())


def test_session_resume_replays_the_newest_updates_that_fit_the_history_limit() -> None:
    async def say_three(session: AgentSession, prompt: Prompt) -> None:
        for word in ("one", "two", "six"):  # about 410 bytes each as JSON
            await session.say(word * 100)

    async def scenario() -> None:
        connection, client, session_id = await agent_with_session(say_three, history_limit=900)
        await client.prompt(session_id)
        sent = [u for u in await client.updates(6) if u["sessionUpdate"] != "state_update"]
        params = {"sessionId": session_id, "cwd": "/tmp", "replayFrom": {"type": "start"}}
        client.next_id += 1
        await client.peer.send(request(client.next_id, "session/resume", params))
        replayed = await client.updates(3)
        assert replayed == [*sent[-2:], idle("end_turn")]  # the user message and "one" went
        assert await client.peer.recv() == {"jsonrpc": "2.0", "id": client.next_id, "result": {}}
        await connection.close()

    run(scenario())


def test_session_resume_of_an_unknown_id_fails_clearly_unless_the_author_loads_it() -> None:
    async def load(session: AgentSession) -> bool:
        if session.session_id != "stored":
            return False
        session.title = "From disk"
        return True

    async def scenario() -> None:
        connection, peer, _ = await agent(end_turn, session_hooks=SessionHooks(load_session=load))
        client = Client(peer)
        await client.setup()
        reply = await client.call("session/resume", {"sessionId": "nope", "cwd": "/w"})
        assert reply["error"]["code"] == -32002
        assert reply["error"]["data"] == {"sessionId": "nope"}
        reply = await client.call("session/resume", {"sessionId": "stored", "cwd": "/w"})
        assert reply["result"] == {}
        listed = (await client.call("session/list", {"cwd": "/w"}))["result"]["sessions"]
        assert [(i["sessionId"], i["title"]) for i in listed] == [("stored", "From disk")]
        bad = {"sessionId": "stored", "cwd": "/w", "replayFrom": {"type": "_somewhere"}}
        assert (await client.call("session/resume", bad))["error"]["code"] == -32602
        await connection.close()

    run(scenario())


def test_session_delete_is_served_only_when_enabled() -> None:
    deleted: list[str] = []

    async def delete(session_id: str) -> None:
        deleted.append(session_id)

    async def scenario() -> None:
        connection, client, session_id = await agent_with_session(end_turn)
        reply = await client.call("session/delete", {"sessionId": session_id})
        assert reply["error"]["code"] == -32601
        await connection.close()

        hooks = SessionHooks(on_delete_session=delete)
        connection, client, session_id = await agent_with_session(end_turn, session_hooks=hooks)
        assert (await client.call("session/delete", {"sessionId": session_id}))["result"] == {}
        assert deleted == [session_id]
        assert (await client.call("session/list", {}))["result"]["sessions"] == []
        await connection.close()

    run(scenario())


def test_a_batch_with_a_prompt_and_the_close_of_its_session_answers_both_then_ends_idle() -> None:
    async def scenario() -> None:
        connection, client, session_id = await agent_with_session(end_turn)
        await client.peer.send(
            [
                request(1, "session/prompt", {"sessionId": session_id, "prompt": TEXT}),
                request(2, "session/close", {"sessionId": session_id}),
            ]
        )
        prompted, closed = await client.peer.recv()
        assert (prompted["id"], closed) == (1, {"jsonrpc": "2.0", "id": 2, "result": {}})
        updates = await client.updates(2)
        assert updates[0]["sessionUpdate"] == "user_message"
        assert updates[0]["messageId"] == receipt(prompted["result"])
        assert updates[1] == idle("cancelled")
        await connection.close()

    run(scenario())


def test_session_list_includes_stored_sessions_once_and_filters_them_by_cwd() -> None:
    async def stored(cwd: str | None) -> list[dict[str, Any]]:
        return [{"sessionId": "old", "cwd": "/w", "title": "Old"}, {"sessionId": "x", "cwd": "/y"}]

    async def scenario() -> None:
        hooks = SessionHooks(stored_sessions=stored)
        connection, peer, _ = await agent(end_turn, session_hooks=hooks)
        client = Client(peer)
        await client.setup()
        live = await client.new_session("/w")
        listed = (await client.call("session/list", {"cwd": "/w"}))["result"]["sessions"]
        assert [info["sessionId"] for info in listed] == [live, "old"]
        assert listed[1] == {"sessionId": "old", "cwd": "/w", "title": "Old"}
        await connection.close()

    run(scenario())


def test_set_title_tells_the_client_and_session_list() -> None:
    async def titled(session: AgentSession, prompt: Prompt) -> None:
        await session.set_title("Fixing the build")

    async def scenario() -> None:
        connection, client, session_id = await agent_with_session(titled)
        await client.prompt(session_id)
        updates = await client.updates(4)
        assert updates[2] == {"sessionUpdate": "session_info_update", "title": "Fixing the build"}
        (info,) = (await client.call("session/list", {}))["result"]["sessions"]
        assert info["title"] == "Fixing the build"
        await connection.close()

    run(scenario())
