"""Our generated `Client` drives official SDKs' v1 agents: the Python SDK 0.12.1's own example
agent (from its published source distribution) and an agent written with the TypeScript SDK
2.4.0 behind its protocol router in v1 mode (ts_v1_agent.mjs). The SDKs are cached outside the
repository (sdk_cache.py); without them the tests skip, and fail when CI is set."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from acp_codegen._bindings import Client, RpcError, v1

from .sdk_cache import py_sdk_sources
from .v1_drive import TurnClient, drive, message_texts

HERE = Path(__file__).resolve().parent
TS_V1_AGENT = HERE / "ts_v1_agent.mjs"


@pytest.fixture(scope="module")
def py_example_agent() -> Path:
    return py_sdk_sources() / "examples" / "agent.py"


def test_our_client_drives_the_python_sdks_v1_example_agent(
    py_example_agent: Path, py_sdk_v1_path: Path, tmp_path: Path
) -> None:
    turn = drive(
        [sys.executable, str(py_example_agent)],
        tmp_path,
        env={"PYTHONPATH": str(py_sdk_v1_path)},
    )
    assert turn.version == 1 and turn.agent_info["name"] == "example-agent"
    assert turn.stop == "end_turn" and turn.exit_code == 0
    snapshot = turn.snapshot
    assert snapshot["state"] == "idle" and snapshot["stopReason"] == "end_turn"
    # The user's prompt (recorded by the client), then the agent's echo: one message of chunks.
    assert message_texts(snapshot) == [
        ("user", "stream these words back"),
        ("agent", "Client sent:stream these words back"),
    ]
    assert snapshot["toolCalls"] == {} and turn.asked == []


def ts_agent(ts_prefix: Path) -> list[str]:
    return ["node", str(TS_V1_AGENT), str(ts_prefix)]


def test_our_client_drives_a_ts_router_agent_in_v1_mode(ts_prefix: Path, tmp_path: Path) -> None:
    turn = drive(ts_agent(ts_prefix), tmp_path, text="three small words")
    assert turn.version == 1 and turn.agent_info == {"name": "ts-v1-agent", "version": "0.0.0"}
    assert turn.stop == "end_turn" and turn.exit_code == 0
    snapshot = turn.snapshot
    assert message_texts(snapshot) == [
        ("user", "three small words"),
        ("thought", "Planning the answer."),
        ("agent", "three small words "),
    ]
    (call,) = snapshot["toolCalls"].values()
    assert call["status"] == "completed" and call["kind"] == "read"
    assert call["title"] == "Look at the prompt" and call["rawInput"] == {"words": 1}
    assert call["content"] == [{"type": "content", "content": {"type": "text", "text": "looked"}}]
    (plan,) = snapshot["plans"].values()
    assert [entry["status"] for entry in plan["entries"]] == ["completed", "completed"]
    (mode,) = snapshot["configOptions"]
    assert mode["category"] == "mode" and mode["currentValue"] == "code"
    (asked,) = turn.asked
    assert asked["title"] == "Look at the prompt"
    assert asked["subject"]["toolCall"]["toolCallId"] == call["toolCallId"]


def test_a_rejected_permission_fails_the_tool_call(ts_prefix: Path, tmp_path: Path) -> None:
    turn = drive(ts_agent(ts_prefix), tmp_path, approve=False)
    assert turn.stop == "end_turn"
    (call,) = turn.snapshot["toolCalls"].values()
    assert call["status"] == "failed"
    assert [role for role, _ in message_texts(turn.snapshot)] == ["user", "thought"]


def test_cancelling_during_a_permission_ends_the_v1_turn_cancelled(
    ts_prefix: Path, tmp_path: Path
) -> None:
    turn = drive(ts_agent(ts_prefix), tmp_path, cancel_on_permission=True)
    assert turn.stop == "cancelled"
    snapshot = turn.snapshot
    assert snapshot["state"] == "idle" and snapshot["stopReason"] == "cancelled"
    (call,) = snapshot["toolCalls"].values()
    # Marked cancelled by the client when it cancelled; the agent's `failed` came after.
    assert call["status"] == "failed"


class FilesClient(Client):
    """A generated `Client` that answers v1's file requests under `root` (no terminals)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.written: dict[str, str] = {}

    async def fs_read_text_file(
        self, *, params: v1.models.ReadTextFileRequest
    ) -> v1.models.ReadTextFileResponse:
        if not params.path.startswith(f"{self.root}/"):
            raise RpcError(-32602, "outside the folder")
        return v1.models.ReadTextFileResponse(content=Path(params.path).read_text())

    async def fs_write_text_file(
        self, *, params: v1.models.WriteTextFileRequest
    ) -> v1.models.WriteTextFileResponse:
        self.written[params.path] = params.content
        return v1.models.WriteTextFileResponse()


