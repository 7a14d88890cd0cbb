"""Which prompt content an agent's capabilities allow, with no I/O.

Every agent takes the baseline content (text, resource links); images, audio and embedded
resources each need the prompt capability the agent's `initialize` answer grants. The agent
side refuses a prompt that breaks this with -32602 and these problems as its data; the client
side refuses to send one (client_rules.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from ..wire.errors import Problem
from ..wire.jsonvalue import JsonMapping

# Prompt content: every agent accepts the baseline; the rest need a prompt capability.
BASELINE_PROMPT_CONTENT: Final = frozenset({"text", "resource_link"})
PROMPT_CAPABILITY_OF_CONTENT: Final[Mapping[str, str]] = {
    "image": "image",
    "audio": "audio",
    "resource": "embeddedContext",
}


def prompt_capabilities(agent_capabilities: object) -> JsonMapping:
    """`capabilities.session.prompt` of an initialize result (empty when absent or null)."""
    session = agent_capabilities.get("session") if isinstance(agent_capabilities, dict) else None
    prompt = session.get("prompt") if isinstance(session, dict) else None
    return prompt if isinstance(prompt, dict) else {}


def prompt_content_problems(prompt: object, agent_capabilities: object) -> list[Problem]:
    """Why `prompt` may not be sent to an agent with these capabilities, in the shape of
    -32602 error data (`loc`, `msg`, `type`); empty when it may."""
    if not isinstance(prompt, list):
        return [{"loc": ["prompt"], "msg": "prompt must be an array", "type": "list_type"}]
    granted = prompt_capabilities(agent_capabilities)
    problems: list[Problem] = []
    for index, block in enumerate(prompt):
        kind = block.get("type") if isinstance(block, dict) else None
        if not isinstance(kind, str):
            problems.append(
                {
                    "loc": ["prompt", index],
                    "msg": "a content block must be an object with a string 'type'",
                    "type": "content_block",
                }
            )
            continue
        if kind in BASELINE_PROMPT_CONTENT:
            continue
        capability = PROMPT_CAPABILITY_OF_CONTENT.get(kind)
        if capability is None:
            message = f"content type {kind!r} is not covered by any prompt capability"
        elif granted.get(capability) is None:  # support markers: {} = yes, absent/null = no
            message = f"content type {kind!r} needs the prompt capability {capability!r}"
        else:
            continue
        problems.append(
            {"loc": ["prompt", index, "type"], "msg": message, "type": "prompt_capability"}
        )
    return problems
