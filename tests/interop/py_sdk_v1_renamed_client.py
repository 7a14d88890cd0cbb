"""The official Python SDK's v1 client (0.12.1) calls v1's login and option methods on one of
our agents over stdio; run by test_v1_interop.py with the SDK on PYTHONPATH.

    python py_sdk_v1_renamed_client.py CWD -- AGENT_COMMAND [ARGS...]

initialize (advertising boolean options), authenticate with the first method offered,
session/new, session/set_mode to the last mode offered, session/set_config_option on every
boolean option (turned on), logout. Each answer is recorded as the SDK parsed it; what it
logs at warning level or above is "sdkErrors". Prints one JSON summary on stdout."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from acp import PROTOCOL_VERSION, connect_to_agent, schema
from sdk_script import Recorder, run_script, wire


class QuietClient:
    """Takes updates; asks for nothing else in this run."""

    def on_connect(self, connection: Any) -> None:
        pass

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        pass


async def main(cwd: str, agent: list[str]) -> dict[str, Any]:
    recorder = Recorder()
    logging.getLogger().addHandler(recorder)
    process = await asyncio.create_subprocess_exec(
        *agent, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
    )
    assert process.stdin is not None and process.stdout is not None
    connection = connect_to_agent(QuietClient(), process.stdin, process.stdout)
    info = schema.Implementation(name="acp-codegen-interop", version="0.0.0")
    options = schema.SessionConfigOptionsCapabilities(
        boolean=schema.BooleanConfigOptionCapabilities()
    )
    capabilities = schema.ClientCapabilities(
        session=schema.ClientSessionCapabilities(config_options=options)
    )
    initialized = await connection.initialize(
        protocol_version=PROTOCOL_VERSION, client_capabilities=capabilities, client_info=info
    )
    method = initialized.auth_methods[0]
    authenticated = await connection.authenticate(method_id=method.id)
    session = await connection.new_session(cwd=cwd, mcp_servers=[])
    mode = session.modes.available_modes[-1].id
    moded = await connection.set_session_mode(session_id=session.session_id, mode_id=mode)
    switched = []
    for option in session.config_options or []:
        if option.type == "boolean":
            answer = await connection.set_config_option(
                config_id=option.id, session_id=session.session_id, value=True
            )
            switched.append(wire(answer))
    # 0.12.1's client has no method for v1's `logout`: the SDK's own connection sends it.
    logged_out = await connection._conn.send_request("logout", {})
    await connection.close()
    process.stdin.close()  # our agents exit when stdin closes
    return {
        "initialized": wire(initialized),
        "authenticated": wire(authenticated),
        "session": wire(session),
        "setMode": wire(moded),
        "switched": switched,
        "loggedOut": logged_out,
        "agentExitCode": await process.wait(),
        "sdkErrors": recorder.messages,
    }


if __name__ == "__main__":
    run_script(main, __doc__ or "")
