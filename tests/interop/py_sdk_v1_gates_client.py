"""The official Python SDK's v1 client (0.12.1) on one of our agents that offers a terminal
login, a boolean option, notices and compactions (tests/runtime/configured_agent.py --gated);
run by test_v1_interop.py with the SDK on PYTHONPATH.

    python py_sdk_v1_gates_client.py CWD [--boolean] -- AGENT_COMMAND [ARGS...]

initialize (advertising boolean options with `--boolean`, nothing else), session/new, the
boolean option turned on (as a boolean, or as the select the client was shown), one prompt.
Every update is recorded as the SDK parsed it; what it logs at warning level or above is
"sdkErrors" (0.12.1 knows no `notice`: one sent to it is logged as an unhandled error).
Prints one JSON summary on stdout."""

from __future__ import annotations

import asyncio
import logging
import sys
from typing import Any

from acp import PROTOCOL_VERSION, connect_to_agent, schema
from sdk_script import Recorder, run_script, wire

BOOLEAN = "--boolean" in sys.argv
if BOOLEAN:
    sys.argv.remove("--boolean")


class RecordingClient:
    """Keeps every update as the SDK parsed it."""

    def __init__(self) -> None:
        self.updates: list[dict[str, Any]] = []

    def on_connect(self, connection: Any) -> None:
        pass

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        self.updates.append(wire(update))


def capabilities() -> Any:
    if not BOOLEAN:
        return schema.ClientCapabilities()
    options = schema.SessionConfigOptionsCapabilities(
        boolean=schema.BooleanConfigOptionCapabilities()
    )
    session = schema.ClientSessionCapabilities(config_options=options)
    return schema.ClientCapabilities(session=session)


async def main(cwd: str, agent: list[str]) -> dict[str, Any]:
    recorder = Recorder()
    logging.getLogger().addHandler(recorder)
    process = await asyncio.create_subprocess_exec(
        *agent, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
    )
    assert process.stdin is not None and process.stdout is not None
    client = RecordingClient()
    connection = connect_to_agent(client, process.stdin, process.stdout)
    info = schema.Implementation(name="acp-codegen-interop", version="0.0.0")
    initialized = await connection.initialize(
        protocol_version=PROTOCOL_VERSION, client_capabilities=capabilities(), client_info=info
    )
    session = await connection.new_session(cwd=cwd, mcp_servers=[])
    switched = []
    for option in session.config_options or []:
        if option.id != "verbose":
            continue
        value: str | bool = True if option.type == "boolean" else "true"
        answer = await connection.set_config_option(
            config_id=option.id, session_id=session.session_id, value=value
        )
        switched.append(wire(answer))
    block = schema.TextContentBlock(type="text", text="go")
    prompted = await connection.prompt(session_id=session.session_id, prompt=[block])
    await connection.close()
    process.stdin.close()  # our agents exit when stdin closes
    return {
        "initialized": wire(initialized),
        "session": wire(session),
        "switched": switched,
        "prompted": wire(prompted),
        "updates": client.updates,
        "agentExitCode": await process.wait(),
        "sdkErrors": recorder.messages,
    }


if __name__ == "__main__":
    run_script(main, __doc__ or "")
