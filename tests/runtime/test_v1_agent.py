"""One `Agent` subclass, both versions: a v1 client's `initialize` gets v1 and every author call
goes out in v1's words (v1_agent_wire, v1_agent_side); a v2 client of the same class gets v2."""

from __future__ import annotations

import asyncio
import gc
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "generated"))

import acp_bindings as acp  # noqa: E402
from acp_bindings import models  # noqa: E402
from acp_bindings._runtime.rpc.connection import Connection  # noqa: E402
from acp_bindings._runtime.rpc.dispatch import (  # noqa: E402
    Dispatcher,
    ValidatingDispatcher,
    synchronous_requests,
)
from acp_bindings._runtime.v1.agent_side import V1AgentSide  # noqa: E402
from acp_bindings._runtime.v1.client_services import refusal  # noqa: E402
from acp_bindings.v1 import models as v1_models  # noqa: E402

from .streams import RawPeer, RecordingSink, run, stream_pair  # noqa: E402

OPTIONS = [models.PermissionOption(option_id="ok", name="Allow", kind="allow_once")]
V1_INIT = {
    "protocolVersion": 1,
    "clientCapabilities": {},
    "clientInfo": {"name": "c", "version": "1"},
}
V2_INIT = {"protocolVersion": 2, "info": {"name": "c", "version": "1"}}


async def connected(factory: Callable[[Connection], Dispatcher]) -> tuple[Connection, RawPeer]:
    """The agent on a connection of the generated package's own runtime (its error classes are
    the ones its handlers raise), and the raw far end."""
    (reader, writer), (peer_reader, peer_writer) = await stream_pair()
    connection = Connection(reader, writer)
    connection.dispatcher = factory(connection)
    connection.start()
    return connection, RawPeer(peer_reader, peer_writer)


class ScriptedAgent(acp.Agent):
    """A turn with a thought, a plan, a tool call and its permission, and an answer."""

    capabilities = models.AgentCapabilities.model_validate({"session": {"prompt": {"image": {}}}})

    def __init__(self) -> None:
        self.outcomes: list[str | None] = []
        self.release = asyncio.Event()

    async def on_prompt(self, session: acp.Session, prompt: acp.Prompt) -> str | None:
        if prompt.text == "wait":
            await self.release.wait()  # until cancelled
            return None
        if prompt.text == "fail":
            raise RuntimeError("the model is down")
        thought = session.thought()
        await thought.append("planning")
        await session.update_plan(
            [models.PlanEntry(content="read", priority="high", status="pending")]
        )
        call = await session.start_tool_call("Read file", kind="read", rawInput={"path": "/a"})
        await call.append_text("line 1")
        await call.append_text("line 2")
        outcome = await session.request_permission(
            "Read /a?",
            OPTIONS,
            subject=models.ToolCallPermissionSubject(
                tool_call=models.ToolCallUpdate(tool_call_id=call.tool_call_id)
            ),
        )
        self.outcomes.append(acp.selected_option(outcome))
        await call.update(status="completed", rawOutput={"ok": True})
        await session.say("done")
        return "max_tokens" if prompt.text == "long" else None


