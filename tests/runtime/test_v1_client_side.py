"""ClientSide against a raw v1 agent on the wire: negotiation, turns, permissions, cancel,
and v1's client services (fs/terminal) answered only when advertised."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from acp_codegen.runtime.client.client_side import ClientSession, ClientSide
from acp_codegen.runtime.client.dialect import V2ClientWire
from acp_codegen.runtime.client.permission_request import PermissionRequest
from acp_codegen.runtime.rpc.connection import Connection
from acp_codegen.runtime.rpc.dispatch import Dispatcher, TableDispatcher, ValidatingDispatcher
from acp_codegen.runtime.v1.assembly import V1Tables
from acp_codegen.runtime.wire.errors import UnsupportedProtocolVersion
from pydantic import ValidationError

from .rules import RULES
from .streams import RawPeer, connected, guard, run

V1_SCHEMA = (
    Path(__file__).resolve().parents[1] / "fixtures" / "upstream" / "v1-2.4.0" / "schema.json"
)
INFO = {"name": "test-client", "version": "1"}
TEXT = [{"type": "text", "text": "hi"}]
OPTIONS = [
    {"optionId": "yes", "name": "Allow", "kind": "allow_once"},
    {"optionId": "no", "name": "Reject", "kind": "reject_once"},
]


@pytest.fixture(scope="module")
def v1(schema_packages: Any) -> ModuleType:
    """A package generated from upstream's v1 schema (SDK 2.4.0): its tables."""
    package: ModuleType = schema_packages(V1_SCHEMA, "acp_codegen_v1_240_client")
    return package


def tables(v1: ModuleType) -> V1Tables:
    methods, tolerance = v1.methods, v1.tolerance
    return V1Tables(
        methods.AGENT_SPECS,
        methods.CLIENT_SPECS,
        {**tolerance.params_repairs(), **tolerance.client_notification_repairs()},
        tolerance.client_request_repairs(),
    )


class Files:
    """An application's typed v1 fs handlers (params/result as v1's models)."""

    def __init__(self, v1: ModuleType) -> None:
        self.models = v1.models
        self.read: list[Any] = []

    async def fs_read_text_file(self, *, params: Any) -> Any:
        self.read.append(params)
        return self.models.ReadTextFileResponse(content=f"text of {params.path}")


# Permission requests as the application's hook gets them, with the future that answers each.
Asks = asyncio.Queue[tuple[PermissionRequest, "asyncio.Future[dict[str, Any]]"]]


async def client(v1: ModuleType, *, files: bool = False) -> tuple[ClientSide, RawPeer, Asks]:
    sides: list[ClientSide] = []
    asks: Asks = asyncio.Queue()

    async def hook(session: ClientSession[Any], request: PermissionRequest) -> dict[str, Any]:
        answer: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        await asks.put((request, answer))
        return await answer

    def factory(connection: Connection) -> Dispatcher:
        services = TableDispatcher(v1.methods.CLIENT_SPECS, Files(v1)) if files else None
        side = ClientSide(
            connection,
            info=INFO,
            rules=RULES,
            v1=tables(v1),
            v1_services=services,
            v1_handled=["fs/read_text_file"] if files else [],
            on_permission=hook,
        )
        sides.append(side)
        return side.versioned(ValidatingDispatcher((), side))

    _, peer = await connected(factory)
    return sides[0], peer, asks


async def answer(peer: RawPeer, method: str, result: Any) -> dict[str, Any]:
    message: dict[str, Any] = await peer.recv()
    assert message["method"] == method, message
    await peer.send({"jsonrpc": "2.0", "id": message["id"], "result": result})
    return message


def update(body: dict[str, Any]) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": "s1", "update": body},
    }


async def v1_session(v1: ModuleType, *, files: bool = False) -> tuple[Asks, RawPeer, ClientSession]:
    side, peer, asks = await client(v1, files=files)
    assert isinstance(side.wire, V2ClientWire)  # v2's until initialize settles another
    task = asyncio.create_task(side.initialize())
    sent = await answer(
        peer, "initialize", {"protocolVersion": 1, "agentInfo": {"name": "old", "version": "0"}}
    )
    await guard(task)
    params = sent["params"]
    assert params["protocolVersion"] == 2 and params["info"] == INFO == params["clientInfo"]
    assert params["clientCapabilities"]["fs"] == {"readTextFile": files, "writeTextFile": False}
    assert params["clientCapabilities"]["terminal"] is False
    # What every session state folds: a gating agent sends it as it is (core/client_gates.py).
    assert params["clientCapabilities"]["session"] == {
        "notices": {},
        "compaction": {},
        "configOptions": {"boolean": {}},
    }
    assert side.protocol_version == 1 and side.agent_info == {"name": "old", "version": "0"}
    # Settled: the connection reads v1's messages through v1's checks, no longer via the router.
    checked = side.connection.dispatcher
    assert isinstance(checked, ValidatingDispatcher) and checked.inner is side.v1
    assert side.wire is side.v1  # and speaks through v1's dialect
    task2 = asyncio.create_task(side.new_session("/work"))
    modes = {"currentModeId": "ask", "availableModes": [{"id": "ask", "name": "Ask"}]}
    new = await answer(peer, "session/new", {"sessionId": "s1", "modes": modes})
    assert new["params"] == {"cwd": "/work", "mcpServers": []}
    session = await guard(task2)
    assert session.snapshot()["configOptions"][0]["currentValue"] == "ask"
    return asks, peer, session


