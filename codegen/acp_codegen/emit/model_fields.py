"""Field facts of the generated models, read back from `models.py` itself.

The typed facade (TypedDicts for helper keyword arguments, snapshot TypedDicts) must use exactly
the types the models declare. datamodel-code-generator already turned the schema into those type
expressions, so we parse its output with `ast` instead of translating the schema a second time.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from .black_layout import py_literal

# Names models.py may use in annotations that are not its own (typing and builtins).
_PASSTHROUGH = {"Any", "Literal", "None", "str", "int", "float", "bool", "dict", "list"}


@dataclass(frozen=True, slots=True)
class ModelField:
    wire_name: str
    annotation: ast.expr  # the declared type, `| MISSING` and `Annotated` metadata removed
    required: bool
    python_name: str = ""  # the attribute name (differs from wire_name where an alias is set)
    description: str | None = None  # the `Field(description=...)` text, as the schema gave it


@dataclass(frozen=True, slots=True)
class ModelInfo:
    """What the generated models module declares: classes (fields in order, bases first),
    type aliases, and the known values of open string enums."""

    classes: dict[str, tuple[ModelField, ...]]
    aliases: dict[str, ast.expr]
    open_enums: dict[str, tuple[str, ...]]

    def fields(self, class_name: str, exclude: tuple[str, ...] = ()) -> tuple[ModelField, ...]:
        if class_name not in self.classes:
            raise KeyError(f"no generated model class {class_name!r}")
        return tuple(f for f in self.classes[class_name] if f.wire_name not in exclude)

    def is_model(self, name: str) -> bool:
        return name in self.classes or name in self.aliases


def _strip_annotated(node: ast.expr) -> ast.expr:
    """`Annotated[X, ...]` -> X, at any depth. Builds new nodes where something is stripped and
    shares the rest: nothing downstream changes a node in place (every transformer copies
    first), and a copy per annotation was most of the time spent reading the models."""
    if isinstance(node, ast.Subscript):
        if isinstance(node.value, ast.Name) and node.value.id == "Annotated":
            first = node.slice.elts[0] if isinstance(node.slice, ast.Tuple) else node.slice
            return _strip_annotated(first)
        inner = _strip_annotated(node.slice)
        return node if inner is node.slice else ast.Subscript(node.value, inner, node.ctx)
    if isinstance(node, ast.Tuple | ast.List):
        items = [_strip_annotated(item) for item in node.elts]
        if all(new is old for new, old in zip(items, node.elts, strict=True)):
            return node
        return type(node)(items, node.ctx)
    if isinstance(node, ast.BinOp):
        left, right = _strip_annotated(node.left), _strip_annotated(node.right)
        if left is node.left and right is node.right:
            return node
        return ast.BinOp(left, node.op, right)
    return node


def _union_members(node: ast.expr) -> list[ast.expr]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _union_members(node.left) + _union_members(node.right)
    return [node]


def _union_of(members: list[ast.expr]) -> ast.expr:
    result = members[0]
    for member in members[1:]:
        result = ast.BinOp(left=result, op=ast.BitOr(), right=member)
    return result


def _without_missing(node: ast.expr) -> ast.expr:
    members = [
        m for m in _union_members(node) if not (isinstance(m, ast.Name) and m.id == "MISSING")
    ]
    return _union_of(members)


def _field_of(statement: ast.AnnAssign) -> ModelField | None:
    if not isinstance(statement.target, ast.Name) or statement.target.id == "model_config":
        return None
    name = statement.target.id
    annotation = statement.annotation
    wire_name = name
    description: str | None = None
    if (
        isinstance(annotation, ast.Subscript)
        and isinstance(annotation.value, ast.Name)
        and annotation.value.id == "Annotated"
        and isinstance(annotation.slice, ast.Tuple)
    ):
        for meta in annotation.slice.elts[1:]:
            if isinstance(meta, ast.Call):
                for keyword in meta.keywords:
                    if keyword.arg == "alias" and isinstance(keyword.value, ast.Constant):
                        wire_name = str(keyword.value.value)
                    if keyword.arg == "description" and isinstance(keyword.value, ast.Constant):
                        description = str(keyword.value.value)
    return ModelField(
        wire_name=wire_name,
        annotation=_without_missing(_strip_annotated(annotation)),
        required=statement.value is None,
        python_name=name,
        description=description,
    )


def _open_enum_values(expr: ast.expr) -> tuple[str, ...] | None:
    """Known values of `Literal["a"] | Literal["b"] | str`, else None."""
    members = _union_members(expr)
    values: list[str] = []
    has_str = False
    for member in members:
        if isinstance(member, ast.Name) and member.id == "str":
            has_str = True
        elif (
            isinstance(member, ast.Subscript)
            and isinstance(member.value, ast.Name)
            and member.value.id == "Literal"
            and isinstance(member.slice, ast.Constant)
            and isinstance(member.slice.value, str)
        ):
            values.append(member.slice.value)
        else:
            return None
    return tuple(values) if has_str and values else None


@lru_cache(maxsize=2)
def models_tree(source: str) -> ast.Module:
    """A generated models.py parsed, once per source: `read_models` and the reference read it,
    and nothing changes it (`rebuilt` makes new nodes)."""
    return ast.parse(source)


@lru_cache(maxsize=2)
def read_models(source: str) -> ModelInfo:
    """The facts of a generated models.py (once per source: a render reads it for the typed
    surface, the facade and the reference; callers only read what it returns)."""
    tree = models_tree(source)
    classes: dict[str, tuple[ModelField, ...]] = {}
    aliases: dict[str, ast.expr] = {}
    open_enums: dict[str, tuple[str, ...]] = {}
    for statement in tree.body:
        if isinstance(statement, ast.ClassDef):
            inherited: list[ModelField] = []
            for base in statement.bases:
                if isinstance(base, ast.Name) and base.id in classes:
                    inherited.extend(classes[base.id])
            own = [f for s in statement.body if isinstance(s, ast.AnnAssign) if (f := _field_of(s))]
            names = {f.wire_name for f in own}
            classes[statement.name] = tuple(
                [f for f in inherited if f.wire_name not in names] + own
            )
        elif (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
            and isinstance(statement.value, ast.Call)
            and isinstance(statement.value.func, ast.Name)
            and statement.value.func.id == "TypeAliasType"
            and len(statement.value.args) == 2
        ):
            name = statement.targets[0].id
            expr = _strip_annotated(statement.value.args[1])
            aliases[name] = expr
            values = _open_enum_values(expr)
            if values is not None:
                open_enums[name] = values
    return ModelInfo(classes, aliases, open_enums)


def type_source(
    node: ast.expr,
    info: ModelInfo,
    *,
    module: str = "models",
    known_enums: str | None = None,
    local: frozenset[str] = frozenset(),
) -> str:
    """A type expression for use outside models.py: model names qualified with `module.`;
    with `known_enums` (a format such as "{}Value"), open enums become the alias of their
    known values so a misspelt value is a type error. `local` names are left as they are."""

    def qualified(leaf: ast.AST) -> ast.AST | None:
        if isinstance(leaf, ast.Constant) and isinstance(leaf.value, str):
            # A name node prints as its text: the string as black writes it (double quotes).
            return ast.Name(id=py_literal(leaf.value), ctx=ast.Load())
        if not isinstance(leaf, ast.Name):
            return None
        if known_enums is not None and leaf.id in info.open_enums:
            return ast.Name(id=known_enums.format(leaf.id), ctx=ast.Load())
        if info.is_model(leaf.id):
            return ast.Attribute(
                value=ast.Name(id=module, ctx=ast.Load()), attr=leaf.id, ctx=ast.Load()
            )
        if leaf.id not in _PASSTHROUGH and leaf.id not in local:
            raise ValueError(f"unexpected name {leaf.id!r} in a model annotation")
        return leaf

    return ast.unparse(rebuilt(node, qualified))


def rebuilt(node: ast.AST, swap: Callable[[ast.AST], ast.AST | None]) -> ast.AST:
    """`node` with each node `swap` answers for (not None) replaced by its answer. `node`
    itself is never changed: what holds a replaced node is built anew, the rest is shared (the
    parsed models are read by every caller; copying them through `unparse` and `parse` was a
    third of the typed surface's time)."""
    swapped = swap(node)
    if swapped is not None:
        return swapped
    changed: dict[str, object] = {}
    for field, value in ast.iter_fields(node):
        if isinstance(value, ast.AST):
            new = rebuilt(value, swap)
            if new is not value:
                changed[field] = new
        elif isinstance(value, list):
            items = [rebuilt(v, swap) if isinstance(v, ast.AST) else v for v in value]
            if any(a is not b for a, b in zip(items, value, strict=True)):
                changed[field] = items
    if not changed:
        return node
    return type(node)(**{**dict(ast.iter_fields(node)), **changed})


def enums_used(node: ast.expr, info: ModelInfo) -> set[str]:
    """Open enum aliases named directly in `node`."""
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and n.id in info.open_enums}
