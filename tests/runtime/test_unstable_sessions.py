"""The unstable session methods on the runtime's own wire (runtime/agent/unstable_sessions.py):
served and advertised only for the methods a package passes; archive marks kept in the session
store; status and titles as the registry holds them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acp_codegen.runtime.agent.durable_sessions import DurableSessions
from acp_codegen.runtime.agent.sessions import SessionHooks
from acp_codegen.runtime.agent.unstable_sessions import CAPABILITIES
from acp_codegen.runtime.store.sqlite_store import SqliteStore

from .agent_harness import Client, agent, end_turn, idle
from .streams import run

ALL = frozenset(CAPABILITIES)
HELLO = {"protocolVersion": 2, "info": {"name": "c", "version": "1"}}


async def forget(session_id: str) -> None:
    return None


def test_served_and_advertised_only_for_the_methods_passed() -> None:
    async def scenario(served: frozenset[str]) -> tuple[Any, Any]:
        connection, peer, _ = await agent(end_turn, unstable=served)
        client = Client(peer)
        hello = (await client.call("initialize", HELLO))["result"]
        session_id = await client.new_session("/tmp")
        fork = await client.call("session/fork", {"sessionId": session_id, "cwd": "/tmp"})
        await connection.close()
        return hello["capabilities"]["session"], fork

    session, fork = run(scenario(frozenset()))
    assert session == {} and fork["error"]["code"] == -32601
    session, fork = run(scenario(frozenset({"session/fork"})))
    assert session == {"fork": {}} and set(fork["result"]) == {"sessionId"}
    session, _ = run(scenario(ALL))
    assert session == {"fork": {}, "title": {}, "archive": {}, "status": {}}


def test_status_reports_the_last_state_without_its_update_tag() -> None:
    async def scenario() -> Any:
        connection, peer, _ = await agent(end_turn, unstable=ALL)
        client = Client(peer)
        session_id = await client.setup()
        await client.prompt(session_id)
        await client.updates(3)  # user_message, running, idle
        status = await client.call("session/status", {"sessionId": session_id})
        await connection.close()
        return status["result"]

    stop = idle("end_turn")
    del stop["sessionUpdate"]
    assert run(scenario()) == {"status": "open", "state": stop}


def test_archive_marks_live_in_the_store_and_leave_with_a_deleted_session() -> None:
    async def scenario() -> tuple[set[str], Any, set[str]]:
        hooks = SessionHooks(on_delete_session=forget)
        connection, peer, side = await agent(end_turn, unstable=ALL, session_hooks=hooks)
        client = Client(peer)
        session_id = await client.setup()
        await client.call("session/archive", {"sessionId": session_id})
        marked = set(side.registry.store.archived)
        listed = (await client.call("session/list", {"archived": "include"}))["result"]
        await client.call("session/delete", {"sessionId": session_id})
        left = set(side.registry.store.archived)
        await connection.close()
        return marked, listed, left

    marked, listed, left = run(scenario())
    (info,) = listed["sessions"]
    assert marked == {info["sessionId"]} and info["archived"] is True
    assert left == set()


def test_a_filter_the_agent_does_not_serve_is_invalid_params() -> None:
    async def scenario() -> Any:
        connection, peer, _ = await agent(end_turn, unstable=ALL)
        client = Client(peer)
        await client.setup()
        reply = await client.call("session/list", {"archived": "_mine"})
        await connection.close()
        return reply["error"]

    error = run(scenario())
    assert error["code"] == -32602 and "archived" in str(error["data"])


def test_a_fork_is_kept_by_a_durable_store_with_the_history_it_starts_from(
    tmp_path: Path,
) -> None:
    """With a durable store (agent/durable_sessions.py), `session/fork` writes the fork's
    record and its copy of the parent's history before answering: another process on the same
    store can list and resume it."""

    async def scenario() -> tuple[Any, Any, Any]:
        store = SqliteStore(tmp_path / "sessions.db")
        connection, peer, _ = await agent(end_turn, unstable=ALL, durable=DurableSessions(store))
        client = Client(peer)
        session_id = await client.setup()
        await client.prompt(session_id)
        await client.updates(3)  # user_message, running, idle
        fork = await client.call("session/fork", {"sessionId": session_id, "cwd": "/tmp"})
        await connection.close()
        other = SqliteStore(tmp_path / "sessions.db")  # as another process sees the file
        parent, child = await other.load(session_id), await other.load(fork["result"]["sessionId"])
        await store.close()
        await other.close()
        return parent, child, fork

    parent, child, fork = run(scenario())
    assert parent is not None and child is not None, fork
    assert child.history == parent.history and any(
        update.get("sessionUpdate") == "user_message" for update in child.history
    )
