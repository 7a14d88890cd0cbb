"""v2 items upstream added after 2.4.0, served by the generated package's runtime: a prompt
retried with its `idempotencyKey` inserts nothing and answers the first messageId (also while
that turn runs; keys kept per session, least recently used forgotten past the bound), and a
`session/resume` with `replayFrom` ends its replay with one `replay_complete` before the current
state and the answer. The client sends the key and tells a complete replay from a cut one."""

from __future__ import annotations

import asyncio
from typing import Any

import acp_codegen._bindings as acp
import pytest
from acp_codegen._bindings._runtime.agent import prompts as prompt_keys
from acp_codegen._bindings._runtime.rpc.connection import Connection

from .streams import RawPeer, guard, run, stream_pair
from .test_client_setup_answers import TEXT, V2_HELLO, OnlyV2Client, answer, initialized, update


class CountingAgent(acp.Agent):
    """Says what each prompt's text was; `hold` keeps a turn running until it is set."""

    def __init__(self) -> None:
        self.ran: list[str] = []
        self.hold: asyncio.Event | None = None
        self.sessions: dict[str, Any] = {}
        self.spoke = asyncio.Event()  # set once a turn has said what it ran

    async def on_new_session(self, session: acp.Session) -> None:
        self.sessions[session.session_id] = session.engine
        return None

    async def on_prompt(self, session: acp.Session, prompt: acp.Prompt) -> str | None:
        text = "".join(getattr(block, "text", "") for block in prompt.content)
        self.ran.append(text)
        if self.hold is not None:
            await self.hold.wait()
        await session.say(f"ran {text}")
        self.spoke.set()
        return None


async def served(agent: acp.Agent) -> tuple[Connection, RawPeer, str]:
    """`agent` initialized on v2 with one session in /tmp, driven by a raw peer."""
    (reader, writer), (peer_reader, peer_writer) = await stream_pair()
    connection = Connection(reader, writer)
    connection.dispatcher = agent.dispatcher(connection)
    connection.start()
    peer = RawPeer(peer_reader, peer_writer)
    await call(peer, 1, "initialize", {"protocolVersion": 2, "info": {"name": "c", "version": "1"}})
    reply = await call(peer, 2, "session/new", {"cwd": "/tmp"})
    return connection, peer, reply["result"]["sessionId"]


async def call(peer: RawPeer, request_id: int, method: str, params: Any) -> Any:
    await peer.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
    return await reply_to(peer, request_id)


async def reply_to(peer: RawPeer, request_id: int, seen: list[Any] | None = None) -> Any:
    """The answer to `request_id`; the updates before it go to `seen`."""
    while True:
        message = await peer.recv()
        if message.get("id") == request_id:
            return message
        assert message.get("method") == "session/update", message
        if seen is not None:
            seen.append(message["params"]["update"])


async def until_idle(peer: RawPeer) -> list[dict[str, Any]]:
    """The updates up to and including the next idle state report."""
    updates = []
    while True:
        message = await peer.recv()
        assert message.get("method") == "session/update", message
        updates.append(message["params"]["update"])
        if updates[-1] == {
            "sessionUpdate": "state_update",
            "state": "idle",
            "stopReason": "end_turn",
        }:
            return updates


def prompt(session_id: str, text: str, key: str | None = None) -> dict[str, Any]:
    params: dict[str, Any] = {"sessionId": session_id, "prompt": [{"type": "text", "text": text}]}
    if key is not None:
        params["idempotencyKey"] = key
    return params


def tags(updates: list[dict[str, Any]]) -> list[str]:
    return [u["sessionUpdate"] for u in updates]


async def replayed(peer: RawPeer, request_id: int, session_id: str, **more: Any) -> list[Any]:
    """Resume `session_id` (with `more`, e.g. replayFrom); the updates before its answer."""
    seen: list[Any] = []
    params = {"sessionId": session_id, "cwd": "/tmp", **more}
    await peer.send(
        {"jsonrpc": "2.0", "id": request_id, "method": "session/resume", "params": params}
    )
    reply = await reply_to(peer, request_id, seen)
    assert reply["result"] == {}, reply
    return seen


