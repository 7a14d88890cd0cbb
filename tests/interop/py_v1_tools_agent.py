"""A v1 agent written with the official Python SDK 0.12.1 that uses the client's services:
each turn reads `notes.txt` in the session's folder (`fs/read_text_file`), writes its text
upper-cased to `NOTES.txt` (`fs/write_text_file`), runs `python -c "print(...)"` there
(`terminal/*`) and answers with what it read and what the command printed. A service the
client did not advertise is skipped and named in the answer; a refused one is reported.

    PYTHONPATH=<sdk 0.12.1> python py_v1_tools_agent.py
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Any

from acp import (  # type: ignore[import-not-found]
    PROTOCOL_VERSION,
    Agent,
    InitializeResponse,
    NewSessionResponse,
    PromptResponse,
    RequestError,
    run_agent,
    text_block,
    update_agent_message,
)
from acp.schema import AgentCapabilities, Implementation  # type: ignore[import-not-found]


class ToolsAgent(Agent):  # type: ignore[misc]
    def __init__(self) -> None:
        self._capabilities: Any = None
        self._cwd: dict[str, str] = {}

    def on_connect(self, conn: Any) -> None:
        self._conn = conn

    async def initialize(
        self, protocol_version: int, client_capabilities: Any = None, **kwargs: Any
    ) -> Any:
        self._capabilities = client_capabilities
        return InitializeResponse(
            protocol_version=PROTOCOL_VERSION,
            agent_capabilities=AgentCapabilities(),
            agent_info=Implementation(name="py-v1-tools-agent", version="0.0.0"),
        )

    async def new_session(self, cwd: str, **kwargs: Any) -> Any:
        session_id = f"tools_{len(self._cwd) + 1}"
        self._cwd[session_id] = cwd
        return NewSessionResponse(session_id=session_id)

    async def _say(self, session_id: str, text: str) -> None:
        await self._conn.session_update(session_id, update_agent_message(text_block(text)))

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> Any:
        cwd, caps = self._cwd[session_id], self._capabilities
        notes, upper = os.path.join(cwd, "notes.txt"), os.path.join(cwd, "NOTES.txt")
        if caps is not None and caps.fs.read_text_file:
            text = None
            try:
                read = await self._conn.read_text_file(session_id=session_id, path=notes)
                text = read.content
                await self._say(session_id, f"read: {text.strip()}\n")
            except RequestError as error:
                await self._say(session_id, f"read refused: {error}\n")
            if caps.fs.write_text_file and text is not None:
                try:
                    await self._conn.write_text_file(
                        session_id=session_id, path=upper, content=text.upper()
                    )
                    await self._say(session_id, "wrote NOTES.txt\n")
                except RequestError as error:
                    await self._say(session_id, f"write refused: {error}\n")
        else:
            await self._say(session_id, "no fs\n")
        # Outside the folder: the client must refuse it.
        if caps is not None and caps.fs.read_text_file:
            try:
                await self._conn.read_text_file(session_id=session_id, path="/etc/passwd")
                await self._say(session_id, "read /etc/passwd\n")
            except RequestError:
                await self._say(session_id, "outside refused\n")
        if caps is not None and caps.terminal:
            await self._run(session_id)
        else:
            await self._say(session_id, "no terminal\n")
        return PromptResponse(stop_reason="end_turn")

    async def _run(self, session_id: str) -> None:
        try:
            terminal = await self._conn.create_terminal(
                session_id=session_id,
                command=sys.executable,
                args=["-c", "import os; print('ran in', os.path.basename(os.getcwd()))"],
            )
        except RequestError as error:
            await self._say(session_id, f"run refused: {error}\n")
            return
        kept = {"session_id": session_id, "terminal_id": terminal.terminal_id}
        await self._conn.wait_for_terminal_exit(**kept)
        output = await self._conn.terminal_output(**kept)
        await self._conn.release_terminal(**kept)
        await self._say(session_id, output.output)

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        return None


if __name__ == "__main__":
    asyncio.run(run_agent(ToolsAgent()))
