"""Session state folded from `session/update` notifications by the merge-rule table.

`SessionState.apply` runs in two phases: *prepare* checks the update against its rule and builds
a commit closure (all decoding and copying happens here, so a malformed update raises before
anything changes); *commit* then mutates in place and cannot fail. Nothing copies the whole
state per update, so n chunks for one message cost O(n); accumulated items are kept frozen
(`frozen.py`: compact and immutable), and `snapshot()` builds fresh plain data from them.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar, cast

from pydantic import BaseModel

from ..wire.errors import MalformedUpdateError
from ..wire.jsonvalue import ABSENT, Absent, JsonMapping, JsonObject, JsonValue, copy_json, resolve
from ..wire.protocol import FINISHED_TOOL_CALL_STATUSES, STATE_IDLE, TOOL_CALL_CANCELLED
from ..wire.tables import MergeRule
from .frozen import freeze_item
from .held_path import MESSAGE_ENTITY, TOOL_CALL_ENTITY, HeldPath
from .malformed import decode_base64 as _decode_base64
from .malformed import describe as _describe
from .merge_plan import (
    KEYED_ENTITIES,
    LOG_ENTITIES,
    MARKER_ENTITIES,
    SLOT_ENTITIES,
    STATE_ENTITY,
    CompiledRule,
    HeldRule,
    MergePlan,
    plan_for,
)
from .records import FieldPatch, Record, patch_plain

Commit = Callable[[], None]
Copy = Callable[
    [JsonValue], JsonValue
]  # how a kept part is taken: copied, or kept as it is when owned
logger = logging.getLogger(__name__)
SUBAGENT_ENTITY = "subagent"
# The snapshot's static type: generated packages bind it to their `SessionSnapshot` TypedDict.
SnapshotT = TypeVar("SnapshotT")
_NOTHING_HELD: Mapping[str, HeldRule] = {}


def _keep(value: JsonValue) -> JsonValue:
    return value


class SessionState(HeldPath, Generic[SnapshotT]):
    """The state of one session as the client sees it (see `snapshot` for the shape)."""

    def __init__(
        self,
        rules: Mapping[str, MergeRule] | MergePlan,
        tag_field: str = "sessionUpdate",
        validate: Callable[[JsonObject], object] | None = None,
        on_child: Callable[[str], None] | None = None,
    ) -> None:
        """`rules`: the merge-rule table, or its compiled plan (a client compiles its table once
        for all its sessions). `validate` checks a known-tag update and raises when it is
        malformed; it may return a repaired copy (a dict) to fold instead (see `tolerant.py`).
        `on_child` is told the id of each child session (`subagent` entity) first announced."""
        self._plan = rules if isinstance(rules, MergePlan) else plan_for(rules)
        self._on_child = on_child
        self._tag_field = tag_field
        self._validate = validate
        # Keyed by the wire key; a message whose id another role used first is keyed by the
        # pair (role, id), which no string from the wire can equal.
        self._records: dict[str, dict[str | tuple[str, str], Record]] = {
            entity: {} for entity in KEYED_ENTITIES
        }
        self._slots: dict[str, Any] = dict.fromkeys(SLOT_ENTITIES)
        # Lists made when first needed, ids as dict keys (a dict of strings is not tracked by
        # the collector): a client keeps every session's state, most of which stay small.
        self._logs: dict[str, list[JsonValue]] = {}
        self._state: str | None = None
        self._stop_reason: str | None = None
        self._unknown: list[JsonValue] | None = None
        self._work_tool_calls: dict[str, None] = {}  # tool calls of the current active work
        self._marks: dict[str, int] = {}  # markers applied, by entity (MARKER_ENTITIES)
        # What `fold_held` takes: none when each update is validated here, or when the tag
        # field is where an item is read from (then only `_append` reads it right).
        fast = validate is None and tag_field not in self._plan.held_sources
        self._held = self._plan.held if fast else _NOTHING_HELD

    @property
    def state(self) -> str | None:
        return self._state

    @property
    def stop_reason(self) -> str | None:
        return self._stop_reason

    def marks(self, entity: str) -> int:
        """How many markers of `entity` (a marker changes no state: merge_plan.py) came."""
        return self._marks.get(entity, 0)

    def apply(self, update: object, *, owned: bool = False) -> None:
        """Fold one `update` object; raise `MalformedUpdateError` (a ValueError) and change
        nothing when a known-tag update is malformed. Unknown tags are kept as they came.

        The state never shares objects with the caller: the parts it keeps are copied, unless
        `owned` says the caller hands `update` over (freshly decoded from the wire and
        referenced nowhere else, as the client's connection does), so it keeps them as they are.
        """
        copy = _keep if owned else copy_json
        data = update if type(update) is dict else self._as_object(update)
        tag = data.get(self._tag_field)
        if not isinstance(tag, str):
            raise MalformedUpdateError(None, f"{self._tag_field!r} must be a string")
        compiled = self._plan.rules.get(tag)
        if compiled is None:
            if self._unknown is None:
                self._unknown = []
            self._unknown.append(copy(data))
            return
        if self._validate is not None:
            try:
                repaired = self._validate(data)
            except Exception as error:
                raise MalformedUpdateError(tag, _describe(error)) from error
            if isinstance(repaired, dict):  # a tolerant validator dropped a bad part
                data = repaired
        if compiled.rule.op == "append":
            if compiled.key:
                self._append(tag, compiled, data)  # chunks: most updates, nothing to undo
            else:  # a live event: the update itself, kept in arrival order
                entry = {name: value for name, value in data.items() if name != self._tag_field}
                self._logs.setdefault(compiled.rule.entity, []).append(copy(entry))
            return
        commit = self._prepare(tag, compiled, data, copy)
        commit()

    def mark_cancelled(self) -> None:
        """Mark every unfinished tool call of the current active work (those reported since the
        last idle) as cancelled, as the client does when it sends `session/cancel`. Tool calls
        of earlier, finished work keep their status; with no active work nothing changes."""
        records = self._records[TOOL_CALL_ENTITY]
        for key in self._work_tool_calls:
            record = records.get(key)
            if (
                record is not None
                and record.fields.get("status") not in FINISHED_TOOL_CALL_STATUSES
            ):
                record.fields["status"] = TOOL_CALL_CANCELLED

    def holds_child(self, session_id: str) -> bool:
        """Whether this session announced the child session `session_id` (a subagent)."""
        return session_id in self._records[SUBAGENT_ENTITY]

    def tool_call(self, call_id: str) -> dict[str, Any] | None:
        """One tool call as `snapshot()` shows it (None: none has that id)."""
        record = self._records[TOOL_CALL_ENTITY].get(call_id)
        return None if record is None else record.snapshot()

    def snapshot(self) -> SnapshotT:
        """Fresh, JSON-serialisable data; later updates never change a returned snapshot."""
        out: dict[str, Any] = {"state": self._state, "stopReason": self._stop_reason}
        for entity, name in KEYED_ENTITIES.items():
            records = self._records[entity]
            if entity == "message":
                out[name] = [record.snapshot() for record in records.values()]
            else:
                out[name] = {key: record.snapshot() for key, record in records.items()}
        for entity in SLOT_ENTITIES:
            out[entity] = copy_json(self._slots[entity])
        for entity, name in LOG_ENTITIES.items():
            out[name] = copy_json(self._logs.get(entity, []))
        out["unknown"] = copy_json(self._unknown or [])
        return cast(SnapshotT, out)

    # -- prepare: check and convert, never mutate ---------------------------------------------

    @staticmethod
    def _as_object(update: object) -> JsonObject:
        if isinstance(update, BaseModel):
            dumped: JsonObject = update.model_dump(mode="json", by_alias=True)
            return dumped
        if isinstance(update, dict):
            return update
        if isinstance(update, Mapping):
            return dict(update)
        raise MalformedUpdateError(None, f"expected a JSON object, got {type(update).__name__}")

    def _prepare(
        self, tag: str, compiled: CompiledRule, data: Mapping[str, JsonValue], copy: Copy
    ) -> Commit:
        entity = compiled.rule.entity
        members = {name: value for name, value in data.items() if name != self._tag_field}
        if entity == STATE_ENTITY:
            return self._prepare_state(tag, compiled, members)
        if entity in KEYED_ENTITIES:
            return self._prepare_keyed(tag, compiled, data, members, copy)
        if entity in MARKER_ENTITIES:
            return lambda: self._marks.__setitem__(entity, self._marks.get(entity, 0) + 1)
        return self._prepare_slot(tag, compiled, members, copy)

    def _source(self, tag: str, compiled: CompiledRule, members: JsonObject) -> JsonValue:
        if compiled.source is None:
            return members
        value: JsonValue | Absent = resolve(members, compiled.source)
        if value is ABSENT:
            raise MalformedUpdateError(tag, f"missing {compiled.rule.source or '/'}")
        return value

    def _prepare_state(self, tag: str, compiled: CompiledRule, members: JsonObject) -> Commit:
        value = self._source(tag, compiled, members)
        state = value.get("state") if isinstance(value, dict) else None
        if not isinstance(state, str) or not isinstance(value, dict):
            raise MalformedUpdateError(tag, "'state' must be a string")
        stop_reason = value.get("stopReason") if state == STATE_IDLE else None
        if stop_reason is not None and not isinstance(stop_reason, str):
            raise MalformedUpdateError(tag, "'stopReason' must be a string or null")

        def commit() -> None:
            self._state = state
            self._stop_reason = stop_reason
            if state == STATE_IDLE:
                self._work_tool_calls.clear()  # that work is over

        return commit

    def _prepare_slot(
        self, tag: str, compiled: CompiledRule, members: JsonObject, copy: Copy
    ) -> Commit:
        entity = compiled.rule.entity
        value = self._source(tag, compiled, members)
        if compiled.rule.op == "replace":
            replacement = copy(value)

            def replace() -> None:
                self._slots[entity] = replacement

            return replace
        if not isinstance(value, dict):
            raise MalformedUpdateError(tag, f"{compiled.rule.source} must be an object")
        patches = self._patches(tag, compiled, value, copy, keep_nulls=False)

        def upsert() -> None:
            slot = self._slots[entity]
            if not isinstance(slot, dict):
                slot = self._slots[entity] = {}
            for patch in patches:
                patch_plain(slot, patch)

        return upsert

    def _prepare_keyed(
        self,
        tag: str,
        compiled: CompiledRule,
        data: Mapping[str, JsonValue],
        members: JsonObject,
        copy: Copy,
    ) -> Commit:
        rule = compiled.rule
        key = resolve(data, compiled.key)
        if not isinstance(key, str):
            found = "nothing" if key is ABSENT else type(key).__name__
            raise MalformedUpdateError(tag, f"key {rule.key} must be a string, found {found}")
        if rule.op == "upsert":  # "append" never gets here: `_append` handles chunks
            if len(compiled.key) == 1:
                members.pop(compiled.key_name, None)
            patches = self._patches(tag, compiled, members, copy, keep_nulls=False)
            reset = False
        elif rule.op == "remove":  # the entity is forgotten (a removed plan)
            records = self._records[rule.entity]

            def remove() -> None:
                records.pop(key, None)

            return remove
        else:
            value = self._source(tag, compiled, members)
            if not isinstance(value, dict):
                raise MalformedUpdateError(tag, f"{rule.source} must be an object")
            patches = self._patches(tag, compiled, value, copy, keep_nulls=True)
            reset = True

        def commit() -> None:
            record = self._record(compiled, key, data)
            if reset:
                record.reset()
            for patch in patches:
                record.apply(patch)

        return commit

    def _append(self, tag: str, compiled: CompiledRule, data: Mapping[str, JsonValue]) -> None:
        """A chunk: check and convert its one item, then append it (a single change, so no
        commit closure). Its pointers read `data` itself unless they start at the tag."""
        rule = compiled.rule
        field, source = rule.field, compiled.source
        assert field is not None and source is not None  # compile_rules checked / defaulted
        # `data` is a dict (`_as_object`): a one-token pointer is one `get` (as in `resolve`).
        token = compiled.key_token
        key = data.get(token, ABSENT) if token is not None else resolve(data, compiled.key)
        if not isinstance(key, str):
            found = "nothing" if key is ABSENT else type(key).__name__
            raise MalformedUpdateError(tag, f"key {rule.key} must be a string, found {found}")
        token = compiled.source_token
        value: JsonValue | JsonMapping | Absent
        if token is not None and token != self._tag_field:
            value = data.get(token, ABSENT)
        elif source and source[0] != self._tag_field:
            value = resolve(data, source)
        else:
            members = {name: value for name, value in data.items() if name != self._tag_field}
            value = resolve(members, source)
        if value is ABSENT:
            raise MalformedUpdateError(tag, f"missing {rule.source or '/' + field}")
        # An append field holds bytes exactly when its rule decodes base64 (compile_rules).
        if rule.encoding == "base64":
            blob = _decode_base64(tag, rule.source or f"/{field}", value)
            self._record(compiled, key, data).append(field, blob)
            return
        # Frozen: compact, and shares nothing mutable with the caller (owned or not). Frozen
        # first: the record is made only once nothing can fail.
        item = freeze_item(value)
        self._record(compiled, key, data).lists[field].append(item)

    def _patches(
        self,
        tag: str,
        compiled: CompiledRule,
        members: Mapping[str, JsonValue],
        copy: Copy,
        *,
        keep_nulls: bool,
    ) -> list[FieldPatch]:
        """Patches for each member: absent keeps (no patch), null drops or clears (or is kept
        as a value by `replace`), anything else replaces."""
        entity = compiled.rule.entity
        layout = self._plan.layouts.get(entity, {})
        patches: list[FieldPatch] = []
        for name, value in members.items():
            kind = layout.get(name)
            if kind == "list":
                if value is not None and not isinstance(value, list):
                    raise MalformedUpdateError(tag, f"{name!r} must be an array or null")
                items = [freeze_item(item) for item in value] if value else []
                patches.append(FieldPatch("list", name, items))
            elif kind == "bytes":
                data = self._bytes_of(tag, compiled, name, value)
                patches.append(FieldPatch("bytes", name, data))
            elif value is None and not keep_nulls:
                patches.append(FieldPatch("drop", name))
            else:
                patches.append(FieldPatch("set", name, copy(value)))
        return patches

    def _bytes_of(self, tag: str, compiled: CompiledRule, name: str, value: JsonValue) -> bytes:
        if value is None:
            return b""
        entity_sources = self._plan.byte_sources.get(compiled.rule.entity, {})
        pointer = compiled.byte_sources.get(name, entity_sources.get(name, ()))
        text = resolve(value, pointer)
        where = f"{name}{'/' + '/'.join(pointer) if pointer else ''}"
        if text is ABSENT:
            raise MalformedUpdateError(tag, f"missing {where}")
        return _decode_base64(tag, where, text)

    # -- commit helpers -----------------------------------------------------------------------

    def _record(self, compiled: CompiledRule, key: str, data: Mapping[str, JsonValue]) -> Record:
        entity = compiled.rule.entity
        records = self._records[entity]
        slot: str | tuple[str, str] = key
        if entity == MESSAGE_ENTITY:
            # A messageId reused by another role is kept apart (as its own message), never
            # merged into the first role's content.
            first = records.get(key)
            if first is not None and first.identity.get("role") == compiled.rule.role:
                return first  # the next chunk of a message: most updates
            if first is not None:
                slot = (compiled.rule.role or "", key)
                if slot not in records:
                    logger.warning(
                        "messageId %r is used by %s and %s messages; keeping them apart",
                        key,
                        first.identity.get("role"),
                        compiled.rule.role,
                    )
        elif entity == TOOL_CALL_ENTITY:
            self._work_tool_calls[key] = None
        record = records.get(slot)
        if record is None:
            identity: JsonObject = {compiled.key_name: key}
            if entity == MESSAGE_ENTITY:
                identity["role"] = compiled.rule.role
            record = Record.create(identity, dict(self._plan.layouts[entity]))
            records[slot] = record
            if entity == SUBAGENT_ENTITY and self._on_child is not None:
                self._on_child(key)  # registered before any of the child's own updates
        return record
