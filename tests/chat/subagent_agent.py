"""A test agent (generated bindings, stdio) that delegates each turn to a child session.

Each turn: a plan, then a child session announced on the parent (`subagent_update`), a message
from the parent to the child, the child's own answer streamed as the child, the child's state
mirrored on the parent, the child's reply to the parent, the plan removed, and the parent's
answer `done`. With the argument `hostile`, the child's title and the messages carry terminal
escapes (chat must show them inert).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "generated"))

from acp_bindings import Agent, Prompt, Session, models

HOSTILE = sys.argv[1:] == ["hostile"]
MARK = "\x1b]0;pwned\x07\x1b[2J" if HOSTILE else ""


class Delegating(Agent):
    info = models.Implementation(name="subagent-agent", version="1.0.0")

    async def on_prompt(self, session: Session, prompt: Prompt) -> str | None:
        entry = models.PlanEntry(content="ask a helper", priority="high", status="pending")
        plan_id = await session.update_plan([entry])
        helper = await session.announce_subagent(
            title=f"Helper{MARK}",
            description="counts files",
            capabilities=models.SubagentSessionCapabilities(
                cancel=models.SessionCancelCapabilities()
            ),
            cwd="/work/helper",
        )
        await helper.send_message(f"count the files{MARK}")
        reply = helper.session.agent_message()
        await reply.append("two ")
        await reply.append("files")
        await helper.update(state=models.EndTurnIdleStateUpdateInSubagentUpdate())
        await helper.send_message("there are two files", from_child=True)
        await session.remove_plan(plan_id)
        await session.say("done")
        return "end_turn"


if __name__ == "__main__":
    Delegating().run()