START = {"replayFrom": {"type": "start"}}


# -- idempotent prompts ------------------------------------------------------------------------


def test_a_retry_with_the_same_key_runs_nothing_and_answers_the_first_message_id() -> None:
    agent = CountingAgent()

    async def main() -> None:
        connection, peer, session_id = await served(agent)
        first = await call(peer, 10, "session/prompt", prompt(session_id, "one", key="k-1"))
        message_id = first["result"]["messageId"]
        await until_idle(peer)
        retry = await call(peer, 11, "session/prompt", prompt(session_id, "one", key="k-1"))
        assert retry["result"] == {"messageId": message_id}
        # Another submission (its own key) runs next: had the retry been accepted, it would
        # have run (and been echoed) before this one.
        other = await call(peer, 12, "session/prompt", prompt(session_id, "two", key="k-2"))
        assert other["result"]["messageId"] != message_id
        echoed = await until_idle(peer)
        assert [u.get("messageId") for u in echoed if u["sessionUpdate"] == "user_message"] == [
            other["result"]["messageId"]
        ]
        assert agent.ran == ["one", "two"]
        history = await replayed(peer, 13, session_id, **START)
        users = [u["messageId"] for u in history if u["sessionUpdate"] == "user_message"]
        assert users == [message_id, other["result"]["messageId"]]  # one per submission
        await connection.close()

    run(main())


def test_a_retry_while_the_first_turn_runs_gets_the_first_receipt_and_starts_nothing() -> None:
    agent = CountingAgent()
    agent.hold = asyncio.Event()

    async def main() -> None:
        connection, peer, session_id = await served(agent)
        first = await call(peer, 10, "session/prompt", prompt(session_id, "one", key="same"))
        running = [await peer.recv() for _ in range(2)]  # the echo, then running
        assert running[1]["params"]["update"]["state"] == "running"
        assert agent.ran == ["one"]  # the turn is under way, held
        retry = await call(peer, 11, "session/prompt", prompt(session_id, "one", key="same"))
        assert retry["result"] == first["result"]
        assert agent.hold is not None
        agent.hold.set()
        ended = await until_idle(peer)
        assert "user_message" not in tags(ended)  # no second echo
        assert agent.ran == ["one"]
        await connection.close()

    run(main())


def test_keys_are_per_session_and_bounded_least_recently_used_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    keys: dict[str, str] = {}
    prompt_keys.remember(keys, "a", "m-a", limit=2)
    prompt_keys.remember(keys, "b", "m-b", limit=2)
    assert prompt_keys.seen(keys, "a") == "m-a"  # now the most recently used
    prompt_keys.remember(keys, "c", "m-c", limit=2)
    assert keys == {"a": "m-a", "c": "m-c"}  # "b" went first
    assert prompt_keys.seen(keys, "b") is None
    assert prompt_keys.PROMPT_KEY_LIMIT == 1024

    agent = CountingAgent()
    monkeypatch.setattr(prompt_keys, "PROMPT_KEY_LIMIT", 1)

    async def main() -> None:
        connection, peer, session_id = await served(agent)
        one = await call(peer, 10, "session/prompt", prompt(session_id, "one", key="k-1"))
        await until_idle(peer)
        await call(peer, 11, "session/prompt", prompt(session_id, "two", key="k-2"))
        await until_idle(peer)
        again = await call(peer, 12, "session/prompt", prompt(session_id, "one", key="k-1"))
        assert again["result"] != one["result"]  # forgotten past the bound: a new submission
        await until_idle(peer)
        other = await call(peer, 13, "session/new", {"cwd": "/tmp"})
        elsewhere = prompt(other["result"]["sessionId"], "three", key="k-1")
        assert (await call(peer, 14, "session/prompt", elsewhere))["result"] != again["result"]
        await until_idle(peer)
        assert agent.ran == ["one", "two", "one", "three"]
        assert agent.sessions[session_id].prompt_keys == {"k-1": again["result"]["messageId"]}
        await connection.close()

    run(main())


