"""TypedDicts for `SessionState.snapshot()`, derived from the merge rules and the models.

A snapshot is plain JSON, so every model a snapshot can hold gets a JSON mirror (`TextContent` ->
`TextContentDict`, wire names as keys) and every union of models a mirror alias. Each entity's
record shape follows from its rules: identity (key, a message's role), accumulated fields (lists
of the appended items, bytes as base64 text) and the fields its upserts patch; `replace` entities
are the replaced value. The entity and snapshot key names are the runtime's own (`merge_plan`).
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

from ..model.ir import MergeRule, Protocol
from ..runtime.state.merge_plan import KEYED_ENTITIES, LOG_ENTITIES, SLOT_ENTITIES, compile_rules
from ..runtime.wire.jsonvalue import parse_pointer
from ..runtime.wire.tables import MergeRule as RuntimeRule
from .model_fields import ModelInfo, rebuilt, type_source

MIRROR = "{}Dict"


@dataclass(frozen=True, slots=True)
class Item:
    key: str
    type: str
    required: bool


@dataclass(frozen=True, slots=True)
class Shape:
    name: str
    items: tuple[Item, ...]
    doc: str


@dataclass(frozen=True, slots=True)
class SnapshotTypes:
    mirrors: tuple[Shape, ...]  # one TypedDict per model class a snapshot can hold
    aliases: tuple[tuple[str, str], ...]  # (name, type) in dependency order
    entities: tuple[Shape, ...]
    entity_aliases: tuple[tuple[str, str], ...]
    snapshot: Shape
    message_block: str | None  # the type of a message's content items, if messages have any

    def _types(self) -> list[str]:
        shapes = (*self.mirrors, *self.entities, self.snapshot)
        types = [i.type for shape in shapes for i in shape.items]
        return types + [value for _, value in (*self.aliases, *self.entity_aliases)]

    @property
    def uses_models(self) -> bool:
        return any("models." in t for t in self._types())

    @property
    def typing_names(self) -> list[str]:
        """What the module imports from `typing`."""
        names = {"Any", "Protocol", "TypedDict", "cast"}
        if any("Literal[" in t for t in self._types()):
            names.add("Literal")
        if any(i.required for shape in (*self.mirrors, *self.entities) for i in shape.items):
            names.add("Required")
        if self.aliases or self.entity_aliases:
            names.add("TypeAlias")
        return sorted(names, key=lambda n: (n[0].islower(), n))


def _pascal(entity: str) -> str:
    return entity[:1].upper() + entity[1:]


class _Builder:
    def __init__(self, protocol: Protocol, info: ModelInfo) -> None:
        self.protocol = protocol
        self.info = info
        self.classes: set[str] = set()  # model classes that need a mirror
        self.aliases: set[str] = set()  # model aliases that need a mirror alias

    def _holds_models(self, name: str, seen: frozenset[str] = frozenset()) -> bool:
        if name in self.info.classes:
            return True
        expr = self.info.aliases.get(name)
        if expr is None or name in seen:
            return False
        return any(
            self._holds_models(n.id, seen | {name})
            for n in ast.walk(expr)
            if isinstance(n, ast.Name)
        )

    def json_type(self, node: ast.expr) -> str:
        """A model type expression as its JSON mirror; registers what it needs."""

        def mirrored(leaf: ast.AST) -> ast.AST | None:
            if not isinstance(leaf, ast.Name):
                return None
            if leaf.id in self.info.classes or (
                leaf.id in self.info.aliases and self._holds_models(leaf.id)
            ):
                self._need(leaf.id)
                return ast.Name(id=MIRROR.format(leaf.id), ctx=ast.Load())
            return leaf

        mirror = rebuilt(node, mirrored)
        assert isinstance(mirror, ast.expr)
        local = frozenset(
            n.id for n in ast.walk(mirror) if isinstance(n, ast.Name) and n.id.endswith("Dict")
        )
        return type_source(mirror, self.info, local=local)

    def _need(self, name: str) -> None:
        target = self.classes if name in self.info.classes else self.aliases
        if name in target:
            return
        target.add(name)
        if name in self.info.classes:
            for f in self.info.classes[name]:
                self.json_type(f.annotation)
        else:
            self.json_type(self.info.aliases[name])

    def field(self, class_name: str, wire_name: str) -> ast.expr:
        for f in self.info.fields(class_name):
            if f.wire_name == wire_name:
                return f.annotation
        raise KeyError(f"{class_name} has no field {wire_name!r}")

    def items_of(self, class_name: str, *exclude: str, all_optional: bool = False) -> list[Item]:
        out = []
        for f in self.info.fields(class_name, exclude):
            # A tag with its default is always on the wire, so always in a snapshot.
            is_tag = (
                isinstance(f.annotation, ast.Subscript)
                and ast.unparse(f.annotation.value) == "Literal"
            )
            required = (f.required or is_tag) and not all_optional
            out.append(Item(f.wire_name, self.json_type(f.annotation), required))
        return out

    def mirror_shapes(self) -> list[Shape]:
        shapes = []
        for name in sorted(self.classes):
            shapes.append(
                Shape(MIRROR.format(name), tuple(self.items_of(name)), f"`models.{name}` as JSON.")
            )
        return shapes

    def alias_order(self) -> list[tuple[str, str]]:
        """Mirror aliases, each after the aliases it names (classes are defined before)."""
        done: list[tuple[str, str]] = []
        placed: set[str] = set()

        def place(name: str) -> None:
            if name in placed:
                return
            placed.add(name)
            expr = self.info.aliases[name]
            for n in ast.walk(expr):
                if isinstance(n, ast.Name) and n.id in self.aliases:
                    place(n.id)
            done.append((MIRROR.format(name), self.json_type(expr)))

        for name in sorted(self.aliases):
            place(name)
        return done


# One update variant with its rule: (class name, rule).
Ruled = tuple[str, MergeRule]


def _layouts(rules: dict[str, Ruled]) -> Mapping[str, Mapping[str, str]]:
    """Accumulated fields of each keyed entity, exactly as the runtime derives them."""
    rows = {
        tag: RuntimeRule(
            tag=r.tag,
            entity=cast(Any, r.entity),
            op=cast(Any, r.op),
            key=r.key,
            field=r.field,
            source=r.source,
            role=r.role,
            encoding=cast(Any, r.encoding),
            bytes_fields=r.bytes_fields,
        )
        for tag, (_, r) in rules.items()
    }
    return compile_rules(rows).layouts


def _source_field(rule: MergeRule, default: str) -> str:
    (field,) = parse_pointer(rule.source or default)
    return field


class _Entities:
    """Entity shapes, built one entity at a time."""

    def __init__(self, b: _Builder, tag_field: str, layouts: Mapping[str, Mapping[str, str]]):
        self.b = b
        self.tag_field = tag_field
        self.layouts = layouts
        self.shapes: list[Shape] = []
        self.aliases: list[tuple[str, str]] = []
        self.top: dict[str, str] = {}  # snapshot key -> type

    def keyed(self, entity: str, ruled: list[Ruled]) -> None:
        name = f"{_pascal(entity)}Snapshot"
        replaced = [(cls, r) for cls, r in ruled if r.op == "replace"]
        if replaced:  # the record is the replaced value itself
            cls, rule = replaced[0]
            self.aliases.append(
                (name, self.b.json_type(self.b.field(cls, _source_field(rule, ""))))
            )
        else:
            self.shapes.append(self._record(entity, name, ruled))
        held = f"list[{name}]" if entity == "message" else f"dict[str, {name}]"
        self.top[KEYED_ENTITIES[entity]] = held

    def _record(self, entity: str, name: str, ruled: list[Ruled]) -> Shape:
        key_name = parse_pointer(ruled[0][1].key or "")[-1]
        items = {key_name: Item(key_name, "str", True)}
        if any(r.role for _, r in ruled):
            items["role"] = Item("role", "str", True)
        layout = self.layouts.get(entity, {})
        for field, kind in layout.items():
            item_type = "Any"
            for cls, r in ruled:
                if r.op == "append" and r.field == field and kind == "list":
                    item_type = self.b.json_type(self.b.field(cls, _source_field(r, f"/{field}")))
            items[field] = Item(field, "str" if kind == "bytes" else f"list[{item_type}]", True)
        for cls, r in ruled:
            if r.op == "upsert":
                for item in self.b.items_of(cls, key_name, self.tag_field, all_optional=True):
                    if item.key not in layout:
                        items.setdefault(item.key, item)
        return Shape(name, tuple(items.values()), f"One {entity} in a snapshot.")

    def slot(self, entity: str, ruled: list[Ruled]) -> None:
        name = f"{_pascal(entity)}Snapshot"
        cls, rule = ruled[0]
        if rule.op == "replace" and rule.source is not None:
            self.aliases.append(
                (name, self.b.json_type(self.b.field(cls, _source_field(rule, ""))))
            )
        else:
            optional = rule.op == "upsert"
            fields = self.b.items_of(cls, self.tag_field, all_optional=optional)
            self.shapes.append(Shape(name, tuple(fields), f"The {entity} of a snapshot."))
        self.top[entity] = f"{name} | None"

    def log(self, entity: str, ruled: list[Ruled]) -> None:
        """A list of the updates themselves, without their tag."""
        name = f"{_pascal(entity)}Snapshot"
        cls, _ = ruled[0]
        fields = self.b.items_of(cls, self.tag_field, all_optional=False)
        self.shapes.append(Shape(name, tuple(fields), f"One {entity} in a snapshot."))
        self.top[LOG_ENTITIES[entity]] = f"list[{name}]"

    def message_block(self) -> str | None:
        for shape in self.shapes:
            if shape.name == "MessageSnapshot":
                content = next((i.type for i in shape.items if i.key == "content"), "")
                # Text helpers only make sense for content blocks (mirrors of models).
                if content.startswith("list[") and content.endswith("Dict]"):
                    return content[len("list[") : -1]
        return None


def snapshot_types(protocol: Protocol, info: ModelInfo) -> SnapshotTypes | None:
    rules = {v.tag: (v.class_name, v.merge) for v in protocol.update_variants if v.merge}
    if not rules:
        return None
    b = _Builder(protocol, info)
    found = _Entities(b, protocol.update_tag or "sessionUpdate", _layouts(rules))
    by_entity: dict[str, list[Ruled]] = {}
    for one in rules.values():
        by_entity.setdefault(one[1].entity, []).append(one)
    for entity, ruled in by_entity.items():
        if entity in KEYED_ENTITIES:
            found.keyed(entity, ruled)
        elif entity in SLOT_ENTITIES:
            found.slot(entity, ruled)
        elif entity in LOG_ENTITIES:
            found.log(entity, ruled)
        # the state entity is the snapshot's own `state` and `stopReason`
    items = [Item("state", "str | None", True), Item("stopReason", "str | None", True)]
    for key in KEYED_ENTITIES.values():
        default = "list[dict[str, Any]]" if key == "messages" else "dict[str, dict[str, Any]]"
        items.append(Item(key, found.top.get(key, default), True))
    for entity in SLOT_ENTITIES:
        items.append(Item(entity, found.top.get(entity, "Any"), True))
    for key in LOG_ENTITIES.values():
        items.append(Item(key, found.top.get(key, "list[dict[str, Any]]"), True))
    items.append(Item("unknown", "list[dict[str, Any]]", True))
    return SnapshotTypes(
        mirrors=tuple(b.mirror_shapes()),
        aliases=tuple(b.alias_order()),
        entities=tuple(found.shapes),
        entity_aliases=tuple(found.aliases),
        snapshot=Shape("SessionSnapshot", tuple(items), "What `snapshot()` returns."),
        message_block=found.message_block(),
    )
