"""The fast path of most updates a client folds: one for a record the state already holds,
a chunk appended to it or a patch of plain members set on it.

`SessionState` (session_state.py) inherits `fold_held`; the state it shares is declared here.
A fast path (docs/design.md, "Performance-sensitive paths"): `SessionState.apply(data,
owned=True)` is its reference, and tests/runtime/test_fast_paths_state.py requires the same
state from both on random streams. It takes only what the plan lists (`merge_plan.held_rules`:
a chunk rule whose key and item are one token each and whose items are kept as a list, an
upsert of the whole update keyed by one token with no bytes) for a record that exists (and,
for a message, of the rule's role), and of an upsert only one without an accumulated field;
anything else it leaves, unchanged, to `apply`, which also says what is wrong with it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ..wire.jsonvalue import ABSENT, JsonValue
from .frozen import TEXT, freeze_item
from .merge_plan import HeldRule
from .records import Record

MESSAGE_ENTITY: Final = "message"
TOOL_CALL_ENTITY: Final = "toolCall"


class HeldPath:
    """`fold_held`, for `SessionState`, which sets what is declared here."""

    _tag_field: str
    _held: Mapping[str, HeldRule]  # the plan's rules for it, or none (see SessionState)
    _records: dict[str, dict[str | tuple[str, str], Record]]
    _work_tool_calls: dict[str, None]

    def fold_held(self, data: JsonValue) -> bool:
        """Fold an update of a record already held, decoded for the state alone (as
        `apply(data, owned=True)` would); False, with nothing changed, for any other update
        (the caller applies it)."""
        if type(data) is not dict:
            return False
        tag = data.get(self._tag_field)
        rule = self._held.get(tag) if tag.__class__ is str else None
        if rule is None:
            return False
        key_token, source_token, entity, field, role, accumulated = rule
        key: Any = data.get(key_token)  # (typed loosely: checked here by class)
        if key.__class__ is not str:
            return False  # `apply` says what is wrong
        record = self._records[entity].get(key)
        if record is None or (entity == MESSAGE_ENTITY and record.identity["role"] != role):
            return False  # a first update, or another role's: `_record` decides where it goes
        if accumulated is None:  # a chunk: its item appended
            value: Any = data.get(source_token, ABSENT)
            if value is ABSENT:
                return False
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
        else:  # an upsert: each member set (null: dropped), as `_patches` makes them
            if not accumulated.isdisjoint(data):
                return False  # a list or bytes to convert: `apply`'s
            fields, tag_field = record.fields, self._tag_field
            for name, member in data.items():
                if name in (tag_field, key_token):
                    continue
                if member is None:
                    fields.pop(name, None)
                else:
                    fields[name] = member
        if entity == TOOL_CALL_ENTITY:
            self._work_tool_calls[key] = None
        return True
