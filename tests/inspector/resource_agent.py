"""An agent that accepts embedded resources and says what it was given: each block's kind, and
a resource's URI and text (or the size of its blob). It also serves `session/delete`."""

from __future__ import annotations

import base64
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "generated"))

from acp_bindings import Agent, Prompt, Session, models


class ResourceAgent(Agent):
    info = models.Implementation(name="resource-agent", version="1.0.0")
    capabilities = models.AgentCapabilities.model_validate(
        {"session": {"prompt": {"embeddedContext": {}}}}
    )

    async def on_prompt(self, session: Session, prompt: Prompt) -> str | None:
        for block in prompt.content:
            data = block.model_dump(mode="json", by_alias=True)
            resource = data.get("resource") or {}
            if "text" in resource:
                await session.say(f"{resource['uri']} says {resource['text']!r}. ")
            elif "blob" in resource:
                size = len(base64.b64decode(resource["blob"]))
                await session.say(f"{resource['uri']} holds {size} bytes. ")
            else:
                await session.say(f"{data.get('type')}: {data.get('text')!r}. ")
        return "end_turn"

    async def on_delete_session(self, session_id: str) -> None:
        return None  # nothing stored: the registry forgets the session


if __name__ == "__main__":
    ResourceAgent().run()
