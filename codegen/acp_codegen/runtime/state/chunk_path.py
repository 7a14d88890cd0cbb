"""The fast path of most updates a client folds: a chunk appended to a record already held.

`SessionState` (session_state.py) inherits `append_chunk`; the state it shares is declared
here. A fast path (docs/design.md, "Performance-sensitive paths"): `SessionState.apply(data,
owned=True)` is its reference, and tests/runtime/test_fast_paths_state.py requires the same
state from both on random streams. It takes only what the plan lists as chunk rules
(`merge_plan.chunk_rules`: key and item one token each, items kept as a list) for a record
that exists (and, for a message, of the rule's role); anything else it leaves, unchanged, to
`apply`, which also says what is wrong with a malformed one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ..wire.jsonvalue import ABSENT, JsonValue
from .frozen import TEXT, freeze_item
from .merge_plan import ChunkRule
from .records import Record

MESSAGE_ENTITY: Final = "message"
TOOL_CALL_ENTITY: Final = "toolCall"


class ChunkPath:
    """`append_chunk`, for `SessionState`, which sets what is declared here."""

    _tag_field: str
    _chunks: Mapping[str, ChunkRule]  # the plan's chunk rules, or none (see SessionState)
    _records: dict[str, dict[str | tuple[str, str], Record]]
    _work_tool_calls: dict[str, None]

    def append_chunk(self, data: JsonValue) -> bool:
        """Append a chunk of a record already held, from an update decoded for the state alone
        (as `apply(data, owned=True)` would); False, with nothing changed, for any other update
        (the caller applies it)."""
        if type(data) is not dict:
            return False
        tag = data.get(self._tag_field)
        chunk = self._chunks.get(tag) if tag.__class__ is str else None
        if chunk is None:
            return False
        key_token, source_token, entity, field, role = chunk
        key: Any = data.get(key_token)  # (typed loosely: checked here by class)
        value: Any = data.get(source_token, ABSENT)
        if key.__class__ is not str or value is ABSENT:
            return False  # `apply` says what is wrong
        record = self._records[entity].get(key)
        if record is None or (entity == MESSAGE_ENTITY and record.identity["role"] != role):
            return False  # a first chunk, or another role's: `_record` decides where it goes
        if entity == TOOL_CALL_ENTITY:
            self._work_tool_calls[key] = None
        # `freeze_item`, its text block inline: most chunks are one
        if (
            value.__class__ is dict
            and len(value) == 2
            and value.get("type") == TEXT
            and (text := value.get(TEXT)).__class__ is str
            and next(iter(value)) == "type"
        ):
            record.lists[field].append(text)
        else:
            record.lists[field].append(freeze_item(value))
        return True
