"""The idempotency keys a session has seen on `session/prompt`, with the messageId each got.

v2 (after 2.4.0) lets a client name one prompt submission with `idempotencyKey` and repeat it
on every retry: the agent inserts the user message at most once per key and answers a retry
with the original `{messageId}` (agent_side.py), also while that prompt's turn still runs.

The keys belong to the session (`AgentSession.prompt_keys`), so they live as long as it does:
across a detach and a `session/resume` on another connection (session_store.py). A session
remembers the newest `PROMPT_KEY_LIMIT` keys; the least recently used go first. This mapping
(key -> messageId, oldest first) is all there is to it: a store that persists sessions saves
it and gives it back with `remember`.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator, Mapping
from typing import Final

# Keys kept per session; a retry normally follows its first attempt closely.
PROMPT_KEY_LIMIT: Final = 1024


class PromptKeys(Mapping[str, str]):
    """A session's idempotency keys -> the messageId of the prompt each first came with."""

    __slots__ = ("_ids", "limit")

    def __init__(self, limit: int = PROMPT_KEY_LIMIT) -> None:
        if limit < 1:
            raise ValueError(f"a session must keep at least one prompt key, not {limit}")
        self.limit = limit
        self._ids: OrderedDict[str, str] = OrderedDict()

    def __getitem__(self, key: str) -> str:
        return self._ids[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._ids)

    def __len__(self) -> int:
        return len(self._ids)

    def seen(self, key: str) -> str | None:
        """The messageId `key` was first answered with (now the most recently used); None
        for a key this session does not remember."""
        message_id = self._ids.get(key)
        if message_id is not None:
            self._ids.move_to_end(key)
        return message_id

    def remember(self, key: str, message_id: str) -> None:
        """Keep `key` -> `message_id`, forgetting the least recently used past the limit."""
        self._ids[key] = message_id
        self._ids.move_to_end(key)
        while len(self._ids) > self.limit:
            self._ids.popitem(last=False)