class V1Client:
    """A v1 client on a raw peer: requests with ids, every message it receives kept."""

    def __init__(self, peer: RawPeer) -> None:
        self.peer = peer
        self.next_id = 0
        self.updates: list[dict[str, Any]] = []
        self.asked: list[dict[str, Any]] = []

    async def call(self, method: str, params: Any, answer_with: str = "ok") -> Any:
        """Send a request and return its answer, answering permission requests on the way."""
        self.next_id += 1
        await self.peer.send(
            {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        )
        while True:
            message = await self.peer.recv()
            if message.get("method") == "session/update":
                self.updates.append(message["params"]["update"])
            elif message.get("method") == "session/request_permission":
                self.asked.append(message["params"])
                outcome = {"outcome": "selected", "optionId": answer_with}
                await self.peer.send(
                    {"jsonrpc": "2.0", "id": message["id"], "result": {"outcome": outcome}}
                )
            elif message.get("id") == self.next_id:
                return message

    async def start(self) -> str:
        answer = await self.call("initialize", V1_INIT)
        assert answer["result"]["protocolVersion"] == 1, answer
        created = await self.call("session/new", {"cwd": "/tmp", "mcpServers": []})
        session_id: str = created["result"]["sessionId"]
        return session_id


def test_initialize_answers_v1_with_derived_capabilities() -> None:
    async def main() -> tuple[dict[str, Any], Any]:
        connection, peer = await connected(ScriptedAgent().dispatcher)
        answer = await V1Client(peer).call("initialize", V1_INIT)
        result: dict[str, Any] = answer["result"]
        return result, connection.dispatcher

    result, settled = run(main())
    # Answered, the connection reads this client's messages through v1's checks directly.
    assert isinstance(settled, ValidatingDispatcher) and isinstance(settled.inner, V1AgentSide)
    parsed = v1_models.InitializeResponse.model_validate(result)
    assert parsed.protocol_version == 1
    assert result["agentInfo"] == {"name": "acp-agent", "version": "0.0.0"}
    caps = result["agentCapabilities"]
    assert caps["promptCapabilities"] == {"image": True, "audio": False, "embeddedContext": False}
    assert caps["loadSession"] is True
    assert set(caps["sessionCapabilities"]) == {"list", "resume", "close"}  # no delete hook


def test_a_turn_in_v1_words() -> None:
    agent = ScriptedAgent()

    async def main() -> tuple[V1Client, Any]:
        _, peer = await connected(agent.dispatcher)
        client = V1Client(peer)
        session_id = await client.start()
        answer = await client.call(
            "session/prompt", {"sessionId": session_id, "prompt": [{"type": "text", "text": "go"}]}
        )
        return client, answer

    client, answer = run(main())
    assert answer["result"] == {"stopReason": "end_turn"}  # the answer is the turn's end
    tags = [u["sessionUpdate"] for u in client.updates]
    assert tags == [
        "agent_thought_chunk",
        "plan",
        "tool_call",
        "tool_call_update",
        "tool_call_update",
        "tool_call_update",
        "agent_message_chunk",
    ]
    for update in client.updates:  # every one is v1 as upstream's v1 types read it
        v1_models.SessionNotification.model_validate({"sessionId": "s", "update": update})
    thought, plan, first, one, two, done, message = client.updates
    assert thought["content"] == {"type": "text", "text": "planning"} and "messageId" in thought
    assert plan["entries"] == [{"content": "read", "priority": "high", "status": "pending"}]
    assert (
        first["title"] == "Read file"
        and first["kind"] == "read"
        and first["rawInput"] == {"path": "/a"}
    )
    texts = [[item["content"]["text"] for item in u["content"]] for u in (one, two)]
    assert texts == [["line 1"], ["line 1", "line 2"]]  # v1 content replaces: the whole list so far
    assert done["status"] == "completed" and done["rawOutput"] == {"ok": True}
    assert message["content"] == {"type": "text", "text": "done"}
    (asked,) = client.asked
    assert asked["toolCall"]["toolCallId"] == first["toolCallId"]
    v1_models.RequestPermissionRequest.model_validate(asked)
    assert agent.outcomes == ["ok"]


def test_stop_reasons_and_failures() -> None:
    async def main() -> tuple[Any, Any]:
        _, peer = await connected(ScriptedAgent().dispatcher)
        client = V1Client(peer)
        session_id = await client.start()
        long = await client.call(
            "session/prompt",
            {"sessionId": session_id, "prompt": [{"type": "text", "text": "long"}]},
        )
        failed = await client.call(
            "session/prompt",
            {"sessionId": session_id, "prompt": [{"type": "text", "text": "fail"}]},
        )
        return long, failed

    long, failed = run(main())
    assert long["result"] == {"stopReason": "max_tokens"}
    assert failed["error"]["code"] == -32603  # v1 has no error stop reason


def test_cancel_ends_the_turn_cancelled() -> None:
    async def main() -> Any:
        _, peer = await connected(ScriptedAgent().dispatcher)
        client = V1Client(peer)
        session_id = await client.start()
        prompt = {"sessionId": session_id, "prompt": [{"type": "text", "text": "wait"}]}
        pending = asyncio.ensure_future(client.call("session/prompt", prompt))
        await asyncio.sleep(0)  # let the request go out first (ordering, not timing)
        await peer.send(
            {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": session_id}}
        )
        return await pending

    answer = run(main())
    assert answer["result"] == {"stopReason": "cancelled"}


def test_load_replays_the_session_in_v1_words() -> None:
    async def main() -> tuple[V1Client, Any]:
        _, peer = await connected(ScriptedAgent().dispatcher)
        client = V1Client(peer)
        session_id = await client.start()
        await client.call(
            "session/prompt", {"sessionId": session_id, "prompt": [{"type": "text", "text": "go"}]}
        )
        client.updates.clear()
        loaded = await client.call(
            "session/load", {"sessionId": session_id, "cwd": "/tmp", "mcpServers": []}
        )
        return client, loaded

    client, loaded = run(main())
    assert loaded["result"] == {}
    tags = [u["sessionUpdate"] for u in client.updates]
    assert tags[0] == "user_message_chunk" and client.updates[0]["content"]["text"] == "go"
    assert "tool_call" in tags and "agent_message_chunk" in tags and "plan" in tags
    assert "state_update" not in tags


def test_a_v2_client_of_the_same_class_gets_v2() -> None:
    async def main() -> tuple[Any, Any]:
        _, peer = await connected(ScriptedAgent().dispatcher)
        client = V1Client(peer)
        init = await client.call("initialize", V2_INIT)
        created = await client.call("session/new", {"cwd": "/tmp"})
        prompt = {
            "sessionId": created["result"]["sessionId"],
            "prompt": [{"type": "text", "text": "hi"}],
        }
        return init, await client.call("session/prompt", prompt)

    init, answer = run(main())
    assert init["result"]["protocolVersion"] == 2 and "capabilities" in init["result"]
    assert set(answer["result"]) == {"messageId"}  # v2's receipt


@pytest.mark.parametrize(("init", "most"), [(V1_INIT, 6), (V2_INIT, 6)])
def test_a_session_that_sent_nothing_keeps_few_objects_for_the_collector(
    init: dict[str, Any], most: int
) -> None:
    """An agent keeps every session it opened; what each holds is walked by the cyclic
    collector, whose passes cost a busy agent's round trips. A session that has sent nothing
    has no history recorder yet and, on v1, no dialect yet: its first report makes it (it
    was 24 objects a v1 session, 9 a v2 one; then 7 a v1 session while its dialect was made
    with it)."""

    async def main() -> float:
        _, peer = await connected(ScriptedAgent().dispatcher)
        client = V1Client(peer)
        await client.call("initialize", init)
        params = {"cwd": "/tmp", "mcpServers": []}
        for _ in range(5):  # first calls fill caches
            await client.call("session/new", params)
        gc.collect()
        before = len(gc.get_objects())
        for _ in range(100):
            await client.call("session/new", params)
        gc.collect()
        return (len(gc.get_objects()) - before) / 100

    assert run(main()) <= most


def test_an_agent_serving_only_v2_refuses_v1() -> None:
    class OnlyV2(ScriptedAgent):
        protocol_versions = (2,)

    async def main() -> Any:
        _, peer = await connected(OnlyV2().dispatcher)
        return await V1Client(peer).call("initialize", V1_INIT)

    answer = run(main())
    assert answer["error"]["code"] == -32022


@pytest.mark.parametrize("version", [1, 2])
def test_prompt_before_initialize_is_refused(version: int) -> None:
    async def main() -> Any:
        _, peer = await connected(ScriptedAgent().dispatcher)
        return await V1Client(peer).call("session/new", {"cwd": "/tmp", "mcpServers": []})

    assert run(main())["error"]["code"] == -32600


class ReadingAgent(acp.Agent):
    """Reads a file through v1's client services; says what it read, or why it could not."""

    async def on_prompt(self, session: acp.Session, prompt: acp.Prompt) -> str | None:
        request = v1_models.ReadTextFileRequest(session_id=session.session_id, path="/notes.txt")
        try:
            answer = await self.client_services.fs_read_text_file(request)
        except acp.ClientServiceUnavailable as error:
            await session.say(f"refused: {error}")
        else:
            await session.say(f"read: {answer.content}")
        return None


async def reading_turn(init: dict[str, Any], new_session: dict[str, Any]) -> tuple[str, list[Any]]:
    """The agent's reply and the requests it sent, the client serving fs/read_text_file."""
    _, peer = await connected(ReadingAgent().dispatcher)
    await peer.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init})
    await peer.recv()
    await peer.send({"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": new_session})
    session_id = (await peer.recv())["result"]["sessionId"]
    prompt = {"sessionId": session_id, "prompt": [{"type": "text", "text": "read"}]}
    await peer.send({"jsonrpc": "2.0", "id": 3, "method": "session/prompt", "params": prompt})
    texts: list[str] = []
    asked: list[Any] = []
    while True:
        message = await peer.recv()
        if message.get("method") == "fs/read_text_file":
            asked.append(message["params"])
            await peer.send({"jsonrpc": "2.0", "id": message["id"], "result": {"content": "hello"}})
        elif message.get("method") == "session/update":
            update = message["params"]["update"]
            if update["sessionUpdate"] in ("agent_message", "agent_message_chunk"):
                content = update["content"]
                texts += [b["text"] for b in (content if isinstance(content, list) else [content])]
            if update.get("state") == "idle":
                return "".join(texts), asked
        elif message.get("id") == 3 and "stopReason" in message.get("result", {}):
            return "".join(texts), asked


