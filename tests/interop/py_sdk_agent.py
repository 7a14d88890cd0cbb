"""An agent written with the official Python SDK pre-release's v2 agent API
(`acp.experimental.v2`), serving on stdio; our generated Client drives it in test_py_sdk.py,
which runs it with the SDK on PYTHONPATH.

    python py_sdk_agent.py                 # on stdio
    python py_sdk_agent.py --serve HOST    # over Streamable HTTP and WebSocket (acp.http)

Served, it is the SDK's ASGI application (`acp.http.asgi.create_asgi_app`, one agent per
connection through its version router) on uvicorn, on a free port of HOST; it prints
`serving ACP on URL` once listening.

The same turn as ts_agent.mjs: each prompt is answered with its insertion receipt
({messageId} of the user_message the agent reports), then the turn runs: running, a thought, the
prompt's words streamed back as chunks of one agent message, usage, idle end_turn. The SDK
checks each update against its models before writing it; a failure ends the turn's task with a
traceback on stderr and the process with exit code 3."""

from __future__ import annotations

import asyncio
import os
import sys
from itertools import count
from typing import Any

from acp.experimental.v2 import PROTOCOL_VERSION, run_agent, schema

# Every update, in the SDK's own models (a wrong field is an error here, not on the wire).
Thought, Reply, Usage = schema.AgentThoughtChunk, schema.AgentMessageChunk, schema.UsageUpdate
Running, Idle = schema.RunningSessionStateUpdate, schema.IdleSessionStateUpdate


def text(value: str) -> schema.TextContentBlock:
    return schema.TextContentBlock(type="text", text=value)


class EchoAgent:
    def __init__(self) -> None:
        self.ids = count(1)
        self.connection: Any = None
        self.turns: set[asyncio.Task[None]] = set()

    def on_connect(self, connection: Any) -> None:
        self.connection = connection

    async def initialize(self, protocol_version: int, **_: Any) -> schema.InitializeResponse:
        info = schema.Implementation(name="py-sdk-interop-agent", version="0.0.0")
        return schema.InitializeResponse(protocol_version=PROTOCOL_VERSION, info=info)

    async def new_session(self, cwd: str, **_: Any) -> schema.NewSessionResponse:
        return schema.NewSessionResponse(session_id=f"py_session_{next(self.ids)}")

    async def prompt(self, session_id: str, prompt: list[Any], **_: Any) -> schema.PromptResponse:
        message_id = f"user_{next(self.ids)}"
        # The receipt is the answer; the turn runs after it, as its own task.
        task = asyncio.create_task(self.turn(session_id, message_id, prompt))
        self.turns.add(task)
        task.add_done_callback(self.finished)
        return schema.PromptResponse(message_id=message_id)

    def finished(self, task: asyncio.Task[None]) -> None:
        self.turns.discard(task)
        if not task.cancelled() and task.exception() is not None:
            task.print_stack(file=sys.stderr)
            os._exit(3)

    async def turn(self, session_id: str, message_id: str, prompt: list[Any]) -> None:
        async def update(body: Any) -> None:
            await self.connection.session_update(session_id=session_id, update=body)

        echoed = schema.UserMessageUpdate(
            session_update="user_message", message_id=message_id, content=prompt
        )
        await update(echoed)
        await update(Running(session_update="state_update", state="running"))
        thought = Thought(
            session_update="agent_thought_chunk",
            message_id=f"thought_{next(self.ids)}",
            content=text("Echoing the prompt."),
        )
        await update(thought)
        reply_id = f"reply_{next(self.ids)}"
        words = [word for block in prompt if block.type == "text" for word in block.text.split()]
        for word in words:
            chunk = Reply(
                session_update="agent_message_chunk", message_id=reply_id, content=text(word + " ")
            )
            await update(chunk)
        await update(Usage(session_update="usage_update", used=len(words), size=1000))
        idle = Idle(session_update="state_update", state="idle", stop_reason="end_turn")
        await update(idle)


def connected_agent(connection: Any) -> EchoAgent:
    """What the SDK's server calls for each new connection (its agent factory)."""
    agent = EchoAgent()
    agent.on_connect(connection)
    return agent


async def serve(host: str) -> None:
    """The SDK's ASGI application on uvicorn, on a socket bound here so the free port it got
    can be printed before serving."""
    import socket

    import uvicorn
    from acp.experimental import AgentProtocolRouter
    from acp.http.asgi import create_asgi_app

    app = create_asgi_app(AgentProtocolRouter(v2=connected_agent))
    listener = socket.create_server((host, 0))
    port = listener.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", ws="websockets-sansio"))
    print(f"serving ACP on http://{host}:{port}/acp", flush=True)
    await server.serve(sockets=[listener])


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        asyncio.run(serve(sys.argv[2]))
    else:
        asyncio.run(run_agent(EchoAgent()))
