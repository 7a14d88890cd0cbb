"""What the agent offers beside the turn, as chat shows it: prompt suggestions (unstable
`prompt_suggestions_update`, the whole list each time) and the session's models (a config
option of category `model`: a v2 agent's own, or a v1 agent's `models` as the client folds
them). Every piece of agent text passes `visible_line`: agents are hostile."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .visible import visible_line

SUGGESTIONS_TAG = "prompt_suggestions_update"
MODEL_CATEGORY = "model"


def suggestions_of(update: Any) -> list[str] | None:
    """A `prompt_suggestions_update` (wire form) as one line per suggestion (its text blocks;
    another block by its kind, e.g. `[image]`); None for any other update."""
    if not isinstance(update, dict) or update.get("sessionUpdate") != SUGGESTIONS_TAG:
        return None
    lines: list[str] = []
    for suggestion in update.get("suggestions") or []:
        blocks = suggestion.get("prompt") if isinstance(suggestion, dict) else None
        parts = (
            [_block_text(block) for block in blocks if isinstance(block, dict)]
            if isinstance(blocks, list)
            else []
        )
        text = visible_line(" ".join(part for part in parts if part))
        if text:
            lines.append(text)
    return lines


def _block_text(block: dict[str, Any]) -> str:
    if block.get("type") == "text":
        return str(block.get("text") or "")
    if block.get("type") == "resource_link":
        return str(block.get("uri") or "")
    return f"[{block.get('type')}]"


def suggestions_text(lines: Sequence[str]) -> str | None:
    """The suggestions on offer as chat notes them after a turn (None: none on offer)."""
    if not lines:
        return None
    numbered = [f"  {i}) {line}" for i, line in enumerate(lines, 1)]
    return "\n".join(["the agent suggests:", *numbered])


def models_text(options: Any) -> str | None:
    """The session's models (its config option of category `model`): the current one and the
    others (None: the agent offers no model choice)."""
    for option in options if isinstance(options, list) else ():
        if not isinstance(option, dict) or option.get("category") != MODEL_CATEGORY:
            continue
        current = option.get("currentValue")
        names = []
        for choice in option.get("options") or []:
            if not isinstance(choice, dict):
                continue
            name = visible_line(
                f"{choice.get('name') or choice.get('value')} ({choice.get('value')})"
            )
            names.append(f"{name} (current)" if choice.get("value") == current else name)
        return "models: " + (", ".join(names) if names else visible_line(str(current)))
    return None
