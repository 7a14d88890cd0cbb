"""The agents the round-trip measures talk to over pipes (run as subprocesses).

    python bench/agents.py ours GENERATED_DIR   # on the generated bindings in that directory
    python bench/agents.py sdk                  # on the official SDK

Both answer `session/new`, echo one extension request, and answer a prompt whose text is a
number N by streaming N agent-message chunks, then ending the turn.
"""

from __future__ import annotations

import asyncio
import sys
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


if __name__ == "__main__":
    if sys.argv[1] == "ours":
        run_ours(sys.argv[2])
    else:
        run_sdk()
