"""Checks that every name the schema hands to generated code becomes one distinct identifier.

datamodel-code-generator turns property names into snake_case field names and titles into
class names. Where two names land on the same identifier it renames one (`foo_bar_1`,
`Thing1`) and a keyword title becomes a different type (`class` -> `Class`): silent changes a
schema author never asked for. These checks refuse them up front, with a pointer.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Any

from datamodel_code_generator import PythonVersion
from datamodel_code_generator.model.field_name import (
    PYDANTIC_BASE_MODEL_ATTRIBUTES,
    PydanticFieldNameResolver,
)

from ..model.errors import Problem, SchemaError, pointer
from ..model.lower import lower
from ..model.naming import RESERVED_HANDLER_NAMES, is_class_name, snake
from .schema_walk import subschemas

# The aliases dcg.py passes to datamodel-code-generator (its `aliases` option), besides the
# schema's own `protected_fields`.
FIELD_ALIASES = {"_meta": "meta"}
# pydantic's default `protected_namespaces`: it warns at class creation (so at every import of
# the models) about a field whose name starts with one, even one that shadows nothing such as
# `model_dump_`, which is what datamodel-code-generator makes of a property `model_dump`.
PROTECTED_NAMESPACES = ("model_validate", "model_dump")


@cache
def _resolver() -> PydanticFieldNameResolver:
    return PydanticFieldNameResolver(
        aliases=FIELD_ALIASES, snake_case_field=True, target_python_version=PythonVersion.PY_311
    )


def python_field_name(wire_name: str) -> str:
    """The attribute name the generated model gives the property `wire_name`: what
    datamodel-code-generator makes of it, with `field_` before a name in pydantic's protected
    namespaces (`model_dump` -> `field_model_dump`, `modelValidateX` -> `field_model_validate_x`),
    the prefix it uses itself for names that cannot be fields."""
    name = _datamodel_name(wire_name)
    if not name.startswith(PROTECTED_NAMESPACES):
        return name
    # the `_` datamodel-code-generator adds to a BaseModel attribute is not needed after `field_`
    unshadowed = name[:-1] if name[:-1] in PYDANTIC_BASE_MODEL_ATTRIBUTES else name
    return f"field_{unshadowed}"


def protected_fields(doc: dict[str, Any]) -> dict[str, str]:
    """The properties anywhere in `doc` whose field `python_field_name` moves out of pydantic's
    protected namespaces, as datamodel-code-generator's `aliases` option takes them."""
    wires = {
        wire
        for _path, schema in subschemas(doc)
        if isinstance(props := schema.get("properties"), dict)
        for wire in props
        if isinstance(wire, str)
    }
    return {
        wire: python_field_name(wire)
        for wire in sorted(wires)
        if python_field_name(wire) != _datamodel_name(wire)
    }


def _datamodel_name(wire_name: str) -> str:
    """What datamodel-code-generator alone names the field for the property `wire_name`."""
    name, _alias = _resolver().get_valid_field_name_and_alias(wire_name)
    return name


def field_names(doc: dict[str, Any], file: str) -> Iterator[Problem]:
    """Within one object, distinct property names must give distinct plain-ASCII fields."""
    for path, schema in subschemas(doc):
        props = schema.get("properties")
        if isinstance(props, dict):
            yield from _distinct_fields(props, (*path, "properties"), True, file)


def merged_field_names(doc: dict[str, Any], file: str) -> Iterator[Problem]:
    """The same for the classes lowering builds by merging a union branch with its payload and
    the union's shared properties (reported at the union)."""
    defs = doc.get("$defs")
    if not isinstance(defs, dict):
        return
    try:
        lowered = lower(defs, file)
    except (SchemaError, KeyError, TypeError, AttributeError, IndexError):
        return  # the union itself is reported by validate.py, or the parse step
    for union in lowered.unions:
        for variant in union.variants:
            merged = lowered.defs.get(variant.class_name)
            if not isinstance(merged, dict):
                continue
            props = merged.get("properties")
            if isinstance(props, dict):
                yield from _distinct_fields(props, ("$defs", union.name), False, file)


def _distinct_fields(
    props: dict[str, Any], base: tuple[str | int, ...], per_property: bool, file: str
) -> Iterator[Problem]:
    """Problems located at `base`, or at each property below it when `per_property`."""
    seen: dict[str, str] = {}
    for wire in props:
        at = pointer(*base, wire) if per_property else pointer(*base)
        field = python_field_name(wire)
        if not field.isascii():
            msg = f"property {wire!r} gives the non-ASCII Python field name {field!r}"
            yield Problem(file, at, msg)
        elif field in seen:  # (ASCII names: no NFKC folding by Python can merge two of them)
            msg = f"property {wire!r} and property {seen[field]!r} both become the Python field"
            yield Problem(file, at, f"{msg} {field!r}")
        else:
            seen[field] = wire


def titles(doc: dict[str, Any], file: str) -> Iterator[Problem]:
    """A title names a generated type: it must be a usable class name and name one type only."""
    defs = doc.get("$defs")
    if not isinstance(defs, dict):
        return
    named: dict[str, str] = {name: pointer("$defs", name) for name in defs}
    for path, schema in subschemas(doc):
        title = schema.get("title")
        if not isinstance(title, str):
            continue
        at = pointer(*path, "title")
        if len(path) == 2:  # a `$defs` entry: its name is the class name
            if title != path[1] and not title[:1].isupper():
                # (validate.py already reports capitalised titles that differ)
                yield Problem(file, at, f"title {title!r} would rename the type {path[1]!r}")
            continue
        if len(path) >= 2 and path[-2] in ("anyOf", "oneOf"):
            continue  # union branches are named by unions.py / lower.py, others stay inline
        if not is_class_name(title):
            yield Problem(file, at, f"title {title!r} cannot name a generated class")
        elif title in named:
            yield Problem(file, at, f"title {title!r} names another type too (at {named[title]})")
        else:
            named[title] = at


def handler_names(doc: dict[str, Any], file: str) -> Iterator[Problem]:
    """A method's handler must not replace a member the generated classes define themselves."""
    table = doc.get("x-methods")
    rows = table if isinstance(table, list) else []
    found = [
        (pointer("x-methods", i, "method"), row["method"])
        for i, row in enumerate(rows)
        if isinstance(row, dict) and isinstance(row.get("method"), str)
    ]
    if not isinstance(table, list) and isinstance(doc.get("$defs"), dict):
        found += [
            (pointer("$defs", name, "x-method"), schema["x-method"])
            for name, schema in doc["$defs"].items()
            if isinstance(schema, dict) and isinstance(schema.get("x-method"), str)
        ]
    for at, method in found:
        handler = snake(method)
        if handler in RESERVED_HANDLER_NAMES:
            msg = f"method {method!r} gives the handler name {handler!r}, a name the generated "
            msg += "classes use for themselves"
            yield Problem(file, at, msg)
