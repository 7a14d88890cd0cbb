"""An agent built on a generated package given on the command line, for the upstream-history tests.

    python upstream_agent.py <directory holding the package> <package name>

It answers each prompt with one agent message echoing the prompt's text and ends the turn.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

sys.path.insert(0, sys.argv[1])
acp: Any = importlib.import_module(sys.argv[2])


class EchoAgent(acp.Agent):  # type: ignore[misc]
    async def on_prompt(self, session: Any, prompt: Any) -> str | None:
        await session.say(f"echo: {prompt.text}")
        return None


if __name__ == "__main__":
    EchoAgent().run()
