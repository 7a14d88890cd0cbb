"""The official Python SDK pre-release's v2 client (`acp.experimental.v2`) drives one of our
agents over stdio; run by test_py_sdk.py with the SDK on PYTHONPATH (never imported by the
suite itself: its top-level package is `acp`).

    python py_sdk_client.py CWD -- AGENT_COMMAND [ARGS...]
    python py_sdk_client.py CWD --ws URL TOKEN     # an agent served remotely (acp.ws)
    python py_sdk_client.py CWD --http URL TOKEN   # the same over Streamable HTTP (acp.http)

The same run as ts_client.mjs: initialize, session/new, a turn whose permission request is
allowed, a turn cancelled (session/cancel) while its permission request is pending, session/list,
session/close and a prompt after the close. The SDK parses every update into its models
(tolerantly: a bad list item or optional field is dropped, not reported), so each update is
recorded as the SDK parsed it; the test compares those with what the agent wrote (its trace).
What the SDK logs at warning level or above (a message it could not handle) is recorded as
"sdkErrors", which the test requires to be empty. Prints one JSON summary on stdout."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from typing import Any

from acp.exceptions import RequestError
from acp.experimental.v2 import PROTOCOL_VERSION, connect_to_agent, schema
from sdk_script import HANG_GUARD, Recorder, wire


class RecordingClient:
    """Answers permission requests from `answers` ("allow"; or "cancel": send session/cancel
    and wait until the agent withdraws the request with $/cancel_request, which cancels this
    handler, and the SDK answers -32800) and keeps every update as the SDK parsed it."""

    def __init__(self) -> None:
        self.answers = ["allow", "cancel"]
        self.permissions: list[dict[str, Any]] = []
        self.updates: list[dict[str, Any]] = []
        self.idle = asyncio.Event()
        self.connection: Any = None

    def on_connect(self, connection: Any) -> None:
        self.connection = connection

    async def request_permission(
        self, session_id: str, title: str, options: list[Any], **_: Any
    ) -> Any:
        answer = self.answers.pop(0)
        asked = {"answer": answer, "options": [o.option_id for o in options], "withdrawn": False}
        self.permissions.append(asked)
        if answer == "cancel":
            try:
                # Over HTTP the withdrawal may come before the POST of session/cancel returns.
                await self.connection.cancel_session(session_id=session_id)
                await asyncio.Event().wait()  # until $/cancel_request cancels this handler
            except asyncio.CancelledError:
                asked["withdrawn"] = True
                raise
        outcome = {"outcome": "selected", "optionId": "allow"}
        return schema.RequestPermissionResponse.model_validate({"outcome": outcome})

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        parsed = wire(update)
        self.updates.append(parsed)
        if parsed.get("sessionUpdate") == "state_update" and parsed.get("state") == "idle":
            self.idle.set()


async def turn(client: RecordingClient, session_id: str, text: str) -> dict[str, Any]:
    """One prompt; its receipt and the updates up to the idle state that follows it."""
    start = len(client.updates)
    client.idle.clear()
    block = schema.TextContentBlock(type="text", text=text)
    receipt = await client.connection.prompt(session_id=session_id, prompt=[block])
    while True:
        await client.idle.wait()
        client.idle.clear()
        updates = client.updates[start:]
        if any(update["sessionUpdate"] == "user_message" for update in updates):
            return {"receipt": wire(receipt), "updates": updates}


async def remote_transport(transport: str, url: str, token: str) -> Any:
    """The SDK's own client transport for `url`: `acp.ws` or `acp.http`."""
    headers = {"Authorization": f"Bearer {token}"}
    if transport == "--ws":
        from acp.ws import create_websocket_stream

        return await create_websocket_stream(url, headers=headers)
    from acp.http import create_http_stream

    return create_http_stream(url, headers=headers)


async def main(cwd: str, agent: list[str], remote: tuple[str, str, str] | None) -> dict[str, Any]:
    recorder = Recorder()
    logging.getLogger().addHandler(recorder)
    client = RecordingClient()
    process = None
    if remote is not None:
        connection = connect_to_agent(client, await remote_transport(*remote))
    else:
        process = await asyncio.create_subprocess_exec(
            *agent, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
        )
        connection = connect_to_agent(client, process.stdin, process.stdout)
    info = schema.Implementation(name="acp-codegen-interop", version="0.0.0")
    initialized = await connection.initialize(protocol_version=PROTOCOL_VERSION, info=info)
    session = await connection.new_session(cwd=cwd)
    allowed = await turn(client, session.session_id, "count these four words")
    cancelled = await turn(client, session.session_id, "this turn is cancelled")
    listed = await connection.list_sessions(cwd=cwd)
    closed = await connection.close_session(session_id=session.session_id)
    after_close: dict[str, Any]
    try:
        block = schema.TextContentBlock(type="text", text="after the close")
        after_close = {"result": wire(await connection.prompt(session.session_id, [block]))}
    except RequestError as error:
        after_close = {"error": error.code}
    await connection.close()
    if process is not None:
        assert process.stdin is not None
        process.stdin.close()  # our agents exit when stdin closes
    return {
        "initialized": wire(initialized),
        "sessionId": session.session_id,
        "turns": [allowed, cancelled],
        "permissions": client.permissions,
        "listed": wire(listed),
        "closed": wire(closed),
        "afterClose": after_close,
        "agentExitCode": 0 if process is None else await process.wait(),
        "sdkErrors": recorder.messages,
    }


if __name__ == "__main__":
    cwd, dashes, *agent = sys.argv[1:]
    assert dashes in ("--", "--ws", "--http") and agent, __doc__
    remote = None if dashes == "--" else (dashes, agent[0], agent[1])
    summary = asyncio.run(asyncio.wait_for(main(cwd, agent, remote), HANG_GUARD))
    print(json.dumps(summary))
