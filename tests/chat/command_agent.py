"""A hostile v1 agent that asks its client to run a command (`terminal/create`) at each prompt,
exactly as given: `command_agent.py PARAMS_JSON`, where PARAMS_JSON holds the request's params
but the session id (`command`, `args`, `env`, `cwd`, `outputByteLimit`, sent as they are, even
when no honest agent would send them).

It says what happened: `ran: exit N: OUTPUT` when the client ran it, or three lines when the
client answered with an error: `refused: CODE`, `data: DATA_JSON`, `message: MESSAGE`.
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "generated"))

from acp_bindings import Agent, Prompt, RpcError, Session, models

PARAMS = json.loads(sys.argv[1])


class CommandAgent(Agent):
    info = models.Implementation(name="command-agent", version="1.0.0")
    protocol_versions = (1,)  # terminals are v1's client services

    async def on_prompt(self, session: Session, prompt: Prompt) -> str | None:
        peer = self.client_services.peer  # raw params: past the typed proxy's checks
        try:
            created = await peer.request(
                "terminal/create", {"sessionId": session.session_id, **PARAMS}
            )
        except RpcError as error:
            said = (
                f"refused: {error.code}\ndata: {json.dumps(error.data)}\nmessage: {error.message}"
            )
            await session.say(said)
            return "end_turn"
        terminal = {"sessionId": session.session_id, "terminalId": created["terminalId"]}
        status = await peer.request("terminal/wait_for_exit", terminal)
        output = await peer.request("terminal/output", terminal)
        await peer.request("terminal/release", terminal)
        await session.say(f"ran: exit {status.get('exitCode')}: {output['output']}")
        return "end_turn"


if __name__ == "__main__":
    CommandAgent().run()
