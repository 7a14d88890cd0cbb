"""A test agent (generated bindings, stdio) whose turn waits on a child session it cannot finish.

Each turn announces a child session (a subagent) that offers `cancel`, runs the child's work
(it says `looking`, then waits until cancelled) and says how the child's work ended. Only a
`session/cancel` naming the child, or its parent, ends that work.
"""

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "generated"))

from acp_bindings import Agent, Prompt, Session, models


async def look_for_ever(child: Session) -> str | None:
    await child.say("looking")
    await asyncio.Event().wait()
    return None


class Waiting(Agent):
    info = models.Implementation(name="subagent-cancel-agent", version="1.0.0")

    async def on_prompt(self, session: Session, prompt: Prompt) -> str | None:
        helper = await session.announce_subagent(
            title="Helper",
            capabilities=models.SubagentSessionCapabilities(
                cancel=models.SessionCancelCapabilities()
            ),
        )
        ended = await helper.run(look_for_ever)
        await session.say(f"the helper ended: {ended}")
        return None


if __name__ == "__main__":
    Waiting().run()
