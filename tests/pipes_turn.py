"""One prompt turn over real pipes: a generated package's Client spawns `upstream_agent.py` (an
agent built on the same package) and records the raw `session/prompt` answer."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

AGENT_SCRIPT = Path(__file__).resolve().parent / "upstream_agent.py"
HANG_GUARD = 120.0  # only turns a hang into a failure; never a statement about speed
T = TypeVar("T")


def guarded_run(main: Callable[[], Awaitable[T]]) -> T:
    async def guarded() -> T:
        return await asyncio.wait_for(main(), HANG_GUARD)

    return asyncio.run(guarded())


def prompt_turn(
    module: ModuleType, out: Path, package: str
) -> tuple[Any, str | None, dict[str, Any], int]:
    """(raw prompt answer, stop reason, session snapshot, agent exit code) for prompt "ping"."""

    async def main() -> tuple[Any, str | None, dict[str, Any], int]:
        client = module.Client()
        argv = [sys.executable, str(AGENT_SCRIPT), str(out), package]
        process = await client.spawn(argv, stderr=asyncio.subprocess.DEVNULL)
        answers: list[Any] = []
        request = process.connection.request

        async def recording(method: str, params: Any) -> Any:
            answer = await request(method, params)
            if method == "session/prompt":
                answers.append(answer)
            return answer

        process.connection.request = recording
        initialized = await client.lifecycle.initialize()
        assert initialized["protocolVersion"] == 2
        session = await client.lifecycle.new_session(cwd=str(out))
        stop = await session.run_turn([{"type": "text", "text": "ping"}])
        (answer,) = answers
        return answer, stop, session.snapshot(), await process.close()

    return guarded_run(main)