def test_a_v2_only_client_still_refuses_a_v1_answer() -> None:
    async def main() -> None:
        sides: list[ClientSide] = []

        def factory(connection: Connection) -> ClientSide:
            sides.append(ClientSide(connection, info=INFO, rules=RULES))
            return sides[0]

        _, peer = await connected(factory)
        task = asyncio.create_task(sides[0].initialize())
        sent = await answer(peer, "initialize", {"protocolVersion": 1})
        assert "clientCapabilities" not in sent["params"]
        with pytest.raises(UnsupportedProtocolVersion):
            await guard(task)

    run(main())


def test_a_v1_turn_folds_updates_and_ends_with_the_answers_stop_reason(v1: ModuleType) -> None:
    async def main() -> None:
        _, peer, session = await v1_session(v1)
        turn = asyncio.create_task(session.run_turn(TEXT))
        prompt = await peer.recv()
        assert prompt["method"] == "session/prompt" and prompt["params"]["prompt"] == TEXT
        assert session.state.state == "running"
        await peer.send(
            update(
                {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "Hel"}}
            ),
            update(
                {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "lo"}}
            ),
            {"jsonrpc": "2.0", "id": prompt["id"], "result": {"stopReason": "end_turn"}},
        )
        assert await guard(turn) == "end_turn"
        snapshot = session.snapshot()
        assert snapshot["state"] == "idle" and snapshot["stopReason"] == "end_turn"
        user, agent = snapshot["messages"]
        assert user["role"] == "user" and user["content"] == TEXT
        assert agent["role"] == "agent" and [b["text"] for b in agent["content"]] == ["Hel", "lo"]

    run(main())


def test_the_models_a_gemini_style_setup_answer_names_fold_as_a_model_option(
    v1: ModuleType,
) -> None:
    """gemini-cli and qwen-code answer `session/new` with older unstable v1's `models` beside
    `modes`: the session state shows them as a select config option of category `model`."""

    async def main() -> None:
        side, peer, _ = await client(v1)
        task = asyncio.create_task(side.initialize())
        await answer(peer, "initialize", {"protocolVersion": 1})
        await guard(task)
        setup = asyncio.create_task(side.new_session("/work"))
        models = {
            "currentModelId": "gemini-2.5-pro",
            "availableModels": [
                {"modelId": "gemini-2.5-pro", "name": "Pro", "description": "deep"},
                {"modelId": "gemini-2.5-flash", "name": "Flash", "description": None},
            ],
        }
        modes = {"currentModeId": "default", "availableModes": [{"id": "default", "name": "D"}]}
        await answer(peer, "session/new", {"sessionId": "s1", "modes": modes, "models": models})
        session = await guard(setup)
        mode, model = session.snapshot()["configOptions"]
        assert mode["category"] == "mode"
        assert (model["configId"], model["category"]) == ("model", "model")
        assert model["currentValue"] == "gemini-2.5-pro"
        assert model["options"] == [
            {"value": "gemini-2.5-pro", "name": "Pro", "description": "deep"},
            {"value": "gemini-2.5-flash", "name": "Flash"},
        ]

    run(main())


def test_prompt_returns_the_id_of_the_recorded_user_message(v1: ModuleType) -> None:
    async def main() -> None:
        _, peer, session = await v1_session(v1)
        task = asyncio.create_task(session.prompt(TEXT))
        await answer(peer, "session/prompt", {"stopReason": "max_tokens"})
        message_id = await guard(task)
        assert session.snapshot()["messages"][0]["messageId"] == message_id
        assert session.state.stop_reason == "max_tokens"

    run(main())


def test_what_v1_does_not_allow_is_refused_before_anything_is_sent(v1: ModuleType) -> None:
    async def main() -> None:
        _, peer, session = await v1_session(v1)
        with pytest.raises(ValidationError):
            await session.prompt([{"type": "text"}])  # v1's TextContent needs its text
        assert session.snapshot()["messages"] == [] and session.state.state is None
        await session.cancel()  # the next message on the wire is this one
        assert (await peer.recv())["method"] == "session/cancel"

    run(main())


