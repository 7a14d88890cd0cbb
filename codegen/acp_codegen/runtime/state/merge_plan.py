"""Check a `MergeRule` table once and precompute what applying an update needs.

The runtime knows how each *entity* is stored (docs/design.md, section 2), never which update
tags exist: every tag-specific fact comes from the rows checked here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, NamedTuple

from ..wire.jsonvalue import parse_pointer, pointer_to
from ..wire.protocol import NOTICE
from ..wire.tables import Entity, MergeRule
from .records import FieldKind

# Keyed entities and their snapshot names; messages are listed in order of first appearance.
KEYED_ENTITIES: Final[Mapping[str, str]] = {
    "message": "messages",
    "toolCall": "toolCalls",
    "terminal": "terminals",
    "plan": "plans",
    "compaction": "compactions",
    "subagent": "subagents",  # a parent's child sessions, by the child's sessionId
}
# Live events kept in arrival order (no key, no patching) and never replayed by an agent.
LOG_ENTITIES: Final[Mapping[str, str]] = {"notice": "notices"}
SLOT_ENTITIES: Final[tuple[Entity, ...]] = (
    "usage",
    "availableCommands",
    "configOptions",
    "sessionInfo",
    "promptSuggestions",
)
# Slots that hold a live offer, not history (the agent's current prompt suggestions): folded
# like any slot, never replayed by an agent.
LIVE_SLOT_ENTITIES: Final[tuple[Entity, ...]] = ("promptSuggestions",)
STATE_ENTITY: Final = "state"
# Markers in the update stream that change no state: `replay` ends a resume's replay. The state
# counts them (`SessionState.marks`); an agent never records one in a session's history.
REPLAY_ENTITY: Final = "replay"
MARKER_ENTITIES: Final[tuple[Entity, ...]] = (REPLAY_ENTITY,)

# Accumulated fields every keyed entity has even when no rule appends to them.
_DEFAULT_LAYOUT: Final[Mapping[str, Mapping[str, FieldKind]]] = {
    "message": {"content": "list"},
    "toolCall": {"content": "list"},
    "terminal": {"output": "bytes"},
    "plan": {},
    "compaction": {"summary": "list"},
    "subagent": {},
}

_OPS_BY_ENTITY_KIND: Final[Mapping[str, frozenset[str]]] = {
    "keyed": frozenset({"upsert", "append", "replace", "remove"}),
    "slot": frozenset({"upsert", "replace"}),
    "state": frozenset({"replace"}),
    "log": frozenset({"append"}),
    "marker": frozenset({"replace"}),
}


@dataclass(frozen=True, slots=True)
class CompiledRule:
    rule: MergeRule
    key: tuple[str, ...]  # empty for single-slot entities
    key_name: str  # last key token: the identity field in snapshots ("" for slots)
    source: tuple[str, ...] | None  # None: the whole update without its tag
    byte_sources: Mapping[str, tuple[str, ...]]  # upsert: bytes field -> pointer inside value
    # One-token pointers as that token (one `get` per chunk, no pointer walk); else None.
    key_token: str | None = None
    source_token: str | None = None


class HeldRule(NamedTuple):
    """What `SessionState.fold_held` (the fast path) needs of a rule it takes, unpacked in one
    step: a chunk's (`accumulated` None) or an upsert's (`source_token` and `field` "")."""

    key_token: str
    source_token: str
    entity: str
    field: str
    role: str | None  # a message's: its updates go to the record of that role
    accumulated: frozenset[str] | None  # an upsert: the entity's list and bytes fields


@dataclass(frozen=True, slots=True)
class MergePlan:
    rules: Mapping[str, CompiledRule]
    layouts: Mapping[str, Mapping[str, FieldKind]]  # keyed entity -> accumulated fields
    # Bytes pointers any rule declared, used when an upsert rule does not name one itself.
    byte_sources: Mapping[str, Mapping[str, tuple[str, ...]]]
    # The rules the fast path takes (`held_rules`), by tag; the tokens chunk items are read
    # from (a state whose tag field is one of them takes none: see `_append`).
    held: Mapping[str, HeldRule]
    held_sources: frozenset[str]


def _entity_kind(entity: str) -> str:
    if entity in KEYED_ENTITIES:
        return "keyed"
    if entity == STATE_ENTITY:
        return "state"
    if entity in SLOT_ENTITIES:
        return "slot"
    if entity in LOG_ENTITIES:
        return "log"
    if entity in MARKER_ENTITIES:
        return "marker"
    raise ValueError(f"unknown entity {entity!r}")


def _check_row(tag: str, rule: MergeRule) -> str:
    """The entity kind of a valid row; a clear ValueError for an invalid one."""
    if rule.tag != tag:
        raise ValueError(f"merge rule keyed {tag!r} says its tag is {rule.tag!r}")
    try:
        kind = _entity_kind(rule.entity)
    except ValueError as error:
        raise ValueError(f"merge rule {tag!r}: {error}") from None
    if rule.op not in _OPS_BY_ENTITY_KIND[kind]:
        raise ValueError(f"merge rule {tag!r}: op {rule.op!r} is not supported for {rule.entity}")
    if (kind == "keyed") != (rule.key is not None):
        need = "needs" if kind == "keyed" else "must not have"
        raise ValueError(f"merge rule {tag!r}: entity {rule.entity} {need} a key")
    if kind == "log" and (rule.field or rule.encoding or rule.role):
        raise ValueError(f"merge rule {tag!r}: a {rule.entity} entry is the update itself")
    if kind == "marker" and (rule.field or rule.source or rule.encoding or rule.role):
        raise ValueError(f"merge rule {tag!r}: a {rule.entity} marker keeps nothing")
    if rule.op == "append" and not rule.field and kind != "log":
        raise ValueError(f"merge rule {tag!r}: append needs a field")
    if rule.op == "remove" and (rule.field or rule.source or rule.bytes_fields):
        raise ValueError(f"merge rule {tag!r}: remove takes only a key")
    if rule.encoding is not None and rule.op != "append":
        raise ValueError(f"merge rule {tag!r}: encoding only applies to append")
    if rule.bytes_fields and (kind != "keyed" or rule.op == "append"):
        raise ValueError(f"merge rule {tag!r}: bytes fields only apply to keyed upsert/replace")
    return kind


def _declare(
    layouts: dict[str, dict[str, FieldKind]], tag: str, entity: str, name: str, kind: FieldKind
) -> None:
    known = layouts[entity].setdefault(name, kind)
    if known != kind:
        raise ValueError(f"merge rule {tag!r}: {entity}.{name} is used both as {known} and {kind}")


# Plans by table content: every session of a connection shares one (rows are frozen, hashable).
_PLANS: dict[tuple[tuple[str, MergeRule], ...], MergePlan] = {}
_PLAN_CACHE_SIZE: Final = 32


def plan_for(rules: Mapping[str, MergeRule]) -> MergePlan:
    """`compile_rules`, done once per distinct table (a new session then costs no compile)."""
    key = tuple(rules.items())
    try:
        plan = _PLANS.get(key)
    except TypeError:  # a row holding a list (unhashable): compile it uncached
        return compile_rules(rules)
    if plan is None:
        plan = compile_rules(rules)
        if len(_PLANS) >= _PLAN_CACHE_SIZE:
            _PLANS.clear()  # tables are few; a test making many just recompiles
        _PLANS[key] = plan
    return plan


def compile_rules(rules: Mapping[str, MergeRule]) -> MergePlan:
    """Check every row and derive the accumulated-field layout of each keyed entity."""
    layouts: dict[str, dict[str, FieldKind]] = {
        entity: dict(fields) for entity, fields in _DEFAULT_LAYOUT.items()
    }
    byte_sources: dict[str, dict[str, tuple[str, ...]]] = {entity: {} for entity in layouts}
    compiled: dict[str, CompiledRule] = {}
    for tag, rule in rules.items():
        kind = _check_row(tag, rule)
        try:
            key = parse_pointer(rule.key) if rule.key is not None else ()
            source = parse_pointer(rule.source) if rule.source is not None else None
            own_bytes = {name: parse_pointer(ptr) for name, ptr in rule.bytes_fields}
        except ValueError as error:
            raise ValueError(f"merge rule {tag!r}: {error}") from None
        if kind == "keyed" and not key:
            raise ValueError(f"merge rule {tag!r}: the key pointer must not be empty")
        if rule.op == "append" and kind != "log":
            assert rule.field is not None  # checked by _check_row
            field_kind: FieldKind = "bytes" if rule.encoding == "base64" else "list"
            _declare(layouts, tag, rule.entity, rule.field, field_kind)
            if source is None:
                source = parse_pointer(pointer_to(rule.field))
        for name, pointer in own_bytes.items():
            _declare(layouts, tag, rule.entity, name, "bytes")
            byte_sources[rule.entity].setdefault(name, pointer)
        compiled[tag] = CompiledRule(
            rule=rule,
            key=key,
            key_name=key[-1] if key else "",
            source=source,
            byte_sources=own_bytes,
            key_token=key[0] if len(key) == 1 else None,
            source_token=source[0] if source is not None and len(source) == 1 else None,
        )
    held = held_rules(compiled, layouts)
    sources = frozenset(rule.source_token for rule in held.values() if rule.source_token)
    return MergePlan(compiled, layouts, byte_sources, held, sources)


def held_rules(
    compiled: Mapping[str, CompiledRule], layouts: Mapping[str, Mapping[str, FieldKind]]
) -> dict[str, HeldRule]:
    """The rules whose updates `SessionState.fold_held` may take: appends to a list of a
    keyed entity, key and item one token each; upserts of a keyed entity by one token, of
    the whole update, with no bytes of their own. A notice's tag is left out whatever its rule
    (the client reads it for a takeover)."""
    held: dict[str, HeldRule] = {}
    for tag, rule in compiled.items():
        plain, key = rule.rule, rule.key_token
        if plain.entity not in KEYED_ENTITIES or key is None or tag == NOTICE:
            continue
        if plain.op == "append" and plain.encoding is None and plain.field is not None:
            if rule.source_token is not None:
                source = rule.source_token
                held[tag] = HeldRule(key, source, plain.entity, plain.field, plain.role, None)
        elif plain.op == "upsert" and plain.source is None and not plain.bytes_fields:
            accumulated = frozenset(layouts[plain.entity])
            held[tag] = HeldRule(key, "", plain.entity, "", plain.role, accumulated)
    return held
