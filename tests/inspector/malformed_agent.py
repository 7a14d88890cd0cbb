"""An agent that writes one malformed `session/update` straight onto the protocol stream (past
its own checks), between two good chunks, then ends the turn."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "generated"))

from acp_bindings import Agent, Prompt, Session, models

# While the runtime serves, descriptor 1 goes to stderr; this is the real protocol stream.
PROTOCOL_STREAM = os.dup(1)


class MalformedAgent(Agent):
    info = models.Implementation(name="malformed-agent", version="1.0.0")

    async def on_prompt(self, session: Session, prompt: Prompt) -> str | None:
        answer = session.agent_message("m1")
        await answer.append("before ")
        bad = {"sessionUpdate": "agent_message_chunk", "messageId": "m1", "content": 42}
        params = {"sessionId": session.session_id, "update": bad}
        line = json.dumps({"jsonrpc": "2.0", "method": "session/update", "params": params})
        os.write(PROTOCOL_STREAM, line.encode() + b"\n")
        await answer.append("after")
        return "end_turn"


if __name__ == "__main__":
    MalformedAgent().run()
