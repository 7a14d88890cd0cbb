"""A v2 `session/prompt` is accepted and answered within the read that brought it (no task, no
event-loop pass before its receipt is written; the turn runs in its own task, after it); v1's,
whose answer waits for the whole turn, still runs as a task."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "generated"))

import acp_bindings as acp  # noqa: E402
from acp_bindings._runtime.rpc.connection import Connection  # noqa: E402
from acp_bindings._runtime.wire.pushed_lines import PushedLines  # noqa: E402

from .streams import RecordingSink, run  # noqa: E402


class Replying(acp.Agent):
    async def on_prompt(self, session: acp.Session, prompt: acp.Prompt) -> str | None:
        await session.agent_message().append("hello")
        return None


def line(request_id: int, method: str, params: dict[str, Any]) -> bytes:
    message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
    return json.dumps(message).encode() + b"\n"


async def parked_agent() -> tuple[Connection, PushedLines, RecordingSink]:
    lines, sink = PushedLines(), RecordingSink()
    connection = Connection(lines, sink)
    connection.dispatcher = Replying().dispatcher(connection)
    connection.start()
    while not lines.parked:
        await asyncio.sleep(0)
    return connection, lines, sink


async def session_on(lines: PushedLines, sink: RecordingSink, version: int) -> str:
    hello: dict[str, Any] = {"protocolVersion": version, "capabilities": {}}
    if version == 2:
        hello["info"] = {"name": "test-client", "version": "0"}
    else:
        hello["clientCapabilities"] = {}
    lines.received(line(1, "initialize", hello))
    setup: dict[str, Any] = (
        {"cwd": str(REPO)} if version == 2 else {"cwd": str(REPO), "mcpServers": []}
    )
    lines.received(line(2, "session/new", setup))
    while len(sink.messages()) < 2:
        await asyncio.sleep(0)
    answer = sink.messages()[1]
    assert isinstance(answer.get("result"), dict), sink.messages()
    return str(answer["result"]["sessionId"])  # type: ignore[index]


def test_a_v2_prompt_is_answered_within_the_read_that_brought_it() -> None:
    async def scenario() -> None:
        connection, lines, sink = await parked_agent()
        session_id = await session_on(lines, sink, 2)
        prompt = [{"type": "text", "text": "hi"}]
        lines.received(line(3, "session/prompt", {"sessionId": session_id, "prompt": prompt}))
        # No await since: the receipt is on the wire, and no task is left to find or cancel.
        receipt = sink.messages()[2]
        assert receipt["id"] == 3 and "messageId" in receipt["result"]  # type: ignore[operator]
        assert 3 not in connection._inbound
        while not any(
            isinstance(m.get("params"), dict)
            and m["params"]["update"].get("stopReason") == "end_turn"  # type: ignore[index]
            for m in sink.messages()
        ):
            await asyncio.sleep(0)
        updates = [m["params"]["update"] for m in sink.messages()[3:]]  # type: ignore[index]
        kinds = [u["sessionUpdate"] for u in updates]
        assert kinds == ["user_message", "state_update", "agent_message_chunk", "state_update"]
        await connection.close()

    run(scenario())


def test_a_v1_prompt_runs_as_a_task_until_its_turn_ends() -> None:
    async def scenario() -> None:
        connection, lines, sink = await parked_agent()
        session_id = await session_on(lines, sink, 1)
        prompt = [{"type": "text", "text": "hi"}]
        lines.received(line(3, "session/prompt", {"sessionId": session_id, "prompt": prompt}))
        assert 3 in connection._inbound  # its answer is the end of the turn: a task waits
        while not any(m.get("id") == 3 for m in sink.messages()):
            await asyncio.sleep(0)
        answer = next(m for m in sink.messages() if m.get("id") == 3)
        assert answer["result"] == {"stopReason": "end_turn"}
        await connection.close()

    run(scenario())
