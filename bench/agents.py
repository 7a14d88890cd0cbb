"""The agents the round-trip measures talk to over pipes (run as subprocesses).

    python bench/agents.py ours GENERATED_DIR   # on the generated bindings in that directory
    python bench/agents.py sdk                  # on the official SDK (0.12.1, v1)
    python bench/agents.py rc3                  # on SDK 1.0.0rc3's experimental v2 API
                                                # (with that SDK first on PYTHONPATH)

Each answers `session/new`, echoes one extension request, and answers a prompt whose text is a
number N by streaming N agent-message chunks, then ending the turn (v2: the prompt's receipt
first, the turn after it, ending with an idle state update).
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable
from typing import Any, cast

CHUNK = "token "


def run_ours(generated: str) -> None:
    sys.path.insert(0, generated)
    from acp_bindings import Agent

    class BenchAgent(Agent):
        async def on_prompt(self, session: Any, prompt: Any) -> str | None:
            first = prompt.content[0]  # a model today; a dict in the baseline revision's package
            count = int(first["text"] if isinstance(first, dict) else first.text)
            message = session.agent_message()
            for _ in range(count):
                await message.append({"type": "text", "text": CHUNK})
            return None

        async def ext_method(self, method: str, params: Any) -> Any:
            return params

    BenchAgent().run()


def run_sdk() -> None:
    import acp
    from acp.helpers import update_agent_message_text
    from acp.schema import NewSessionResponse, PromptResponse

    class BenchAgent:
        def on_connect(self, conn: Any) -> None:
            self.conn = conn
            self.sessions = 0

        async def initialize(self, protocol_version: int, **kwargs: Any) -> acp.InitializeResponse:
            # The SDK speaks v1: a client asking for a newer version gets v1's answer.
            version = min(protocol_version, acp.PROTOCOL_VERSION)
            return acp.InitializeResponse(protocol_version=version)

        async def new_session(self, cwd: str, **kwargs: Any) -> NewSessionResponse:
            self.sessions += 1
            return NewSessionResponse(session_id=f"sess_{self.sessions}")

        async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
            for _ in range(int(prompt[0].text)):
                await self.conn.session_update(session_id, update_agent_message_text(CHUNK))
            return PromptResponse(stop_reason="end_turn")

        async def cancel(self, session_id: str, **kwargs: Any) -> None:
            return None

        async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
            return params

    agent = cast(acp.Agent, BenchAgent())  # only what the bench calls, not the whole protocol
    asyncio.run(acp.run_agent(agent))


def run_rc3() -> None:
    import importlib

    v2 = importlib.import_module("acp.experimental.v2")  # by name: mypy sees 0.12.1's `acp`
    schema = v2.schema

    class BenchAgent:
        def __init__(self) -> None:
            self.sessions = 0
            self.turns: set[asyncio.Task[None]] = set()

        def on_connect(self, conn: Any) -> None:
            self.conn = conn

        async def initialize(self, protocol_version: int, **kwargs: Any) -> Any:
            info = schema.Implementation(name="bench-rc3", version="0")
            return schema.InitializeResponse(protocol_version=v2.PROTOCOL_VERSION, info=info)

        async def new_session(self, cwd: str, **kwargs: Any) -> Any:
            self.sessions += 1
            return schema.NewSessionResponse(session_id=f"sess_{self.sessions}")

        async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> Any:
            self.sessions += 1
            message_id = f"user_{self.sessions}"
            turn = asyncio.create_task(self.turn(session_id, int(prompt[0].text)))
            self.turns.add(turn)  # v2: the receipt is the answer, the turn runs after it
            turn.add_done_callback(self.turns.discard)
            return schema.PromptResponse(message_id=message_id)

        async def turn(self, session_id: str, count: int) -> None:
            reply = f"reply_{self.sessions}"
            for _ in range(count):
                chunk = schema.AgentMessageChunk(
                    session_update="agent_message_chunk",
                    message_id=reply,
                    content=schema.TextContentBlock(type="text", text=CHUNK),
                )
                await self.conn.session_update(session_id=session_id, update=chunk)
            idle = schema.IdleSessionStateUpdate(
                session_update="state_update", state="idle", stop_reason="end_turn"
            )
            await self.conn.session_update(session_id=session_id, update=idle)

    asyncio.run(v2.run_agent(BenchAgent()))


def profiled(run: Callable[[], None]) -> None:
    """Run the agent under cProfile when ACP_BENCH_PROFILE names a file for its stats
    (bench/profile_round_trips.py reads them); otherwise just run it."""
    path = os.environ.get("ACP_BENCH_PROFILE")
    if not path:
        run()
        return
    import cProfile
    import signal

    # The SDK's client ends its agent with SIGTERM: leave through `finally`, writing the stats.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    profile = cProfile.Profile()
    try:
        profile.runcall(run)
    finally:
        profile.dump_stats(path)


if __name__ == "__main__":
    if sys.argv[1] == "ours":
        profiled(lambda: run_ours(sys.argv[2]))
    elif sys.argv[1] == "rc3":
        profiled(run_rc3)
    else:
        profiled(run_sdk)
