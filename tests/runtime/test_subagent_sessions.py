"""Child sessions (subagents) as sessions of the agent's registry: registered with their parent
when announced, listed with the parent's id, refused every request, cancelled on their own (when
they offer it) or with their parent, closed with it, and replayed within its replay."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from acp_codegen._bindings.merge_rules import MERGE_RULES
from acp_codegen.runtime.agent.agent_session import AgentSession, Prompt
from acp_codegen.runtime.agent.agent_side import AgentSide
from acp_codegen.runtime.agent.subagents import Subagent, announce
from acp_codegen.runtime.agent.unstable_sessions import CAPABILITIES as CAPS
from acp_codegen.runtime.client.client_side import ClientSide
from acp_codegen.runtime.rpc.connection import Connection
from acp_codegen.runtime.wire.errors import RpcError

from .agent_harness import Client, agent, request
from .streams import connection_pair, guard, run

TEXT = [{"type": "text", "text": "go"}]
RULES: Any = MERGE_RULES  # the bindings' copy of the runtime's MergeRule: the same shape
CANCEL: dict[str, Any] = {"cancel": {}}


class Delegation:
    """A parent turn that announces a child, runs the child's work and reports how it ended;
    `announced` is set once the child is, `started` once its work runs, and `release` lets
    that work end."""

    def __init__(self, *, capabilities: Any = None, background: bool = False) -> None:
        self.capabilities, self.background = capabilities, background
        self.announced, self.started, self.release = (
            asyncio.Event(),
            asyncio.Event(),
            asyncio.Event(),
        )
        self.child: Subagent | None = None
        self.ended: list[str] = []

    async def work(self, child: AgentSession) -> None:
        await child.say("looking")
        self.started.set()
        await self.release.wait()

    async def on_prompt(self, session: AgentSession, prompt: Prompt) -> str | None:
        fields = {} if self.capabilities is None else {"capabilities": self.capabilities}
        child = self.child = await announce(session, title="Helper", **fields)
        self.announced.set()
        if self.background:  # the parent does not wait for the child; it waits for ever
            asyncio.get_running_loop().create_task(child.run(self.work))
            await asyncio.Event().wait()
        self.ended.append(await child.run(self.work))
        await session.say(f"the helper ended: {self.ended[-1]}")
        return None


async def with_client(delegation: Delegation) -> tuple[ClientSide, Connection, AgentSide]:
    sides: list[Any] = []

    def make_agent(connection: Connection) -> AgentSide:
        info = {"name": "a", "version": "1"}
        side = AgentSide(connection, info=info, on_prompt=delegation.on_prompt, rules=RULES)
        sides.append(side)
        return side

    def make_client(connection: Connection) -> ClientSide:
        side = ClientSide(connection, info={"name": "c", "version": "1"}, rules=RULES)
        sides.insert(0, side)
        return side

    client_connection, _ = await connection_pair(make_client, make_agent)
    client, agent_side = sides
    await client.initialize()
    return client, client_connection, agent_side


def test_a_child_is_registered_listed_with_its_parent_and_refused_every_request() -> None:
    async def scenario() -> None:
        delegation = Delegation()
        client, connection, agent_side = await with_client(delegation)
        parent = await client.new_session("/work")
        turn = asyncio.ensure_future(parent.run_turn(TEXT))
        await guard(delegation.announced.wait())
        assert delegation.child is not None
        child_id = delegation.child.session_id
        registered = agent_side.sessions[child_id]
        assert registered is delegation.child.session
        assert registered.parent is agent_side.sessions[parent.session_id]
        # session/list shows the child after its parent, naming the parent in `_meta`.
        listed = (await client.list_sessions())["sessions"]
        assert [(i["sessionId"], i.get("_meta")) for i in listed] == [
            (parent.session_id, None),
            (child_id, {"parentSessionId": parent.session_id}),
        ]
        # Nothing but session/cancel reaches a child: a prompt, close or resume is refused.
        refused_extras: list[tuple[str, dict[str, Any]]] = [
            ("session/prompt", {"prompt": TEXT}),
            ("session/close", {}),
            ("session/resume", {"cwd": "/work"}),
        ]
        for method, extra in refused_extras:
            with pytest.raises(RpcError) as refused:
                await client.request(method, {"sessionId": child_id, **extra})
            assert refused.value.code == -32602, method
            assert "child session" in str(refused.value.data)
        delegation.release.set()
        assert await guard(turn) == "end_turn"
        await connection.close()

    run(scenario())


def test_a_cancel_naming_a_child_cancels_its_work_and_only_its() -> None:
    async def scenario() -> None:
        delegation = Delegation(capabilities=CANCEL)
        client, connection, _ = await with_client(delegation)
        parent = await client.new_session("/work")
        turn = asyncio.ensure_future(parent.run_turn(TEXT))
        await guard(delegation.started.wait())
        assert delegation.child is not None
        await client.list_sessions()  # a round trip: the announcement has reached the client
        child = client.sessions[delegation.child.session_id]
        assert child.parent_id == parent.session_id
        await child.cancel()
        # The child's work ended cancelled; the parent's went on and ended on its own.
        assert await guard(turn) == "end_turn"
        assert delegation.ended == ["cancelled"]
        assert (child.snapshot()["state"], child.snapshot()["stopReason"]) == ("idle", "cancelled")
        said = [m["content"][0]["text"] for m in parent.snapshot()["messages"][1:]]
        assert said == ["the helper ended: cancelled"]
        await connection.close()

    run(scenario())


def test_a_cancel_naming_a_child_that_offers_none_is_ignored() -> None:
    async def scenario() -> None:
        delegation = Delegation()  # no `capabilities.cancel`
        client, connection, _ = await with_client(delegation)
        parent = await client.new_session("/work")
        turn = asyncio.ensure_future(parent.run_turn(TEXT))
        await guard(delegation.started.wait())
        assert delegation.child is not None
        await client.notify("session/cancel", {"sessionId": delegation.child.session_id})
        await client.list_sessions()  # handled after the cancel: the cancel is behind us
        delegation.release.set()
        assert await guard(turn) == "end_turn"
        assert delegation.ended == ["end_turn"]
        await connection.close()

    run(scenario())


def test_cancelling_the_parent_cancels_its_childrens_work() -> None:
    async def scenario() -> None:
        delegation = Delegation(background=True)  # the child runs apart from the parent
        client, connection, agent_side = await with_client(delegation)
        parent = await client.new_session("/work")
        turn = asyncio.ensure_future(parent.run_turn(TEXT))
        await guard(delegation.started.wait())
        assert delegation.child is not None
        await client.list_sessions()
        child = client.sessions[delegation.child.session_id]
        await parent.cancel()
        assert await guard(turn) == "cancelled"
        await guard(_idle(agent_side.sessions[child.session_id]))
        await client.list_sessions()  # the child's idle report has reached the client
        assert (child.snapshot()["state"], child.snapshot()["stopReason"]) == ("idle", "cancelled")
        await connection.close()

    run(scenario())


async def _idle(session: AgentSession) -> None:
    """Until the agent's child has no running work (its task ended)."""
    turn = session.turn
    if turn is not None and turn.task is not None:
        await asyncio.gather(turn.task, return_exceptions=True)


