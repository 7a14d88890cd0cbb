"""The official Python SDK's last v1 release (`agent-client-protocol` 0.12.1) drives one of our
agents over stdio as a v1 client, as today's editors do; run by test_v1_interop.py with the SDK
on PYTHONPATH (never imported by the suite itself: its top-level package is `acp`).

    python py_sdk_v1_client.py CWD -- AGENT_COMMAND [ARGS...]

initialize (protocol version 1), session/new, a turn whose permission request is allowed, a
turn cancelled while its permission request is pending (session/cancel, then the request
answered `cancelled`, as v1 asks of a client), session/list and session/close. Every update is
recorded as the SDK parsed it into its v1 models; what the SDK logs at warning level or above
is recorded as "sdkErrors". Prints one JSON summary on stdout."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from acp import PROTOCOL_VERSION, connect_to_agent, schema
from sdk_script import Recorder, run_script, wire


class RecordingClient:
    """Answers permission requests from `answers` ("allow"; or "cancel": send session/cancel,
    then answer the request `cancelled`) and keeps every update as the SDK parsed it."""

    def __init__(self) -> None:
        self.answers = ["allow", "cancel"]
        self.permissions: list[dict[str, Any]] = []
        self.updates: list[dict[str, Any]] = []
        self.connection: Any = None

    def on_connect(self, connection: Any) -> None:
        self.connection = connection

    async def request_permission(
        self, session_id: str, tool_call: Any, options: list[Any], **_: Any
    ) -> Any:
        answer = self.answers.pop(0)
        self.permissions.append(
            {
                "answer": answer,
                "options": [o.option_id for o in options],
                "toolCallId": tool_call.tool_call_id,
                "title": tool_call.title,
            }
        )
        if answer == "cancel":
            await self.connection.cancel(session_id=session_id)
            outcome: dict[str, Any] = {"outcome": "cancelled"}
        else:
            outcome = {"outcome": "selected", "optionId": "allow"}
        return schema.RequestPermissionResponse.model_validate({"outcome": outcome})

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        self.updates.append(wire(update))


async def turn(client: RecordingClient, session_id: str, text: str) -> dict[str, Any]:
    """One prompt: its answer (v1: the stop reason) and the updates sent before it."""
    start = len(client.updates)
    block = schema.TextContentBlock(type="text", text=text)
    answer = await client.connection.prompt(session_id=session_id, prompt=[block])
    return {"answer": wire(answer), "updates": client.updates[start:]}


async def main(cwd: str, agent: list[str]) -> dict[str, Any]:
    recorder = Recorder()
    logging.getLogger().addHandler(recorder)
    process = await asyncio.create_subprocess_exec(
        *agent, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
    )
    client = RecordingClient()
    connection = connect_to_agent(client, process.stdin, process.stdout)
    info = schema.Implementation(name="acp-codegen-interop", version="0.0.0")
    initialized = await connection.initialize(protocol_version=PROTOCOL_VERSION, client_info=info)
    session = await connection.new_session(cwd=cwd, mcp_servers=[])
    allowed = await turn(client, session.session_id, "count these four words")
    cancelled = await turn(client, session.session_id, "this turn is cancelled")
    listed = await connection.list_sessions(cwd=cwd)
    closed = await connection.close_session(session_id=session.session_id)
    await connection.close()
    assert process.stdin is not None
    process.stdin.close()  # our agents exit when stdin closes
    return {
        "sdkProtocolVersion": PROTOCOL_VERSION,
        "initialized": wire(initialized),
        "sessionId": session.session_id,
        "turns": [allowed, cancelled],
        "permissions": client.permissions,
        "listed": wire(listed),
        "closed": None if closed is None else wire(closed),
        "agentExitCode": await process.wait(),
        "sdkErrors": recorder.messages,
    }


if __name__ == "__main__":
    run_script(main, __doc__ or "")