def test_client_services_reach_a_v1_client_that_offers_them() -> None:
    init = {**V1_INIT, "clientCapabilities": {"fs": {"readTextFile": True}}}
    reply, asked = run(reading_turn(init, {"cwd": "/tmp", "mcpServers": []}))
    assert reply == "read: hello"
    assert [a["path"] for a in asked] == ["/notes.txt"]


def test_client_services_are_refused_without_the_capability() -> None:
    reply, asked = run(reading_turn(V1_INIT, {"cwd": "/tmp", "mcpServers": []}))
    assert asked == []  # nothing was sent
    assert reply.startswith("refused: fs/read_text_file: ")
    assert "clientCapabilities.fs.readTextFile" in reply


def test_client_services_are_refused_on_v2() -> None:
    reply, asked = run(reading_turn(V2_INIT, {"cwd": "/tmp"}))
    assert asked == []
    assert "protocol version 2" in reply and "removed" in reply


def test_resume_reopens_without_replay() -> None:
    async def main() -> tuple[V1Client, Any]:
        _, peer = await connected(ScriptedAgent().dispatcher)
        client = V1Client(peer)
        session_id = await client.start()
        prompt = [{"type": "text", "text": "go"}]
        await client.call("session/prompt", {"sessionId": session_id, "prompt": prompt})
        await client.call("session/close", {"sessionId": session_id})
        client.updates.clear()
        resumed = await client.call("session/resume", {"sessionId": session_id, "cwd": "/tmp"})
        again = await client.call("session/prompt", {"sessionId": session_id, "prompt": prompt})
        return client, (resumed, again)

    client, (resumed, again) = run(main())
    assert resumed["result"] == {}
    assert again["result"] == {"stopReason": "end_turn"}  # open again
    assert client.updates[0]["sessionUpdate"] == "agent_thought_chunk"  # no replay before it


