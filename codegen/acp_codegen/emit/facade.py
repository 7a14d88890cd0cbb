"""What the typed-facade templates (`session.py.j2`, `snapshot.py.j2`) ask about the models.

Templates name protocol vocabulary (update tags, method names, wire field names), never Python
class names: those come from the schema (titles) and are looked up here, so a schema that
renames a class still produces a consistent facade. A lookup that fails is a generator bug and
raises at generation time.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from ..model.ir import Method, Protocol
from .model_fields import ModelInfo, read_models, type_source

# How the alias of an open enum's known values is named (`ToolKind` -> `ToolKindValue`).
KNOWN_VALUES = "{}Value"


@dataclass(frozen=True, slots=True)
class TypedField:
    key: str  # wire name
    type: str  # Python type expression, models qualified as `models.X`
    required: bool


class Facade:
    def __init__(self, protocol: Protocol, models_source: str) -> None:
        self.protocol = protocol
        self.info: ModelInfo = read_models(models_source)
        self.tag_field = protocol.update_tag or "sessionUpdate"

    def check(self) -> None:
        """Look up everything `session.py.j2` needs, so a schema that lacks a piece fails with
        a KeyError here rather than in the middle of rendering."""
        for tag in (
            "tool_call_update",
            "tool_call_content_chunk",
            "terminal_update",
            "usage_update",
            "agent_message",
            "agent_message_chunk",
            "agent_thought",
            "agent_thought_chunk",
        ):
            self.info.fields(self.update_class(tag))
        self.variant_class(self.update_class("plan_update"), "plan", "items")
        self.ftype(self.result_class("session/request_permission"), "outcome")
        self.item_type(self.params_class("session/request_permission"), "options")
        self.variant_class(self.params_class("session/prompt"), "prompt", "text")

    # -- classes by protocol vocabulary ---------------------------------------------------------

    def has_update(self, tag: str) -> bool:
        """Whether the schema has this session-update variant (newer ones get their helpers
        only where they exist)."""
        return any(variant.tag == tag for variant in self.protocol.update_variants)

    def update_class(self, tag: str) -> str:
        for variant in self.protocol.update_variants:
            if variant.tag == tag:
                return variant.class_name
        raise KeyError(f"no session update variant {tag!r}")

    def params_class(self, method: str) -> str:
        return self._method(method).params

    def result_class(self, method: str) -> str:
        result = self._method(method).result
        if result is None:
            raise KeyError(f"{method} has no result")
        return result

    def variant_class(self, class_name: str, wire_name: str, tag: str) -> str:
        """The class of the `tag` branch of the tagged union a field holds."""
        node = self._field(class_name, wire_name)
        names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        for union in self.protocol.unions:
            if union.name in names:
                for variant in union.known:
                    if variant.tag == tag:
                        return variant.class_name
        raise KeyError(f"{class_name}.{wire_name} holds no union with a {tag!r} branch")

    def _method(self, name: str) -> Method:
        for method in self.protocol.methods:
            if method.name == name and method.kind == "request":
                return method
        raise KeyError(f"no request method {name!r}")

    # -- types ----------------------------------------------------------------------------------

    def fields(self, class_name: str, *exclude: str) -> list[TypedField]:
        """The fields of a model as TypedDict items (open enums as their known values)."""
        skip = (self.tag_field, *exclude)
        return [
            TypedField(f.wire_name, self._source(f.annotation), f.required)
            for f in self.info.fields(class_name, skip)
        ]

    def ftype(self, class_name: str, wire_name: str, *, known: bool = True) -> str:
        """The type of one field."""
        return self._source(self._field(class_name, wire_name), known=known)

    def item_type(self, class_name: str, wire_name: str) -> str:
        """The element type of a list field (`list[X] | None` -> X)."""
        node = self._field(class_name, wire_name)
        for member in _members(node):
            if (
                isinstance(member, ast.Subscript)
                and isinstance(member.value, ast.Name)
                and member.value.id == "list"
            ):
                return self._source(member.slice)
        raise KeyError(f"{class_name}.{wire_name} is not a list")

    def open_enums(self) -> list[tuple[str, tuple[str, ...]]]:
        """(alias name, known values) of every open enum, sorted."""
        return [(KNOWN_VALUES.format(n), v) for n, v in sorted(self.info.open_enums.items())]

    def _field(self, class_name: str, wire_name: str) -> ast.expr:
        for f in self.info.fields(class_name):
            if f.wire_name == wire_name:
                return f.annotation
        raise KeyError(f"{class_name} has no field {wire_name!r}")

    def _source(self, node: ast.expr, *, known: bool = True) -> str:
        return type_source(node, self.info, known_enums=KNOWN_VALUES if known else None)


def _members(node: ast.expr) -> list[ast.expr]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _members(node.left) + _members(node.right)
    return [node]
