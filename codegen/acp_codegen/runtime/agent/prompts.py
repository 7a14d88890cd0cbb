"""An accepted prompt and the foreground work it runs in (a `Turn`), as the agent's turn
runner (turns.py) and its sessions (agent_session.py) share them."""

from __future__ import annotations

import asyncio
import secrets
from contextvars import ContextVar
from dataclasses import dataclass

from ..core.turn_state import TurnState
from ..wire.jsonvalue import JsonObject


def new_id(prefix: str) -> str:
    return f"{prefix}_{secrets.token_hex(8)}"  # 16 hex digits, without building a UUID


@dataclass(frozen=True, slots=True)
class Prompt:
    """One accepted `session/prompt`: its content and the messageId the agent gave it."""

    message_id: str
    content: list[JsonObject]


@dataclass(slots=True)
class Accepted:
    """An accepted prompt; `answered` resolves once its answer is on the wire."""

    prompt: Prompt
    answered: asyncio.Future[None] | None = None


class Turn(TurnState):
    """One stretch of foreground work as `turns.TurnRunner` runs it: the core's `TurnState`
    plus what the async side keeps: its task, prompts, and the lock echoes are written under."""

    __slots__ = ("after_cancel", "echo_lock", "queued", "task", "unechoed")

    def __init__(self, unechoed: list[Accepted] | None = None) -> None:
        TurnState.__init__(self)
        self.task: asyncio.Task[None] | None = None
        self.queued: list[Prompt] = []  # echoed, not yet handled
        self.unechoed: list[Accepted] = [] if unechoed is None else unechoed  # echo not sent
        self.after_cancel: list[Accepted] = []  # accepted during a cancel: the next turn's
        self.echo_lock = asyncio.Lock()


# The foreground work the current task belongs to (tasks a handler spawns inherit it).
CURRENT_TURN: ContextVar[Turn | None] = ContextVar("current_turn", default=None)
