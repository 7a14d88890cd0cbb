"""An accepted prompt and the foreground work it runs in (a `Turn`), as the agent's turn
runner (turns.py) and its sessions (agent_session.py) share them; and the idempotency keys a
session has seen on `session/prompt`, with the messageId each got.

v2 (after 2.4.0) lets a client name one prompt submission with `idempotencyKey` and repeat it
on every retry: the agent inserts the user message at most once per key and answers a retry
with the original `{messageId}` (agent_side.py), also while that prompt's turn still runs.

The keys belong to the session (`AgentSession.prompt_keys`, a plain `dict[str, str]`: key ->
messageId, least recently used first), so they live as long as it does: across a detach and a
`session/resume` on another connection (session_store.py). A session remembers the newest
`PROMPT_KEY_LIMIT` keys; the least recently used go first. That dict is all there is to it: a
store that persists sessions saves it and puts it back. A plain dict of strings, because an
agent keeps every session it opened and the cyclic collector does not walk such a dict.
"""

from __future__ import annotations

import asyncio
import secrets
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Final

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


# Keys kept per session; a retry normally follows its first attempt closely. Read when a key
# is remembered (tests lower it).
PROMPT_KEY_LIMIT: Final = 1024


def seen(keys: dict[str, str], key: str) -> str | None:
    """The messageId `key` was first answered with (now the most recently used key); None for
    a key `keys` does not hold."""
    message_id = keys.pop(key, None)
    if message_id is not None:
        keys[key] = message_id  # to the end: the most recently used
    return message_id


def remember(keys: dict[str, str], key: str, message_id: str, limit: int | None = None) -> None:
    """Keep `key` -> `message_id`, forgetting the least recently used past `limit` (default
    `PROMPT_KEY_LIMIT`)."""
    keys.pop(key, None)
    keys[key] = message_id
    for oldest in list(keys)[: max(0, len(keys) - (limit or PROMPT_KEY_LIMIT))]:
        del keys[oldest]
