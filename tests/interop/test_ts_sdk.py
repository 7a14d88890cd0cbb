"""The official TypeScript SDK (@agentclientprotocol/sdk 2.4.0, its v2 API) against our code:
its client drives the example agent and a scaffolded agent through the session surface, and our
generated Client drives an agent written with its agent API. The SDK validates everything it
receives with its own schemas (always on), so a message of ours it does not accept fails here.

The SDK is installed once into a cache outside the repository (sdk_cache.py); without node, npm
or the registry these tests skip, saying why, except in CI (CI=true), where they fail."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO

from .sdk_cache import ts_sdk

sys.path.insert(0, str(REPO / "generated"))

from acp_bindings import Client, message_text

HERE = Path(__file__).resolve().parent
TS_CLIENT, TS_AGENT = HERE / "ts_client.mjs", HERE / "ts_agent.mjs"
HANG_GUARD = 120  # only turns a hang into a failure; never a statement about speed


@pytest.fixture(scope="session")
def sdk() -> Path:
    return ts_sdk()


@pytest.fixture(scope="module")
def scaffolded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project made by `acp-codegen new agent`, run from its source (PYTHONPATH=src)."""
    root = tmp_path_factory.mktemp("scaffold")
    argv = [sys.executable, "-m", "acp_codegen", "new", "agent", "my-agent", "-q"]
    proc = subprocess.run(argv, cwd=root, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    return root / "my-agent"


def ts_client(sdk: Path, cwd: Path, agent: list[str], **env: str) -> dict[str, Any]:
    """Run ts_client.mjs against `agent`; its JSON summary."""
    proc = subprocess.run(
        ["node", str(TS_CLIENT), str(sdk), str(cwd), "--", *agent],
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
    """What ts_client.mjs saw: both turns, their receipts, list, close, and no complaint of the
    SDK's validation."""
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
    assert summary["permissions"] == [
        {"answer": "allow", "options": options},
        {"answer": "cancel", "options": options},
    ]
    (listed,) = summary["listed"]["sessions"]
    assert (listed["sessionId"], listed["cwd"]) == (summary["sessionId"], str(cwd))
    assert summary["closed"] == {}
    assert summary["afterClose"] == {"error": -32002}  # the closed session refuses prompts
    assert summary["agentExitCode"] == 0


def test_the_ts_client_drives_the_example_agent(sdk: Path, tmp_path: Path) -> None:
    agent = [sys.executable, str(REPO / "examples" / "demo_agent.py")]
    summary = ts_client(sdk, tmp_path, agent)
    assert summary["agentName"] == "acp-codegen-demo-agent"
    # The example agent echoes the prompt's words and titles the session with the first prompt.
    assert_session_surface(summary, tmp_path, reply="count these four words ")
    assert summary["listed"]["sessions"][0]["title"] == "count these four words"


def test_the_ts_client_drives_a_scaffolded_agent(
    sdk: Path, scaffolded: Path, tmp_path: Path
) -> None:
    agent = [sys.executable, "-m", "my_agent"]
    summary = ts_client(sdk, tmp_path, agent, PYTHONPATH=str(scaffolded / "src"))
    assert summary["agentName"] == "my-agent"
    reply = "Your prompt has 4 words. That is all I can do for now."
    assert_session_surface(summary, tmp_path, reply=reply)


def test_our_client_drives_an_agent_written_with_the_ts_sdk(sdk: Path, tmp_path: Path) -> None:
    async def scenario() -> tuple[str | None, dict[str, Any], Any, int]:
        client = Client()
        process = await client.spawn(["node", str(TS_AGENT), str(sdk)])
        receipts: list[Any] = []  # raw `session/prompt` answers; run_turn does not return them
        request = process.connection.request

        async def recording(method: str, params: Any = None) -> Any:
            answer = await request(method, params)
            if method == "session/prompt":
                receipts.append(answer)
            return answer

        process.connection.request = recording  # type: ignore[method-assign]
        initialized = await client.lifecycle.initialize()
        assert initialized["protocolVersion"] == 2
        assert initialized["info"]["name"] == "ts-interop-agent"
        session = await client.lifecycle.new_session(cwd=str(tmp_path))
        stop = await session.run_turn([{"type": "text", "text": "stream these words back"}])
        (receipt,) = receipts
        snapshot: dict[str, Any] = dict(session.snapshot())
        return stop, snapshot, receipt, await process.close()

    stop, snapshot, receipt, exit_code = asyncio.run(asyncio.wait_for(scenario(), HANG_GUARD))
    assert stop == "end_turn"
    assert exit_code == 0  # the TS agent ends when we close its stdin, with no error
    user, thought, reply = snapshot["messages"]
    assert (user["role"], user["messageId"]) == ("user", receipt["messageId"])
    assert message_text(user) == "stream these words back"
    assert (thought["role"], message_text(thought)) == ("thought", "Echoing the prompt.")
    # Four chunks of one message, folded into one by the merge rules.
    assert (reply["role"], message_text(reply)) == ("agent", "stream these words back ")
    assert snapshot["usage"]["used"] == 4