def test_a_key_out_of_its_bounds_is_refused_before_anything_is_accepted() -> None:
    agent = CountingAgent()

    async def main() -> None:
        connection, peer, session_id = await served(agent)
        for key in ("", "k" * 256):
            reply = await call(peer, 10, "session/prompt", prompt(session_id, "x", key=key))
            assert reply["error"]["code"] == -32602
        assert agent.ran == []
        await connection.close()

    run(main())


# -- replay_complete ----------------------------------------------------------------------------


def test_replay_complete_comes_once_after_the_history_and_before_the_state_and_answer() -> None:
    agent = CountingAgent()

    async def main() -> None:
        connection, peer, session_id = await served(agent)
        # an empty replay still ends with the marker
        assert tags(await replayed(peer, 10, session_id, **START)) == ["replay_complete"]
        await call(peer, 11, "session/prompt", prompt(session_id, "one"))
        said = [u for u in await until_idle(peer) if u["sessionUpdate"] != "state_update"]
        seen = await replayed(peer, 12, session_id, **START)
        assert seen == [*said, {"sessionUpdate": "replay_complete"}, seen[-1]]
        assert seen[-1]["sessionUpdate"] == "state_update"
        # without replayFrom: no replay, no marker
        assert "replay_complete" not in tags(await replayed(peer, 13, session_id))
        # the marker is never part of the history a later replay sends
        assert tags(await replayed(peer, 14, session_id, **START)).count("replay_complete") == 1
        await connection.close()

    run(main())


def test_a_running_turns_live_updates_wait_for_the_end_of_the_replay() -> None:
    """A resume on the connection whose turn is still running: what the turn says while the
    history is being replayed is held and written after `replay_complete`, in order."""
    agent = CountingAgent()
    agent.hold = asyncio.Event()
    said = asyncio.Event()

    async def main() -> list[str]:
        connection, peer, session_id = await served(agent)
        await call(peer, 10, "session/prompt", prompt(session_id, "one"))
        await until_idle_or(peer, "running")  # the turn waits on `hold`
        send = connection.notify

        async def replaying(method: str, params: object = None) -> None:
            # the first replayed update releases the turn, which speaks before the replay
            # goes on (its `say` returns once the update is held or written)
            if not said.is_set() and agent.hold is not None and not agent.hold.is_set():
                agent.hold.set()
                await agent.spoke.wait()
                said.set()
            await send(method, params)

        connection.notify = replaying  # type: ignore[method-assign]
        seen = await replayed(peer, 11, session_id, **START)
        await connection.close()
        return tags(seen)

    seen = run(main())
    assert said.is_set()
    end = seen.index("replay_complete")
    assert "agent_message_chunk" not in seen[:end] and "agent_message" not in seen[:end]
    assert any(tag.startswith("agent_message") for tag in seen[end:]), seen


async def until_idle_or(peer: RawPeer, state: str) -> None:
    """Read updates up to the first state report in `state`."""
    while True:
        message = await peer.recv()
        update = message["params"]["update"]
        if update["sessionUpdate"] == "state_update" and update["state"] == state:
            return


def test_our_client_sends_the_key_and_sees_a_complete_replay() -> None:
    agent = CountingAgent()

    async def main() -> None:
        client = acp.Client()
        (reader, writer), (peer_reader, peer_writer) = await stream_pair()
        for connection, side in (
            (Connection(reader, writer), agent),
            (Connection(peer_reader, peer_writer), client),
        ):
            connection.dispatcher = side.dispatcher(connection)
            connection.start()
        await client.lifecycle.initialize()
        session = await client.lifecycle.new_session(cwd="/tmp")
        assert session.replay is None
        await session.run_turn([{"type": "text", "text": "one"}], idempotency_key="k")
        first = session.snapshot()["messages"][0]["messageId"]
        assert await session.prompt([{"type": "text", "text": "one"}], idempotency_key="k") == first
        assert agent.ran == ["one"]
        resumed = await client.lifecycle.resume_session(
            session.session_id, "/tmp", replayFrom={"type": "start"}
        )
        assert resumed.replay == "complete"
        assert resumed.snapshot()["messages"][0]["messageId"] == first

    run(main())


