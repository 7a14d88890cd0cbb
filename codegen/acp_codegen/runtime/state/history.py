"""What an agent session keeps for `session/resume` replay, compacted as it grows.

A streamed message is mostly chunks: keeping each one made the history grow by an update per
token. A run of chunks that starts a record (its key not seen before in the history) is kept
instead as one whole update holding every chunk's item in order: replaying it gives the client
the same state, in one update instead of thousands. Which chunks have a whole form comes from
the merge rules (`chunk_runs`): a chunk variant that appends one item to a field, and a variant
that upserts the same entity by the same key for the same role (`agent_message_chunk` and
`agent_message`, say). Chunks of a record the history already holds, chunks with other members
(`_meta` is chunk-scoped), and chunks whose whole form the schema would not accept are kept as
they came.

The history is bounded: `limit` counts bytes of the entries' JSON (by default
`DEFAULT_HISTORY_LIMIT`, 16 MiB). Past it, the oldest entries are dropped until the rest fits,
so `session/resume` replays the newest part of the session; a message whose whole form was
dropped while it still streams goes on as the chunks that follow. `None` keeps everything.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Final

from ..wire.jsonvalue import JsonObject, JsonValue
from ..wire.line_framing import encoded_size
from ..wire.protocol import UPDATE_TAG_FIELD
from ..wire.tables import MergeRule
from .merge_plan import LIVE_SLOT_ENTITIES, LOG_ENTITIES, MARKER_ENTITIES

DEFAULT_HISTORY_LIMIT: Final = 16 << 20  # bytes of JSON: a long conversation, but a bounded one

WholeCheck = Callable[[JsonObject], bool]


@dataclass(frozen=True)
class ChunkRun:
    """How a run of one chunk variant is kept: as `{tag: whole_tag, key: id, field: [items]}`."""

    whole_tag: str
    key: str  # the member naming the record, in the chunk and in the whole update
    item: str  # the chunk's member holding its one item
    field: str  # the whole update's member holding the list of items

    @cached_property  # read per chunk sent: built once
    def members(self) -> frozenset[str]:
        """A chunk with exactly these members can join a run."""
        return frozenset({UPDATE_TAG_FIELD, self.key, self.item})


def _member(pointer: str | None) -> str | None:
    """The member a one-token JSON pointer names (`/messageId` -> `messageId`), else None."""
    if pointer is None or not pointer.startswith("/") or "/" in pointer[1:] or "~" in pointer:
        return None
    return pointer[1:] or None


def chunk_runs(rules: Mapping[str, MergeRule]) -> dict[str, ChunkRun]:
    """The chunk variants whose runs have a whole form, by tag (see above). Only plain items
    qualify: an append that decodes base64 or carries byte fields is kept as it came."""
    runs: dict[str, ChunkRun] = {}
    for tag, rule in sorted(rules.items()):
        if rule.op != "append" or rule.encoding is not None or rule.bytes_fields:
            continue
        key = _member(rule.key)
        item = _member(rule.source or (rule.field and f"/{rule.field}"))
        if key is None or item is None or rule.field is None:
            continue
        wholes = [
            other.tag
            for other in rules.values()
            if other.op == "upsert"
            and other.entity == rule.entity
            and other.key == rule.key
            and other.role == rule.role
            and not other.bytes_fields
        ]
        if len(wholes) == 1:  # two candidates: no telling which one the chunks belong to
            runs[tag] = ChunkRun(wholes[0], key, item, rule.field)
    return runs


def live_tags(rules: Mapping[str, MergeRule]) -> frozenset[str]:
    """Tags of live events (log entities such as notices, markers such as the end of a replay,
    live slots such as prompt suggestions): sent, never kept for replay."""
    live = (*LOG_ENTITIES, *MARKER_ENTITIES, *LIVE_SLOT_ENTITIES)
    return frozenset(tag for tag, rule in rules.items() if rule.entity in live)


def check_history_limit(limit: int | None) -> None:
    """Raise ValueError for a limit below 0 (None: no bound)."""
    if limit is not None and limit < 0:
        raise ValueError(f"the history limit must be at least 0, not {limit}")


class HistoryRecorder:
    """Appends updates to a session's history list, folding runs of chunks (see above).

    `runs` (from `chunk_runs`) says which chunks fold; `check` says whether a whole update
    would be accepted (the session's outgoing check); without it every whole form is kept.
    The list stays the session's public `history`: an author may replace or refill it (e.g.
    when restoring a session); the recorder notices and starts over from what it holds."""

    def __init__(
        self,
        runs: Mapping[str, ChunkRun] | None = None,
        check: WholeCheck | None = None,
        live: frozenset[str] = frozenset(),
        *,
        limit: int | None = DEFAULT_HISTORY_LIMIT,
    ) -> None:
        check_history_limit(limit)
        self._runs = dict(runs or {})
        self._live = live
        self._check = check
        self._limit = limit
        self._sizes: deque[int] = deque()  # each entry's size, in order (only with a limit)
        self._total = 0
        self.dropped = 0  # entries dropped to keep within the limit
        self._keys = {run.key for run in self._runs.values()}
        self._history: list[JsonObject] | None = None
        self._length = 0
        self._seen: set[tuple[str, str]] = set()  # (key member, key) of records in the history
        # Our whole update, last in the list (Any: its run's list is appended to unchecked).
        self._open: dict[str, Any] | None = None
        self._open_run: ChunkRun | None = None

    def record(self, history: list[JsonObject], update: JsonObject) -> None:
        if history is not self._history or len(history) != self._length:
            self._resync(history)
        tag = update.get(UPDATE_TAG_FIELD) if isinstance(update, dict) else None
        if tag in self._live:
            return
        run = self._runs.get(tag) if isinstance(tag, str) else None
        if run is not None and update.keys() == run.members:
            record_key, item = update[run.key], update[run.item]
            if isinstance(record_key, str) and isinstance(item, dict):
                open_entry = self._open
                if (
                    open_entry is not None
                    and self._open_run is run  # runs come from one table: the same object
                    and open_entry[run.key] == record_key
                ):
                    open_entry[run.field].append(item)
                    if self._limit is not None:
                        self._grow_last(history, _size(item) + 1)  # and a comma
                    return
                if (run.key, record_key) not in self._seen:
                    entry: JsonObject = {
                        UPDATE_TAG_FIELD: run.whole_tag,
                        run.key: record_key,
                        run.field: [item],
                    }
                    if self._check is None or self._check(entry):
                        self._append(history, entry)
                        self._open, self._open_run = entry, run
                        return
        self._append(history, update)

    def size_of(self, history: list[JsonObject]) -> int | None:
        """Bytes of JSON `history` holds, when this recorder has counted them (it keeps count
        under a limit, and `history` is the list it last recorded into, untouched since)."""
        if self._limit is None or history is not self._history or len(history) != self._length:
            return None
        return self._total

    def _append(self, history: list[JsonObject], update: JsonObject) -> None:
        history.append(update)
        self._length = len(history)
        self._open = self._open_run = None
        self._note_keys(update)
        if self._limit is not None:
            self._sizes.append(0)
            self._grow_last(history, _size(update))

    def _grow_last(self, history: list[JsonObject], size: int) -> None:
        """Count `size` more bytes for the last entry; drop the oldest entries past the limit."""
        self._sizes[-1] += size
        self._total += size
        limit = self._limit
        if limit is None or self._total <= limit:
            return
        drop = 0
        while self._total > limit and self._sizes:
            self._total -= self._sizes.popleft()
            drop += 1
        del history[:drop]  # one move of the list, whatever the count
        self._length = len(history)
        self.dropped += drop
        if not history:
            self._open = self._open_run = None  # our open whole update went too

    def _note_keys(self, update: JsonObject) -> None:
        if isinstance(update, dict):
            for key in self._keys:
                value = update.get(key)
                if isinstance(value, str):
                    self._seen.add((key, value))

    def _resync(self, history: list[JsonObject]) -> None:
        self._history = history
        self._open = self._open_run = None
        self._seen = set()
        for update in history:
            self._note_keys(update)
        self._length = len(history)
        if self._limit is not None:  # the author's entries count too
            self._sizes = deque(_size(update) for update in history)
            self._total = sum(self._sizes)


def history_bytes(history: list[JsonObject], recorder: HistoryRecorder | None) -> int:
    """Bytes of JSON `history` holds: the recorder's count when it kept one, else counted."""
    known = None if recorder is None else recorder.size_of(history)
    return known if known is not None else sum(map(_size, history))


def _size(value: JsonValue) -> int:
    """Bytes of `value` as JSON (what counts against the limit)."""
    return encoded_size(value)