def test_the_generated_client_answers_v1_file_requests_through_typed_handlers(
    py_sdk_v1_path: Path, tmp_path: Path
) -> None:
    (tmp_path / "notes.txt").write_text("some notes\n")
    client = FilesClient(tmp_path)
    agent = [sys.executable, str(HERE / "py_v1_tools_agent.py")]

    async def scenario() -> tuple[Any, str | None, Any]:
        process = await client.spawn(agent, env={**os.environ, "PYTHONPATH": str(py_sdk_v1_path)})
        try:
            await client.lifecycle.initialize()
            session = await client.lifecycle.new_session(cwd=str(tmp_path))
            stop = await session.run_turn([{"type": "text", "text": "go"}])
            return client.lifecycle, stop, session.snapshot()
        finally:
            await process.close()

    lifecycle, stop, snapshot = asyncio.run(asyncio.wait_for(scenario(), 120))
    assert lifecycle.protocol_version == 1 and stop == "end_turn"
    # Advertised: the two file capabilities the subclass overrides, no terminal.
    assert lifecycle.v1.capabilities["fs"] == {"readTextFile": True, "writeTextFile": True}
    assert lifecycle.v1.capabilities["terminal"] is False
    _, (role, text) = message_texts(snapshot)
    assert role == "agent" and text == (
        "read: some notes\nwrote NOTES.txt\noutside refused\nno terminal\n"
    )
    assert client.written == {str(tmp_path / "NOTES.txt"): "SOME NOTES\n"}


def test_our_client_loads_a_session_of_the_python_sdks_v1_example_agent(
    py_example_agent: Path, py_sdk_v1_path: Path, tmp_path: Path
) -> None:
    """`session/load` as our client sends it (v1's `mcpServers` included) is accepted by the
    SDK's example agent; the loaded session takes turns. It does not advertise `loadSession`,
    so a resume asking for replay is a plain `session/resume`, which it does not serve."""

    async def scenario() -> tuple[str | None, list[tuple[str, str]], RpcError]:
        client = TurnClient(approve=True, cancel=False)
        env = {**os.environ, "PYTHONPATH": str(py_sdk_v1_path)}
        process = await client.spawn([sys.executable, str(py_example_agent)], env=env)
        try:
            await client.lifecycle.initialize()
            assert client.lifecycle.agent_capabilities.get("loadSession") is not True
            session = await client.lifecycle.new_session(cwd=str(tmp_path))
            loaded = await client.lifecycle.load_session(session.session_id, str(tmp_path))
            assert loaded is session and not loaded.closed
            stop = await loaded.run_turn([{"type": "text", "text": "after the load"}])
            with pytest.raises(RpcError) as refused:
                await client.lifecycle.resume_session(
                    session.session_id, str(tmp_path), replayFrom={"type": "start"}
                )
            return stop, message_texts(loaded.snapshot()), refused.value
        finally:
            await process.close()

    stop, texts, refused = asyncio.run(asyncio.wait_for(scenario(), 120))
    assert stop == "end_turn"
    assert texts == [("user", "after the load"), ("agent", "Client sent:after the load")]
    assert refused.code == -32601