def test_a_permission_request_shows_requires_action_and_folds_its_tool_call(v1: ModuleType) -> None:
    async def main() -> None:
        asks, peer, session = await v1_session(v1)
        turn = asyncio.create_task(session.run_turn(TEXT))
        prompt = await peer.recv()
        tool_call = {
            "toolCallId": "t1",
            "title": "Write notes.md",
            "kind": "edit",
            "status": "pending",
        }
        await peer.send(
            {
                "jsonrpc": "2.0",
                "id": "p1",
                "method": "session/request_permission",
                "params": {"sessionId": "s1", "toolCall": tool_call, "options": OPTIONS},
            }
        )
        request, decide = await guard(asks.get())
        assert request.params["title"] == "Write notes.md"
        assert request.params["subject"] == {"type": "tool_call", "toolCall": tool_call}
        assert session.state.state == "requires_action"
        assert session.snapshot()["toolCalls"]["t1"]["kind"] == "edit"
        decide.set_result({"outcome": "selected", "optionId": "yes"})
        reply = await peer.recv()
        assert reply == {
            "jsonrpc": "2.0",
            "id": "p1",
            "result": {"outcome": {"outcome": "selected", "optionId": "yes"}},
        }
        assert session.state.state == "running"
        await peer.send(
            {"jsonrpc": "2.0", "id": prompt["id"], "result": {"stopReason": "end_turn"}}
        )
        assert await guard(turn) == "end_turn"

    run(main())


def test_cancel_answers_open_permissions_and_the_turn_ends_cancelled(v1: ModuleType) -> None:
    async def main() -> None:
        asks, peer, session = await v1_session(v1)
        turn = asyncio.create_task(session.run_turn(TEXT))
        prompt = await peer.recv()
        await peer.send(
            update({"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Run"}),
            {
                "jsonrpc": "2.0",
                "id": 7,
                "method": "session/request_permission",
                "params": {"sessionId": "s1", "toolCall": {"toolCallId": "t1"}, "options": OPTIONS},
            },
        )
        await guard(asks.get())
        await session.cancel()
        sent = [await peer.recv(), await peer.recv()]
        assert {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "s1"}} in sent
        assert {"jsonrpc": "2.0", "id": 7, "result": {"outcome": {"outcome": "cancelled"}}} in sent
        await peer.send(
            {"jsonrpc": "2.0", "id": prompt["id"], "result": {"stopReason": "cancelled"}}
        )
        assert await guard(turn) == "cancelled"
        snapshot = session.snapshot()
        assert snapshot["toolCalls"]["t1"]["status"] == "cancelled"
        assert snapshot["state"] == "idle" and snapshot["stopReason"] == "cancelled"

    run(main())


def read_request(session_id: str, request_id: int = 3) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "fs/read_text_file",
        "params": {"sessionId": session_id, "path": "/work/a.txt"},
    }


def test_fs_requests_are_refused_when_not_advertised(v1: ModuleType) -> None:
    async def main() -> None:
        _, peer, _ = await v1_session(v1)
        await peer.send(read_request("s1"))
        error = (await peer.recv())["error"]
        assert error["code"] == -32601 and "fs.readTextFile" in error["message"]

    run(main())


def test_advertised_fs_requests_reach_the_typed_handler(v1: ModuleType) -> None:
    async def main() -> None:
        _, peer, _ = await v1_session(v1, files=True)
        await peer.send(read_request("s1"))
        assert (await peer.recv())["result"] == {"content": "text of /work/a.txt"}
        await peer.send(read_request("nobody", 4))
        assert (await peer.recv())["error"]["data"] == {"sessionId": "nobody"}
        await peer.send({**read_request("s1", 5), "params": {"sessionId": "s1"}})  # no path
        assert (await peer.recv())["error"]["code"] == -32602

    run(main())


def test_list_close_and_resume_work_on_v1_with_replayed_history(v1: ModuleType) -> None:
    async def main() -> None:
        _, peer, session = await v1_session(v1)
        side = session.client
        assert isinstance(side, ClientSide)
        listing = asyncio.create_task(side.list_sessions(cwd="/work"))
        listed = await answer(peer, "session/list", {"sessions": []})
        assert listed["params"] == {"cwd": "/work"} and await guard(listing) == {"sessions": []}
        closing = asyncio.create_task(session.close())
        await answer(peer, "session/close", {})
        await guard(closing)
        with pytest.raises(Exception, match="closed"):
            await session.prompt(TEXT)
        resuming = asyncio.create_task(side.resume_session("s1", "/work"))
        request = await peer.recv()
        assert request["method"] == "session/resume"
        assert request["params"] == {"sessionId": "s1", "cwd": "/work"}
        await peer.send(
            update(
                {"sessionUpdate": "user_message_chunk", "content": {"type": "text", "text": "a"}}
            ),
            update(
                {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "b"}}
            ),
            {"jsonrpc": "2.0", "id": request["id"], "result": {}},
        )
        resumed = await guard(resuming)
        assert resumed is session and not session.closed
        roles = [m["role"] for m in session.snapshot()["messages"]]
        assert roles == ["user", "agent"]

    run(main())