class CommandsAgent(acp.Agent):
    async def on_prompt(self, session: acp.Session, prompt: acp.Prompt) -> str | None:
        return None

    async def on_new_session(self, session: acp.Session) -> dict[str, Any]:
        command = {"type": "command", "name": "review", "description": "Review the diff"}
        return {"availableCommands": [command]}


def test_new_session_commands_follow_the_answer_as_an_update() -> None:
    async def main() -> list[Any]:
        _, peer = await connected(CommandsAgent().dispatcher)
        client = V1Client(peer)
        await client.call("initialize", V1_INIT)
        params = {"cwd": "/tmp", "mcpServers": []}
        await peer.send({"jsonrpc": "2.0", "id": 9, "method": "session/new", "params": params})
        return [await peer.recv(), await peer.recv()]

    answer, update = run(main())
    assert set(answer["result"]) == {"sessionId"}  # v1's session/new result has no commands
    assert update["params"]["update"] == {
        "sessionUpdate": "available_commands_update",
        "availableCommands": [{"name": "review", "description": "Review the diff"}],
    }


class EchoAgent(ScriptedAgent):
    async def ext_method(self, method: str, params: Any) -> Any:
        return {"method": method, "params": params}


def test_extension_methods_reach_the_author_on_v1() -> None:
    async def main() -> Any:
        _, peer = await connected(EchoAgent().dispatcher)
        client = V1Client(peer)
        await client.start()
        return await client.call("_bench/echo", {"n": 1})

    assert run(main())["result"] == {"method": "_bench/echo", "params": {"n": 1}}


@pytest.mark.parametrize(
    ("method", "version", "capabilities", "why"),
    [
        ("terminal/create", 1, {"terminal": True}, None),
        ("terminal/output", 1, {"terminal": False}, "clientCapabilities.terminal"),
        ("fs/write_text_file", 1, {"fs": {"readTextFile": True}}, "fs.writeTextFile"),
        ("fs/write_text_file", 1, {"fs": {"writeTextFile": True}}, None),
        ("fs/read_text_file", None, {}, "not initialized"),
        ("terminal/kill", 2, {"terminal": True}, "protocol version 2"),
        ("session/update", 1, {}, "not a client service"),
    ],
)
def test_what_each_client_service_needs(
    method: str, version: int | None, capabilities: dict[str, Any], why: str | None
) -> None:
    found = refusal(method, version, capabilities)
    assert found is None if why is None else (found is not None and why in found)


def test_the_agent_answers_session_new_at_once_only_without_a_hook_of_the_authors() -> None:
    """Without an `on_new_session` of the author's nothing awaits in `session/new`: both
    versions declare it answered at once (no task); with one, it runs as a task."""

    class Hooked(ScriptedAgent):
        async def on_new_session(self, session: acp.Session) -> dict[str, Any] | None:
            return None

    async def offered() -> list[frozenset[str]]:
        sets = []
        for agent in (ScriptedAgent(), Hooked()):
            connection = Connection(asyncio.StreamReader(), RecordingSink())
            sets.append(synchronous_requests(agent.dispatcher(connection)))
        return sets

    plain, hooked = run(offered())
    assert plain == {"initialize", "session/new"}
    assert hooked == {"initialize"}
