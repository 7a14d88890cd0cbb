"""TypedDicts for `SessionState.snapshot()`, derived from the merge rules and the models.

A snapshot is plain JSON, so every model a snapshot can hold gets a JSON mirror (`TextContent` ->
`TextContentDict`, wire names as keys) and every union of models a mirror alias. Each entity's
record shape follows from its rules: identity (key, a message's role), accumulated fields (lists
of the appended items, bytes as base64 text) and the fields its upserts patch; `replace` entities
are the replaced value. The entity and snapshot key names are the runtime's own (`merge_plan`).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from .ir import Protocol
from .model_fields import ModelInfo, type_source
from .runtime.jsonvalue import parse_pointer
from .runtime.merge_plan import KEYED_ENTITIES, SLOT_ENTITIES, compile_rules
from .runtime.tables import MergeRule as RuntimeRule

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

    @property
    def uses_literal(self) -> bool:
        shapes = (*self.mirrors, *self.entities, self.snapshot)
        types = [i.type for shape in shapes for i in shape.items]
        types += [value for _, value in (*self.aliases, *self.entity_aliases)]
        return any("Literal[" in t for t in types)


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

        builder = self

        class Mirror(ast.NodeTransformer):
            def visit_Name(self, name: ast.Name) -> ast.AST:
                if name.id in builder.info.classes or (
                    name.id in builder.info.aliases and builder._holds_models(name.id)
                ):
                    builder._need(name.id)
                    return ast.Name(id=MIRROR.format(name.id), ctx=ast.Load())
                return name

        mirrored = Mirror().visit(ast.parse(ast.unparse(node), mode="eval").body)
        assert isinstance(mirrored, ast.expr)
        local = frozenset(
            n.id for n in ast.walk(mirrored) if isinstance(n, ast.Name) and n.id.endswith("Dict")
        )
        return type_source(mirrored, self.info, local=local)

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


def _element(node: ast.expr) -> ast.expr:
    """`list[X] | None` -> X; anything else unchanged."""
    members = [node]
    if isinstance(node, ast.BinOp):
        members = [node.left, node.right]
    for member in members:
        if isinstance(member, ast.Subscript) and ast.unparse(member.value) == "list":
            return member.slice
    return node


def snapshot_types(protocol: Protocol, info: ModelInfo) -> SnapshotTypes | None:
    rules = {v.tag: v for v in protocol.update_variants if v.merge is not None}
    if not rules:
        return None
    b = _Builder(protocol, info)
    tag_field = protocol.update_tag or "sessionUpdate"
    runtime_rules: dict[str, Any] = {}
    for tag, variant in rules.items():
        r = variant.merge
        assert r is not None
        runtime_rules[tag] = RuntimeRule(
            r.tag, r.entity, r.op, r.key, r.field, r.source, r.role, r.encoding, r.bytes_fields  # type: ignore[arg-type]
        )
    plan = compile_rules(runtime_rules)
    entities: list[Shape] = []
    entity_aliases: list[tuple[str, str]] = []
    top: dict[str, str] = {}
    by_entity: dict[str, list[str]] = {}
    for tag, variant in rules.items():
        assert variant.merge is not None
        by_entity.setdefault(variant.merge.entity, []).append(tag)

    for entity, tags in by_entity.items():
        name = f"{_pascal(entity)}Snapshot"
        first = rules[tags[0]].merge
        assert first is not None
        if entity == "state":
            continue
        if entity in KEYED_ENTITIES:
            replace = [t for t in tags if rules[t].merge and rules[t].merge.op == "replace"]  # type: ignore[union-attr]
            if replace:
                merge = rules[replace[0]].merge
                assert merge is not None and merge.source is not None
                (source,) = parse_pointer(merge.source)
                value = b.json_type(b.field(rules[replace[0]].class_name, source))
                entity_aliases.append((name, value))
            else:
                items: dict[str, Item] = {}
                key_name = parse_pointer(first.key or "")[-1]
                items[key_name] = Item(key_name, "str", True)
                if any(rules[t].merge and rules[t].merge.role for t in tags):  # type: ignore[union-attr]
                    items["role"] = Item("role", "str", True)
                layout = plan.layouts.get(entity, {})
                for field, kind in layout.items():
                    item_type = "Any"
                    for t in tags:
                        merge = rules[t].merge
                        assert merge is not None
                        if merge.op == "append" and merge.field == field and kind == "list":
                            (source,) = parse_pointer(merge.source or f"/{field}")
                            item_type = b.json_type(b.field(rules[t].class_name, source))
                    stored = "str" if kind == "bytes" else f"list[{item_type}]"
                    items[field] = Item(field, stored, True)
                for t in tags:
                    merge = rules[t].merge
                    assert merge is not None
                    if merge.op != "upsert":
                        continue
                    upserted = b.items_of(
                        rules[t].class_name, key_name, tag_field, all_optional=True
                    )
                    for item in upserted:
                        if item.key in layout:
                            continue
                        items.setdefault(item.key, item)
                entities.append(Shape(name, tuple(items.values()), f"One {entity} in a snapshot."))
            container = "list" if entity == "message" else "dict[str, "
            top[KEYED_ENTITIES[entity]] = (
                f"list[{name}]" if container == "list" else f"dict[str, {name}]"
            )
        elif entity in SLOT_ENTITIES:
            merge = first
            variant = rules[tags[0]]
            if merge.op == "replace" and merge.source is not None:
                (source,) = parse_pointer(merge.source)
                entity_aliases.append((name, b.json_type(b.field(variant.class_name, source))))
            else:
                optional = merge.op == "upsert"
                shape_items = b.items_of(variant.class_name, tag_field, all_optional=optional)
                entities.append(Shape(name, tuple(shape_items), f"The {entity} of a snapshot."))
            top[entity] = f"{name} | None"
    message_block = None
    for shape in entities:
        if shape.name == "MessageSnapshot":
            content = next((i.type for i in shape.items if i.key == "content"), "")
            if content.startswith("list[") and content != "list[Any]":
                message_block = content[len("list[") : -1]
    keyed_defaults = {"messages": "list[dict[str, Any]]"}
    snapshot_items = [Item("state", "str | None", True), Item("stopReason", "str | None", True)]
    for key in KEYED_ENTITIES.values():
        default = keyed_defaults.get(key, "dict[str, dict[str, Any]]")
        snapshot_items.append(Item(key, top.get(key, default), True))
    for entity in SLOT_ENTITIES:
        snapshot_items.append(Item(entity, top.get(entity, "Any"), True))
    snapshot_items.append(Item("unknown", "list[dict[str, Any]]", True))
    return SnapshotTypes(
        mirrors=tuple(b.mirror_shapes()),
        aliases=tuple(b.alias_order()),
        entities=tuple(entities),
        entity_aliases=tuple(entity_aliases),
        snapshot=Shape("SessionSnapshot", tuple(snapshot_items), "What `snapshot()` returns."),
        message_block=message_block,
    )
