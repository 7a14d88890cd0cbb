"""A raw ACP client for conformance tests: JSON lines over the agent's real stdin/stdout.

It uses none of the project's runtime (no Connection, no Client class): what it checks is what
any client that follows the schema would see. Updates are checked against the schema's types
(the generated models), as a strict client would.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Coroutine, Sequence
from pathlib import Path
from typing import Any, TypeVar

from pydantic import TypeAdapter

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "generated"))

from acp_bindings import models  # noqa: E402

DEMO_AGENT = (sys.executable, str(REPO / "examples" / "demo_agent.py"))
HANG_GUARD_SECONDS = 120.0  # a guard against hangs, never a statement about speed
UPDATE_PARAMS = TypeAdapter(models.UpdateSessionNotification)
T = TypeVar("T")


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    async def guarded() -> T:
        return await asyncio.wait_for(coroutine, HANG_GUARD_SECONDS)

    return asyncio.run(guarded())


class RawAgent:
    """An agent subprocess spoken to in raw JSON lines."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.next_id = 0

    @classmethod
    async def start(cls, argv: Sequence[str] = DEMO_AGENT) -> RawAgent:
        process = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
        )
        return cls(process)

    async def send(self, message: Any) -> None:
        await self.send_line(json.dumps(message).encode())

    async def send_line(self, line: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + b"\n")
        await self.process.stdin.drain()

    async def recv(self) -> Any:
        assert self.process.stdout is not None
        line = await self.process.stdout.readline()
        assert line, "the agent closed its stdout"
        message = json.loads(line)
        if isinstance(message, dict) and message.get("method") == "session/update":
            UPDATE_PARAMS.validate_python(message["params"], strict=True, by_alias=True)
        return message

    def request(self, method: str, params: Any) -> dict[str, Any]:
        self.next_id += 1
        return {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}

    async def call(self, method: str, params: Any) -> dict[str, Any]:
        """Send a request; the next line must be its answer."""
        message = self.request(method, params)
        await self.send(message)
        reply = await self.recv()
        assert reply.get("id") == message["id"], reply
        return reply  # type: ignore[no-any-return]

    async def notify(self, method: str, params: Any) -> None:
        await self.send({"jsonrpc": "2.0", "method": method, "params": params})

    async def initialize(self) -> dict[str, Any]:
        params = {"protocolVersion": 2, "info": {"name": "conformance", "version": "1"}}
        reply = await self.call("initialize", params)
        result: dict[str, Any] = reply["result"]
        return result

    async def new_session(self, cwd: str = "/tmp") -> str:
        session_id: str = (await self.call("session/new", {"cwd": cwd}))["result"]["sessionId"]
        return session_id

    async def updates_until(self, predicate: Any) -> list[Any]:
        """Read session/update notifications (answering nothing) until `predicate(update)`;
        any other message on the way fails the test."""
        updates = []
        while True:
            message = await self.recv()
            assert message.get("method") == "session/update", message
            updates.append(message["params"]["update"])
            if predicate(updates[-1]):
                return updates

    async def close(self) -> int:
        assert self.process.stdin is not None
        self.process.stdin.close()
        return await asyncio.wait_for(self.process.wait(), HANG_GUARD_SECONDS)


def receipt(result: Any) -> str:
    """The `session/prompt` answer is an insertion receipt: only the inserted message's id."""
    assert isinstance(result, dict) and set(result) == {"messageId"}, result
    assert isinstance(result["messageId"], str) and result["messageId"], result
    return result["messageId"]


def is_state(state: str) -> Any:
    return lambda update: update == {"sessionUpdate": "state_update", "state": state}


def is_idle(update: Any) -> bool:
    return update.get("sessionUpdate") == "state_update" and update.get("state") == "idle"


def prompt(session_id: str, text: str = "hello world") -> dict[str, Any]:
    return {"sessionId": session_id, "prompt": [{"type": "text", "text": text}]}
