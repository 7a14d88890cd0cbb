"""A test agent that starts a turn, says one word, then dies (exit code 5) mid-turn."""

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "generated"))

from acp_bindings import Agent, Prompt, Session, models


class Dying(Agent):
    info = models.Implementation(name="dying-agent", version="1.0.0")

    async def on_prompt(self, session: Session, prompt: Prompt) -> str | None:
        await session.say("partial")
        print("giving up now", file=sys.stderr, flush=True)
        os._exit(5)


if __name__ == "__main__":
    Dying().run()
