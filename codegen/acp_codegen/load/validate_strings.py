"""Strings the generated models hand to pydantic as they are: property names (the aliases) and
`enum` and `const` values (Literals, union tags).

JSON may carry a lone surrogate (`"\\ud800"`), but pydantic-core keeps strings as UTF-8, which
cannot: a model with one in an alias or a Literal fails to build at its first use, so every
message of that type would fail. Refused up front, with a pointer. Descriptions and defaults may
carry one (docstrings show it as an escape, see naming.surrogates_named).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..model.errors import Problem, pointer
from ..model.naming import LONE_SURROGATE
from .schema_walk import subschemas

WHY = "pydantic cannot hold a lone surrogate, so the model would fail at its first use"


def lone_surrogates(doc: dict[str, Any], file: str) -> Iterator[Problem]:
    for path, schema in subschemas(doc):
        props = schema.get("properties")
        for wire in props if isinstance(props, dict) else ():
            if isinstance(wire, str) and LONE_SURROGATE.search(wire):
                at = pointer(*path, "properties", wire)
                yield Problem(file, at, f"property name {wire!r} holds a lone surrogate: {WHY}")
        values = schema.get("enum")
        listed = list(enumerate(values)) if isinstance(values, list) else []
        for index, value in listed:
            if isinstance(value, str) and LONE_SURROGATE.search(value):
                at = pointer(*path, "enum", index)
                yield Problem(file, at, f"enum value {value!r} holds a lone surrogate: {WHY}")
        const = schema.get("const")
        if isinstance(const, str) and LONE_SURROGATE.search(const):
            at = pointer(*path, "const")
            yield Problem(file, at, f"const value {const!r} holds a lone surrogate: {WHY}")