@pytest.mark.parametrize("marked", [False, True])
@pytest.mark.parametrize("ending", ["error", "lost"])
def test_a_resume_that_fails_is_truncated_unless_replay_complete_came(
    marked: bool, ending: str
) -> None:
    async def main() -> None:
        client = OnlyV2Client()
        ours, peer = await initialized(client, V2_HELLO)
        said = update("s1", {"sessionUpdate": "user_message", "messageId": "u1", "content": TEXT})
        opening = asyncio.ensure_future(client.lifecycle.new_session("/work"))
        await answer(peer, "session/new", {"sessionId": "s1"}, said)
        session = await guard(opening)
        resuming = asyncio.ensure_future(
            client.lifecycle.resume_session("s1", "/work", replayFrom={"type": "start"})
        )
        request = await peer.recv()
        assert request["method"] == "session/resume"
        await peer.send(said)
        if marked:
            await peer.send(update("s1", {"sessionUpdate": "replay_complete"}))
        if ending == "error":
            error = {"code": -32603, "message": "Internal error"}
            await peer.send({"jsonrpc": "2.0", "id": request["id"], "error": error})
        else:
            peer.close()
        with pytest.raises(Exception):  # noqa: B017 (RpcError, or the lost connection's)
            await guard(resuming)
        assert session.replay == ("complete" if marked else "truncated")
        assert [m["messageId"] for m in session.snapshot()["messages"]] == ["u1"]  # kept
        await ours.close()

    run(main())


# -- v1 gets nothing new -----------------------------------------------------------------------

V1_HELLO = {"protocolVersion": 1, "agentCapabilities": {"loadSession": True}}
V1_INIT = {
    "protocolVersion": 1,
    "clientCapabilities": {},
    "clientInfo": {"name": "c", "version": "1"},
}


def test_a_v1_load_replays_without_replay_complete() -> None:
    agent = CountingAgent()

    async def main() -> None:
        (reader, writer), (peer_reader, peer_writer) = await stream_pair()
        connection = Connection(reader, writer)
        connection.dispatcher = agent.dispatcher(connection)
        connection.start()
        peer = RawPeer(peer_reader, peer_writer)
        assert (await call(peer, 1, "initialize", V1_INIT))["result"]["protocolVersion"] == 1
        setup = {"cwd": "/tmp", "mcpServers": []}
        session_id = (await call(peer, 2, "session/new", setup))["result"]["sessionId"]
        said: list[Any] = []
        params = {"sessionId": session_id, "prompt": [{"type": "text", "text": "one"}]}
        await peer.send({"jsonrpc": "2.0", "id": 3, "method": "session/prompt", "params": params})
        assert (await reply_to(peer, 3, said))["result"]["stopReason"] == "end_turn"
        assert said  # the turn spoke
        seen: list[Any] = []
        load = {"sessionId": session_id, **setup}
        await peer.send({"jsonrpc": "2.0", "id": 4, "method": "session/load", "params": load})
        assert "result" in await reply_to(peer, 4, seen)
        assert seen and "replay_complete" not in tags(seen)
        await connection.close()

    run(main())


def test_our_client_sends_a_v1_agent_no_key_and_keeps_no_replay_status() -> None:
    class OnlyV1Client(acp.Client):
        protocol_versions = (1,)

    async def main() -> None:
        client = OnlyV1Client()
        ours, peer = await initialized(client, V1_HELLO)
        opening = asyncio.ensure_future(client.lifecycle.new_session("/work"))
        await answer(peer, "session/new", {"sessionId": "s1"})
        session = await guard(opening)
        prompting = asyncio.ensure_future(session.prompt(TEXT, idempotency_key="k"))
        sent = await answer(peer, "session/prompt", {"stopReason": "end_turn"})
        assert "idempotencyKey" not in sent["params"]
        await guard(prompting)
        loading = asyncio.ensure_future(
            client.lifecycle.resume_session("s1", "/work", replayFrom={"type": "start"})
        )
        await answer(peer, "session/load", {})  # v1: the replay asked for is a load
        assert (await guard(loading)).replay is None
        await ours.close()

    run(main())
