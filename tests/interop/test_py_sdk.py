"""The official Python SDK pre-release (`agent-client-protocol` 1.0.0rc3, `acp.experimental.v2`,
generated from the v2 schema's alpha.5) against our code, the same way as the TypeScript SDK:
its client drives the example agent and a scaffolded agent, our client drives an agent written
with its agent API. Its scripts run in their own process with the SDK on PYTHONPATH: its
top-level package is `acp`, which the suite never imports.

Its client parses updates tolerantly (a bad list item or optional field is dropped silently),
so the test also compares every update as the SDK parsed it with what our agent wrote (the
agent's ACP_TRACE). What does not match upstream 2.4.0, and why it still interoperates, is in
docs/design.md ("The official Python SDK pre-release")."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from .surface import (
    DEMO_AGENT,
    DEMO_REPLY,
    SCAFFOLDED_AGENT,
    SCAFFOLDED_REPLY,
    assert_session_surface,
    our_client_turn,
    summary_of,
)

pytestmark = pytest.mark.network  # installs the SDK from its registry once (then cached)

HERE = Path(__file__).resolve().parent
PY_CLIENT, PY_AGENT = HERE / "py_sdk_client.py", HERE / "py_sdk_agent.py"


def sent_updates(trace: Path) -> list[dict[str, Any]]:
    """The `session/update` payloads the agent wrote, from its ACP_TRACE file."""
    records = [json.loads(line) for line in trace.read_text().splitlines()]
    messages = [record["message"] for record in records if record["dir"] == "send"]
    return [m["params"]["update"] for m in messages if m.get("method") == "session/update"]


def py_client(
    py_sdk_path: Path, cwd: Path, agent: list[str], *paths: Path
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Run py_sdk_client.py against `agent` (with `paths` on its PYTHONPATH too); its summary
    with the TS script's fields derived from the parsed updates, and the updates as parsed."""
    trace = cwd / "trace.jsonl"
    pythonpath = os.pathsep.join(str(path) for path in (py_sdk_path, *paths))
    argv = [sys.executable, str(PY_CLIENT), str(cwd), "--", *agent]
    summary = summary_of(argv, PYTHONPATH=pythonpath, ACP_TRACE=str(trace))
    parsed = [update for turn in summary["turns"] for update in turn["updates"]]
    assert parsed == sent_updates(trace)  # nothing dropped, renamed or reshaped by the SDK
    summary["protocolVersion"] = summary["initialized"]["protocolVersion"]
    summary["agentName"] = summary["initialized"]["info"]["name"]
    summary["turns"] = [summarised(turn) for turn in summary["turns"]]
    return summary, parsed


def summarised(turn: dict[str, Any]) -> dict[str, Any]:
    """One turn as ts_client.mjs summarises it."""
    updates = turn["updates"]
    idle = updates[-1]
    texts = [u["content"]["text"] for u in updates if u["sessionUpdate"] == "agent_message_chunk"]
    calls = [u for u in updates if u["sessionUpdate"] == "tool_call_update" and "status" in u]
    return {
        "receipt": turn["receipt"],
        "stopReason": idle.get("stopReason"),
        "userMessageIds": [u["messageId"] for u in updates if u["sessionUpdate"] == "user_message"],
        "reply": "".join(texts),
        "toolCalls": {call["toolCallId"]: call["status"] for call in calls},
        "updates": [
            u["sessionUpdate"] + (f":{u['state']}" if "state" in u else "") for u in updates
        ],
    }


def test_the_py_sdk_client_drives_the_example_agent(py_sdk_path: Path, tmp_path: Path) -> None:
    summary, _ = py_client(py_sdk_path, tmp_path, DEMO_AGENT)
    assert summary["agentName"] == "acp-codegen-demo-agent"
    assert_session_surface(summary, tmp_path, reply=DEMO_REPLY)


def test_the_py_sdk_client_drives_a_scaffolded_agent(
    py_sdk_path: Path, scaffolded: Path, tmp_path: Path
) -> None:
    summary, _ = py_client(py_sdk_path, tmp_path, SCAFFOLDED_AGENT, scaffolded / "src")
    assert summary["agentName"] == "my-agent"
    assert_session_surface(summary, tmp_path, reply=SCAFFOLDED_REPLY)


def test_our_client_drives_an_agent_written_with_the_py_sdk(
    py_sdk_path: Path, tmp_path: Path
) -> None:
    agent = [sys.executable, str(PY_AGENT)]
    our_client_turn(agent, tmp_path, env={"PYTHONPATH": str(py_sdk_path)})
