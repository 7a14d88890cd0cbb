"""The tolerant-reading marks of a schema: which properties carry upstream's
`x-deserialize-*` keywords, per class (a `$defs` name, or the title of a tagged-union branch)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

DEFAULT_ON_ERROR = "x-deserialize-default-on-error"
SKIP_INVALID_ITEMS = "x-deserialize-skip-invalid-items"
DEFAULT_ON_NULL = "x-deserialize-default-on-null"

# (class name, wire field, default on error, skip invalid items, default on null)
Marks = tuple[tuple[str, str, bool, bool, bool], ...]


def read_marks(defs: Mapping[str, Any]) -> Marks:
    """Every marked property of the schema's definitions and titled union branches."""

    def objects() -> Iterator[tuple[str, Mapping[str, Any]]]:
        for name, definition in defs.items():
            if not isinstance(definition, dict):
                continue
            yield name, definition
            for branch in definition.get("anyOf") or definition.get("oneOf") or ():
                if isinstance(branch, dict) and isinstance(branch.get("title"), str):
                    yield branch["title"], branch

    found = []
    for class_name, node in objects():
        properties = node.get("properties")
        if not isinstance(properties, dict):
            continue
        for field, schema in properties.items():
            if not isinstance(schema, dict):
                continue
            default, skip, null = (
                schema.get(DEFAULT_ON_ERROR) is True,
                schema.get(SKIP_INVALID_ITEMS) is True,
                schema.get(DEFAULT_ON_NULL) is True,
            )
            if default or skip or null:
                found.append((class_name, field, default, skip, null))
    return tuple(sorted(found))
