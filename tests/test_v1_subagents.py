"""Child sessions (subagents) on a v1 connection, our agent and our client end to end.

With `--unstable` on both sides, the agent sends the child's announcement, the messages between
the sessions and the child's own updates in v1's shape (v1's checks pass them on both sides)
and the client folds them as on v2. Without it (or to a v1 client that did not advertise
`subagents`), `announce_subagent` and everything the child does still succeed for the author,
nothing of the child reaches the v1 wire, and the agent keeps it all in the sessions' histories,
which a later v2 resume replays."""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from acp_codegen import _bindings as committed
from acp_codegen.commands.cli import main
from acp_codegen.commands.exits import EXIT_OK
from conftest import REPO, _import_from
from runtime.streams import run, stream_pair
from test_unstable_package import working_in

pytestmark = pytest.mark.slow  # generates the project's schemas with `--unstable` once

PACKAGE = "acp_v1_subagents_pkg"
CWD = "/work"
SUBAGENT_TAGS = {"subagent_update", "session_message", "session_message_chunk"}
ALLOW = [{"optionId": "ok", "name": "Allow", "kind": "allow_once"}]


@pytest.fixture(scope="module")
def unstable(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """The project's schemas generated with `--unstable`, as a user would."""
    out = tmp_path_factory.mktemp("v1_subagents")
    with working_in(REPO):
        args = ["generate", "--unstable", "--out", str(out), "--package", PACKAGE, "-q"]
        assert main(args) == EXIT_OK
    yield _import_from(out, PACKAGE)


class Frames:
    """The frames one connection wrote and read (a `Tracer` in the connection's eyes)."""

    def __init__(self) -> None:
        self.received: list[dict[str, Any]] = []
        self.sent: list[dict[str, Any]] = []

    def record(self, direction: str, line: bytes) -> None:
        (self.received if direction == "recv" else self.sent).append(json.loads(line))

    def close(self) -> None:
        pass


def delegating_agent(package: ModuleType, seen: dict[str, Any]) -> Any:
    """An agent whose turn announces a child, messages it, speaks and asks as the child, and
    records what the author's calls returned in `seen`."""

    class Agent(package.Agent):  # type: ignore[misc,name-defined]
        async def on_prompt(self, session: Any, prompt: Any) -> str | None:
            helper = await session.announce_subagent(title="Helper", description="counts files")
            seen["child"], seen["parent"] = helper.session_id, session.session_id
            await helper.send_message("count the files")
            reply = helper.session.agent_message()
            await reply.append("two ")
            await reply.append("files")
            seen["outcome"] = await helper.session.engine.request_permission("Read?", ALLOW)
            await helper.send_message("there are two files", from_child=True)
            seen["engines"] = (session.engine, helper.session.engine)
            await session.say("done")
            return None

    return Agent


async def v1_turn(agent: Any, client_package: ModuleType) -> tuple[Any, Any, Frames]:
    """One prompt turn of `client_package`'s client, speaking only v1, with `agent`; returns
    the client, the parent's session and the frames the client read and wrote."""
    connection = importlib.import_module(f"{client_package.__name__}._runtime.rpc.connection")
    (ra, wa), (rb, wb) = await stream_pair()
    frames = Frames()
    near, far = connection.Connection(ra, wa, trace=frames), connection.Connection(rb, wb)

    class Client(client_package.Client):  # type: ignore[misc,name-defined]
        protocol_versions = (1,)

        async def on_permission(self, session: Any, request: Any) -> Any:
            return {"outcome": "selected", "optionId": "ok"}

    client = Client()
    near.dispatcher = client.dispatcher(near)
    far.dispatcher = agent.dispatcher(far)
    near.start()
    far.start()
    try:
        await client.lifecycle.initialize()
        assert client.lifecycle.protocol_version == 1
        session = await client.lifecycle.new_session(cwd=CWD)
        await session.run_turn([{"type": "text", "text": "go"}])
        return client, session, frames
    finally:
        await near.close()
        await far.close()


async def v2_replay(agent: Any, session_id: str) -> Any:
    """The snapshot of `agent`'s session `session_id` once a v2 client on a new connection
    resumed it with a whole replay (the session comes back from the agent's store)."""
    connection = importlib.import_module(f"{committed.__name__}._runtime.rpc.connection")
    (ra, wa), (rb, wb) = await stream_pair()
    near, far = connection.Connection(ra, wa), connection.Connection(rb, wb)
    client = committed.Client()
    near.dispatcher = client.dispatcher(near)
    far.dispatcher = agent.dispatcher(far)
    near.start()
    far.start()
    try:
        await client.lifecycle.initialize()
        assert client.lifecycle.protocol_version == 2
        replay = {"type": "start"}
        session = await client.lifecycle.resume_session(session_id, CWD, replayFrom=replay)
        return session.snapshot()
    finally:
        await near.close()
        await far.close()
        await agent.session_store.close()


def updates_of(frames: Frames) -> list[dict[str, Any]]:
    return [f["params"] for f in frames.received if f.get("method") == "session/update"]


def texts(message: Any) -> str:
    return "".join(block.get("text", "") for block in message["content"] or [])


def test_an_unstable_agent_sends_a_v1_client_that_follows_children_all_of_them(
    unstable: ModuleType,
) -> None:
    """Both sides `--unstable`: the client advertises v1's `subagents`, the child's traffic
    arrives in v1's shape and is folded into the parent's and the child's states."""
    seen: dict[str, Any] = {}
    client, session, frames = run(v1_turn(delegating_agent(unstable, seen)(), unstable))
    (hello,) = [f for f in frames.sent if f.get("method") == "initialize"]
    assert hello["params"]["clientCapabilities"]["subagents"] == {}
    parent_id, child_id = seen["parent"], seen["child"]
    updates = updates_of(frames)
    announce = next(u for u in updates if u["update"]["sessionUpdate"] == "subagent_update")
    assert announce == {
        "sessionId": parent_id,
        "update": {
            "sessionUpdate": "subagent_update",
            "sessionId": child_id,
            "title": "Helper",
            "description": "counts files",
        },
    }
    assert updates.index(announce) == min(
        i for i, u in enumerate(updates) if child_id in json.dumps(u)
    )  # announced before anything names the child
    v1_updates = unstable.v1.models.SessionNotification
    for params in updates:  # each fits v1's types
        v1_updates.model_validate(params)
    assert seen["outcome"] == {"outcome": "selected", "optionId": "ok"}
    snapshot = session.snapshot()
    assert snapshot["subagents"] == {
        child_id: {"sessionId": child_id, "title": "Helper", "description": "counts files"}
    }
    between = [
        (m["senderSessionId"], texts(m)) for m in snapshot["messages"] if m["role"] == "session"
    ]
    assert between == [(parent_id, "count the files"), (child_id, "there are two files")]
    child = client.lifecycle.sessions[child_id].snapshot()
    assert [(m["role"], texts(m)) for m in child["messages"]] == [
        ("session", "count the files"),
        ("agent", "two files"),
        ("session", "there are two files"),
    ]


@pytest.mark.parametrize("agent_is_unstable", [False, True])
def test_a_v1_client_that_follows_no_children_is_sent_nothing_of_them(
    unstable: ModuleType, agent_is_unstable: bool, tmp_path: Path
) -> None:
    """Our client without `--unstable` (v1's tables lack the child updates, so it advertises no
    `subagents`), against an agent with or without the option: the author's calls succeed (the
    child's permission request is not asked: cancelled), no frame names the child, no child
    update is sent, and the agent keeps the child's traffic in the histories: a v2 client
    that resumes the parent later is told of the child and the messages."""
    seen: dict[str, Any] = {}
    agent_package = unstable if agent_is_unstable else committed
    store = importlib.import_module(f"{agent_package.__name__}._runtime.store.sqlite_store")
    agent = delegating_agent(agent_package, seen)(session_store=store.SqliteStore(tmp_path / "db"))
    client, session, frames = run(v1_turn(agent, committed))
    (hello,) = [f for f in frames.sent if f.get("method") == "initialize"]
    assert "subagents" not in hello["params"]["clientCapabilities"]
    parent_id, child_id = seen["parent"], seen["child"]
    assert seen["outcome"] == {"outcome": "cancelled"}
    assert not [f for f in frames.received if child_id in json.dumps(f)]
    assert not [u for u in updates_of(frames) if u["update"]["sessionUpdate"] in SUBAGENT_TAGS]
    assert [texts(m) for m in session.snapshot()["messages"] if m["role"] == "agent"] == ["done"]
    assert list(client.lifecycle.sessions) == [parent_id]
    parent, child = seen["engines"]
    kept = [u["sessionUpdate"] for u in parent.history]
    assert kept.count("subagent_update") == 1 and kept.count("session_message") == 2
    assert [
        u["sessionUpdate"] for u in child.history if u["sessionUpdate"] != "session_message"
    ] == ["agent_message"]
    replayed = run(v2_replay(agent, parent_id))
    assert list(replayed["subagents"]) == [child_id]
    between = [texts(m) for m in replayed["messages"] if m["role"] == "session"]
    assert between == ["count the files", "there are two files"]
