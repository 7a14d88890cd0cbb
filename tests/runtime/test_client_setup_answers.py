"""The generated client against scripted agents on the wire (a raw peer answering each request
as a real agent did): what a session setup answer carries is in the snapshot on v1 and v2, an
`initialize` body that is not the named version's answer falls back to v1 or fails, a whole
replay rebuilds a held session instead of adding to it, and a v1 permission request's tool call
keeps the call's title."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import acp_codegen._bindings as acp
import pytest
from acp_codegen._bindings._runtime.rpc.connection import Connection
from acp_codegen._bindings._runtime.wire.errors import ProtocolUsageError

from .streams import RawPeer, guard, run, stream_pair

V2_HELLO = {"protocolVersion": 2, "info": {"name": "scripted", "version": "1"}}
V1_HELLO = {"protocolVersion": 1, "agentCapabilities": {"loadSession": True}}
# fast-agent's answer to a v2 `initialize`: version 2 named, v1's body (v1's member names).
V1_BODY_NAMED_V2 = {
    "protocolVersion": 2,
    "agentCapabilities": {"loadSession": True, "promptCapabilities": {"image": True}},
    "agentInfo": {"name": "fast-agent", "version": "0.3"},
    "authMethods": [],
}
MODEL = {
    "type": "select",
    "configId": "model",
    "name": "Model",
    "currentValue": "fast",
    "options": [{"value": "fast", "name": "Fast"}, {"value": "deep", "name": "Deep"}],
}
DEPLOY = {"type": "command", "name": "deploy", "description": "ship the build"}
TEXT = [{"type": "text", "text": "hi"}]
OPTIONS = [{"optionId": "yes", "name": "Allow", "kind": "allow_once"}]


class OnlyV2Client(acp.Client):
    protocol_versions = (2,)


class OnlyV1Client(acp.Client):
    protocol_versions = (1,)


async def connect(client: acp.Client) -> tuple[Connection, RawPeer]:
    (reader, writer), (peer_reader, peer_writer) = await stream_pair()
    ours = Connection(reader, writer)
    ours.dispatcher = client.dispatcher(ours)
    ours.start()
    return ours, RawPeer(peer_reader, peer_writer)


async def answer(peer: RawPeer, method: str, result: Any, *before: Any) -> dict[str, Any]:
    """Read the next request (it must be `method`), send `before` (updates), then answer."""
    message: dict[str, Any] = await peer.recv()
    assert message["method"] == method, message
    await peer.send(*before, {"jsonrpc": "2.0", "id": message["id"], "result": result})
    return message


async def initialized(client: acp.Client, hello: dict[str, Any]) -> tuple[Connection, RawPeer]:
    ours, peer = await connect(client)
    task = asyncio.ensure_future(client.lifecycle.initialize())
    await answer(peer, "initialize", hello)
    await guard(task)
    return ours, peer


def update(session_id: str, body: dict[str, Any]) -> dict[str, Any]:
    params = {"sessionId": session_id, "update": body}
    return {"jsonrpc": "2.0", "method": "session/update", "params": params}


# -- 1. setup answers folded -------------------------------------------------------------------


def test_a_v2_new_session_answer_puts_its_options_and_commands_in_the_snapshot() -> None:
    async def main() -> None:
        client = OnlyV2Client()
        ours, peer = await initialized(client, V2_HELLO)
        opening = asyncio.ensure_future(client.lifecycle.new_session("/work"))
        said = {"sessionId": "s1", "configOptions": [MODEL], "availableCommands": [DEPLOY]}
        await answer(peer, "session/new", said)
        session = await guard(opening)
        snapshot = session.snapshot()
        assert snapshot["configOptions"] == [MODEL]
        assert snapshot["availableCommands"] == [DEPLOY]
        # A resume's answer says the state as it is now: it replaces what was held.
        resuming = asyncio.ensure_future(client.lifecycle.resume_session("s1", "/work"))
        picked = {**MODEL, "currentValue": "deep"}
        await answer(peer, "session/resume", {"configOptions": [picked], "availableCommands": []})
        assert await guard(resuming) is session
        assert session.snapshot()["configOptions"] == [picked]
        assert session.snapshot()["availableCommands"] == []
        await ours.close()

    run(main())


class StrictClient(OnlyV2Client):
    strict = True


@pytest.mark.parametrize(("client", "kept"), [(OnlyV2Client, [DEPLOY]), (StrictClient, None)])
def test_a_bad_part_of_a_setup_answer_is_not_folded(
    client: type[acp.Client], kept: list[Any] | None
) -> None:
    """Read as the schema lets a reader recover (a bad command dropped, the rest kept); a strict
    client leaves the whole member out. Neither reaches the snapshot (chat reads `name`)."""

    async def main() -> None:
        lifecycle = client()
        ours, peer = await initialized(lifecycle, V2_HELLO)
        opening = asyncio.ensure_future(lifecycle.lifecycle.new_session("/work"))
        commands = [DEPLOY, {"type": "command", "description": "no name"}]
        bad = {"sessionId": "s1", "configOptions": [MODEL], "availableCommands": commands}
        await answer(peer, "session/new", bad)
        snapshot = (await guard(opening)).snapshot()
        assert snapshot["configOptions"] == [MODEL] and snapshot["availableCommands"] == kept
        await ours.close()

    run(main())


def test_a_v1_load_answer_folds_its_modes_and_options_the_same_way() -> None:
    async def main() -> None:
        client = OnlyV1Client()
        ours, peer = await initialized(client, V1_HELLO)
        loading = asyncio.ensure_future(client.lifecycle.load_session("s1", "/work"))
        v1_model = {key: value for key, value in MODEL.items() if key != "configId"}
        modes = {"currentModeId": "ask", "availableModes": [{"id": "ask", "name": "Ask"}]}
        result = {"modes": modes, "configOptions": [{**v1_model, "id": "model"}]}
        await answer(peer, "session/load", result)
        options: Any = (await guard(loading)).snapshot()["configOptions"]
        assert [option["configId"] for option in options] == ["model", "mode"]
        assert options[0] == MODEL and options[1]["currentValue"] == "ask"
        await ours.close()

    run(main())


# -- 3. a version answered with another version's body ----------------------------------------


def test_a_v2_answer_with_a_v1_body_falls_back_to_v1_when_v1_was_offered(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def main() -> None:
        client = acp.Client()  # offers 2, accepts 1
        with caplog.at_level(logging.WARNING):
            ours, peer = await initialized(client, V1_BODY_NAMED_V2)
        assert client.lifecycle.protocol_version == 1
        assert client.lifecycle.agent_info == {"name": "fast-agent", "version": "0.3"}
        assert client.lifecycle.agent_capabilities["loadSession"] is True
        # Driven as v1: `session/new` with v1's required MCP server list, a v1 turn.
        opening = asyncio.ensure_future(client.lifecycle.new_session("/work"))
        sent = await answer(peer, "session/new", {"sessionId": "s1"})
        assert sent["params"] == {"cwd": "/work", "mcpServers": []}
        session = await guard(opening)
        turn = asyncio.ensure_future(session.run_turn(TEXT))
        chunk = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "ok"}}
        await answer(peer, "session/prompt", {"stopReason": "end_turn"}, update("s1", chunk))
        assert await guard(turn) == "end_turn"
        await ours.close()

    run(main())
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any(
        "answered protocol version 2" in line
        and "not a version 2 answer" in line
        and "missing info" in line
        and "speaks version 1" in line
        and "agent's fault" in line
        for line in warned
    ), warned


def test_a_v2_answer_with_a_v1_body_fails_at_once_when_only_v2_was_offered() -> None:
    async def main() -> None:
        client = OnlyV2Client()
        ours, peer = await connect(client)
        task = asyncio.ensure_future(client.lifecycle.initialize())
        await answer(peer, "initialize", V1_BODY_NAMED_V2)
        with pytest.raises(ProtocolUsageError) as raised:
            await guard(task)
        message = str(raised.value)
        assert "answered protocol version 2" in message and "not a version 2 answer" in message
        assert "agent's fault" in message
        assert not client.lifecycle.initialized
        assert await guard(peer.at_eof())  # closed: nothing more is sent
        await ours.close()

    run(main())


@pytest.mark.parametrize("capabilities", [None, [], "all"])
def test_a_v2_body_with_a_bad_value_is_still_a_v2_answer(capabilities: Any) -> None:
    """Only a missing required member makes a body another version's: a broken v2 answer
    (v2's `info` there) is not driven on v1."""

    async def main() -> None:
        client = acp.Client()
        ours, _ = await initialized(client, {**V2_HELLO, "capabilities": capabilities})
        assert client.lifecycle.protocol_version == 2
        await ours.close()

    run(main())


# -- 4. a whole replay rebuilds ----------------------------------------------------------------


def replay(session_id: str) -> list[dict[str, Any]]:
    """Two exchanges as a v1 agent replays them (chunks without message ids)."""
    said = []
    for role, text in (("user", "q1"), ("agent", "a1"), ("user", "q2"), ("agent", "a2")):
        body = {"sessionUpdate": f"{role}_message_chunk", "content": {"type": "text", "text": text}}
        said.append(update(session_id, body))
    return said


def texts(session: Any) -> list[str]:
    return ["".join(b["text"] for b in m["content"]) for m in session.snapshot()["messages"]]


def test_a_v1_reload_of_a_held_session_rebuilds_it_from_the_replay() -> None:
    async def main() -> None:
        client = OnlyV1Client()
        ours, peer = await initialized(client, V1_HELLO)
        for _ in range(2):
            loading = asyncio.ensure_future(client.lifecycle.load_session("s1", "/work"))
            await answer(peer, "session/load", {}, *replay("s1"))
            session = await guard(loading)
            assert texts(session) == ["q1", "a1", "q2", "a2"]  # 4 messages, never 8
        await ours.close()

    run(main())


def test_a_refused_reload_keeps_what_the_session_held() -> None:
    async def main() -> None:
        client = OnlyV1Client()
        ours, peer = await initialized(client, V1_HELLO)
        loading = asyncio.ensure_future(client.lifecycle.load_session("s1", "/work"))
        await answer(peer, "session/load", {}, *replay("s1"))
        session = await guard(loading)
        again = asyncio.ensure_future(client.lifecycle.load_session("s1", "/work"))
        request = await peer.recv()
        error = {"code": -32002, "message": "Resource not found"}
        await peer.send({"jsonrpc": "2.0", "id": request["id"], "error": error})
        with pytest.raises(acp.RpcError):
            await guard(again)
        assert texts(session) == ["q1", "a1", "q2", "a2"]
        await ours.close()

    run(main())


def test_a_v2_resume_replaying_from_the_start_rebuilds_a_held_session() -> None:
    async def main() -> None:
        client = OnlyV2Client()
        ours, peer = await initialized(client, V2_HELLO)
        history = [
            update("s1", {"sessionUpdate": "user_message", "messageId": "u1", "content": TEXT}),
            update(
                "s1",
                {
                    "sessionUpdate": "agent_message_chunk",
                    "messageId": "m1",
                    "content": {"type": "text", "text": "hello"},
                },
            ),
        ]
        opening = asyncio.ensure_future(client.lifecycle.new_session("/work"))
        await answer(peer, "session/new", {"sessionId": "s1"}, *history)  # as it was said
        session = await guard(opening)
        assert texts(session) == ["hi", "hello"]
        for _ in range(2):
            resuming = asyncio.ensure_future(
                client.lifecycle.resume_session("s1", "/work", replayFrom={"type": "start"})
            )
            await answer(peer, "session/resume", {}, *history)
            assert await guard(resuming) is session
            assert texts(session) == ["hi", "hello"]  # not "hellohello"
        await ours.close()

    run(main())


# -- 5. a v1 permission request's tool call is the call's own ---------------------------------


def test_a_v1_permission_request_keeps_the_title_of_the_call_it_is_about() -> None:
    async def main() -> None:
        asked: list[Any] = []

        class Asking(OnlyV1Client):
            async def on_permission(self, session: Any, request: Any) -> Any:
                asked.append(request.params)
                return {"outcome": "selected", "optionId": "yes"}

        client = Asking()
        ours, peer = await initialized(client, V1_HELLO)
        opening = asyncio.ensure_future(client.lifecycle.new_session("/work"))
        await answer(peer, "session/new", {"sessionId": "s1"})
        session = await guard(opening)
        turn = asyncio.ensure_future(session.run_turn(TEXT))
        prompt = await peer.recv()
        call = {"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Write notes.md"}
        ask = {"toolCallId": "t1", "status": "pending", "kind": "edit"}  # no title of its own
        params = {"sessionId": "s1", "toolCall": ask, "options": OPTIONS}
        request = {"jsonrpc": "2.0", "id": "p1", "method": "session/request_permission"}
        await peer.send(update("s1", call), {**request, "params": params})
        assert (await peer.recv())["id"] == "p1"
        held = session.snapshot()["toolCalls"]["t1"]
        assert held["title"] == "Write notes.md" and held["kind"] == "edit"
        assert asked[0]["title"] == "Write notes.md"  # the question is the call's title
        # A title the request's tool call gives is the call's own: it is the call's now.
        renamed: dict[str, Any] = {
            **params,
            "toolCall": {**ask, "title": "Write notes.md (2 lines)"},
        }
        await peer.send({**request, "id": "p2", "params": renamed})
        assert (await peer.recv())["id"] == "p2"
        assert session.snapshot()["toolCalls"]["t1"]["title"] == "Write notes.md (2 lines)"
        await peer.send(
            {"jsonrpc": "2.0", "id": prompt["id"], "result": {"stopReason": "end_turn"}}
        )
        assert await guard(turn) == "end_turn"
        await ours.close()

    run(main())
