"""Our client runtime drives official SDKs' v1 agents: the Python SDK 0.12.1's own example
agent (from its published source distribution) and an agent written with the TypeScript SDK
2.4.0 behind its protocol router in v1 mode (ts_v1_agent.mjs). The SDKs are cached outside the
repository (sdk_cache.py); without them the tests skip, and fail when CI is set."""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from .sdk_cache import py_sdk_sources
from .v1_drive import V1_SCHEMA, drive, message_texts

HERE = Path(__file__).resolve().parent
TS_V1_AGENT = HERE / "ts_v1_agent.mjs"


@pytest.fixture(scope="module")
def v1(schema_packages: Any) -> ModuleType:
    package: ModuleType = schema_packages(V1_SCHEMA, "acp_codegen_v1_240_interop")
    return package


@pytest.fixture(scope="module")
def py_example_agent() -> Path:
    return py_sdk_sources() / "examples" / "agent.py"


def test_our_client_drives_the_python_sdks_v1_example_agent(
    v1: ModuleType, py_example_agent: Path, py_sdk_v1_path: Path, tmp_path: Path
) -> None:
    turn = drive(
        [sys.executable, str(py_example_agent)],
        v1,
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


def test_our_client_drives_a_ts_router_agent_in_v1_mode(
    v1: ModuleType, ts_prefix: Path, tmp_path: Path
) -> None:
    turn = drive(ts_agent(ts_prefix), v1, tmp_path, text="three small words")
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


def test_a_rejected_permission_fails_the_tool_call(
    v1: ModuleType, ts_prefix: Path, tmp_path: Path
) -> None:
    turn = drive(ts_agent(ts_prefix), v1, tmp_path, approve=False)
    assert turn.stop == "end_turn"
    (call,) = turn.snapshot["toolCalls"].values()
    assert call["status"] == "failed"
    assert [role for role, _ in message_texts(turn.snapshot)] == ["user", "thought"]


def test_cancelling_during_a_permission_ends_the_v1_turn_cancelled(
    v1: ModuleType, ts_prefix: Path, tmp_path: Path
) -> None:
    turn = drive(ts_agent(ts_prefix), v1, tmp_path, cancel_on_permission=True)
    assert turn.stop == "cancelled"
    snapshot = turn.snapshot
    assert snapshot["state"] == "idle" and snapshot["stopReason"] == "cancelled"
    (call,) = snapshot["toolCalls"].values()
    # Marked cancelled by the client when it cancelled; the agent's `failed` came after.
    assert call["status"] == "failed"
