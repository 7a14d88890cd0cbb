"""End to end over real pipes: the example agent as a subprocess, driven by the generated Client."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "generated"))

import acp_bindings as acp  # noqa: E402

AGENT = [sys.executable, str(REPO / "examples" / "demo_agent.py")]
HANG_GUARD = 120.0  # only turns a hang into a failure; never a statement about speed
T = TypeVar("T")


def run(main: Callable[[], Awaitable[T]]) -> T:
    async def guarded() -> T:
        return await asyncio.wait_for(main(), HANG_GUARD)

    return asyncio.run(guarded())


class ScriptedClient(acp.Client):
    """Answers permission requests as told; `asked` is set when one arrives."""

    def __init__(self, answer: str | None) -> None:
        self.answer = answer
        self.asked = asyncio.Event()

    async def on_permission(
        self, session: acp.ClientSession, request: acp.PermissionRequest
    ) -> Mapping[str, Any]:
        self.asked.set()
        if self.answer is None:
            await asyncio.Future()  # never answers by itself: cancelling the session does
        return {"outcome": "selected", "optionId": self.answer}


async def connect(client: ScriptedClient) -> tuple[Any, acp.ClientSession]:
    process = await client.spawn(AGENT, stderr=asyncio.subprocess.DEVNULL)
    answer = await client.lifecycle.initialize()
    assert answer["protocolVersion"] == 2
    session = await client.lifecycle.new_session(cwd=str(REPO))
    return process, session


def test_a_full_turn_streams_everything_and_ends_idle_end_turn() -> None:
    async def main() -> tuple[str | None, dict[str, Any], int]:
        client = ScriptedClient(answer="allow")
        process, session = await connect(client)
        stop = await session.run_turn([{"type": "text", "text": "check this code"}])
        snapshot = session.snapshot()
        return stop, snapshot, await process.close()

    stop, snap, exit_code = run(main)
    assert stop == "end_turn"
    assert snap["state"] == "idle" and snap["stopReason"] == "end_turn"
    roles = [m["role"] for m in snap["messages"]]
    assert roles == ["user", "thought", "agent"]
    user, thought, answer = snap["messages"]
    assert user["content"] == [{"type": "text", "text": "check this code"}]
    assert "".join(b["text"] for b in thought["content"]) == (
        "Reading the prompt. Planning one tool call."
    )
    assert "".join(b["text"] for b in answer["content"]) == "check this code "
    (call,) = snap["toolCalls"].values()
    assert call["status"] == "completed" and call["kind"] == "read"
    assert [c["content"]["text"] for c in call["content"]] == ["15 characters", ", 3 words"]
    (plan,) = snap["plans"].values()
    assert [e["status"] for e in plan["entries"]] == ["completed", "completed"]
    assert snap["usage"] == {"used": 15, "size": 200000}
    assert exit_code == 0  # the agent exits 0 when its stdin closes


def test_a_rejected_permission_ends_the_turn_with_refusal() -> None:
    async def main() -> tuple[str | None, dict[str, Any]]:
        client = ScriptedClient(answer="reject")
        process, session = await connect(client)
        stop = await session.run_turn([{"type": "text", "text": "hello"}])
        snapshot = session.snapshot()
        await process.close()
        return stop, snapshot

    stop, snap = run(main)
    assert stop == "refusal"
    (call,) = snap["toolCalls"].values()
    assert call["status"] == "failed"


def test_cancelling_a_turn_mid_way() -> None:
    async def main() -> tuple[str | None, str | None, dict[str, Any], list[Any]]:
        client = ScriptedClient(answer=None)
        process, session = await connect(client)
        turn = asyncio.create_task(session.run_turn([{"type": "text", "text": "slow one"}]))
        await client.asked.wait()  # the agent is blocked on the permission request
        pending = list(session.pending_permissions)
        await session.cancel()
        stop = await turn
        snapshot = session.snapshot()
        # The session is usable again after the cancelled turn.
        client.answer = "allow"
        again = await session.run_turn([{"type": "text", "text": "next"}])
        await process.close()
        return stop, again, snapshot, pending

    stop, again, snap, pending = run(main)
    assert stop == "cancelled"
    assert snap["state"] == "idle" and snap["stopReason"] == "cancelled"
    (call,) = snap["toolCalls"].values()
    assert call["status"] == "cancelled"  # never finished, so the client marked it
    assert len(pending) == 1 and pending[0].answered
    assert again == "end_turn"


def test_a_peer_killed_mid_turn_fails_the_waiting_client_at_once() -> None:
    async def main() -> BaseException | None:
        client = ScriptedClient(answer=None)
        process, session = await connect(client)
        turn = asyncio.create_task(session.run_turn([{"type": "text", "text": "doomed"}]))
        await client.asked.wait()
        process.process.kill()
        try:
            await turn
        except acp.ConnectionClosed as error:
            return error
        finally:
            await process.close()
        return None

    error = run(main)
    assert isinstance(error, acp.ConnectionClosed)


def test_prompting_before_initialize_is_refused_without_sending() -> None:
    async def main() -> None:
        client = ScriptedClient(answer="allow")
        process = await client.spawn(AGENT, stderr=asyncio.subprocess.DEVNULL)
        try:
            with pytest.raises(acp.ProtocolUsageError):
                await client.lifecycle.new_session(cwd=str(REPO))
        finally:
            await process.close()

    run(main)


def test_the_slow_option_is_documented() -> None:
    import subprocess

    out = subprocess.run([*AGENT, "--help"], capture_output=True, text=True, check=True).stdout
    assert "--slow SECONDS" in out


def test_trace_records_both_sides_traffic_as_json_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json
    import os

    client_trace, agent_trace = tmp_path / "client.jsonl", tmp_path / "agent.jsonl"
    monkeypatch.delenv("ACP_TRACE", raising=False)

    async def main() -> int:
        client = ScriptedClient(answer="allow")
        env = {**os.environ, "ACP_TRACE": str(agent_trace)}  # the agent's own trace
        process = await client.spawn(
            AGENT, stderr=asyncio.subprocess.DEVNULL, env=env, trace=client_trace
        )
        await client.lifecycle.initialize()
        exit_code: int = await process.close()
        return exit_code

    assert run(main) == 0
    for path, first, second in (
        (client_trace, "send", "recv"),
        (agent_trace, "recv", "send"),
    ):
        records = [json.loads(line) for line in path.read_bytes().splitlines()]
        assert [r["dir"] for r in records] == [first, second], path
        assert records[0]["message"]["method"] == "initialize"
        assert records[1]["message"]["result"]["protocolVersion"] == 2
        assert all(r["time"] for r in records)
