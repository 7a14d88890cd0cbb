"""What the interop tests run and assert on, whichever SDK plays the other side."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from conftest import REPO

sys.path.insert(0, str(REPO / "generated"))

from acp_bindings import Client, message_text
from acp_bindings._runtime.transports.remote_client import RemoteAgent
from acp_bindings._runtime.transports.stdio import AgentProcess

HANG_GUARD = 120  # only turns a hang into a failure; never a statement about speed
DEMO_AGENT = [sys.executable, str(REPO / "examples" / "demo_agent.py")]
SCAFFOLDED_AGENT = [sys.executable, "-m", "my_agent"]  # with PYTHONPATH=<project>/src
DEMO_REPLY = "count these four words "  # the example agent echoes the prompt's words
SCAFFOLDED_REPLY = "Your prompt has 4 words. That is all I can do for now."


def summary_of(argv: list[str], **env: str) -> dict[str, Any]:
    """Run an SDK client script; the JSON summary it prints."""
    proc = subprocess.run(
        argv,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        check=False,
        env={**os.environ, **env},
    )
    assert proc.returncode == 0, proc.stderr
    summary: dict[str, Any] = json.loads(proc.stdout)
    return summary


def assert_session_surface(summary: dict[str, Any], cwd: Path, reply: str) -> None:
    """What an SDK client script saw: a turn with an allowed permission request, a turn it
    cancelled, their receipts, session/list, session/close and the refused prompt after it,
    with no complaint of the SDK's validation."""
    assert summary["sdkErrors"] == []
    assert summary["protocolVersion"] == 2
    allowed, cancelled = summary["turns"]
    for turn in (allowed, cancelled):
        # The prompt's receipt names the user_message the agent reported for it.
        assert turn["userMessageIds"] == [turn["receipt"]["messageId"]]
        assert turn["receipt"] == {"messageId": turn["receipt"]["messageId"]}
        assert "state_update:requires_action" in turn["updates"]
    assert allowed["receipt"] != cancelled["receipt"]
    assert allowed["stopReason"] == "end_turn"
    assert allowed["reply"] == reply
    assert list(allowed["toolCalls"].values()) == ["completed"]
    assert cancelled["stopReason"] == "cancelled"
    assert cancelled["reply"] == ""
    assert cancelled["updates"][-1] == "state_update:idle"
    options = ["allow", "reject"]
    # The agent withdrew the request pending when the turn was cancelled ($/cancel_request).
    assert summary["permissions"] == [
        {"answer": "allow", "options": options, "withdrawn": False},
        {"answer": "cancel", "options": options, "withdrawn": True},
    ]
    (listed,) = summary["listed"]["sessions"]
    assert (listed["sessionId"], listed["cwd"]) == (summary["sessionId"], str(cwd))
    assert summary["closed"] == {}
    assert summary["afterClose"] == {"error": -32002}  # the closed session refuses prompts
    assert summary["agentExitCode"] == 0


def our_client_turn(argv: list[str] | str, cwd: Path, env: dict[str, str] | None = None) -> None:
    """Our generated Client spawns an SDK-written echo agent (ts_agent.mjs, py_sdk_agent.py:
    the same turn), or reaches one served at a URL (`argv` a str: ts_remote_agent.mjs), and
    runs one turn; asserts on the receipt, the stop reason, the session snapshot and the
    agent's clean exit (a served agent outlives the connection: its exit is not asked)."""

    async def scenario() -> tuple[str | None, dict[str, Any], Any, int, int]:
        client = Client()
        process: AgentProcess | RemoteAgent
        if isinstance(argv, str):
            process = await client.connect(argv)
        else:
            process = await client.spawn(argv, env=None if env is None else {**os.environ, **env})
        receipts: list[Any] = []  # raw `session/prompt` answers; run_turn does not return them
        request = process.connection.request

        async def recording(method: str, params: Any = None) -> Any:
            answer = await request(method, params)
            if method == "session/prompt":
                receipts.append(answer)
            return answer

        process.connection.request = recording  # type: ignore[method-assign]
        initialized = await client.lifecycle.initialize()
        session = await client.lifecycle.new_session(cwd=str(cwd))
        stop = await session.run_turn([{"type": "text", "text": "stream these words back"}])
        (receipt,) = receipts
        snapshot: dict[str, Any] = dict(session.snapshot())
        version = initialized["protocolVersion"]
        exit_code = await process.close()
        return stop, snapshot, receipt, exit_code or 0, version

    stop, snapshot, receipt, exit_code, version = asyncio.run(
        asyncio.wait_for(scenario(), HANG_GUARD)
    )
    assert version == 2
    assert stop == "end_turn"
    assert exit_code == 0  # the agent ends when we close its stdin, with no error
    user, thought, reply = snapshot["messages"]
    assert (user["role"], user["messageId"]) == ("user", receipt["messageId"])
    assert receipt == {"messageId": user["messageId"]}
    assert message_text(user) == "stream these words back"
    assert (thought["role"], message_text(thought)) == ("thought", "Echoing the prompt.")
    # Four chunks of one message, folded into one by the merge rules.
    assert (reply["role"], message_text(reply)) == ("agent", "stream these words back ")
    assert snapshot["usage"]["used"] == 4
