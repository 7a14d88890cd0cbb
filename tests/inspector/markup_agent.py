"""An agent that answers every prompt with markup: in a message, a tool call's title and a
terminal's command and output. The inspector must show all of it as text."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "generated"))

from acp_bindings import Agent, Prompt, Session, models

MARKUP = '<img src=x onerror="window.pwned=1"><script>window.pwned=1</script><b>bold</b>'


class MarkupAgent(Agent):
    info = models.Implementation(name="markup-agent", version="1.0.0")

    async def on_prompt(self, session: Session, prompt: Prompt) -> str | None:
        await session.set_title(MARKUP)
        await session.say("message " + MARKUP)
        call = await session.start_tool_call("tool " + MARKUP, kind="execute", status="pending")
        terminal = await session.open_terminal(command="terminal " + MARKUP)
        await terminal.write(("output " + MARKUP).encode())
        await call.update(status="completed")
        return "end_turn"


if __name__ == "__main__":
    MarkupAgent().run()
