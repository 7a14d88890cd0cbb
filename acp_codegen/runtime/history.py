"""What an agent session keeps for `session/resume` replay, compacted as it grows.

A streamed message is mostly chunks: keeping each one made the history grow by an update per
token. A run of chunks that starts a message (its messageId not seen before in the history)
is kept instead as one whole message holding every chunk's block in order: replaying it gives
the client the same state (a message whose content is those blocks), in one update instead
of thousands. Chunks of a message the history already holds, and chunks with other members
(`_meta` is chunk-scoped), are kept as they came.
"""

from __future__ import annotations

from typing import Any, Final

from .protocol import (
    AGENT_MESSAGE,
    AGENT_MESSAGE_CHUNK,
    AGENT_THOUGHT,
    AGENT_THOUGHT_CHUNK,
    UPDATE_TAG_FIELD,
)

# A chunk's tag -> the tag of the whole message its run is kept as.
WHOLE_OF_CHUNK: Final = {AGENT_MESSAGE_CHUNK: AGENT_MESSAGE, AGENT_THOUGHT_CHUNK: AGENT_THOUGHT}
MESSAGE_ID: Final = "messageId"
CONTENT: Final = "content"
_PLAIN_CHUNK: Final = frozenset({UPDATE_TAG_FIELD, MESSAGE_ID, CONTENT})


class HistoryRecorder:
    """Appends updates to a session's history list, folding runs of chunks (see above).

    The list stays the session's public `history`: an author may replace or refill it (e.g.
    when restoring a session); the recorder notices and starts over from what it holds."""

    def __init__(self) -> None:
        self._history: list[Any] | None = None
        self._length = 0
        self._message_ids: set[str] = set()
        self._open: dict[str, Any] | None = None  # our whole message, last in the list

    def record(self, history: list[Any], update: Any) -> None:
        if history is not self._history or len(history) != self._length:
            self._resync(history)
        if isinstance(update, dict) and update.keys() == _PLAIN_CHUNK:
            whole_tag = WHOLE_OF_CHUNK.get(update[UPDATE_TAG_FIELD])
            message_id, block = update[MESSAGE_ID], update[CONTENT]
            if whole_tag is not None and isinstance(message_id, str) and isinstance(block, dict):
                open_entry = self._open
                if (
                    open_entry is not None
                    and open_entry[UPDATE_TAG_FIELD] == whole_tag
                    and open_entry[MESSAGE_ID] == message_id
                ):
                    open_entry[CONTENT].append(block)
                    return
                if message_id not in self._message_ids:
                    entry = {UPDATE_TAG_FIELD: whole_tag, MESSAGE_ID: message_id, CONTENT: [block]}
                    self._append(history, entry)
                    self._open = entry
                    return
        self._append(history, update)

    def _append(self, history: list[Any], update: Any) -> None:
        history.append(update)
        self._length = len(history)
        self._open = None
        message_id = update.get(MESSAGE_ID) if isinstance(update, dict) else None
        if isinstance(message_id, str):
            self._message_ids.add(message_id)

    def _resync(self, history: list[Any]) -> None:
        self._history = history
        self._open = None
        self._message_ids = set()
        for update in history:
            message_id = update.get(MESSAGE_ID) if isinstance(update, dict) else None
            if isinstance(message_id, str):
                self._message_ids.add(message_id)
        self._length = len(history)
