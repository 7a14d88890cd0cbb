"""The protocol reference (`PROTOCOL.md`) of a generated package: what the template shows.

Built from the IR and from the generated `models.py` (read back by `model_fields`), so every
type is shown as the Python type a user of the package sees. Text is kept raw here; the template
escapes it through the filters in `markdown.py`, except the merge-rule sentences, which are
built here from escaped pieces (`*_md` fields).
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, replace
from typing import Any

import jinja2

from ..model.ir import KNOWN_SIDES, MergeRule, Method, Protocol
from .markdown import Anchors, code, prose
from .merge_text import merge_sentence, stored_as
from .model_fields import ModelField, ModelInfo, models_tree, read_models

TEMPLATE = "PROTOCOL.md.j2"


@dataclass(frozen=True, slots=True)
class TypeRef:
    name: str
    anchor: str | None  # None: not a type of this package (no section to link to)


@dataclass(frozen=True, slots=True)
class FieldDoc:
    python_name: str
    wire_name: str
    type: str  # Python type expression as models.py declares it (without `MISSING`)
    required: bool
    three_state: bool
    description: str | None
    constant: Any = None  # a required single-value field (a union tag): its value


@dataclass(frozen=True, slots=True)
class MethodDoc:
    anchor: str
    name: str
    side: str
    kind: str
    handler: str
    handled_by: str  # where the handler lives, in words (raw text with Python names)
    served_by_runtime: bool
    params: TypeRef
    result: TypeRef | None
    description: str | None
    params_fields: tuple[FieldDoc, ...] | None  # None: the params type is not a model class
    result_fields: tuple[FieldDoc, ...] | None
    params_union: TypeDoc | None  # the params type when it is a tagged union
    result_union: TypeDoc | None
    unstable: bool = False  # from the unstable overlay (`--unstable`)


@dataclass(frozen=True, slots=True)
class UpdateDoc:
    anchor: str
    tag: str
    type: TypeRef
    entity: str | None
    op: str | None
    rule_md: str  # Markdown sentence (escaped pieces)
    description: str | None


@dataclass(frozen=True, slots=True)
class VariantDoc:
    tag: str | None
    type: TypeRef
    fallback: bool


@dataclass(frozen=True, slots=True)
class TypeDoc:
    anchor: str
    name: str
    kind: str  # "model" | "union" | "open enum" | "enum" | "alias"
    description: str | None
    fields: tuple[FieldDoc, ...] = ()
    values: tuple[str, ...] = ()  # enum values as shown (JSON for non-strings)
    discriminator: str | None = None
    variants: tuple[VariantDoc, ...] = ()
    alias_of: str | None = None
    open_as: str | None = None  # open enums: the Python type any other value has
    used_by: tuple[TypeRef, ...] = ()  # types whose declarations name this one
    extends: tuple[TypeRef, ...] = ()  # model base classes of this package (fields inherited)


@dataclass(frozen=True, slots=True)
class EntityDoc:
    name: str
    stored_as_md: str
    updates: tuple[UpdateDoc, ...]


@dataclass(frozen=True, slots=True)
class Reference:
    protocol: Protocol
    methods: tuple[MethodDoc, ...]
    updates: tuple[UpdateDoc, ...]
    update_union: TypeRef | None
    entities: tuple[EntityDoc, ...]
    types: tuple[TypeDoc, ...]
    runtime_served: tuple[MethodDoc, ...]


class _Models:
    """models.py facts the reference needs beyond `ModelInfo`: class bases and docstrings."""

    def __init__(self, source: str, schema_defs: dict[str, Any]) -> None:
        self.info: ModelInfo = read_models(source)
        self.bases: dict[str, tuple[str, ...]] = {}
        self.docstrings: dict[str, str | None] = {}
        for node in models_tree(source).body:
            if isinstance(node, ast.ClassDef):
                self.bases[node.name] = tuple(b.id for b in node.bases if isinstance(b, ast.Name))
                self.docstrings[node.name] = ast.get_docstring(node)
        self.defs = schema_defs

    def description(self, name: str) -> str | None:
        """The type's own description, else the nearest base class's (a union branch built on
        a shared payload has none of its own)."""
        for cls in self.lineage(name):
            schema = self.defs.get(cls)
            text = schema.get("description") if isinstance(schema, dict) else None
            if isinstance(text, str) and text:
                return text
            if self.docstrings.get(cls):
                return self.docstrings[cls]
        return None

    def wire_required(self, name: str, wire: str) -> bool:
        """`wire` is in the `required` list of the class or of a base it inherits from."""
        for cls in self.lineage(name):
            schema = self.defs.get(cls)
            required = schema.get("required") if isinstance(schema, dict) else None
            if isinstance(required, list) and wire in required:
                return True
        return False

    def lineage(self, name: str) -> list[str]:
        out = [name]
        for base in self.bases.get(name, ()):
            out += self.lineage(base)
        return out


def _field_doc(
    field: ModelField, owner: str, models: _Models, tristate: set[tuple[str, str]]
) -> FieldDoc:
    annotation = field.annotation
    # A tag has a default in Python (its constant) but is always on the wire: the schema's
    # `required` says what the wire needs.
    on_wire = field.required or models.wire_required(owner, field.wire_name)
    tag = (
        annotation.slice
        if isinstance(annotation, ast.Subscript) and _is_literal(annotation)
        else None
    )
    return FieldDoc(
        python_name=field.python_name or field.wire_name,
        wire_name=field.wire_name,
        type=ast.unparse(annotation),
        required=on_wire,
        three_state=any((cls, field.wire_name) in tristate for cls in models.lineage(owner)),
        description=field.description,
        constant=tag.value if isinstance(tag, ast.Constant) and on_wire else None,
    )


def _is_literal(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Name)
        and node.value.id == "Literal"
        and not isinstance(node.slice, ast.Tuple)
    )


def _handled_by(protocol: Protocol, method: Method) -> tuple[str, bool]:
    """Where the handler lives (raw text) and whether the runtime serves the method itself."""
    if method.side == "agent" and method not in protocol.author_handlers("agent"):
        return "the runtime's session lifecycle (no handler to write)", True
    if method.side == "agent":
        return f"Agent.{method.handler}", False
    if method.side == "client":
        return f"Client.{method.handler}", False
    if method.side == "protocol":
        return "the connection (no handler to write)", True
    if method.side == "both" or method.side not in KNOWN_SIDES:
        return f"Agent.{method.handler} and Client.{method.handler}", False
    return method.handler, False


def _enum_values(expr: ast.expr) -> tuple[tuple[str, ...], str | None] | None:
    """Values of `Literal[a] | Literal[b] | ...` and the open base type (`str`, `int`) that
    may follow them (an open enum), else None."""
    members: list[ast.expr] = []
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            stack += [node.right, node.left]
        else:
            members.append(node)
    values = []
    open_as: str | None = None
    for member in members:
        if isinstance(member, ast.Name) and member.id in ("str", "int") and open_as is None:
            open_as = member.id
            continue
        if not (
            isinstance(member, ast.Subscript)
            and isinstance(member.value, ast.Name)
            and member.value.id == "Literal"
        ):
            return None
        items = member.slice.elts if isinstance(member.slice, ast.Tuple) else [member.slice]
        for item in items:
            try:  # a constant, or a negative number (`-32700` is a unary minus)
                value = ast.literal_eval(item)
            except ValueError:
                return None
            values.append(value if isinstance(value, str) else json.dumps(value))
    return (tuple(values), open_as) if values else None


class _Builder:
    def __init__(self, protocol: Protocol, models_source: str) -> None:
        self.p = protocol
        self.models = _Models(models_source, protocol.model_schema.get("$defs") or {})
        self.anchors = Anchors()
        self.tristate = set(protocol.tristate_fields)
        self.unions = {u.name: u for u in protocol.unions}
        names = set(self.models.info.classes) | set(self.models.info.aliases)
        self.type_names = sorted(names)
        # Anchors in document order: methods, updates, then types.
        for method in protocol.methods:
            self.anchors.get("method", method.name, method.kind)
        for variant in protocol.update_variants:
            self.anchors.get("update", variant.tag)
        for name in self.type_names:
            self.anchors.get("type", name)

    def ref(self, name: str) -> TypeRef:
        known = name in self.models.info.classes or name in self.models.info.aliases
        return TypeRef(name, self.anchors.get("type", name) if known else None)

    def fields(self, name: str) -> tuple[FieldDoc, ...] | None:
        if name not in self.models.info.classes:
            return None
        return tuple(
            _field_doc(f, name, self.models, self.tristate) for f in self.models.info.fields(name)
        )

    def method(self, m: Method) -> MethodDoc:
        handled_by, served = _handled_by(self.p, m)
        return MethodDoc(
            anchor=self.anchors.get("method", m.name, m.kind),
            name=m.name,
            side=m.side,
            kind=m.kind,
            handler=m.handler,
            handled_by=handled_by,
            served_by_runtime=served,
            params=self.ref(m.params),
            result=self.ref(m.result) if m.result else None,
            description=self.models.description(m.params),
            params_fields=self.fields(m.params),
            result_fields=self.fields(m.result) if m.result else None,
            params_union=self.union_doc(m.params),
            result_union=self.union_doc(m.result) if m.result else None,
            unstable=m.unstable,
        )

    def union_doc(self, name: str) -> TypeDoc | None:
        return self.type_doc(name) if name in self.unions else None

    def update(self, tag: str, class_name: str, rule: MergeRule | None) -> UpdateDoc:
        return UpdateDoc(
            anchor=self.anchors.get("update", tag),
            tag=tag,
            type=self.ref(class_name),
            entity=rule.entity if rule else None,
            op=rule.op if rule else None,
            rule_md=merge_sentence(rule),
            description=self.models.description(class_name),
        )

    def used_by(self) -> dict[str, tuple[TypeRef, ...]]:
        """For each type, the types and unions whose declarations name it (sorted)."""
        users: dict[str, set[str]] = {}
        info = self.models.info
        for owner, fields in info.classes.items():
            for f in fields:
                for node in ast.walk(f.annotation):
                    if isinstance(node, ast.Name) and node.id != owner:
                        users.setdefault(node.id, set()).add(owner)
        for owner, expr in info.aliases.items():
            for node in ast.walk(expr):
                if isinstance(node, ast.Name) and node.id != owner:
                    users.setdefault(node.id, set()).add(owner)
        for union in self.unions.values():
            for v in union.variants:
                users.setdefault(v.class_name, set()).add(union.name)
        return {name: tuple(self.ref(u) for u in sorted(found)) for name, found in users.items()}

    def type_doc(self, name: str) -> TypeDoc:
        anchor = self.anchors.get("type", name)
        description = self.models.description(name)
        info = self.models.info
        if name in info.classes:
            bases = tuple(self.ref(b) for b in self.models.bases.get(name, ()) if b in info.classes)
            fields = self.fields(name) or ()
            return TypeDoc(anchor, name, "model", description, fields=fields, extends=bases)
        if name in self.unions:
            union = self.unions[name]
            variants = tuple(
                VariantDoc(v.tag, self.ref(v.class_name), v.fallback) for v in union.variants
            )
            return TypeDoc(
                anchor, name, "union", description, discriminator=union.tag, variants=variants
            )
        expr = info.aliases[name]
        enum = _enum_values(expr)
        if enum is not None:
            values, open_as = enum
            kind = "enum" if open_as is None else "open enum"
            return TypeDoc(anchor, name, kind, description, values=values, open_as=open_as)
        return TypeDoc(anchor, name, "alias", description, alias_of=ast.unparse(expr))

    def build(self) -> Reference:
        methods = tuple(self.method(m) for m in self.p.methods)
        updates = tuple(self.update(v.tag, v.class_name, v.merge) for v in self.p.update_variants)
        users = self.used_by()
        entities: dict[str, list[UpdateDoc]] = {}
        for doc in updates:
            if doc.entity is not None:
                entities.setdefault(doc.entity, []).append(doc)
        return Reference(
            protocol=self.p,
            methods=methods,
            updates=updates,
            update_union=self.ref(self.p.update_union) if self.p.update_union else None,
            entities=tuple(
                EntityDoc(name, stored_as(name), tuple(docs)) for name, docs in entities.items()
            ),
            types=tuple(
                replace(self.type_doc(n), used_by=users.get(n, ())) for n in self.type_names
            ),
            runtime_served=tuple(m for m in methods if m.served_by_runtime),
        )


def build_reference(protocol: Protocol, models_source: str) -> Reference:
    return _Builder(protocol, models_source).build()


def markdown_filters(env: jinja2.Environment) -> None:
    """The escaping filters `PROTOCOL.md.j2` uses (see markdown.py)."""
    env.filters["md"] = prose
    env.filters["md_cell"] = lambda text: prose(text, cell=True)
    env.filters["code"] = code
    env.filters["code_cell"] = lambda text: code(text, cell=True)


def render_reference(env: jinja2.Environment, protocol: Protocol, models_source: str) -> str:
    reference = build_reference(protocol, models_source)
    page = env.get_template(TEMPLATE).render(r=reference, p=protocol)
    # Blocks are separated by one blank line; schema text is single-line, so this only tidies
    # the template's own spacing.
    return re.sub(r"\n{3,}", "\n\n", page)