def test_closing_the_parent_closes_its_children_and_stops_their_work() -> None:
    async def scenario() -> None:
        delegation = Delegation(background=True)
        client, connection, agent_side = await with_client(delegation)
        parent = await client.new_session("/work")
        turn = asyncio.ensure_future(parent.run_turn(TEXT))
        await guard(delegation.started.wait())
        assert delegation.child is not None
        child_id = delegation.child.session_id
        await parent.close()
        assert await guard(turn) == "cancelled"
        child = agent_side.sessions[child_id]
        assert child.closed and child.turn is None
        assert (child.last_state or {}).get("stopReason") == "cancelled"
        await connection.close()

    run(scenario())


async def _until_idle(client: Client, session_id: str) -> list[tuple[str, str]]:
    """(sessionId, tag) of the updates up to `session_id`'s idle report."""
    seen: list[tuple[str, str]] = []
    while True:
        message = await client.peer.recv()
        update = message["params"]["update"]
        seen.append((message["params"]["sessionId"], update["sessionUpdate"]))
        if message["params"]["sessionId"] == session_id and update.get("state") == "idle":
            return seen


def test_a_replay_of_the_parent_brings_back_its_childs_transcript_after_its_announcement() -> None:
    async def delegate(session: AgentSession, prompt: Prompt) -> None:
        helper = await announce(session, title="Helper")
        await helper.send_message("count the files")

        await helper.session.say("two files")
        await helper.session.report_state("idle", "end_turn")
        await session.say("done")

    async def scenario() -> None:
        connection, peer, _ = await agent(delegate, rules=RULES)
        client = Client(peer)
        parent = await client.setup()
        await client.prompt(parent)
        await _until_idle(client, parent)
        client.next_id += 1
        params = {"sessionId": parent, "cwd": "/tmp", "replayFrom": {"type": "start"}}
        await peer.send(request(client.next_id, "session/resume", params))
        replayed: list[tuple[str, str]] = []
        while "id" not in (message := await peer.recv()):
            replayed.append(
                (message["params"]["sessionId"], message["params"]["update"]["sessionUpdate"])
            )
        assert message == {"jsonrpc": "2.0", "id": client.next_id, "result": {}}
        child = next(s for s, tag in replayed if s != parent)
        assert replayed == [
            (parent, "user_message"),
            (parent, "subagent_update"),  # the announcement, then the child's own replay
            (child, "session_message"),
            (child, "agent_message"),
            (child, "replay_complete"),
            (child, "state_update"),
            (parent, "session_message"),
            (parent, "agent_message"),
            (parent, "replay_complete"),  # after the children's, before the answer
            (parent, "state_update"),
        ]
        await connection.close()

    run(scenario())


def test_a_fork_of_the_parent_does_not_claim_its_children() -> None:
    async def delegate(session: AgentSession, prompt: Prompt) -> None:
        helper = await announce(session, title="Helper")
        await helper.session.say("two files")
        await session.say("done")

    async def scenario() -> None:
        connection, peer, side = await agent(delegate, rules=RULES, unstable=frozenset(CAPS))
        client = Client(peer)
        parent = await client.setup()
        await client.prompt(parent)
        await _until_idle(client, parent)
        fork = (await client.call("session/fork", {"sessionId": parent, "cwd": "/tmp"}))["result"]
        params = {"sessionId": fork["sessionId"], "cwd": "/tmp", "replayFrom": {"type": "start"}}
        client.next_id += 1
        await peer.send(request(client.next_id, "session/resume", params))
        replayed: list[tuple[str, str]] = []
        while "id" not in (message := await peer.recv()):
            update = message["params"]["update"]["sessionUpdate"]
            replayed.append((message["params"]["sessionId"], update))
        assert replayed == [
            (fork["sessionId"], "user_message"),
            (fork["sessionId"], "agent_message"),
            (fork["sessionId"], "replay_complete"),  # a fork has no state report yet
        ]
        assert side.sessions[fork["sessionId"]].children == {}
        await connection.close()

    run(scenario())
